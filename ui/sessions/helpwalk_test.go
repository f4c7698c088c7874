package sessions

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/ui/internal/uitest"
	"github.com/streamtap/streamtap/ui/keys"
)

// TestHelpWalk presses every key the full help lists on the sessions
// list (the middle session selected) and in a session opened from it,
// and fails on one that does nothing there or one listed twice with two
// meanings.
func TestHelpWalk(t *testing.T) {
	for _, c := range []struct {
		name   string
		lesson bool
		keys   []string
	}{
		{"sessions list", false, []string{"g", "j"}},
		{"sessions list, --lesson", true, []string{"g", "j"}},
		{"a session opened", false, []string{"g", "enter"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			uitest.WalkHelp(t, uitest.HelpPage{Name: c.name, Fresh: func(t *testing.T) (tea.Model, *keys.Map) {
				m := sessionsModel(t, 120, 40)
				if c.lesson {
					m = NewSessions(Options{Checks: fakeChecks, LessonMode: true})
					m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				}
				m.Update(Sessions(proxyBatch(t)))
				press(m, c.keys...)
				if m.list.cur != nil {
					m.insp.SelectEvent(27) // between findings: e and E both go somewhere
				}
				return m, &m.Keys
			}})
		})
	}
}
