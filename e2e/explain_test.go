package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/samples"
)

// statusLine is the last non-empty line of a screen: the status bar.
func statusLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	return lines[len(lines)-1]
}

// TestTmuxLessonAndExplain opens a sample in the built binary: its lesson
// holds the status line until the first key; x explains the selected
// event under the detail pane and keeps doing so while the selection
// moves; q quits.
func TestTmuxLessonAndExplain(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	tm := startTmux(t, 100, 30, shellQuote(bin)+" --sample chat-single-call")
	const wait = 15 * time.Second
	lesson := samples.Lesson("chat-single-call")
	tm.waitFor("the lesson in the status line", wait, func(s string) bool {
		return strings.Contains(statusLine(s), "lesson "+lesson)
	})
	tm.send("g")
	tm.waitFor("the usual status after a key", wait, func(s string) bool {
		st := statusLine(s)
		return strings.Contains(st, "openai-chat") && !strings.Contains(st, "lesson")
	})
	tm.send("x")
	tm.waitFor("the first chunk explained", wait, func(s string) bool {
		return strings.Contains(s, "explain chat.completion.chunk/tool_calls.first")
	})
	tm.send("j")
	s := tm.waitFor("the next chunk explained", wait, func(s string) bool {
		return strings.Contains(s, "explain chat.completion.chunk/tool_calls.continuation")
	})
	if !strings.Contains(s, "does") {
		t.Errorf("the explanation lacks its parts:\n%s", s)
	}
	tm.send("x")
	tm.waitFor("the explanation hidden", wait, func(s string) bool { return !strings.Contains(s, "explain chat.") })
	tm.send("q")
	tm.waitExit("q to quit", wait)
}

// TestTmuxDemoLessonAndExplainFlag: plain streamtap opens the demo with
// its lesson; --explain opens the inspector with the explanation shown.
func TestTmuxDemoLessonAndExplainFlag(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	const wait = 15 * time.Second
	tm := startTmux(t, 120, 40, shellQuote(bin))
	tm.waitFor("the demo's lesson", wait, func(s string) bool {
		return strings.Contains(statusLine(s), samples.Lesson(samples.Default))
	})
	tm.send("q")
	tm.waitExit("q to quit", wait)

	tm = startTmux(t, 120, 40, shellQuote(bin)+" --explain --sample gemini-call")
	tm.waitFor("the selected event explained", wait, func(s string) bool {
		return strings.Contains(s, "explain (gemini chunk)/functionCall")
	})
	tm.send("q")
	tm.waitExit("q to quit", wait)
}
