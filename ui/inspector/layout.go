package inspector

import (
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/cell"
)

// WideWidth is the width from which the timeline and the side pane sit
// side by side rather than stacked.
const WideWidth = 110

// rects names every region of the screen. Pane rectangles include their
// one-line title.
type rects struct {
	tooSmall bool
	stacked  bool
	timeline cell.Rect
	side     cell.Rect
	explain  cell.Rect // lesson mode's explanation column; W 0 when none
	help     cell.Rect // the one-line contextual help bar
	status   cell.Rect
}

// layout computes the regions for a w×h terminal. It runs on resize only.
func layout(w, h int) rects {
	var r rects
	if app.TooSmall(w, h) {
		r.tooSmall = true
		return r
	}
	body := h - 2
	r.status = cell.Rect{X: 0, Y: h - 1, W: w, H: 1}
	r.help = cell.Rect{X: 0, Y: h - 2, W: w, H: 1}
	if w >= WideWidth {
		tw := max(50, w*11/20)
		r.timeline = cell.Rect{X: 0, Y: 0, W: tw, H: body}
		r.side = cell.Rect{X: tw + 1, Y: 0, W: w - tw - 1, H: body} // one column of separator
		return r
	}
	r.stacked = true
	th := max(5, body*2/5)
	r.timeline = cell.Rect{X: 0, Y: 0, W: w, H: th}
	r.side = cell.Rect{X: 0, Y: th, W: w, H: body - th}
	return r
}
