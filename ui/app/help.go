package app

import (
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
	return strings.Join(cell.Block(lines, w, h), "\n")
}
