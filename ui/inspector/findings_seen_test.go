package inspector

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// statusLine is the last line of a plain view: the status bar.
func statusLine(m *Model) string {
	lines := strings.Split(plainView(m), "\n")
	return lines[len(lines)-1]
}

// TestFindingJumpSaysWhatItIs: e selects the next event a finding cites
// and says which finding: its rule and the first line of its message;
// past the last it goes round to the first.
func TestFindingJumpSaysWhatItIs(t *testing.T) {
	m := newProgram(newSession(sampleBytes(t, goldenSample)), Options{Source: "x", Checks: longChecks})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.insp.tl.SelectOrd(0)
	press(m, "e")
	if got := m.insp.Selected(); got != 2 {
		t.Fatalf("e from #0 should select #2, the first event a finding cites; got #%d", got)
	}
	if s := statusLine(m); !strings.Contains(s, `responses/item-id-changed: item "call_RASi`) || strings.Contains(s, "\x1b]0;") {
		t.Errorf("e should say the finding's rule and message, safely: %q", s)
	}
	m.insp.tl.SelectOrd(39)
	press(m, "e")
	if got := m.insp.Selected(); got != 2 {
		t.Errorf("e past the last finding should go round to #2; got #%d", got)
	}
}

// TestEnterOnMarkedRowOpensItsFinding: enter on a row a finding marks
// opens that finding in the findings pane; on an unmarked row it does
// nothing.
func TestEnterOnMarkedRowOpensItsFinding(t *testing.T) {
	m := newProgram(newSession(sampleBytes(t, goldenSample)), Options{Source: "x", Checks: longChecks})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	press(m, ":", "5", "enter") // go to #5, through the keys as a reader does
	press(m, "enter")
	if focusName(m) != "timeline" {
		t.Fatalf("enter on an unmarked row should stay on the timeline, focus is %s", focusName(m))
	}
	press(m, ":", "3", "0", "enter")
	press(m, "enter")
	if focusName(m) != "findings" || m.insp.find.cursor != 1 {
		t.Fatalf("enter on #30 should open its finding (demo-info): focus %s, finding %d", focusName(m), m.insp.find.cursor)
	}
	if s := statusLine(m); !strings.Contains(s, "demo-info: short") {
		t.Errorf("the finding opened should be said: %q", s)
	}
	if m.insp.Selected() != 30 {
		t.Errorf("opening the finding moved the selection to #%d", m.insp.Selected())
	}
}

// TestStatusLineSaysEndedOnce: when the stream ends, the status line says
// so once, and under width pressure keeps the outcome, the dialect and
// the finding counts, dropping the byte size and the source first.
func TestStatusLineSaysEndedOnce(t *testing.T) {
	for _, w := range []int{80, 200} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			m := newProgram(newSession(sampleBytes(t, "broken-cut-before-terminal")),
				Options{Source: "sample broken-cut-before-terminal", Checks: StrictChecks})
			m.Update(tea.WindowSizeMsg{Width: w, Height: 24})
			m.Update(SourceDone(nil))
			s := statusLine(m)
			if n := strings.Count(s, "ended:"); n != 1 {
				t.Errorf("the status line says the end %d times: %q", n, s)
			}
			for _, want := range []string{"openai-responses", "ended: truncated", "1 err", "1 warn"} {
				if !strings.Contains(s, want) {
					t.Errorf("the status line lost %q: %q", want, s)
				}
			}
			if w >= 200 && !strings.Contains(s, "sample broken-cut-before-terminal") {
				t.Errorf("at %d columns the source has room: %q", w, s)
			}
			if ansi.StringWidth(s) > w {
				t.Errorf("status line is %d cells", ansi.StringWidth(s))
			}
			golden.RequireEqual(t, s)
		})
	}
}
