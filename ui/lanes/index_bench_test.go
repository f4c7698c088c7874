package lanes

import (
	"fmt"
	"testing"
)

// BenchmarkLanesIndex measures indexing a whole stream of n events for
// the lanes pane, per event.
func BenchmarkLanesIndex(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			s := newSession(synthStream(n))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				x := newLaneIndex(s)
				x.extend(n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
		})
	}
}
