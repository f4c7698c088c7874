package e2e

import (
	"strings"
	"testing"
	"time"
)

// lastLine is the screen's last non-empty line: the status bar.
func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	return lines[len(lines)-1]
}

// TestTmuxFindingsYouCanSee drives issue 19's findings items end to end at
// 80×24: the status line says the end once and keeps the outcome and the
// count; e jumps round to the first finding and says it; enter on the
// marked row opens it in the findings pane.
func TestTmuxFindingsYouCanSee(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	tm := startTmux(t, 80, 24, shellQuote(bin)+" --sample broken-item-id-changes")
	const wait = 15 * time.Second
	// A sample shows its lesson in the status line until the first key.
	tm.waitFor("the stream to be read", wait, func(s string) bool { return selectedOrdinal(s) == "13" })
	tm.send("e") // the sample opens on its last event, #13: e goes round to #2
	s := tm.waitFor("e to say the finding", wait, func(s string) bool {
		return strings.Contains(lastLine(s), "responses/item-id-changed: call get")
	})
	if st := lastLine(s); strings.Count(st, "ended") != 1 || !strings.Contains(st, "openai-responses · ended: completed") || !strings.Contains(st, "1 err") {
		t.Errorf("the status line should say the end once, the dialect and the count beside the notice: %q", st)
	}
	if selectedOrdinal(s) != "2" {
		t.Errorf("e should select #2, the first event the finding cites:\n%s", s)
	}
	tm.send("Enter")
	tm.waitFor("enter to open the finding", wait, func(s string) bool {
		return strings.Contains(s, "▌✗ err   responses/item-id-changed")
	})
	tm.send("q")
	tm.waitExit("q to quit", wait)
}

// TestTmuxHelpScrolls: at 60×15 the help says there is more below, and G
// brings q quit into view.
func TestTmuxHelpScrolls(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	tm := startTmux(t, 60, 15, shellQuote(bin)+" --sample responses-single-call")
	const wait = 15 * time.Second
	tm.waitFor("the stream to be read", wait, func(s string) bool { return selectedOrdinal(s) == "13" })
	tm.send("?")
	tm.waitFor("the help to say there is more", wait, func(s string) bool { return strings.Contains(s, "more below") })
	tm.send("G")
	tm.waitFor("q quit in view", wait, func(s string) bool {
		return strings.Contains(s, "quit") && strings.Contains(s, "more above")
	})
	tm.send("q") // q quits from the help too
	tm.waitExit("q to quit", wait)
}
