package inspector

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestHelpScrollsWhenTaller: at 60×15 the full help is taller than the
// screen: it says there is more below, and j/G scroll down to the last
// keys (q quit), which did not show before.
func TestHelpScrollsWhenTaller(t *testing.T) {
	m := goldenModel(t, 60, 15)
	press(m, "?")
	first := plainView(m)
	if strings.Contains(first, "quit") {
		t.Fatalf("the test wants a help taller than 60×15:\n%s", first)
	}
	if !strings.Contains(first, "more below") {
		t.Errorf("the help should say there is more below:\n%s", first)
	}
	golden.RequireEqual(t, first)
	press(m, "j")
	if plainView(m) == first {
		t.Errorf("j should scroll the help")
	}
	press(m, "G")
	last := plainView(m)
	if !strings.Contains(last, "quit") || !strings.Contains(last, "more above") || strings.Contains(last, "more below") {
		t.Errorf("G should scroll to the end of the help, q quit in view:\n%s", last)
	}
	press(m, "esc")
	press(m, "?")
	if plainView(m) != first {
		t.Errorf("the help should open at its top again")
	}
}

// TestTabsKeepNamesBesideAPosition: when the side pane shows a position
// (the raw view's line) and the tabs do not fit whole beside it, the
// other tabs keep the start of their names rather than their numbers
// alone.
func TestTabsKeepNamesBesideAPosition(t *testing.T) {
	m := goldenModel(t, 120, 30)
	press(m, "2", "r")
	title := m.insp.sideTitle()
	for _, want := range []string{"2 detail (raw)", "3 call", "4 diff", "5 find", "6 lane", "line 1/"} {
		if !strings.Contains(title, want) {
			t.Errorf("the side title lost %q: %q", want, title)
		}
	}
}
