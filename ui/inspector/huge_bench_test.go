package inspector

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// firstFrameSizes are the payload sizes of the first-frame benchmarks.
var firstFrameSizes = []struct {
	name string
	n    int
}{{"1KiB", 1 << 10}, {"1MiB", 1 << 20}, {"20MB", size20M}, {"50MB", size50M}}

// smallThenBig is a stream of a small event and then one output_item.done
// whose arguments are a string of n bytes.
func smallThenBig(n int) []byte {
	var b bytes.Buffer
	sseEvent(&b, "response.created", `{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}`)
	b.Write(hugeShapes[0].build(n))
	return b.Bytes()
}

// benchFirstFrame measures the time from selecting the big event (a key
// press moving the selection onto it, with pane shown beside the
// timeline) to the first View string: what a user waits for. The work the
// key starts off the event loop (reading the event whole, indexing) is
// not run; the frame must not need it.
func benchFirstFrame(b *testing.B, pane string) {
	for _, sz := range firstFrameSizes {
		b.Run("size="+sz.name, func(b *testing.B) {
			s := newSession(smallThenBig(sz.n))
			down := keyMsg("j")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				m := newProgram(s, Options{Source: "bench"})
				m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				press(m, pane, "1") // show the pane, focus the timeline
				_ = m.View()
				b.StartTimer()
				m.Update(down)
				_ = m.View()
			}
		})
	}
}

// BenchmarkDetailFirstFrame is the first frame of the detail pane after
// selecting an event of 1 KiB to 50 MB.
func BenchmarkDetailFirstFrame(b *testing.B) { benchFirstFrame(b, "2") }

// BenchmarkCallsFirstFrame is the first frame of the calls pane after
// selecting an event whose arguments are 1 KiB to 50 MB.
func BenchmarkCallsFirstFrame(b *testing.B) { benchFirstFrame(b, "3") }

// BenchmarkDiffsFirstFrame is the first frame of the diffs pane after
// selecting an output_item.done whose snapshot is 1 KiB or 20 MB, against
// its output_item.added: what a user waits for after pressing j.
func BenchmarkDiffsFirstFrame(b *testing.B) {
	for _, sz := range []struct {
		name string
		n    int
	}{{"1KiB", 1 << 10}, {"20MB", size20M}} {
		b.Run("size="+sz.name, func(b *testing.B) {
			s := newSession(snapshotPair(sz.n))
			down := keyMsg("j")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				m := newProgram(s, Options{Source: "bench"})
				m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				m.insp.tl.SelectOrd(1)
				press(m, "4", "1") // show the pane, focus the timeline
				_ = m.View()
				b.StartTimer()
				m.Update(down)
				_ = m.View()
			}
		})
	}
}

// BenchmarkCompareSnapshots is the comparison the diffs pane runs off the
// event loop for a 20 MB output_item.done against its output_item.added:
// how long it says "comparing".
func BenchmarkCompareSnapshots(b *testing.B) {
	s := newSession(snapshotPair(size20M))
	ea, eb := s.Events.At(1), s.Events.At(2)
	b.ReportAllocs()
	for b.Loop() {
		if res := compareSnapshots(s, ea, eb, "item"); len(res.entries) != 2 {
			b.Fatalf("entries = %v", res.entries)
		}
	}
}

// BenchmarkHugeShapesEnd is 2 then G over each big shape of
// TestHugePayloads at 20 and 50 MB: from the keys to a detail pane showing
// the payload's end, the event read and laid out off the event loop; what
// a user waits for. TestHugePayloads checks the same steps at sizes that cross
// every threshold of the panes; this carries the cost of the big ones.
func BenchmarkHugeShapesEnd(b *testing.B) {
	for _, sh := range hugeShapes {
		if !sh.big {
			continue
		}
		for _, n := range []int{size20M, size50M} {
			b.Run(fmt.Sprintf("shape=%s/size=%d", sh.name, n), func(b *testing.B) {
				s := newSession(sh.build(n))
				_, end := markers(n)
				b.SetBytes(int64(n))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					m := newProgram(s, Options{Source: "bench"})
					resize(m, 120, 40)
					m.insp.tl.SelectOrd(sh.ev)
					b.StartTimer()
					_, read := m.Update(keyMsg("2")) // reads the event off the event loop
					_, more := m.Update(keyMsg("G")) // lays it out to its end, off the event loop too
					settle(m, tea.Batch(read, more))
					if !strings.Contains(sideText(m), end) {
						b.Fatalf("G does not show %q", end)
					}
				}
			})
		}
	}
}
