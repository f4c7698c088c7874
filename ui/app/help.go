package app

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/ui/cell"
)

// fullHelp renders every binding in columns by category, in w×h.
func (m *Model) fullHelp(w, h int) string {
	st := &m.Styles
	groups := m.Keys.FullHelp()
	var cols [][]string
	for _, g := range groups {
		col := []string{st.Help.Group.Render(g.Name)}
		for _, b := range g.Bindings {
			hb := b.Help()
			line := st.Help.Key.Render(cell.PadRight(hb.Key, 9)) + " " + st.Help.Desc.Render(hb.Desc)
			if !b.Enabled() {
				line = st.Subtle.Render(cell.PadRight(hb.Key, 9) + " " + hb.Desc)
			}
			col = append(col, line)
		}
		cols = append(cols, col)
	}
	// Stack the groups into columns as tall as the screen allows, then lay
	// the columns out left to right.
	colW := 0
	for _, c := range cols {
		for _, l := range c {
			colW = max(colW, ansi.StringWidth(l))
		}
	}
	colW++
	avail := max(h-3, 1)
	var packed [][]string
	for _, c := range cols {
		n := len(packed)
		if n > 0 && len(packed[n-1])+1+len(c) <= avail {
			packed[n-1] = append(append(packed[n-1], ""), c...)
			continue
		}
		packed = append(packed, append([]string(nil), c...))
	}
	lines := []string{
		st.Accent.Render("streamtap keys") + st.Muted.Render("  (? or esc closes)"),
		st.Muted.Render(`in the / \ : prompts: ←/→, ctrl+a/e move · ctrl+w/u/k delete · paste works`),
		"",
	}
	perRow := max(w/colW, 1)
	for i := 0; i < len(packed); i += perRow {
		row := packed[i:min(i+perRow, len(packed))]
		height := 0
		for _, c := range row {
			height = max(height, len(c))
		}
		for y := range height {
			var b strings.Builder
			for _, c := range row {
				text := ""
				if y < len(c) {
					text = c[y]
				}
				b.WriteString(cell.Fit(text, colW))
			}
			lines = append(lines, b.String())
		}
		lines = append(lines, "")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= h {
		m.helpTop = 0
		return strings.Join(cell.Block(lines, w, h), "\n")
	}
	// Taller than the screen: show h-1 lines from helpTop and say, on the
	// last line, what lies above and below and how to get there.
	body := h - 1
	m.helpTop = cell.Clamp(m.helpTop, 0, len(lines)-body)
	below := len(lines) - body - m.helpTop
	var more string
	switch {
	case below > 0 && m.helpTop > 0:
		more = fmt.Sprintf("↑ %d more above · ↓ %d more below (j/k, pgdn/pgup scroll)", m.helpTop, below)
	case below > 0:
		more = fmt.Sprintf("↓ %d more below (j/↓, pgdn scroll)", below)
	default:
		more = fmt.Sprintf("↑ %d more above (k/↑, pgup scroll)", m.helpTop)
	}
	shown := append(lines[m.helpTop:m.helpTop+body:m.helpTop+body], st.Accent.Render(more))
	return strings.Join(cell.Block(shown, w, h), "\n")
}
