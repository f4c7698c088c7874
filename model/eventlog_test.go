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
