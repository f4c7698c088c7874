package e2e

import (
	"strings"
	"testing"
	"time"
)

// selectedRow is the screen line of the timeline's selected row: the one
// that starts with the cursor glyph.
func selectedRow(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "▌") {
			return l
		}
	}
	return ""
}

// selectedOrdinal is the # column of the selected row: its first number
// (a finding marker may stand before it).
func selectedOrdinal(screen string) string {
	for _, f := range strings.Fields(strings.TrimPrefix(selectedRow(screen), "▌")) {
		if strings.Trim(f, "0123456789") == "" {
			return f
		}
	}
	return ""
}

// TestTmuxPasteSearchAndGoto pastes a search term into the / prompt the way
// a terminal does (bracketed paste, tmux paste-buffer -p), checks that the
// selection moved to the first match, then goes to an event with :N.
func TestTmuxPasteSearchAndGoto(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	tm := startTmux(t, 120, 40, shellQuote(bin)+" --sample responses-parallel-calls")
	const wait = 15 * time.Second
	tm.waitFor("the stream to be read", wait, func(s string) bool { return strings.Contains(s, "ended: completed") })
	tm.send("g")
	tm.waitFor("the first event selected", wait, func(s string) bool { return selectedOrdinal(s) == "0" })

	tm.send("/")
	tm.waitFor("the search prompt", wait, func(s string) bool { return strings.Contains(s, "enter search") })
	// The line break proves the text came as one paste: typed, it would
	// be an enter and search at once; pasted, it is only a space.
	tm.run("set-buffer", "-b", "term", "Tokyo\n")
	tm.run("paste-buffer", "-p", "-b", "term", "-t", tm.session)
	tm.waitFor("the pasted text in the prompt", wait, func(s string) bool {
		return strings.Contains(s, "/Tokyo ") && strings.Contains(s, "enter search")
	})
	tm.send("BSpace", "Enter")
	// Event 15 is the first that holds Tokyo: the text delta " Tokyo".
	s := tm.waitFor("the selection on the first match", wait, func(s string) bool {
		return strings.Contains(selectedRow(s), `+" Tokyo"`)
	})
	if !strings.Contains(s, "match(es) for Tokyo") {
		t.Errorf("the status line should count the matches:\n%s", s)
	}

	tm.send(":", "3", "0", "Enter")
	s = tm.waitFor("event 30 selected", wait, func(s string) bool { return selectedOrdinal(s) == "30" })
	if !strings.Contains(s, "#30 of 40") {
		t.Errorf("the timeline title should number event 30 as its row does, #30 of 40:\n%s", s)
	}
	tm.send(":", "9", "9", "Enter")
	tm.waitFor("a status message for :99", wait, func(s string) bool { return strings.Contains(s, "no event 99") })

	tm.send("q")
	tm.waitExit("q to quit", wait)
}
