package ui

import (
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Replay pacing bounds. A stream without timing plays at fixedPace; long
// recorded pauses are capped so a demo never seems stuck.
const (
	fixedPace = 150 * time.Millisecond
	minPace   = 5 * time.Millisecond
	maxPace   = 2 * time.Second
)

// replay plays the stream from the start for teaching: the selection moves
// one event at a time at the recorded pace times speed.
type replay struct {
	playing bool
	speed   float64
	gen     int // drops ticks from an earlier play
}

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
func (m *Model) togglePlay() tea.Cmd {
	if m.rep.playing {
		m.rep.playing = false
		return nil
	}
	if m.tl.len() == 0 {
		return nil
	}
	if m.tl.cursor >= m.tl.len()-1 {
		m.tl.moveTo(0)
	}
	m.tl.follow = false
	m.rep.playing = true
	m.rep.gen++
	return m.replayTick()
}

// replayTick schedules the step to the next row after the gap recorded
// between the selected event and the next.
func (m *Model) replayTick() tea.Cmd {
	next := m.tl.cursor + 1
	if next >= m.tl.len() {
		m.rep.playing = false
		return nil
	}
	d := fixedPace
	a, b := m.s.Events.At(m.tl.ordAt(m.tl.cursor)), m.s.Events.At(m.tl.ordAt(next))
	if a.HasTime() && b.HasTime() {
		d = b.At - a.At
	}
	d = time.Duration(float64(d) / m.rep.speed)
	d = min(max(d, minPace), maxPace)
	gen := m.rep.gen
	return tea.Tick(d, func(time.Time) tea.Msg { return replayTickMsg{gen} })
}

func (m *Model) handleReplayTick(msg replayTickMsg) tea.Cmd {
	if !m.rep.playing || msg.gen != m.rep.gen {
		return nil
	}
	m.tl.moveTo(m.tl.cursor + 1)
	return m.replayTick()
}
