package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// rowsWith lists the screen lines that hold text.
func rowsWith(screen, text string) []string {
	var out []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, text) {
			out = append(out, l)
		}
	}
	return out
}

// TestTmuxDiffView runs `streamtap --sample A --diff sample:B` on a
// 160×48 terminal: both streams side by side, opened at the first
// difference with the other side near it; n goes to the next difference,
// enter opens A in the inspector and esc comes back, tab lets B lead, /
// searches both sides and esc clears the search, and q quits with exit 0.
func TestTmuxDiffView(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	codeFile := filepath.Join(t.TempDir(), "code")
	tm := startTmux(t, 160, 48, shellQuote(bin)+" --sample responses-single-call --diff sample:gateway-responses-single-call; echo $? >"+shellQuote(codeFile))
	const wait = 15 * time.Second
	s := tm.waitFor("the comparison", wait, func(s string) bool { return strings.Contains(s, "2 in all: 1 only-in-a, 1 chunking") })
	for _, want := range []string{
		"A sample responses-single-call · completed · 14 events · openai-responses",
		"B sample gateway-responses-single-call · completed · 9 events",
		"≈ near A#3",
		"÷ chunking A#3–#10 B#3–#6",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the page should show %q:\n%s", want, s)
		}
	}
	// The selected row of each side: A's with the cursor, B's marked near.
	if rows := rowsWith(s, `fn_args.delta`); len(rows) == 0 || !strings.HasPrefix(rows[0], "▌÷  3") || !strings.Contains(rows[0], "│≈÷  3") {
		t.Errorf("A#3 and B#3 should be selected side by side:\n%s", s)
	}

	tm.send("n")
	s = tm.waitFor("the next difference", wait, func(s string) bool { return strings.Contains(s, "at A#11 · B#6") })
	if !strings.Contains(s, "- only-in-a A#11 - only in A: response.function_call_arguments.done") {
		t.Errorf("the panel should list the event only A has:\n%s", s)
	}

	tm.send("Enter")
	// The whole screen, its help line included, not a frame drawn halfway.
	s = tm.waitFor("A's inspector", wait, func(s string) bool {
		return strings.Contains(s, "1 timeline") && strings.Contains(s, "2 detail") && strings.Contains(s, "esc back to the diff")
	})
	if !strings.Contains(s, "esc back to the diff") || !strings.Contains(s, "as of event #11") {
		t.Errorf("A's inspector should show A#11 and how to come back:\n%s", s)
	}
	tm.send("k", "Escape")
	tm.waitFor("the diff page at A#10", wait, func(s string) bool { return strings.Contains(s, "at A#10 · B#6") })

	tm.send("Tab", "G")
	s = tm.waitFor("B leading to its last event", wait, func(s string) bool { return strings.Contains(s, "at A#13 · B#8") })
	if !strings.Contains(s, "= B#8") {
		t.Errorf("A's header should say it holds B#8's counterpart:\n%s", s)
	}

	// The page's own search: B leads from B#8 and goes round to its one
	// .done, B#7, A linked to its counterpart; esc clears it.
	tm.send("/", "done", "Enter")
	s = tm.waitFor("the search", wait, func(s string) bool { return strings.Contains(s, "/done  A 2/2 · B 1/1") })
	if !strings.Contains(s, "at A#12 · B#7") || !strings.Contains(s, "n next match") {
		t.Errorf("/done should select B#7 and A#12, n going to the matches:\n%s", s)
	}
	tm.send("Escape")
	tm.waitFor("the search cleared", wait, func(s string) bool { return !strings.Contains(s, "/done") && strings.Contains(s, "n next diff") })

	tm.send("q")
	tm.waitExit("the program to quit", 10*time.Second)
	if code, _ := os.ReadFile(codeFile); strings.TrimSpace(string(code)) != "0" {
		t.Errorf("exit status %q; want 0", code)
	}
}

// TestTmuxDiffViewLiveA pipes stream A in at 80×24: the page reads it
// live, compares once it ends, and stacks the sides.
func TestTmuxDiffViewLiveA(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	a := fixtures.Path("samples/gateway-responses-single-call.sse")
	tm := startTmux(t, 80, 24, "cat "+shellQuote(a)+" | "+shellQuote(bin)+" --diff sample:responses-single-call")
	s := tm.waitFor("the comparison", 15*time.Second, func(s string) bool { return strings.Contains(s, "2 in all: 1 only-in-b, 1 chunking") })
	lines := strings.Split(s, "\n")
	if !strings.HasPrefix(lines[0], "A stdin · completed · 9 events · openai-responses") {
		t.Errorf("A, from stdin, should head the screen:\n%s", s)
	}
	if !strings.HasPrefix(lines[8], "B sample responses-single-call") {
		t.Errorf("B should stand under A, from line 9:\n%s", s)
	}
	tm.send("n")
	s = tm.waitFor("the event only B has", 15*time.Second, func(s string) bool { return strings.Contains(s, "+ only-in-b - B#11") })
	if !strings.Contains(s, "≈+ 11") {
		t.Errorf("B#11 should be selected, marked only near A's selection:\n%s", s)
	}
	tm.send("q")
	tm.waitExit("the program to quit", 10*time.Second)
}

// TestTmuxDiffViewRefuses: on a terminal, A on the terminal itself or an
// archive of several streams is refused in one line, exit 2, before the
// inspector starts.
func TestTmuxDiffViewRefuses(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	har := fixtures.Import(fixtures.AnthropicTurns)
	for _, tt := range []struct{ name, args, want string }{
		{"A on the terminal", "- --diff sample:responses-single-call", "--diff: A would be read from the terminal"},
		{"an archive", shellQuote(har) + " --diff sample:anthropic-text-then-tool", "holds 2 sessions: diff compares one stream with one"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The line goes to a file: a pane's first output can be lost to
			// its setup.
			dir := t.TempDir()
			errFile, codeFile := filepath.Join(dir, "stderr"), filepath.Join(dir, "code")
			tm := startTmux(t, 160, 10, shellQuote(bin)+" "+tt.args+" 2>"+shellQuote(errFile)+"; echo $? >"+shellQuote(codeFile))
			tm.waitExit("the refusal", 10*time.Second)
			got, _ := os.ReadFile(errFile)
			code, _ := os.ReadFile(codeFile)
			if !strings.Contains(string(got), tt.want) || strings.TrimSpace(string(code)) != "2" {
				t.Errorf("stderr %q, exit %q; want %q and exit 2", got, code, tt.want)
			}
		})
	}
}
