package ui

import tea "charm.land/bubbletea/v2"

// layoutWork starts the work the side pane on screen waits for: reading a
// big event whole, indexing the layout of a big document, comparing big
// snapshots. It runs after
// every message, so work starts as soon as a pane needs it; each piece
// comes back as a message (handleLayout) and the next piece starts then.
func (m *Model) layoutWork() tea.Cmd {
	if m.w == 0 || m.r.tooSmall || m.help || m.screen == screenSessions {
		return nil
	}
	ord := m.selected()
	switch m.side {
	case focusDetail:
		m.det.prepare(ord)
		return m.det.work()
	case focusCalls:
		m.calls.prepare(ord)
		return m.calls.work()
	case focusDiff:
		m.diff.prepare(ord)
		return m.diff.work()
	}
	return nil
}

// handleLayout applies a result of layoutWork to its pane. Results for a
// body or document no longer shown carry a stale generation and are
// dropped.
func (m *Model) handleLayout(msg tea.Msg) {
	switch msg := msg.(type) {
	case eventLoadedMsg:
		m.det.applyLoad(msg)
	case snapDiffMsg:
		m.diff.applyDiff(msg)
	case docIndexedMsg:
		switch msg.pane {
		case focusDetail:
			m.det.applyIndex(msg)
		case focusCalls:
			m.calls.applyIndex(msg)
		}
	}
}
