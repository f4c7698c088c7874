package inspector

import (
	"testing"
)

// TestPanesHugeFieldsCheap: over a stream whose tool name, id, model,
// status, error code or message, or event type is a 4 MB string, a key and
// the frame after it allocate well under that size in the timeline and in
// every side pane: each takes a few hundred bytes of such text (safeLabel)
// and fit cuts a line to what w cells can hold before measuring it. A
// frame used to make the whole string safe and measure it several times
// per row: 0.3–1.2 s per key. Allocation, not time, is what the test
// counts, so that it does not depend on the machine.
func TestPanesHugeFieldsCheap(t *testing.T) {
	skipHugeFieldsUnderShort(t)
	const size = 4 << 20
	for _, field := range []string{"name", "id", "model", "status", "code", "message", "type"} {
		t.Run(field, func(t *testing.T) {
			m := newProgram(newSession(hugeFieldStream(field, size)), Options{Source: "huge " + field, Checks: StrictChecks})
			resize(m, 160, 48)
			for _, pane := range []string{"1", "2", "3", "4", "5", lanesKey} {
				pressAll(m, pane, "g") // the pane's first frame may index in the background
				_ = m.View()           // and read the outcome, once
				for ord := range m.insp.s.Len() {
					if got := allocatedBy(func() { m.Update(keyMsg("j")); _ = m.View() }); got > size/8 {
						t.Errorf("pane %s: j to event %d and its frame allocated %d bytes; want under %d", pane, ord+1, got, size/8)
					}
				}
				checkFits(t, viewOf(m), 160, 48)
			}
		})
	}
}
