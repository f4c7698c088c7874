package ui

// wideWidth is the width from which the timeline and the side pane sit
// side by side rather than stacked.
const wideWidth = 110

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
	if tooSmall(w, h) {
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
