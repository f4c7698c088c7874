package inspector

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/ui/pane"
)

// newTestModel opens a finished stream at w×h with stable styles.
func newTestModel(t testing.TB, data []byte, w, h int) *Model {
	t.Helper()
	m := newProgram(newSession(data), Options{Source: "test"})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// paneName names pane i of m by the first word of its title ("detail" for
// "detail (raw)").
func paneName(m *Model, i int) string { return strings.Fields(m.insp.panes[i].Title())[0] }

// focusName names the pane that has the keys; sideName the one shown
// beside the timeline.
func focusName(m *Model) string { return paneName(m, m.insp.focus) }
func sideName(m *Model) string  { return paneName(m, m.insp.side) }

// workResult is what a pane's work command returned, out of the
// envelope that addresses it to the pane.
func workResult(msg tea.Msg) tea.Msg {
	if pm, ok := msg.(pane.Msg); ok {
		return pm.Msg
	}
	return msg
}
