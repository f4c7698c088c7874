package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// anthropicTurns is pydantic-ai's cassette of two Anthropic turns: a
// str_replace_based_edit_tool call, then a request that sends its
// tool_result back.
const anthropicTurns = "anthropic-text-editor-stream__pydantic-ai.yaml"

// unansweredTurns is that cassette with the second request's tool_result
// answering another call: its history still shows the call it leaves
// unanswered.
func unansweredTurns(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(importFixture(anthropicTurns))
	if err != nil {
		t.Fatal(err)
	}
	from := "tool_use_id: toolu_015czvgRAN7XL7DZXTBbSXiP"
	if !strings.Contains(string(data), from) {
		t.Fatalf("the cassette has no %q", from)
	}
	return writeTemp(t, "unanswered.yaml", strings.Replace(string(data), from, "tool_use_id: toolu_other", 1))
}

// An archive's sessions are linked as the proxy links exchanges: the
// header of a session whose request answers an earlier one's calls says
// which, and names the calls it leaves unanswered.
func TestImportedTurnsInHeaders(t *testing.T) {
	t.Parallel()
	_, out, _ := runCLI(t, nil, "timeline", importFixture(anthropicTurns))
	const second = "# session 2/2: POST https://api.anthropic.com/v1/messages?beta=true 200"
	if !strings.Contains(out, "\n"+second+" · answers #1\n") {
		t.Errorf("timeline: session 2's header does not say it answers #1:\n%s", out)
	}
	if !strings.HasPrefix(out, "# session 1/2: POST https://api.anthropic.com/v1/messages?beta=true 200\n") {
		t.Errorf("timeline: session 1's header changed:\n%s", out)
	}
	_, out, _ = runCLI(t, nil, "calls", unansweredTurns(t))
	if !strings.Contains(out, "\n"+second+" · answers #1 · no tool output for toolu_015czvgRAN7XL7DZXTBbSXiP\n") {
		t.Errorf("calls: session 2's header does not name the unanswered call:\n%s", out)
	}
}

// The sessions list of an archive shows the turn column as the proxy's
// does: "of #1", and "!1" for a call left unanswered.
func TestImportedTurnsInSessionsList(t *testing.T) {
	t.Parallel() // a tmux server of its own; waiting, mostly
	bin := builtBinary(t)
	for _, tc := range []struct{ name, file, want string }{
		{"answered", importFixture(anthropicTurns), "of #1"},
		{"unanswered", unansweredTurns(t), "of #1 !1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, err := filepath.Abs(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			tm := startTmux(t, 120, 30, shellQuote(bin)+" "+shellQuote(file))
			s := tm.waitFor("the sessions list", importLiveness, func(s string) bool {
				return strings.Contains(s, "2 sessions") && strings.Count(s, "completed") >= 2
			})
			var row string
			for line := range strings.Lines(s) {
				if strings.HasPrefix(strings.TrimSpace(line), "2 POST") {
					row = line
				}
			}
			if !strings.HasSuffix(strings.TrimSpace(row), tc.want) {
				t.Errorf("session 2's row does not end in %q: %q\n%s", tc.want, row, s)
			}
			tm.send("j")
			tm.waitFor("session 2's line", importLiveness, func(s string) bool { return strings.Contains(s, "#2 · answers #1") })
			tm.send("q")
			tm.waitExit("q to quit", importLiveness)
		})
	}
}
