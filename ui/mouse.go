package ui

import tea "charm.land/bubbletea/v2"

// handleClick selects a timeline row or focuses the pane clicked.
func (m *Model) handleClick(ms tea.Mouse) {
	if m.r.tooSmall || m.help {
		return
	}
	switch {
	case m.r.timeline.contains(ms.X, ms.Y):
		m.focus = focusTimeline
		if row := ms.Y - m.r.timeline.y - 1; row >= 0 {
			m.rep.playing = false
			m.tl.moveTo(m.tl.offset + row)
		}
	case m.r.side.contains(ms.X, ms.Y):
		m.focus = m.side
	}
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
	switch {
	case m.r.timeline.contains(ms.X, ms.Y):
		m.rep.playing = false
		m.tl.moveTo(m.tl.cursor + delta)
	case m.r.side.contains(ms.X, ms.Y):
		switch m.side {
		case focusDetail:
			m.det.scrollBy(delta)
		case focusDiff:
			m.diff.scrollBy(delta)
		case focusFindings:
			m.find.move(delta)
		default:
			m.calls.scrollBy(delta)
		}
	}
}
