package ui

import tea "charm.land/bubbletea/v2"

// handleClick selects a timeline row or focuses the pane clicked.
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
	switch {
	case m.r.timeline.contains(ms.X, ms.Y):
		m.focus = focusTimeline
		// Rows start below the title and the column header.
		if row := ms.Y - m.r.timeline.y - 2; row >= 0 {
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
	if m.screen == screenSessions {
		m.sl.move(delta, len(m.px))
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
		case focusRequest:
			m.req.scrollBy(delta)
		default:
			m.calls.scrollBy(delta)
		}
	}
}
