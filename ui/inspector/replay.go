package inspector

import (
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Replay pacing bounds. A stream without timing (a sample, a file) plays
// at fixedPace at 1x: one event a second, a pace a class can follow and
// a teacher can talk over (+ doubles it, up to 64x; - halves it). Long
// recorded pauses are capped so a demo never seems stuck.
const (
	fixedPace = time.Second
	minPace   = 5 * time.Millisecond
	maxPace   = 2 * time.Second
)

// replay plays the stream from the start for teaching: the selection moves
// one event at a time at the recorded pace times speed.
type replay struct {
	playing bool
	// started says a replay began and has neither reached the last event
	// nor been left (a lesson, follow, another session): while it is not
	// playing, it is paused, and space goes on from the selection.
	started bool
	speed   float64
	gen     int // drops ticks from an earlier play
}

// stop ends the replay: it is no longer paused either.
func (r *replay) stop() { r.playing, r.started = false, false }

// paused says a replay stands paused short of the last of n rows, at
// row cursor.
func (r *replay) paused(cursor, n int) bool { return r.started && !r.playing && cursor < n-1 }

// replayTickMsg advances the replay by one event.
type replayTickMsg struct{ gen int }

func speedText(s float64) string {
	if s >= 1 {
		return strconv.FormatFloat(s, 'f', -1, 64) + "x"
	}
	return "1/" + strconv.FormatFloat(1/s, 'f', -1, 64) + "x"
}

// togglePlay starts or pauses the replay. Starting at the last event
// replays from the first.
func (in *Page) togglePlay() tea.Cmd {
	if in.rep.playing {
		in.rep.playing = false
		return nil
	}
	if in.tl.len() == 0 {
		return nil
	}
	if in.tl.cursor >= in.tl.len()-1 {
		in.tl.moveTo(0)
	}
	in.tl.Follow = false
	in.rep.playing, in.rep.started = true, true
	in.rep.gen++
	return in.replayTick()
}

// replayTick schedules the step to the next row after the gap recorded
// between the selected event and the next.
func (in *Page) replayTick() tea.Cmd {
	next := in.tl.cursor + 1
	if next >= in.tl.len() {
		in.rep.stop() // played to the end
		return nil
	}
	d := fixedPace
	a, b := in.s.Events.At(in.tl.ordAt(in.tl.cursor)), in.s.Events.At(in.tl.ordAt(next))
	if a.HasTime() && b.HasTime() {
		d = b.At - a.At
	}
	d = time.Duration(float64(d) / in.rep.speed)
	d = min(max(d, minPace), maxPace)
	gen := in.rep.gen
	return tea.Tick(d, func(time.Time) tea.Msg { return replayTickMsg{gen} })
}

func (in *Page) handleReplayTick(msg replayTickMsg) tea.Cmd {
	if !in.rep.playing || msg.gen != in.rep.gen {
		return nil
	}
	in.tl.moveTo(in.tl.cursor + 1)
	return in.replayTick()
}

// speedNotice says the replay's speed after - or +, and, before a replay,
// that space starts it at that speed.
func (in *Page) speedNotice() tea.Cmd {
	if in.rep.playing {
		return nil // the status line shows it
	}
	return in.Flash("replay speed "+speedText(in.rep.speed)+": space plays", false)
}
