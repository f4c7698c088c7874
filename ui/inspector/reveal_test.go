package inspector

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// TestReplayPaused: space pauses a replay at #3 of 14; the status line
// says it is paused and where, never how the stream ended, and space goes
// on from there. Drawn at 80×24 and 160×45.
func TestReplayPaused(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := lessonModel(t, "responses-single-call", size[0], size[1], Options{Replay: 1})
			for range 3 {
				m.Update(replayTickMsg{gen: m.insp.rep.gen})
			}
			press(m, "space")
			if m.insp.rep.playing {
				t.Fatal("space should pause the replay")
			}
			out := viewOf(m)
			checkFits(t, out, size[0], size[1])
			status := lastLine(ansi.Strip(out))
			if !strings.Contains(status, "⏸ paused") || !strings.Contains(status, "event #3 of 14") || strings.Contains(status, "ended") {
				t.Errorf("a replay paused at #3 should say so and where, not how the stream ended:\n%s", status)
			}
			golden.RequireEqual(t, ansi.Strip(out))
			press(m, "space")
			if !m.insp.rep.playing || m.insp.Selected() != 3 {
				t.Errorf("space should go on from #3: playing %v at #%d", m.insp.rep.playing, m.insp.Selected())
			}
			if status := lastLine(plainView(m)); strings.Contains(status, "paused") || !strings.Contains(status, "▶ replay") {
				t.Errorf("playing again, the status line should say so:\n%s", status)
			}
		})
	}
}

// TestReplayPausedByMoving: moving the selection during a replay pauses
// it there (the paused marker stays while the selection is short of the
// last event); at the last event the stream's end is said, and a replay
// played to its end is over, not paused.
func TestReplayPausedByMoving(t *testing.T) {
	m := lessonModel(t, "responses-single-call", 120, 40, Options{Replay: 1})
	m.Update(replayTickMsg{gen: m.insp.rep.gen})
	press(m, "j", "j")
	if status := lastLine(plainView(m)); !strings.Contains(status, "⏸ paused") || !strings.Contains(status, "event #3 of 14") {
		t.Errorf("moving during a replay should pause it at #3:\n%s", status)
	}
	press(m, "G")
	if status := lastLine(plainView(m)); strings.Contains(status, "paused") || !strings.Contains(status, "ended: completed") {
		t.Errorf("at the last event the status line should say how the stream ended:\n%s", status)
	}
	press(m, "g", "space")
	for range 20 {
		m.Update(replayTickMsg{gen: m.insp.rep.gen})
	}
	if m.insp.rep.started || m.insp.rep.playing {
		t.Errorf("a replay played to its end is over: started %v, playing %v", m.insp.rep.started, m.insp.rep.playing)
	}
}

// timelineOrds lists the ordinals the timeline shows, in the order shown.
func timelineOrds(m *Model) []int {
	var out []int
	for _, l := range strings.Split(plainView(m), "\n") {
		var ord, seq int
		if n, _ := fmt.Sscanf(strings.TrimLeft(l, "▌ !✗◇"), "%d %d", &ord, &seq); n == 2 {
			out = append(out, ord)
		}
	}
	return out
}

// TestRevealGolden: --lesson --reveal at 80×24 and 160×45 after five
// steps shows the rows up to #5 only, then how many events are still to
// come, as a live `curl -N` would have shown them by then.
func TestRevealGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := lessonModel(t, "responses-single-call", size[0], size[1], Options{LessonMode: true, Reveal: true})
			for range 5 {
				press(m, "space")
			}
			out := viewOf(m)
			checkFits(t, out, size[0], size[1])
			if got := timelineOrds(m); len(got) == 0 || got[len(got)-1] != 5 {
				t.Errorf("revealing at #5 the timeline shows %v; want the rows up to #5", got)
			}
			if !strings.Contains(ansi.Strip(out), "8 events to come") {
				t.Errorf("the timeline should count the 8 events to come:\n%s", ansi.Strip(out))
			}
			golden.RequireEqual(t, ansi.Strip(out))
		})
	}
}

// TestReveal: v turns reveal on and off; in a replay the rows come one
// tick at a time, the selected one at the foot of the timeline once they
// fill it; the other panes are as of the selection anyway.
func TestReveal(t *testing.T) {
	m := lessonModel(t, "responses-parallel-calls", 120, 20, Options{})
	press(m, "g", "v")
	if got := timelineOrds(m); len(got) != 1 || got[0] != 0 {
		t.Fatalf("v at #0 shows %v; want only #0", got)
	}
	press(m, "space")
	for range 30 {
		m.Update(replayTickMsg{gen: m.insp.rep.gen})
	}
	got := timelineOrds(m)
	if len(got) == 0 || got[len(got)-1] != 30 || got[0] == 0 {
		t.Errorf("replaying to #30 in a short pane shows %v; want the rows before #30 up to it, at the foot", got)
	}
	if !strings.Contains(plainView(m), "9 events to come") {
		t.Errorf("the timeline should count what is to come:\n%s", plainView(m))
	}
	press(m, "v")
	if got := timelineOrds(m); got[len(got)-1] <= 30 {
		t.Errorf("v again should show the rows after the selection: %v", got)
	}
}
