package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Minimum terminal size; below it the UI shows a one-line notice.
const (
	minWidth  = 60
	minHeight = 15
	// wideWidth is the width from which the timeline and the side pane sit
	// side by side rather than stacked.
	wideWidth = 110
)

// rect is a screen rectangle.
type rect struct{ x, y, w, h int }

// contains reports whether the cell (x, y) is inside r.
func (r rect) contains(x, y int) bool {
	return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// rects names every region of the screen. Pane rectangles include their
// one-line title.
type rects struct {
	tooSmall bool
	stacked  bool
	timeline rect
	side     rect
	help     rect // the one-line contextual help bar
	status   rect
}

// layout computes the regions for a w×h terminal. It runs on resize only.
func layout(w, h int) rects {
	var r rects
	if w < minWidth || h < minHeight {
		r.tooSmall = true
		return r
	}
	body := h - 2
	r.status = rect{0, h - 1, w, 1}
	r.help = rect{0, h - 2, w, 1}
	if w >= wideWidth {
		tw := max(50, w*11/20)
		r.timeline = rect{0, 0, tw, body}
		r.side = rect{tw + 1, 0, w - tw - 1, body} // one column of separator
		return r
	}
	r.stacked = true
	th := max(5, body*2/5)
	r.timeline = rect{0, 0, w, th}
	r.side = rect{0, th, w, body - th}
	return r
}

// fitBytesPerCell bounds the bytes a line may spend per cell before fit
// cuts it unmeasured: styling spends tens of bytes per run of cells, a
// character at most a few, so a longer line is one that holds a huge
// piece of stream text, which is shown only up to w cells anyway.
const fitBytesPerCell = 64

// fit cuts or pads s to exactly w cells. s may hold ANSI styling. A line
// far longer than w cells can hold is cut to fitBytesPerCell bytes a cell
// before it is measured, so that its cost does not grow with the text
// it came from.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if limit := fitBytesPerCell*w + 1024; len(s) > limit {
		s = s[:limit] // ansi.Truncate below ends the line well before it
		if esc := strings.LastIndexByte(s, ansi.ESC); esc > limit-fitBytesPerCell {
			s = s[:esc] // never end on half an escape sequence
		}
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, glyphEllipsis)
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// block turns lines into exactly h lines of exactly w cells.
func block(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range h {
		if i < len(lines) {
			out[i] = fit(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return out
}

// clamp bounds v to [lo, hi]; hi < lo yields lo.
func clamp(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}

// stripANSI removes styling, to restyle a line as a whole.
func stripANSI(s string) string { return ansi.Strip(s) }
