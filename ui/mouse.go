package ui

import tea "charm.land/bubbletea/v2"

// handleClick focuses the pane clicked, and lets it handle the click
// (the timeline selects the row).
func (m *Model) handleClick(ms tea.Mouse) {
	if m.r.tooSmall || m.help {
		return
	}
	if m.screen == screenSessions {
		// Rows start below the title and the column header.
		if row := ms.Y - 2; row >= 0 && m.sl.offset+row < len(m.px) {
			m.sl.move(m.sl.offset+row-m.sl.cursor, len(m.px))
		}
		return
	}
	i, r := m.paneAt(ms.X, ms.Y)
	if i < 0 {
		return
	}
	m.focus = i
	// Each pane's content starts below its title line.
	m.panes[i].click(ms.X-r.x, ms.Y-r.y-1)
}

// handleWheel scrolls the pane under the pointer.
func (m *Model) handleWheel(ms tea.Mouse) {
	if m.r.tooSmall || m.help {
		return
	}
	delta := 0
	switch ms.Button {
	case tea.MouseWheelUp:
		delta = -3
	case tea.MouseWheelDown:
		delta = 3
	default:
		return
	}
	if m.screen == screenSessions {
		m.sl.move(delta, len(m.px))
		return
	}
	if i, _ := m.paneAt(ms.X, ms.Y); i >= 0 {
		m.panes[i].wheel(delta)
	}
}

// paneAt is the pane on screen at (x, y) and its rectangle, or -1.
func (m *Model) paneAt(x, y int) (int, rect) {
	switch {
	case m.r.timeline.contains(x, y):
		return 0, m.r.timeline
	case m.r.side.contains(x, y):
		return m.side, m.r.side
	}
	return -1, rect{}
}
