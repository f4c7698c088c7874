package ui

import tea "charm.land/bubbletea/v2"

// handleClick focuses the pane clicked, and lets it handle the click
// (the timeline selects the row).
func (in *inspector) handleClick(ms tea.Mouse) {
	i, r := in.paneAt(ms.X, ms.Y)
	if i < 0 {
		return
	}
	in.focus = i
	// Each pane's content starts below its title line.
	in.panes[i].click(ms.X-r.x, ms.Y-r.y-1)
}

// handleWheel scrolls the pane under the pointer.
func (in *inspector) handleWheel(ms tea.Mouse) {
	delta := wheelDelta(ms)
	if delta == 0 {
		return
	}
	if i, _ := in.paneAt(ms.X, ms.Y); i >= 0 {
		in.panes[i].wheel(delta)
	}
}

// paneAt is the pane on screen at (x, y) and its rectangle, or -1.
func (in *inspector) paneAt(x, y int) (int, rect) {
	switch {
	case in.zoom && in.r.side.contains(x, y):
		return in.zoomedPane(), in.r.side
	case in.r.timeline.contains(x, y):
		return 0, in.r.timeline
	case in.r.side.contains(x, y):
		return in.side, in.r.side
	}
	return -1, rect{}
}

// wheelDelta is the lines a wheel event scrolls, 0 for other buttons.
func wheelDelta(ms tea.Mouse) int {
	switch ms.Button {
	case tea.MouseWheelUp:
		return -3
	case tea.MouseWheelDown:
		return 3
	}
	return 0
}
