package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// frameOf frames one SSE event whose data is {"i":N}, in a buffer the
// caller may scribble over afterwards.
func frameOf(i int, buf []byte) (capture.Frame, []byte) {
	buf = fmt.Appendf(buf[:0], "data: {\"i\":%d}\n\n", i)
	return capture.Frame{Kind: capture.FrameEvent, Start: int64(i), Raw: buf, Data: buf[6 : len(buf)-2], HasData: true, Retry: -1}, buf
}

// consume takes every batch of p and returns the frames' Raw and Data in
// order, and the number of batches.
func consume(t *testing.T, p *Pump) (raws, datas []string, batches int) {
	t.Helper()
	s := model.NewSession(model.Options{})
	for {
		b, ok := p.Next(t.Context())
		if !ok {
			return raws, datas, batches
		}
		batches++
		_ = s.AddBatch(b, func(_ *model.Event, _ int, f *capture.Frame) error {
			raws = append(raws, string(f.Raw))
			datas = append(datas, string(f.Data))
			return nil
		})
		p.Release(b)
	}
}

// TestPumpCopiesFramesAndRaw: frames arrive in order with their bytes,
// Raw included with KeepRaw, although the producer reuses its buffer.
func TestPumpCopiesFramesAndRaw(t *testing.T) {
	for _, keepRaw := range []bool{false, true} {
		p := New(Options{KeepRaw: keepRaw})
		const n = 5000
		go func() {
			var buf []byte
			for i := range n {
				var f capture.Frame
				f, buf = frameOf(i, buf)
				if err := p.Frame(&f); err != nil {
					t.Error(err)
				}
				copy(buf, bytes.Repeat([]byte("X"), len(buf))) // the framer reuses its buffer
				if i%100 == 99 {
					p.EndRead()
				}
			}
			p.Close(nil)
		}()
		raws, datas, batches := consume(t, p)
		if len(datas) != n {
			t.Fatalf("keepRaw=%v: %d frames; want %d", keepRaw, len(datas), n)
		}
		for i := range n {
			wantData := fmt.Sprintf(`{"i":%d}`, i)
			wantRaw := ""
			if keepRaw {
				wantRaw = "data: " + wantData + "\n\n"
			}
			if datas[i] != wantData || raws[i] != wantRaw {
				t.Fatalf("keepRaw=%v: frame %d = %q %q; want %q %q", keepRaw, i, datas[i], raws[i], wantData, wantRaw)
			}
		}
		if batches > n/100 {
			t.Errorf("keepRaw=%v: %d batches for %d reads", keepRaw, batches, n/100)
		}
	}
}

// TestPumpQuietStreamIsPrompt: on a stream that pauses after each event,
// every event is handed over while the producer waits, with and without
// an Interval.
func TestPumpQuietStreamIsPrompt(t *testing.T) {
	for _, interval := range []time.Duration{0, 20 * time.Millisecond} {
		p := New(Options{Interval: interval, Due: 256})
		got := make(chan int, 10)
		go func() {
			for {
				b, ok := p.Next(context.Background())
				if !ok {
					close(got)
					return
				}
				got <- b.Len()
				p.Release(b)
			}
		}()
		var buf []byte
		for i := range 3 {
			var f capture.Frame
			f, buf = frameOf(i, buf)
			if err := p.Frame(&f); err != nil {
				t.Fatal(err)
			}
			p.EndRead()
			select {
			case n := <-got:
				if n != 1 {
					t.Errorf("interval %v: a batch of %d frames; want 1", interval, n)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("interval %v: event %d not handed over while the stream waits", interval, i)
			}
		}
		p.Close(nil)
		for range got {
		}
	}
}

// TestPumpIntervalGathersReads: with an Interval, many quick small reads
// reach a busy consumer in few batches, and a batch of Due frames does
// not wait for the Interval.
func TestPumpIntervalGathersReads(t *testing.T) {
	p := New(Options{Interval: time.Hour, Due: 50})
	go func() {
		var buf []byte
		for i := range 500 {
			var f capture.Frame
			f, buf = frameOf(i, buf)
			if err := p.Frame(&f); err != nil {
				t.Error(err)
			}
			p.EndRead()
		}
		p.Close(nil)
	}()
	_, datas, batches := consume(t, p) // an hour-long Interval: only Due and Close hand over
	if len(datas) != 500 || batches > 500/50+1 {
		t.Errorf("%d frames in %d batches; want 500 in at most %d", len(datas), batches, 500/50+1)
	}
}

// TestPumpMaxFramesSplitsARead: one read with more than MaxFrames frames
// arrives in batches of at most MaxFrames.
func TestPumpMaxFramesSplitsARead(t *testing.T) {
	p := New(Options{MaxFrames: 100})
	sizes := make(chan int, 100)
	go func() {
		for {
			b, ok := p.Next(context.Background())
			if !ok {
				close(sizes)
				return
			}
			sizes <- b.Len()
			p.Release(b)
		}
	}()
	var buf []byte
	for i := range 1000 {
		var f capture.Frame
		f, buf = frameOf(i, buf)
		if err := p.Frame(&f); err != nil {
			t.Fatal(err)
		}
	}
	p.EndRead()
	p.Close(nil)
	total := 0
	for n := range sizes {
		if n > 100 {
			t.Errorf("a batch of %d frames; MaxFrames is 100", n)
		}
		total += n
	}
	if total != 1000 {
		t.Errorf("%d frames; want 1000", total)
	}
}

// TestPumpBackPressureAndStop: a consumer that takes nothing holds the
// producer back once every batch is out; Stop lets it go with ErrStopped.
func TestPumpBackPressureAndStop(t *testing.T) {
	p := New(Options{MaxFrames: 1, Batches: 2})
	done := make(chan error, 1)
	produced := make(chan int, 100)
	go func() {
		var buf []byte
		for i := range 100 {
			var f capture.Frame
			f, buf = frameOf(i, buf)
			if err := p.Frame(&f); err != nil {
				done <- err
				return
			}
			produced <- i
		}
		done <- nil
	}()
	time.Sleep(50 * time.Millisecond) // let the producer run into the wall
	if n := len(produced); n > 2 {
		t.Errorf("the producer got %d frames ahead of a consumer that took none; want at most 2", n)
	}
	p.Stop()
	select {
	case err := <-done:
		if !errors.Is(err, ErrStopped) {
			t.Errorf("Frame after Stop = %v; want ErrStopped", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not release the waiting producer")
	}
}

// TestPumpLendsHugeFrames: a frame over LendAbove is not copied, and
// Frame returns only once the consumer released it.
func TestPumpLendsHugeFrames(t *testing.T) {
	p := New(Options{KeepRaw: true})
	raw := []byte("data: \"" + strings.Repeat("x", LendAbove) + "\"\n\n")
	f := capture.Frame{Kind: capture.FrameEvent, Raw: raw, Data: raw[6 : len(raw)-2], HasData: true, Retry: -1}
	returned := make(chan struct{})
	go func() {
		if err := p.Frame(&f); err != nil {
			t.Error(err)
		}
		close(returned)
		p.Close(nil)
	}()
	b, ok := p.Next(t.Context())
	if !ok || !b.Borrowed() {
		t.Fatalf("Next = %v, borrowed %v; want the lent frame", ok, ok && b.Borrowed())
	}
	select {
	case <-returned:
		t.Fatal("Frame returned before the consumer released the lent frame")
	case <-time.After(20 * time.Millisecond):
	}
	p.Release(b)
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("Frame did not return after Release")
	}
	if _, ok := p.Next(t.Context()); ok {
		t.Error("a batch after the lent one; want the end")
	}
}

// TestPumpCloseKeepsError: Close hands over what is left; Next then
// says the end, and Err tells why.
func TestPumpCloseKeepsError(t *testing.T) {
	p := New(Options{})
	var f capture.Frame
	f, _ = frameOf(1, nil)
	if err := p.Frame(&f); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	p.Close(boom)
	if b, ok := p.Next(t.Context()); !ok || b.Len() != 1 {
		t.Fatalf("Next after Close = %v; want the last frame", ok)
	} else {
		p.Release(b)
	}
	if _, ok := p.Next(t.Context()); ok {
		t.Error("Next after the last batch = true; want false")
	}
	if !errors.Is(p.Err(), boom) {
		t.Errorf("Err = %v; want %v", p.Err(), boom)
	}
}

// TestPumpWaitsGiveWayToStop: each wait of the producer (for a free
// batch, for the release of a lent frame, for the consumer to take the
// last read's batch) ends with Stop while the consumer holds what it
// took and never releases it, and a release after Stop does not wait.
func TestPumpWaitsGiveWayToStop(t *testing.T) {
	huge := []byte("data: \"" + strings.Repeat("x", 300) + "\"\n\n")
	lentFrame := capture.Frame{Kind: capture.FrameEvent, Raw: huge, Data: huge[6 : len(huge)-2], HasData: true, Retry: -1}
	waits := []struct {
		name string
		o    Options
		wait func(p *Pump) error // runs until it waits on the consumer
	}{
		{"a free batch", Options{MaxFrames: 1, Batches: 1}, func(p *Pump) error {
			for i := 0; ; i++ {
				f, _ := frameOf(i, nil)
				if err := p.Frame(&f); err != nil {
					return err
				}
			}
		}},
		{"a lent frame's release", Options{lendAbove: 100}, func(p *Pump) error { return p.Frame(&lentFrame) }},
		{"a take", Options{Batches: 3}, func(p *Pump) error {
			for i := 0; ; i++ {
				f, _ := frameOf(i, nil)
				if err := p.Frame(&f); err != nil {
					return err
				}
				p.EndRead() // the second waits: the consumer has not taken the first
			}
		}},
	}
	for _, w := range waits {
		p := New(w.o)
		done := make(chan error, 1)
		go func() { done <- w.wait(p) }()
		b, _ := p.Next(t.Context()) // held, never released before Stop
		select {
		case err := <-done:
			t.Fatalf("%s: the producer did not wait for the consumer: %v", w.name, err)
		case <-time.After(20 * time.Millisecond):
		}
		p.Stop()
		select {
		case err := <-done:
			if !errors.Is(err, ErrStopped) {
				t.Errorf("%s: the producer's wait ended with %v; want ErrStopped", w.name, err)
			}
		case <-time.After(5 * time.Second): // liveness bound, not a speed target
			t.Fatalf("%s: Stop did not end the producer's wait", w.name)
		}
		released := make(chan struct{})
		go func() { p.Release(b); close(released) }()
		select {
		case <-released:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Release after Stop waits", w.name)
		}
	}
}

// TestPumpReportsStalls: a wait that lasts is reported with the side,
// what it waits for and the pump's state, again later while it lasts,
// and no more once it ended.
func TestPumpReportsStalls(t *testing.T) {
	reports := make(chan string, 100)
	huge := []byte("data: \"" + strings.Repeat("x", 300) + "\"\n\n")
	f := capture.Frame{Kind: capture.FrameEvent, Raw: huge, Data: huge[6 : len(huge)-2], HasData: true, Retry: -1}
	p := New(Options{lendAbove: 100, stall: func(s string) { reports <- s }, stallAfter: 10 * time.Millisecond})
	done := make(chan error, 1)
	go func() { done <- p.Frame(&f) }()
	b, _ := p.Next(t.Context())
	for range 2 { // the first report, then the next after twice as long
		select {
		case r := <-reports:
			if !strings.Contains(r, "producer waits for the consumer to release a lent frame for ") ||
				!strings.Contains(r, "batches: 2 free of 3, 0 ready") {
				t.Errorf("report %q; want the producer's wait for the release and the batches", r)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no report of a wait that lasts")
		}
	}
	p.Release(b)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for len(reports) > 0 { // made while it still waited
		<-reports
	}
	time.Sleep(50 * time.Millisecond)
	for len(reports) > 0 {
		if r := <-reports; strings.Contains(r, "producer") {
			t.Errorf("a report after the wait ended: %q", r)
		}
	}
	go func() { _, _ = p.Next(t.Context()) }() // the consumer waits for a producer that is reading
	select {
	case r := <-reports:
		if !strings.Contains(r, "consumer waits for a batch") || !strings.Contains(r, "producer last ended a read never") {
			t.Errorf("report %q; want the consumer's wait and when the producer last ended a read", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no report of the consumer's wait")
	}
	p.Close(nil)
}
