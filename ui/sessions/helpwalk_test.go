package sessions

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/internal/uitest"
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
		{"sessions list, one marked", false, []string{"g", "m", "j"}},
		{"the diff page of two marked", false, []string{"g", "m", "G", "m", "d", "j", "j", "j"}},
		{"the diff page of two marked, a side open", false, []string{"g", "m", "G", "m", "d", "j", "j", "j", "enter"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			uitest.WalkHelp(t, uitest.HelpPage{Name: c.name, Fresh: func(t *testing.T) (tea.Model, *app.Env) {
				m := sessionsModel(t, 120, 40)
				if c.lesson {
					m = NewSessions(Options{Checks: fakeChecks, LessonMode: true})
					m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				}
				m.list.NewDiff = pairDiff
				m.Update(Sessions(proxyBatch(t)))
				pressRun(m, c.keys...)
				if strings.Contains(c.name, "diff page") && m.list.diff == nil {
					t.Fatalf("%s: d opened no diff page", c.name)
				}
				if m.list.cur != nil {
					m.insp.SelectEvent(27) // between findings: e and E both go somewhere
				}
				return m, m.Env
			}})
		})
	}
}

// TestLessonOpensAtFirstEvent: with --lesson, a session opened from the
// list, even one still streaming, is a lesson from its #0, not its tail.
func TestLessonOpensAtFirstEvent(t *testing.T) {
	m := NewSessions(Options{Checks: fakeChecks, LessonMode: true})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m.Update(Sessions(proxyBatch(t)))
	press(m, "g", "j", "enter") // the second turn, still streaming
	if got := m.insp.Selected(); got != 0 || sideName(m) != "calls" {
		t.Errorf("the session opened at #%d with %s beside; want #0 with the calls", got, sideName(m))
	}
	press(m, "space")
	if got := m.insp.Selected(); got != 1 {
		t.Errorf("space in the lesson went to #%d; want #1", got)
	}
}
