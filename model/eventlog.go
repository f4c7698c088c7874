package model

import (
	"iter"
	"math/bits"
)

// The blocks of an EventLog grow from firstBlock events, doubling, up to
// eventBlock; every block after that holds eventBlock events. A short
// stream (most proxied exchanges, every sample, every archive session)
// costs a few KiB rather than one 768 KiB block, which was zeroed for each
// session the proxy, an archive or a test opened.
const (
	firstBlockShift = 6
	eventBlockShift = 14
	firstBlock      = 1 << firstBlockShift
	eventBlock      = 1 << eventBlockShift
	// growingBlocks is how many blocks are smaller than eventBlock, and
	// growingEnd the ordinal of the first event in a full-size block.
	growingBlocks = eventBlockShift - firstBlockShift
	growingEnd    = firstBlock * (1<<growingBlocks - 1)
)

// EventLog is the per-event index of a session, kept in blocks.
// A slice of millions of events would be copied whole each time it grew,
// holding the old and new arrays at once (a 1 GB capture has 3.5M events,
// 160 MB); blocks are made at their full length and never copied, moved or
// resliced, which also makes a Snapshot safe to read from another goroutine
// while the log grows.
type EventLog struct {
	blocks [][]Event
	n      int
}

// Len is the number of events.
func (l *EventLog) Len() int { return l.n }

// locate returns the block of event i and its place in that block.
func locate(i int) (block, slot int) {
	if i >= growingEnd {
		i -= growingEnd
		return growingBlocks + i>>eventBlockShift, i & (eventBlock - 1)
	}
	block = bits.Len(uint(i>>firstBlockShift+1)) - 1
	return block, i - firstBlock*(1<<block-1)
}

// At returns event i. The pointer stays valid for the session's life.
func (l *EventLog) At(i int) *Event {
	block, slot := locate(i)
	return &l.blocks[block][slot]
}

func (l *EventLog) append(ev Event) {
	block, slot := locate(l.n)
	if slot == 0 {
		size := eventBlock
		if block < growingBlocks {
			size = firstBlock << block
		}
		l.blocks = append(l.blocks, make([]Event, size))
	}
	l.blocks[block][slot] = ev
	l.n++
}

// All yields every event with its ordinal.
func (l *EventLog) All() iter.Seq2[int, Event] {
	return func(yield func(int, Event) bool) {
		i := 0
		for _, b := range l.blocks {
			for _, ev := range b[:min(len(b), l.n-i)] {
				if !yield(i, ev) {
					return
				}
				i++
			}
		}
	}
}

// Snapshot returns a view of the events added so far that later appends do
// not change: hand it to a goroutine (a search) while the session grows.
func (l *EventLog) Snapshot() EventLog {
	return EventLog{blocks: l.blocks[:len(l.blocks):len(l.blocks)], n: l.n}
}
