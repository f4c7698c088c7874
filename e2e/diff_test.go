package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestDiffColoursOnlyATerminal: `streamtap diff` on a terminal colours the
// kinds of difference; under NO_COLOR, or into a pipe, it writes none.
func TestDiffColoursOnlyATerminal(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	diff := shellQuote(bin) + " diff sample:responses-single-call sample:gateway-responses-single-call"
	for _, tt := range []struct {
		name, cmd, exit string
		colour          bool
	}{
		{"terminal", diff, "EXIT=1", true},
		{"NO_COLOR", "NO_COLOR=1 " + diff, "EXIT=1", false},
		{"pipe", diff + " | cat", "EXIT=0", false}, // cat's status
	} {
		t.Run(tt.name, func(t *testing.T) {
			term := startTmux(t, 160, 20, tt.cmd+"; echo EXIT=$?")
			term.waitFor("the report", 10*time.Second, func(s string) bool { return strings.Contains(s, "EXIT=") })
			screen := term.run("capture-pane", "-p", "-e", "-t", term.session)
			if !strings.Contains(screen, tt.exit) || !strings.Contains(screen, "2 differences: 1 only-in-a, 1 chunking") {
				t.Fatalf("diff did not report, or not with %s:\n%s", tt.exit, screen)
			}
			// tmux writes the colour it shows back as SGR: red for only-in-a.
			if got := strings.Contains(screen, "\x1b[31monly-in-a"); got != tt.colour {
				t.Errorf("only-in-a coloured = %t; want %t:\n%q", got, tt.colour, screen)
			}
		})
	}
}
