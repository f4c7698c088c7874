package keys

import (
	"strings"

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
// the enabled bindings of list, as many as fit. Widths are measured on
// the plain text and only what fits is styled: the help line is drawn on
// every frame.
func ShortHelp(st *theme.Styles, list []key.Binding, w int) string {
	const sepText = " · "
	var b strings.Builder
	used := 0
	for _, kb := range list {
		if !kb.Enabled() {
			continue
		}
		h := kb.Help()
		need := ansi.StringWidth(h.Key) + 1 + ansi.StringWidth(h.Desc)
		if used > 0 {
			need += ansi.StringWidth(sepText)
		}
		if used+need > w {
			break
		}
		if used > 0 {
			b.WriteString(st.Subtle.Render(sepText))
		}
		b.WriteString(st.Help.Key.Render(h.Key) + " " + st.Help.Desc.Render(h.Desc))
		used += need
	}
	return cell.Fit(b.String(), w)
}
