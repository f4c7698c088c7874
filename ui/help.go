package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
)

// renderShortHelp renders the one-line contextual help, w cells wide:
// the enabled bindings of list, as many as fit.
func renderShortHelp(st *styles, list []key.Binding, w int) string {
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
	return fit(line, w)
}

// fullHelp renders every binding in columns by category, in w×h.
func (m *Model) fullHelp(w, h int) string {
	st := &m.st
	groups := m.keys.fullHelp()
	var cols [][]string
	for _, g := range groups {
		col := []string{st.Help.Group.Render(g.name)}
		for _, b := range g.bindings {
			hb := b.Help()
			line := st.Help.Key.Render(padRight(hb.Key, 9)) + " " + st.Help.Desc.Render(hb.Desc)
			if !b.Enabled() {
				line = st.Subtle.Render(padRight(hb.Key, 9) + " " + hb.Desc)
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
				cell := ""
				if y < len(c) {
					cell = c[y]
				}
				b.WriteString(fit(cell, colW))
			}
			lines = append(lines, b.String())
		}
		lines = append(lines, "")
	}
	return strings.Join(block(lines, w, h), "\n")
}

func padRight(s string, w int) string {
	if n := w - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}
