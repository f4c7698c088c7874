package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestTmuxRuleText: in the findings pane, o opens the selected finding's
// rule text (its section of docs/rules.md, from the binary), j scrolls
// it, esc goes back to the list, and ? lists o.
func TestTmuxRuleText(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	tm := startTmux(t, 80, 24, shellQuote(bin)+" --sample broken-item-id-changes")
	const wait = 15 * time.Second
	tm.waitFor("the stream to be read", wait, func(s string) bool { return selectedOrdinal(s) == "13" })
	tm.send("5")
	tm.waitFor("the findings pane", wait, func(s string) bool { return strings.Contains(s, "✗ err   responses/item-id-changed") })
	tm.send("?")
	tm.waitFor("the help to list o", wait, func(s string) bool { return strings.Contains(s, "finding's rule text") })
	tm.send("?") // esc, then o at once, would read as alt+o
	tm.waitFor("the help to close", wait, func(s string) bool {
		return !strings.Contains(s, "streamtap keys") && strings.Contains(s, "✗ err   responses/item-id-changed")
	})
	tm.send("o")
	tm.waitFor("o to open the rule text", wait, func(s string) bool {
		return strings.Contains(s, "rule responses/item-id-changed ─") && strings.Contains(s, "- **Wire:**") &&
			strings.Contains(s, "lines 1-")
	})
	tm.send("j")
	tm.waitFor("j to scroll it", wait, func(s string) bool { return strings.Contains(s, "lines 2-") })
	tm.send("Escape")
	tm.waitFor("esc to go back to the list", wait, func(s string) bool {
		return strings.Contains(s, "✗ err   responses/item-id-changed") && !strings.Contains(s, "rule responses/item-id-changed ─")
	})
	tm.send("q")
	tm.waitExit("q to quit", wait)
}
