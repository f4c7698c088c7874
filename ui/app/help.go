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
	// Stack the groups into columns, then lay the columns out left to
	// right: as many columns as the width holds, each as short as lets
	// them all fit in one row, so that a wide screen uses its width
	// rather than one tall column; when even columns as tall as the
	// screen need more than a row, rows of them, scrolled.
	colW := 0
	tallest := 0
	for _, c := range cols {
		tallest = max(tallest, len(c))
		for _, l := range c {
			colW = max(colW, ansi.StringWidth(l))
		}
	}
	colW++
	avail := max(h-3, 1)
	perRow := max(w/colW, 1)
	packed := packHelp(cols, avail)
	for limit := tallest; limit < avail && len(packed) <= perRow; limit++ {
		if p := packHelp(cols, limit); len(p) <= perRow {
			packed = p
			break
		}
	}
	lines := []string{
		st.Accent.Render("streamtap keys") + st.Muted.Render("  (? or esc closes)"),
		st.Muted.Render(`in the / \ : prompts: ←/→, ctrl+a/e move · ctrl+w/u/k delete · paste works`),
		"",
	}
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

// packHelp stacks the help's groups, in order, into columns at most limit
// lines tall (a group taller than limit has a column of its own), a
// blank line between two groups of a column.
func packHelp(cols [][]string, limit int) [][]string {
	var packed [][]string
	for _, c := range cols {
		n := len(packed)
		if n > 0 && len(packed[n-1])+1+len(c) <= limit {
			packed[n-1] = append(append(packed[n-1], ""), c...)
			continue
		}
		packed = append(packed, append([]string(nil), c...))
	}
	return packed
}
