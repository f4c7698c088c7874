package inspector

import (
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/ui/cell"
)

// handleClick focuses the pane clicked, and lets it handle the click
// (the timeline selects the row).
func (in *Page) handleClick(ms tea.Mouse) {
	i, r := in.paneAt(ms.X, ms.Y)
	if i < 0 {
		return
	}
	in.focus = i
	// Each pane's content starts below its title line.
	in.panes[i].Click(ms.X-r.X, ms.Y-r.Y-1)
}

// handleWheel scrolls the pane under the pointer.
func (in *Page) handleWheel(ms tea.Mouse) {
	delta := WheelDelta(ms)
	if delta == 0 {
		return
	}
	if i, _ := in.paneAt(ms.X, ms.Y); i >= 0 {
		in.panes[i].Wheel(delta)
	}
}

// paneAt is the pane on screen at (x, y) and its rectangle, or -1.
func (in *Page) paneAt(x, y int) (int, cell.Rect) {
	switch {
	case in.zoom && in.r.side.Contains(x, y):
		return in.zoomedPane(), in.r.side
	case in.r.timeline.Contains(x, y):
		return 0, in.r.timeline
	case in.r.side.Contains(x, y):
		return in.side, in.r.side
	}
	return -1, cell.Rect{}
}

// WheelDelta is the lines a wheel event scrolls, 0 for other buttons.
func WheelDelta(ms tea.Mouse) int {
	switch ms.Button {
	case tea.MouseWheelUp:
		return -3
	case tea.MouseWheelDown:
		return 3
	}
	return 0
}
