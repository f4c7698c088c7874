package inspector

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/internal/uitest"
)

// TestHelpWalk presses every key the full help lists on the inspector,
// with each of its panes focused and in lesson mode, and fails on one
// that does nothing there or one listed twice with two meanings.
func TestHelpWalk(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
	}{
		{"timeline", nil},
		// Each pane scrolled a little, so that up and down both have
		// somewhere to go.
		{"detail", []string{"2", "x", "j", "j"}},
		{"calls", []string{"3", "j", "j"}},
		{"diffs", []string{"4", "j", "j"}},
		{"findings", []string{"5", "j"}},
		{"lanes", []string{"6"}},
		{"lesson", []string{"L"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			uitest.WalkHelp(t, uitest.HelpPage{Name: "inspector, " + c.name, Fresh: func(t *testing.T) (tea.Model, *app.Env) {
				// 80×24: each pane has more than it shows, so that its
				// scrolling keys have somewhere to go.
				m := goldenModel(t, 80, 24)
				m.insp.tl.SelectOrd(27)
				press(m, c.keys...)
				m.insp.tl.SelectOrd(27)
				return m, m.Env
			}})
		})
	}
}
