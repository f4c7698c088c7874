package ui

import tea "charm.land/bubbletea/v2"

// layoutWork starts the work the side pane on screen waits for: reading a
// big event whole, indexing the layout of a big document, comparing big
// snapshots. It runs after every message, so work starts as soon as a
// pane needs it; each piece comes back to the pane as a paneMsg, and the
// next piece starts then.
func (m *Model) layoutWork() tea.Cmd {
	if m.w == 0 || m.r.tooSmall || m.help || m.screen == screenSessions {
		return nil
	}
	return routeTo(m.side, m.attachGen, m.panes[m.side].work(m.selected()))
}

// handlePaneMsg gives the result of a pane's work to that pane, unless
// it was started for a session attached before: the pane shows another
// now. Each pane drops a result for what it no longer shows itself.
func (m *Model) handlePaneMsg(msg paneMsg) tea.Cmd {
	if msg.gen != m.attachGen || msg.pane >= len(m.panes) {
		return nil
	}
	return m.panes[msg.pane].update(msg.msg)
}
