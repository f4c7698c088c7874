package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestTmuxLesson steps a class through a sample in lesson mode at 200×60,
// a projector's size: the sample opens at #0 (not its last event), each
// space moves one event, the explanation of the event has its own column
// beside the calls, and the status line says what the event does and
// never that the stream ended before its last event.
func TestTmuxLesson(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	tm := startTmux(t, 200, 60, shellQuote(bin)+" --lesson --sample responses-single-call")
	const wait = 15 * time.Second
	s := tm.waitFor("the sample in lesson mode at #0", wait, func(s string) bool {
		return selectedOrdinal(s) == "0" && strings.Contains(s, "explain  #0")
	})
	if strings.Contains(s, "stream ended") {
		t.Errorf("at #0 the status line says the stream ended:\n%s", s)
	}
	for i, want := range []string{"1", "2", "3"} {
		tm.send("Space")
		s = tm.waitFor("space "+want, wait, func(s string) bool { return selectedOrdinal(s) == want })
		if !strings.Contains(s, "explain  #"+want) || !strings.Contains(s, "lesson #"+want+" of 14") {
			t.Errorf("after %d spaces the explanation and the status line should be at #%s:\n%s", i+1, want, s)
		}
		if strings.Contains(s, "ended") {
			t.Errorf("at #%s the status line says the stream ended:\n%s", want, s)
		}
	}
	if !strings.Contains(s, "as of event #3") || !strings.Contains(s, "does ") {
		t.Errorf("the calls as of #3 and the explanation should be side by side:\n%s", s)
	}
	tm.send("G")
	tm.waitFor("the end said at the last event", wait, func(s string) bool {
		return selectedOrdinal(s) == "13" && strings.Contains(s, "ended: completed")
	})
	tm.send("q")
	tm.waitExit("q to quit", wait)
}
