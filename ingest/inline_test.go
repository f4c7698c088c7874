package ingest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// frameLog is an Observer that keeps a copy of each frame's Raw and Data.
type frameLog struct{ raws, datas []string }

func (l *frameLog) Observe(_ *model.Session, _ int, _ *model.Event, f *capture.Frame) {
	l.raws = append(l.raws, string(f.Raw))
	l.datas = append(l.datas, string(f.Data))
}

// TestInlineAddsEveryFrameInOrder: small frames, frames just under and
// over LendAbove, and a frame of several MiB reach the session in order
// with their bytes (Raw too with keepRaw), although the producer reuses
// its buffer after each Frame, and all on the calling goroutine: a huge
// frame is added before Frame returns (a Pump would wait there forever
// for a Release from this very goroutine).
func TestInlineAddsEveryFrameInOrder(t *testing.T) {
	sizes := []int{1, 10, LendAbove - 40, 5, LendAbove + 1, 3, 3 * LendAbove, 7}
	for _, keepRaw := range []bool{false, true} {
		log := &frameLog{}
		live := model.NewLive(model.NewSession(model.Options{Observer: log}))
		in := NewInline(live, keepRaw)
		var buf []byte
		var want []string
		for i, n := range sizes {
			data := fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, strings.Repeat("p", n))
			want = append(want, data)
			buf = append(append(append(buf[:0], "data: "...), data...), "\n\n"...)
			f := capture.Frame{Kind: capture.FrameEvent, Start: int64(i), Raw: buf, Data: buf[6 : len(buf)-2], HasData: true, Retry: -1}
			in.Frame(&f)
			copy(buf, bytes.Repeat([]byte("X"), len(buf))) // the framer reuses its buffer
			if i%3 == 2 && !in.EndRead() {
				t.Errorf("keepRaw=%v: EndRead after frame %d added nothing", keepRaw, i)
			}
		}
		in.EndRead()
		if in.EndRead() {
			t.Errorf("keepRaw=%v: EndRead with nothing new says it added frames", keepRaw)
		}
		if got := live.Session().Len(); got != len(sizes) || len(log.datas) != len(sizes) {
			t.Fatalf("keepRaw=%v: session has %d events, observer saw %d; want %d", keepRaw, got, len(log.datas), len(sizes))
		}
		for i := range sizes {
			wantRaw := "data: " + want[i] + "\n\n"
			if !keepRaw && len(wantRaw) <= LendAbove {
				wantRaw = "" // copied without Raw; a huge frame is added as it is
			}
			if log.datas[i] != want[i] || log.raws[i] != wantRaw {
				t.Errorf("keepRaw=%v: frame %d: data of %d bytes (equal %v), raw of %d (equal %v)", keepRaw, i,
					len(log.datas[i]), log.datas[i] == want[i], len(log.raws[i]), log.raws[i] == wantRaw)
			}
		}
	}
}

// TestInlineBoundsABatch: a read of many frames is added in pieces of at
// most DefaultMaxFrames frames, so a batch's memory stays bounded however
// much one read brings.
func TestInlineBoundsABatch(t *testing.T) {
	adds := 0
	live := model.NewLive(model.NewSession(model.Options{Observer: observerFunc(func() { adds++ })}))
	in := NewInline(live, false)
	var buf []byte
	for i := range DefaultMaxFrames + 10 {
		var f capture.Frame
		f, buf = frameOf(i, buf)
		in.Frame(&f)
		if i == DefaultMaxFrames-1 && adds != DefaultMaxFrames {
			t.Fatalf("after %d frames in one read, %d were added; want the full batch added", i+1, adds)
		}
	}
	in.EndRead()
	if adds != DefaultMaxFrames+10 {
		t.Fatalf("%d frames added; want %d", adds, DefaultMaxFrames+10)
	}
}

type observerFunc func()

func (f observerFunc) Observe(*model.Session, int, *model.Event, *capture.Frame) { f() }
