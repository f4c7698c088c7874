package diffview

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/ui/internal/uitest"
	"github.com/streamtap/streamtap/ui/keys"
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
			uitest.WalkHelp(t, uitest.HelpPage{Name: c.name, Fresh: func(t *testing.T) (tea.Model, *keys.Map) {
				m := newDiffModel(t, diffOfficial, diffGateway, 120, 40)
				pressDrain(t, m, c.keys...)
				return m, &m.Keys
			}})
		})
	}
}
