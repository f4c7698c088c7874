package cell

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/ui/theme"
)

// fitBytesPerCell bounds the bytes a line may spend per cell before fit
// cuts it unmeasured: styling spends tens of bytes per run of cells, a
// character at most a few, so a longer line is one that holds a huge
// piece of stream text, which is shown only up to w cells anyway.
const fitBytesPerCell = 64

// Fit cuts or pads s to exactly w cells. s may hold ANSI styling. A line
// far longer than w cells can hold is cut to fitBytesPerCell bytes a cell
// before it is measured, so that its cost does not grow with the text
// it came from.
func Fit(s string, w int) string {
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
		s = ansi.Truncate(s, w, theme.GlyphEllipsis)
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// Block turns lines into exactly h lines of exactly w cells.
func Block(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range h {
		if i < len(lines) {
			out[i] = Fit(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return out
}

// Clamp bounds v to [lo, hi]; hi < lo yields lo.
func Clamp(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}

// StripANSI removes styling, to restyle a line as a whole.
func StripANSI(s string) string { return ansi.Strip(s) }

func PadRight(s string, w int) string {
	if n := w - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

func PadLeft(s string, w int) string {
	if n := w - ansi.StringWidth(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

// JoinLR puts left and right on one line of w cells; the right side wins
// when both do not fit.
func JoinLR(left, right string, w int) string {
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		room := w - ansi.StringWidth(right) - 1
		if room < 10 {
			return Fit(left, w)
		}
		left, gap = Fit(left, room), 1
	}
	return Fit(left+strings.Repeat(" ", gap)+right, w)
}

// Rect is a screen rectangle.
type Rect struct{ X, Y, W, H int }

// Contains reports whether the cell (x, y) is inside r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}
