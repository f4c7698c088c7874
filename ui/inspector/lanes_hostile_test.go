package inspector

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/ui/plain"
)

// TestLanesHugeFieldsCheap: a frame of the lanes pane costs what its
// cells show, not the size of the stream's strings. With a 4 MB tool
// name, id, model, status, error code or message, or event type, drawing
// the pane (every row selected in turn) allocates well under the size of
// that string: the pane cuts a string to what a lane can show before
// making it safe and measuring it. Allocation, not time, is what the test
// counts, so that it does not depend on the machine.
func TestLanesHugeFieldsCheap(t *testing.T) {
	skipHugeFieldsUnderShort(t)
	const size = 4 << 20
	for _, field := range []string{"name", "id", "model", "status", "code", "message", "type"} {
		t.Run(field, func(t *testing.T) {
			m := newProgram(newSession(hugeFieldStream(field, size)), Options{Source: "huge " + field, Checks: StrictChecks})
			resize(m, 200, 50)
			pressAll(m, lanesKey, "z")
			p := m.insp.lanes
			if n := p.Index().Rows; n < 8 {
				t.Fatalf("the lanes show %d rows; want 8:\n%s", n, lanesText(m))
			}
			p.View(0, true) // index and lay out first
			for ord := range m.insp.s.Len() {
				if got := allocatedBy(func() { p.View(ord, true) }); got > size/8 {
					t.Errorf("a frame with event %d selected allocated %d bytes; want under %d", ord, got, size/8)
				}
			}
			checkFits(t, viewOf(m), 200, 50)
		})
	}
}

// TestIDEnd: idEnd keeps the last idTail runes of an id longer than
// idTail+1 runes, counting an invalid byte as a rune.
func TestIDEnd(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"a", "a"},
		{"abcde", "abcde"},
		{"abcdef", "…cdef"},
		{"é漢字😀xy", "…字😀xy"},
		{"漢字😀xy", "漢字😀xy"},
		{"ab\xff\xfecd", "…\xff\xfecd"},
		{strings.Repeat("x", 1<<20) + "1234", "…1234"},
	} {
		if got := plain.IDEnd(tt.in); got != tt.want {
			t.Errorf("idEnd(%.20q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestEmptyStreamSaysSo: over a stream that ended without an event (an
// empty file, a body that is not SSE), the timeline and the lanes pane
// say there are no events, not that they are waiting for some; over a
// live stream not started yet, they wait. (The diff page's side:
// diffview's TestEmptySideSaysSo.)
func TestEmptyStreamSaysSo(t *testing.T) {
	ended := newTestModel(t, nil, 120, 40)
	pressAll(ended, lanesKey)
	live := liveModel(t, nil, 120, 40)
	pressAll(live, lanesKey)
	for _, tt := range []struct {
		name string
		m    *Model
		want string
		n    int
	}{
		{"ended", ended, "no events", 2},
		{"live", live, "waiting for events…", 2},
	} {
		v := plainView(tt.m)
		if got := strings.Count(v, tt.want); got != tt.n || (tt.want != "waiting for events…" && strings.Contains(v, "waiting for events")) {
			t.Errorf("%s: %q shown %d times; want %d:\n%s", tt.name, tt.want, got, tt.n, v)
		}
	}
}

// TestZoomedHelpSaysUnzoom: zoomed, whichever pane is shown, the help
// line says how to bring both panes back (z), which only the lanes pane's
// help said before; unzoomed, the lanes pane's help still offers z.
func TestZoomedHelpSaysUnzoom(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-parallel-calls"), 160, 30)
	helpLine := func() string {
		lines := strings.Split(plainView(m), "\n")
		return lines[len(lines)-2]
	}
	pressAll(m, lanesKey)
	if h := helpLine(); !strings.Contains(h, "z zoom pane") {
		t.Errorf("the lanes pane's help %q should offer z", h)
	}
	for _, k := range []string{"z", "1", "2", "3", "4", "5", lanesKey} {
		pressAll(m, k)
		if h := helpLine(); !strings.Contains(h, "z unzoom") || strings.Contains(h, "zoom pane") {
			t.Errorf("zoomed, after %s, the help %q should say z unzoom", k, h)
		}
	}
}
