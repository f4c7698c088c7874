package model

import "testing"

func TestEventLogBlocks(t *testing.T) {
	var l EventLog
	n := 3*eventBlock + 5
	for i := range n {
		l.append(Event{Offset: int64(i)})
		if i == eventBlock {
			snap := l.Snapshot()
			defer func() {
				if snap.Len() != eventBlock+1 || snap.At(eventBlock).Offset != eventBlock {
					t.Errorf("snapshot changed: len %d", snap.Len())
				}
			}()
		}
	}
	if l.Len() != n {
		t.Fatalf("Len = %d; want %d", l.Len(), n)
	}
	first := l.At(7)
	l.append(Event{})
	if l.At(7) != first {
		t.Fatal("an event moved when the log grew")
	}
	seen := 0
	for i, ev := range l.All() {
		if ev.Offset != int64(i) && i < n {
			t.Fatalf("All()[%d].Offset = %d", i, ev.Offset)
		}
		seen++
	}
	if seen != n+1 {
		t.Fatalf("All yielded %d events; want %d", seen, n+1)
	}
}

// TestEventLogPlaces walks ordinals across the growing blocks into the
// full-size ones: each event has its own place, the places follow each
// other without a gap, and no block is larger than eventBlock.
func TestEventLogPlaces(t *testing.T) {
	wantBlock, wantSlot, size := 0, 0, firstBlock
	for i := range growingEnd + 3*eventBlock {
		block, slot := locate(i)
		if block != wantBlock || slot != wantSlot {
			t.Fatalf("locate(%d) = %d, %d; want %d, %d", i, block, slot, wantBlock, wantSlot)
		}
		if wantSlot++; wantSlot == size {
			wantBlock, wantSlot, size = wantBlock+1, 0, min(2*size, eventBlock)
		}
	}
}

// TestEventLogSmallCostsLittle: a short stream holds one small block, not
// a full one (the proxy and archives open thousands of short sessions).
func TestEventLogSmallCostsLittle(t *testing.T) {
	var l EventLog
	for range 10 {
		l.append(Event{})
	}
	if len(l.blocks) != 1 || cap(l.blocks[0]) != firstBlock {
		t.Fatalf("10 events hold %d blocks, the first of %d events; want 1 of %d", len(l.blocks), cap(l.blocks[0]), firstBlock)
	}
}

var eventSink *Event

// BenchmarkEventLog appends a million events and reads each back by
// ordinal, as the inspector's timeline and search do.
func BenchmarkEventLog(b *testing.B) {
	const n = 1 << 20
	for b.Loop() {
		var l EventLog
		for i := range n {
			l.append(Event{Offset: int64(i)})
		}
		for i := range n {
			eventSink = l.At(i)
		}
	}
}

// BenchmarkEventLogShort opens the log of a short stream, as the proxy
// does for each exchange.
func BenchmarkEventLogShort(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var l EventLog
		for i := range 40 {
			l.append(Event{Offset: int64(i)})
		}
		eventSink = l.At(39)
	}
}
