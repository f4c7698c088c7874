package inspector

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// longMessage is longer than any pane is wide; its last word must still
// be shown.
const longMessage = `item "call_RASi0uKPSLlkH6j3PEPxyYX5" (get_weather, fc_tmp_4p63f270fnfgok4d) ` +
	`(opened at event 2 with id "fc_tmp_4p63f270fnfgok4d") is named ` +
	`"fc_68e7882772e295d8b25ec38bdcfe72ef0dae2dfae7c10865" (events 12, 13) LASTWORD`

func longChecks(s *model.Session) []checks.Finding {
	return []checks.Finding{
		{Severity: checks.Error, Rule: "responses/item-id-changed", Message: longMessage + " \x1b]0;owned\x07", Events: []int{2, 12, 13}},
		{Severity: checks.Info, Rule: "demo-info", Message: "short", Events: []int{30}},
		{Severity: checks.Warning, Rule: "demo-none", Message: "cites nothing"},
	}
}

func findingsModel(t *testing.T, w, h int, check func(*model.Session) []checks.Finding) *Model {
	t.Helper()
	m := newProgram(newSession(sampleBytes(t, goldenSample)), Options{Source: "x", Checks: check})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	press(m, "5")
	return m
}

// sidePane is the side pane's text, its lines joined.
func sidePane(m *Model) []string {
	var out []string
	for _, l := range strings.Split(plainView(m), "\n")[:m.insp.r.side.Y+m.insp.r.side.H] {
		if m.insp.r.stacked {
			out = append(out, l)
			continue
		}
		out = append(out, ansi.Cut(l, m.insp.r.side.X, m.insp.r.side.X+m.insp.r.side.W))
	}
	if m.insp.r.stacked {
		return out[m.insp.r.side.Y:]
	}
	return out
}

func TestFindingsShowFullMessages(t *testing.T) {
	for _, size := range [][2]int{{80, 40}, {120, 40}, {200, 40}} {
		m := findingsModel(t, size[0], size[1], longChecks)
		pane := sidePane(m)
		// Words may be wrapped anywhere, long ids broken: compare the
		// text without spaces and without the cursor column.
		var b strings.Builder
		for _, l := range pane {
			b.WriteString(strings.ReplaceAll(ansi.Cut(l, 1, len(l)), " ", ""))
		}
		text := b.String()
		if want := strings.ReplaceAll(longMessage, " ", ""); !strings.Contains(text, want) {
			t.Errorf("at %dx%d the findings pane lacks the whole message:\n%s", size[0], size[1], strings.Join(pane, "\n"))
		}
		if !strings.Contains(text, `\x1b]0;owned\x07`) {
			t.Errorf("control characters should be shown escaped:\n%s", strings.Join(pane, "\n"))
		}
		if v := viewOf(m); strings.Contains(v, "\x1b]0;") || strings.Contains(v, "\x07") {
			t.Errorf("a control sequence from a message reached the terminal")
		}
	}
}

func TestFindingsEnterCyclesCitedEvents(t *testing.T) {
	m := findingsModel(t, 120, 40, longChecks)
	steps := []struct {
		keys []string
		want int
	}{
		{[]string{"enter"}, 2},
		{[]string{"enter"}, 12},
		{[]string{"enter"}, 13},
		{[]string{"enter"}, 2}, // wraps around
		{[]string{"j"}, 30},    // the next finding: its first event
		{[]string{"enter"}, 30},
		// k selects the previous finding and shows its first event, so
		// enter goes on to the second.
		{[]string{"k"}, 2},
		{[]string{"enter"}, 12},
	}
	for i, st := range steps {
		press(m, st.keys...)
		if got := m.insp.Selected(); got != st.want {
			t.Fatalf("step %d %v: selected %d; want %d", i, st.keys, got, st.want)
		}
		if focusName(m) != "findings" {
			t.Fatalf("step %d: focus moved to %v; enter should keep the findings focused", i, focusName(m))
		}
	}
	press(m, "j", "j", "enter") // a finding that cites no event
	if got := m.insp.Selected(); got != 30 {
		t.Errorf("enter on a finding without events moved the selection to %d", got)
	}
	if !strings.Contains(lastLine(plainView(m)), "cites no event") {
		t.Errorf("status should say the finding cites no event: %q", lastLine(plainView(m)))
	}
}

// TestFindingsScrollKeepsSelectionVisible: with messages taller than the
// pane, moving down keeps the selected finding's header in view.
func TestFindingsScrollKeepsSelectionVisible(t *testing.T) {
	many := func(s *model.Session) []checks.Finding {
		var out []checks.Finding
		for i := range 12 {
			out = append(out, checks.Finding{Severity: checks.Warning, Rule: "demo-" + string(rune('a'+i)), Message: longMessage, Events: []int{i}})
		}
		return out
	}
	m := findingsModel(t, 120, 24, many)
	for i := range 11 {
		press(m, "j")
		pane := strings.Join(sidePane(m), "\n")
		if want := "demo-" + string(rune('a'+i+1)); !strings.Contains(pane, want) {
			t.Fatalf("after %d j the selected finding %s is not in view:\n%s", i+1, want, pane)
		}
	}
}
