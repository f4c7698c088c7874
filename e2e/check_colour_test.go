package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestCheckColoursOnlyATerminal: `streamtap check` on a terminal colours
// the findings' severities and what fails, as diff colours its kinds;
// under NO_COLOR, or into a pipe, it writes none.
func TestCheckColoursOnlyATerminal(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	check := shellQuote(bin) + " check --sample broken-cut-before-terminal"
	for _, tt := range []struct {
		name, cmd, exit string
		colour          bool
	}{
		{"terminal", check, "EXIT=1", true},
		{"NO_COLOR", "NO_COLOR=1 " + check, "EXIT=1", false},
		{"pipe", check + " | cat", "EXIT=0", false}, // cat's status
	} {
		t.Run(tt.name, func(t *testing.T) {
			term := startTmux(t, 160, 20, tt.cmd+"; echo EXIT=$?")
			term.waitFor("the report", 10*time.Second, func(s string) bool { return strings.Contains(s, "EXIT=") })
			screen := term.run("capture-pane", "-p", "-e", "-t", term.session)
			if !strings.Contains(screen, tt.exit) || !strings.Contains(screen, "responses/no-terminal") {
				t.Fatalf("check did not report, or not with %s:\n%s", tt.exit, screen)
			}
			// tmux writes the colour it shows back as SGR: red for error.
			if got := strings.Contains(screen, "\x1b[31merror"); got != tt.colour {
				t.Errorf("error coloured = %t; want %t:\n%q", got, tt.colour, screen)
			}
			if got := strings.Contains(screen, "\x1b[33mwarning"); got != tt.colour {
				t.Errorf("warning coloured = %t; want %t:\n%q", got, tt.colour, screen)
			}
		})
	}
}
