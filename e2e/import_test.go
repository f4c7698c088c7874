package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/internal/fixtures"
)

const importLiveness = 10 * time.Second

// TestImportedSessionsList: a cassette of three turns opens the sessions
// list, one row per turn with its outcome and calls; enter opens a turn in
// the panes, esc goes back, q quits (the pane dies: the program ended).
func TestImportedSessionsList(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	file := fixtures.Import("gemini-iter-stream__pydantic-ai.yaml")
	tm := startTmux(t, 120, 30, shellQuote(bin)+" "+shellQuote(file))
	s := tm.waitFor("the sessions list", importLiveness, func(s string) bool {
		return strings.Contains(s, "3 sessions") && strings.Count(s, "completed") >= 3
	})
	for _, want := range []string{"/v1beta/models/gemin", "gemini", "POST", "✓ completed"} {
		if !strings.Contains(s, want) {
			t.Errorf("the list lacks %q:\n%s", want, s)
		}
	}
	if !strings.Contains(s, "sessions  1/3") {
		t.Errorf("the list does not open on the first session:\n%s", s)
	}
	tm.send("j", "Enter")
	s = tm.waitFor("session 2 in the panes", importLiveness, func(s string) bool {
		// The status line cuts a long source to keep the outcome (issue 19).
		return strings.Contains(s, "#2 POST /v1beta/models/gemini-2.0-flash:streamGenerate") && strings.Contains(s, "… · gemini · 2 events · ended: completed")
	})
	if strings.Contains(s, "3 sessions") {
		t.Errorf("enter did not leave the list:\n%s", s)
	}
	tm.send("Escape")
	tm.waitFor("the list again", importLiveness, func(s string) bool { return strings.Contains(s, "3 sessions") })
	tm.send("q")
	tm.waitExit("q to quit", importLiveness)
}
