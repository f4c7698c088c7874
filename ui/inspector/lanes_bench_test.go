package inspector

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// BenchmarkViewLanes measures one frame while the selection moves a row
// up or down in the lanes pane, focused beside the timeline (which
// follows): the key-to-frame work, with the index built (as it is once
// its background work is done).
func BenchmarkViewLanes(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			m := benchModel(b, n)
			m.insp.tl.SelectOrd(n / 2)
			pressAll(m, lanesKey)
			_ = m.View()
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
