package keys

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/theme"
)

// NavDelta is how far a navigation key moves in a pane page lines tall:
// a line, half a page, a page, or to either end (±1<<30, which each pane
// clamps). ok is false for any other key.
func NavDelta(k *Map, msg tea.KeyPressMsg, page int) (delta int, ok bool) {
	n := &k.Nav
	page = max(page, 1)
	switch {
	case key.Matches(msg, n.Up):
		return -1, true
	case key.Matches(msg, n.Down):
		return 1, true
	case key.Matches(msg, n.HalfUp):
		return -page / 2, true
	case key.Matches(msg, n.HalfDown):
		return page / 2, true
	case key.Matches(msg, n.PageUp):
		return -page, true
	case key.Matches(msg, n.PageDown):
		return page, true
	case key.Matches(msg, n.Top):
		return -1 << 30, true
	case key.Matches(msg, n.Bottom):
		return 1 << 30, true
	}
	return 0, false
}

// ShortHelp renders the one-line contextual help, w cells wide:
// the enabled bindings of list, as many as fit.
func ShortHelp(st *theme.Styles, list []key.Binding, w int) string {
	var parts []string
	for _, b := range list {
		if !b.Enabled() {
			continue
		}
		h := b.Help()
		parts = append(parts, st.Help.Key.Render(h.Key)+" "+st.Help.Desc.Render(h.Desc))
	}
	line := ""
	sep := st.Subtle.Render(" · ")
	for i, p := range parts {
		next := p
		if i > 0 {
			next = sep + p
		}
		if ansi.StringWidth(line+next) > w {
			break
		}
		line += next
	}
	return cell.Fit(line, w)
}
