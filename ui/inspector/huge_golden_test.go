package inspector

import (
	"fmt"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// hugeGoldenCases put a model over a big event into one state of the
// detail or the calls pane.
var hugeGoldenCases = []struct {
	name  string
	data  func() []byte
	setup func(m *Model, w, h int)
}{
	// The first screen of a 20 MB event, before its read has run.
	{"detail-reading", doneArgs20M, func(m *Model, w, h int) { resize(m, w, h); m.Update(keyMsg("2")) }},
	{"detail-end", doneArgs20M, func(m *Model, w, h int) { resize(m, w, h); pressAll(m, "2", "G") }},
	{"detail-raw", doneArgs20M, func(m *Model, w, h int) { resize(m, w, h); pressAll(m, "2", "r") }},
	{"detail-raw-end", doneArgs20M, func(m *Model, w, h int) { resize(m, w, h); pressAll(m, "2", "r", "G") }},
	// Data cut short: the note says where it stops being JSON.
	{"detail-cut-short", func() []byte { return hugeShapes[3].build(size1M1) }, func(m *Model, w, h int) { resize(m, w, h); pressAll(m, "2") }},
	// The first screen of 20 MB arguments, before any index command ran.
	{"calls-indexing", doneArgs20M, func(m *Model, w, h int) { m.Update(tea.WindowSizeMsg{Width: w, Height: h}) }},
	{"calls", doneArgs20M, func(m *Model, w, h int) { resize(m, w, h); pressAll(m, "3") }},
	{"calls-end", doneArgs20M, func(m *Model, w, h int) { resize(m, w, h); pressAll(m, "3", "G", "G") }},
	// A delta that added a small fragment amid 4 MB of arguments.
	{"calls-fragment", func() []byte { return bigDeltaStream(bigSize / 2) }, func(m *Model, w, h int) {
		resize(m, w, h)
		m.insp.tl.SelectOrd(2)
		pressAll(m, "3")
	}},
	// The diffs pane over a 20 MB output_item.done: before the comparison
	// has run, and after.
	{"diffs-comparing", snapshots20M, func(m *Model, w, h int) { resize(m, w, h); m.insp.tl.SelectOrd(2); m.Update(keyMsg("4")) }},
	{"diffs", snapshots20M, func(m *Model, w, h int) { resize(m, w, h); m.insp.tl.SelectOrd(2); pressAll(m, "4") }},
}

// snapshots20M and doneArgs20M are made once per test process and
// shared (read only) by the goldens that draw them: making one cost as
// much as drawing it.
var (
	snapshots20M = sync.OnceValue(func() []byte { return snapshotPair(size20M) })
	doneArgs20M  = sync.OnceValue(func() []byte { return hugeShapes[0].build(size20M) })
)

// TestHugeGolden renders the detail and calls panes over big events at
// 80×24 and 120×40, the 120×40 views with their styling.
func TestHugeGolden(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("20 MB goldens skipped under -short")
	}
	for _, gc := range hugeGoldenCases {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s_%dx%d", gc.name, size[0], size[1]), func(t *testing.T) {
				t.Parallel()
				m := newProgram(newSession(gc.data()), Options{Source: "huge"})
				gc.setup(m, size[0], size[1])
				out := viewOf(m)
				checkFits(t, out, size[0], size[1])
				if size[0] != 120 {
					out = ansi.Strip(out)
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}
