package model

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// assembleBatched assembles data as a pipelined reader does: reads of
// chunk bytes, one Batch per read, the frames picked by validate validated
// by the batch and the rest by the session, and Batch memory reused. Each
// frame the session adds is checked against the one the framer emitted.
func assembleBatched(t *testing.T, data []byte, opts Options, chunk int, validate func(i int) bool) *Session {
	t.Helper()
	s := NewSession(opts)
	fr := capture.NewFramer(capture.FormatAuto)
	var spare, b *Batch = &Batch{KeepRaw: true}, &Batch{KeepRaw: true}
	var framed []capture.Frame // detached copies, to compare with what AddBatch hands on
	n := 0
	emit := func(f *capture.Frame) {
		b.Add(f, len(f.Raw) > 64) // borrowing is safe here: the batch is added before the next read
		if validate(n) {
			b.ValidateLast()
		}
		n++
		g := f.Detach()
		g.Raw = bytes.Clone(f.Raw)
		framed = append(framed, g)
	}
	flush := func() {
		err := s.AddBatch(b, func(ev *Event, ord int, f *capture.Frame) error {
			want := &framed[ord]
			if !bytes.Equal(f.Raw, want.Raw) || !bytes.Equal(f.Data, want.Data) || !bytes.Equal(f.Event, want.Event) ||
				f.Start != want.Start || f.End != want.End || f.Kind != want.Kind || f.Flags != want.Flags {
				t.Fatalf("frame %d reached the session as %+v; framed as %+v", ord, f, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if s.idx.Holds() || s.cur != nil {
			t.Fatal("the session holds a batch's bytes after AddBatch")
		}
		b.Reset()
		b, spare = spare, b
	}
	for p := data; len(p) > 0; {
		k := min(chunk, len(p))
		fr.Feed(p[:k], capture.NoTime, emit)
		p = p[k:]
		flush()
	}
	fr.Finish(capture.NoTime, emit)
	flush()
	s.End(nil)
	return s
}

// sameSession fails when two sessions of the same stream differ in any
// event or in their report.
func sameSession(t *testing.T, got, want *Session) {
	t.Helper()
	if got.Len() != want.Len() || got.Events.Len() != want.Events.Len() {
		t.Fatalf("%d events (%d kept); want %d (%d)", got.Len(), got.Events.Len(), want.Len(), want.Events.Len())
	}
	for i := range want.Events.All() {
		if g, w := got.Events.At(i), want.Events.At(i); !reflect.DeepEqual(g, w) {
			t.Fatalf("event %d = %+v; want %+v", i, g, w)
		}
	}
	var g, w bytes.Buffer
	if err := got.WriteReportJSON(&g); err != nil {
		t.Fatal(err)
	}
	if err := want.WriteReportJSON(&w); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g.Bytes(), w.Bytes()) {
		t.Fatalf("report:\n%s\nwant:\n%s", g.Bytes(), w.Bytes())
	}
	if !reflect.DeepEqual(got.Errors, want.Errors) || !reflect.DeepEqual(got.Heads, want.Heads) {
		t.Fatalf("errors %+v, heads %+v; want %+v, %+v", got.Errors, got.Heads, want.Errors, want.Heads)
	}
}

// batchShares are the ways a reader may split validation with the session.
var batchShares = []struct {
	name     string
	validate func(int) bool
}{
	{"batch validates all", func(int) bool { return true }},
	{"session validates all", func(int) bool { return false }},
	{"every other", func(i int) bool { return i%2 == 0 }},
}

func batchMatchesAdd(t *testing.T, data []byte) {
	t.Helper()
	opts := Options{KeepEvents: true}
	want := Assemble(data, capture.FormatAuto, opts)
	for _, share := range batchShares {
		for _, chunk := range []int{7, 4096, len(data) + 1} {
			got := assembleBatched(t, data, opts, chunk, share.validate)
			t.Run(fmt.Sprintf("%s/reads of %d", share.name, chunk), func(t *testing.T) { sameSession(t, got, want) })
		}
	}
}

func TestAddBatchMatchesAdd(t *testing.T) {
	t.Parallel() // reads only its own inputs
	var streams [][]byte
	for _, s := range dialectSeeds {
		streams = append(streams, []byte(s))
	}
	if !testing.Short() { // -short: the seeds and files only, not 64 KiB of each dialect
		for _, dialect := range []string{"responses", "chat", "anthropic"} {
			data, _ := modeltest.GenStream(dialect, 64<<10)
			streams = append(streams, data)
		}
	}
	addFileSeeds(t, func(data []byte) { streams = append(streams, data) })
	for i, data := range streams {
		t.Run(fmt.Sprint(i), func(t *testing.T) { batchMatchesAdd(t, data) })
	}
}

// FuzzAddBatch holds the batched path to Add on any input.
func FuzzAddBatch(f *testing.F) {
	for _, s := range dialectSeeds {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, pattern uint8) {
		opts := Options{KeepEvents: true}
		want := Assemble(data, capture.FormatAuto, opts)
		got := assembleBatched(t, data, opts, 1+int(pattern%13), func(i int) bool { return pattern>>(i%8)&1 == 1 })
		sameSession(t, got, want)
	})
}

func TestAddBatchStopsAtError(t *testing.T) {
	data := []byte(dialectSeeds[0])
	var b Batch
	fr := capture.NewFramer(capture.FormatAuto)
	emit := func(f *capture.Frame) { b.Add(f, false); b.ValidateLast() }
	fr.Feed(data, capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
	s := NewSession(Options{})
	stop := errors.New("stop")
	err := s.AddBatch(&b, func(_ *Event, ord int, _ *capture.Frame) error {
		if ord == 2 {
			return stop
		}
		return nil
	})
	if err != stop || s.Len() != 3 {
		t.Fatalf("AddBatch = %v after %d events; want %v after 3", err, s.Len(), stop)
	}
}

func TestBatchResetLetsGo(t *testing.T) {
	var b Batch
	raw := []byte("data: {\"a\":[1]}\n\n")
	fr := capture.NewFramer(capture.FormatAuto)
	fr.Feed(raw, capture.NoTime, func(f *capture.Frame) {
		b.Add(f, true)
		b.ValidateLast()
		b.Add(f, false)
	})
	if b.Len() != 2 || !b.Borrowed() || b.KeepRaw || b.frames[1].Raw != nil {
		t.Fatalf("batch: %d frames, borrowed %v, second Raw %q", b.Len(), b.Borrowed(), b.frames[1].Raw)
	}
	if !b.scans[0].ok || b.scans[1].ok {
		t.Fatalf("validated %v, %v; want only the first", b.scans[0].ok, b.scans[1].ok)
	}
	frames := b.frames
	b.Reset()
	if b.Len() != 0 || b.Borrowed() || frames[:1][0].Raw != nil || frames[:1][0].Data != nil {
		t.Fatal("Reset kept a borrowed frame's bytes")
	}
}
