package model

import "iter"

// eventBlock is the number of events in one block of an EventLog.
const eventBlock = 1 << 14

// EventLog is the per-event index of a session, kept in fixed-size blocks.
// A slice of millions of events would be copied whole each time it grew,
// holding the old and new arrays at once (a 1 GB capture has 3.5M events,
// 160 MB); blocks are never copied or moved, which also makes a Snapshot
// safe to read from another goroutine while the log grows.
type EventLog struct {
	blocks [][]Event
	n      int
}

// Len is the number of events.
func (l *EventLog) Len() int { return l.n }

// At returns event i. The pointer stays valid for the session's life.
func (l *EventLog) At(i int) *Event { return &l.blocks[i/eventBlock][i%eventBlock] }

func (l *EventLog) append(ev Event) {
	if l.n%eventBlock == 0 {
		l.blocks = append(l.blocks, make([]Event, 0, eventBlock))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, ev)
	l.n++
}

// All yields every event with its ordinal.
func (l *EventLog) All() iter.Seq2[int, Event] {
	return func(yield func(int, Event) bool) {
		for i := range l.n {
			if !yield(i, *l.At(i)) {
				return
			}
		}
	}
}

// Snapshot returns a view of the events added so far that later appends do
// not change: hand it to a goroutine (a search) while the session grows.
func (l *EventLog) Snapshot() EventLog {
	return EventLog{blocks: l.blocks[:len(l.blocks):len(l.blocks)], n: l.n}
}
