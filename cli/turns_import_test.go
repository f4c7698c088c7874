package cli

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// An archive's sessions are linked as the proxy links exchanges: the
// header of a session whose request answers an earlier one's calls says
// which, and names the calls it leaves unanswered.
func TestImportedTurnsInHeaders(t *testing.T) {
	t.Parallel()
	_, out, _ := runCLI(t, nil, "timeline", fixtures.Import(fixtures.AnthropicTurns))
	const second = "# session 2/2: POST https://api.anthropic.com/v1/messages?beta=true 200"
	if !strings.Contains(out, "\n"+second+" · answers #1\n") {
		t.Errorf("timeline: session 2's header does not say it answers #1:\n%s", out)
	}
	if !strings.HasPrefix(out, "# session 1/2: POST https://api.anthropic.com/v1/messages?beta=true 200\n") {
		t.Errorf("timeline: session 1's header changed:\n%s", out)
	}
	_, out, _ = runCLI(t, nil, "calls", fixtures.UnansweredTurns(t))
	if !strings.Contains(out, "\n"+second+" · answers #1 · no tool output for toolu_015czvgRAN7XL7DZXTBbSXiP\n") {
		t.Errorf("calls: session 2's header does not name the unanswered call:\n%s", out)
	}
}
