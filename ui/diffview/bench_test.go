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
