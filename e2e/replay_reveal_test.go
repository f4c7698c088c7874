package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTmuxReplayPause: space replays a sample from its first event,
// space again pauses it; the status line then says it is paused and at
// which event, never how the stream ended, and space goes on.
func TestTmuxReplayPause(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	tm := startTmux(t, 100, 30, shellQuote(bin)+" --sample responses-single-call")
	const wait = 15 * time.Second
	tm.waitFor("the sample at its last event", wait, func(s string) bool { return selectedOrdinal(s) == "13" })
	tm.send("+", "+", "Space") // 4 events a second
	tm.waitFor("the replay past #1", wait, func(s string) bool {
		n, err := strconv.Atoi(selectedOrdinal(s))
		return err == nil && n >= 2 && n < 10 && strings.Contains(s, "▶ replay")
	})
	tm.send("Space")
	s := tm.waitFor("the paused marker", wait, func(s string) bool { return strings.Contains(s, "⏸ paused") })
	at := selectedOrdinal(s)
	time.Sleep(600 * time.Millisecond) // two steps' time at 4x: a paused replay stays
	s = tm.screen()
	if got := selectedOrdinal(s); got != at || !strings.Contains(s, "event #"+at+" of 14") || strings.Contains(s, "ended") {
		t.Errorf("paused at #%s: now at #%s; the status line should say paused at #%s, not that the stream ended:\n%s", at, got, at, s)
	}
	tm.send("Space")
	tm.waitFor("the replay going on to the end", wait, func(s string) bool {
		return selectedOrdinal(s) == "13" && strings.Contains(s, "ended: completed") && !strings.Contains(s, "paused")
	})
	tm.send("q")
	tm.waitExit("q to quit", wait)
}

// TestTmuxCompactLessonReveal: --lesson --reveal at 80×24, a projector
// at a large font: the rows come one a step, the rest counted; the calls
// as of the event are on screen; x shows the whole explanation and x
// again the calls.
func TestTmuxCompactLessonReveal(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	tm := startTmux(t, 80, 24, shellQuote(bin)+" --lesson --reveal --sample responses-single-call")
	const wait = 15 * time.Second
	s := tm.waitFor("the lesson at #0, the rest to come", wait, func(s string) bool {
		return selectedOrdinal(s) == "0" && strings.Contains(s, "13 events to come")
	})
	if strings.Contains(s, "in_progress ") && strings.Contains(s, "   1   1 ") {
		t.Errorf("at #0 the timeline shows #1:\n%s", s)
	}
	tm.send("Space", "Space", "Space")
	s = tm.waitFor("#3, the call begun", wait, func(s string) bool {
		return selectedOrdinal(s) == "3" && strings.Contains(s, "10 events to come")
	})
	if !strings.Contains(s, "as of event #3") || !strings.Contains(s, "get_weather") || !strings.Contains(s, "x explain") {
		t.Errorf("a compact lesson shows the calls as of #3 and offers x:\n%s", s)
	}
	tm.send("x")
	tm.waitFor("the explanation card", wait, func(s string) bool {
		return strings.Contains(s, "explain response.function_call_arguments.delta") && strings.Contains(s, "x calls")
	})
	tm.send("x")
	tm.waitFor("the calls again", wait, func(s string) bool { return strings.Contains(s, "as of event #3") })
	tm.send("v")
	tm.waitFor("every row after v", wait, func(s string) bool { return !strings.Contains(s, "to come") && strings.Contains(s, "  5   5 ") })
	tm.send("q")
	tm.waitExit("q to quit", wait)
}

// TestTmuxReplayReveal: replay --reveal shows the rows only as the replay
// reaches them, the rest counted, as a live stream would; v shows them all.
func TestTmuxReplayReveal(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	tm := startTmux(t, 100, 30, shellQuote(bin)+" replay --reveal --speed 0.2 --sample responses-single-call")
	const wait = 15 * time.Second
	s := tm.waitFor("the replay with rows to come", wait, func(s string) bool { return strings.Contains(s, "events to come") })
	at, err := strconv.Atoi(selectedOrdinal(s))
	if err != nil || at >= 12 || strings.Contains(s, "response.completed") {
		t.Fatalf("a revealed replay at #%s shows rows it has not reached:\n%s", selectedOrdinal(s), s)
	}
	tm.waitFor("the replay to reach a row further, still revealing", wait, func(s string) bool {
		n, err := strconv.Atoi(selectedOrdinal(s))
		return err == nil && n > at && strings.Contains(s, "events to come") && !strings.Contains(s, "response.completed")
	})
	tm.send("v")
	tm.waitFor("no rows held back after v", wait, func(s string) bool { return !strings.Contains(s, "to come") })
	tm.send("q")
	tm.waitExit("q to quit", wait)
}
