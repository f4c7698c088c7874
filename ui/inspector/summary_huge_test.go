package inspector

import (
	"runtime"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/ui/plain"
)

// TestSummaryOfHugeDeltaCopiesLittle summarises 4 MiB deltas (the
// timeline does for the selected row on every frame): the summary shows
// the first bytes, and making it must not copy the rest (a copy would
// allocate four times the bound; 20 MB proved no more and cost 5 times
// as much).
func TestSummaryOfHugeDeltaCopiesLittle(t *testing.T) {
	for _, sh := range []hugeShape{hugeShapes[1], hugeShapes[2]} {
		s := newSession(sh.build(sizeChunks))
		ev := s.Events.At(sh.ev)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := plain.Summary(s, ev, sh.ev, nil)
		runtime.ReadMemStats(&after)
		if !strings.Contains(got, `+"`) || !strings.HasSuffix(got, `…"`) {
			t.Errorf("%s: Summary = %q; want the fragment's start, cut short", sh.name, got)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s: Summary allocated %d bytes; want well under the fragment's 4 MiB", sh.name, n)
		}
	}
}
