package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestTmuxLanes opens the lanes pane on a real terminal at 80×24: the
// lanes of the response, its message and its two calls; z zooms it to the
// whole screen; j moves the selection a row (a run of deltas is one), and
// the timeline, shown again after z, follows; the program quits on q.
func TestTmuxLanes(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	tm := startTmux(t, 80, 24, shellQuote(bin)+" --sample responses-parallel-calls")
	const wait = 15 * time.Second
	tm.waitFor("the stream to be read", wait, func(s string) bool { return strings.Contains(s, "39 completed") })
	tm.send("g", "6")
	tm.waitFor("the lanes pane", wait, func(s string) bool {
		return strings.Contains(s, "get_local_time") && strings.Contains(s, "● created") && strings.Contains(s, "1 timeline")
	})
	tm.send("z")
	tm.waitFor("the lanes zoomed", wait, func(s string) bool {
		return !strings.Contains(s, "1 timeline") && strings.Contains(s, "┆ ×13") && strings.Contains(s, "31  ╎")
	})
	tm.send("j", "j", "j", "j")
	tm.waitFor("the run of text deltas selected", wait, func(s string) bool {
		return strings.Contains(selectedRow(s), "┆ ×13") || strings.Contains(selectedRow(s), "┆ 1/13")
	})
	tm.send("z")
	tm.waitFor("the timeline on the run's first delta", wait, func(s string) bool {
		return strings.Contains(s, "1 timeline") && strings.Contains(s, `▌   4   4 output_text.delta`)
	})
	tm.send("q")
	tm.waitExit("quit", 10*time.Second)
}
