package diffview

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/internal/uitest"
)

// TestHelpWalk presses every key the full help lists on the diff page
// (the selection inside both streams) and fails on one that does nothing
// there — the inspector's /, :N, x, w — or one listed twice with two
// meanings (tab, n, enter). In a side's inspector the inspector's own
// keys are walked.
func TestHelpWalk(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
	}{
		{"diff page", []string{"j", "j", "j", "j"}},
		{"a side's inspector", []string{"j", "j", "j", "j", "enter"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			uitest.WalkHelp(t, uitest.HelpPage{Name: c.name, Fresh: func(t *testing.T) (tea.Model, *app.Env) {
				m := newDiffModel(t, diffOfficial, diffGateway, 120, 40)
				pressDrain(t, m, c.keys...)
				return m, m.Env
			}})
		})
	}
}

// TestDiffGoto: :5⏎ on the diff page goes to event 5 of the active side,
// the other side linked, and stays on the page (before, : did nothing
// and ⏎ opened A's inspector); a number past the end is said; esc
// cancels.
func TestDiffGoto(t *testing.T) {
	m := newDiffModel(t, diffOfficial, diffGateway, 120, 40)
	pressDrain(t, m, ":", "5", "enter")
	if got := sel(m); got[0] != 5 || m.dv.opened() != nil {
		t.Fatalf(":5⏎ on the page: selection %v, opened %v; want A#5 on the page", got, m.dv.opened() != nil)
	}
	want, _ := m.dv.view.links.Counterpart(0, 5)
	if got := sel(m); got[1] != want {
		t.Errorf("B should follow A#5 to B#%d: %v", want, got)
	}
	pressDrain(t, m, "tab", ":", "9", "9")
	m.Update(keyMsg("enter")) // its command is the notice's fade: a 4 s wait, not drained
	if v := plainView(m); !strings.Contains(v, "B: no event 99: events are numbered 0 to 8") {
		t.Errorf(":99 on B should say B has no event 99:\n%s", v)
	}
	pressDrain(t, m, ":", "2", "esc")
	if got := sel(m); got[1] != want || m.dv.gotoPrompt.Active() {
		t.Errorf("esc should cancel :2: %v", got)
	}
}
