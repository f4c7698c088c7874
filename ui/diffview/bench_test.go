package diffview

import (
	"bytes"
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// BenchmarkViewDiffPage measures one frame of the diff page while the
// selection moves a row down and up in A (B's selection follows through
// the links), on two streams of n events that differ in one argument
// fragment: the key-to-frame work, with the comparison done.
func BenchmarkViewDiffPage(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			a := synthStream(n)
			edited := bytes.Replace(a, []byte(`"delta":"abc7 "`), []byte(`"delta":"abd7 "`), 1)
			m := newDiffModelOf(b, a, edited, 160, 48)
			for range n / 2 / 1000 {
				m.Update(keyMsg("pgdown"))
			}
			keys := [2]tea.Msg{keyMsg("j"), keyMsg("k")}
			i := 0
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				m.Update(keys[i%2])
				_ = m.View()
				i++
			}
		})
	}
}

// BenchmarkDiffSearch measures the search of one side of n events, the
// whole side as an ended side is searched off the event loop
// (scan=whole), and one chunk of searchChunk events as a live side is
// searched on the loop per message (scan=chunk), beside one frame of the
// page (frame), the baseline that makes the numbers comparable on a
// noisy machine: a chunk should cost a few frames, whatever n.
func BenchmarkDiffSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		a := synthStream(n)
		edited := bytes.Replace(a, []byte(`"delta":"abc7 "`), []byte(`"delta":"abd7 "`), 1)
		m := newDiffModelOf(b, a, edited, 160, 48)
		s := m.dv.side[0].s
		b.Run(fmt.Sprintf("events=%d/frame", n), func(b *testing.B) {
			keys := [2]tea.Msg{keyMsg("j"), keyMsg("k")}
			i := 0
			for b.Loop() {
				m.Update(keys[i%2])
				_ = m.View()
				i++
			}
		})
		for _, scan := range []struct {
			name string
			to   int
		}{{"chunk", searchChunk}, {"whole", s.Len()}} {
			b.Run(fmt.Sprintf("events=%d/scan=%s", n, scan.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					// A word in no event: every event is read and
					// summarised.
					newRowMatcher(s, "celsius").scan(&s.Events, 0, scan.to)
				}
			})
		}
	}
}
