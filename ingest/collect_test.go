package ingest

import (
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// A frame of CollectAbove or more is modelled beside the framer's buffer
// that holds it and nothing else the framer outgrew on its way: the
// hand-over collects first, on one goroutine or two. The commands' heap
// limit followed the heap that held the framer's last two buffers while
// it copied one into the other, so the model's copies of a 50 MB frame
// were allocated beside the framer's old 32 MiB: calls --json on a 50 MB
// event peaked at 129 MiB, 107 MiB with the collection. Here, with the
// collector left off but for the hand-over's own collections, the heap
// holds a 20 MB frame's buffer (32 MiB) when the frame is modelled, and
// not the 16, 8, 4 … MiB it grew from. Not parallel: it measures the
// process's heap and turns the collector off.
func TestBigFrameModelledBesideItsBufferOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: it frames a 20 MB event; the full suite runs it")
	}
	stream := "data: {\"type\":\"response.output_text.delta\",\"delta\":\"" + strings.Repeat("x", 20_000_000) + "\"}\n\n"
	for _, pipelined := range []bool{false, true} {
		src := capture.FromReader("test", capture.SourceFile, strings.NewReader(stream), false)
		s := model.NewSession(model.Options{})
		runtime.GC()
		gcPercent := debug.SetGCPercent(-1)
		limit := debug.SetMemoryLimit(math.MaxInt64)
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		before, held := m.HeapAlloc, uint64(0)
		err := Session(t.Context(), src, capture.ReadOptions{}, s, nil,
			func(_ *model.Event, _ int, f *capture.Frame) error {
				if len(f.Raw) >= CollectAbove {
					runtime.ReadMemStats(&m)
					held = m.HeapAlloc - before
				}
				return nil
			}, false, pipelined)
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(limit)
		if err != nil || held == 0 {
			t.Fatalf("pipelined=%v: Session = %v; the big frame modelled: %v", pipelined, err, held > 0)
		}
		if budget := uint64(32<<20 + 8<<20); held > budget {
			t.Errorf("pipelined=%v: the heap held %d MiB when a frame of 20 MB was modelled; want its buffer (32 MiB) and little more (at most %d MiB)",
				pipelined, held>>20, budget>>20)
		}
	}
}
