package uitest

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/ui/app"
)

// HelpPage is one page as the help walk drives it: fresh makes the
// program showing the page in the state to walk (the selection away from
// either end, so that every move has somewhere to go), with its Env,
// whose key map the help is made from.
type HelpPage struct {
	Name  string
	Fresh func(t *testing.T) (tea.Model, *app.Env)
}

// WalkHelp holds a page's full help to what works there: every key the
// help lists (? on that page) is pressed on a fresh program, and one of
// its keys at least must change the screen or start a command (a quit, a
// copy, a read); a key listed twice with two meanings fails too.
func WalkHelp(t *testing.T, p HelpPage) {
	t.Helper()
	m, env := p.Fresh(t)
	_ = ViewOf(m) // the keys are set as the page is drawn
	if helpKeyActs(t, p, []string{"Z"}) {
		t.Fatalf("%s: Z, bound to nothing, changes the screen or starts a command: the walk cannot tell a key that works", p.Name)
	}
	listed := env.Keys.FullHelp()
	meaning := map[string]string{}
	for _, g := range listed {
		for _, b := range g.Bindings {
			for _, k := range b.Keys() {
				desc := b.Help().Desc
				if prev, ok := meaning[k]; ok && prev != desc {
					t.Errorf("%s: the help lists %q twice: %q and %q", p.Name, k, prev, desc)
				}
				meaning[k] = desc
			}
		}
	}
	for _, g := range listed {
		for _, b := range g.Bindings {
			if !helpKeyActs(t, p, b.Keys()) {
				t.Errorf("%s: the help lists %s %q (%s), which does nothing there", p.Name, b.Help().Key, b.Help().Desc, g.Name)
			}
		}
	}
}

// helpKeyActs reports whether one of ks, pressed on a fresh program,
// changes its screen or starts a command.
func helpKeyActs(t *testing.T, p HelpPage, ks []string) bool {
	for _, k := range ks {
		if strings.Contains(k, "+") && k != "+" && !slices.Contains([]string{"shift+tab", "ctrl+u", "ctrl+d", "ctrl+c", "ctrl+k"}, k) {
			continue // a chord KeyMsg cannot spell; the binding's other keys speak for it
		}
		m, _ := p.Fresh(t)
		before := ViewOf(m)
		_, cmd := m.Update(KeyMsg(k))
		if cmd != nil || ViewOf(m) != before {
			return true
		}
	}
	return false
}
