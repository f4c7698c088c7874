package diffview

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model/streamdiff"
)

// The page draws the same screen whatever came first: the terminal's size,
// or stream B and the comparison. On a loaded machine the program can read
// and compare two samples before the first WindowSizeMsg arrives; the
// sides were then put at the first difference while they had no height,
// which scrolled B's selection to its top where a sized page keeps its
// first rows in view (TestDocScreens once drew B from #3, not #0).
func TestSameScreenWhateverCameFirst(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 40}, {60, 16}} {
		sizedFirst := newDiffModel(t, diffOfficial, diffGateway, size[0], size[1])

		sa, recA := diffSideOf(t, diffOfficial)
		m := NewDiff(sa, recA, Options{Source: "sample " + diffOfficial, Checks: StrictChecks},
			Config{B: "sample b", Compare: streamdiff.DefaultOptions()})
		_, cmd := m.Update(sideRead(t, diffGateway))
		drain(t, m, cmd)
		if m.dv.view == nil {
			t.Fatal("the page did not compare the streams once both were read")
		}
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		if got, want := plainView(m), plainView(sizedFirst); got != want {
			t.Errorf("%dx%d, sized after the comparison:\n%s\nsized before it:\n%s", size[0], size[1], got, want)
		}
	}
}
