package model

import (
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// TestBatchResetLetsGo reads a Batch's frames and scans, so it is one of
// the core's internal tests; batch_test.go holds the rest.
func TestBatchResetLetsGo(t *testing.T) {
	var b Batch
	raw := []byte("data: {\"a\":[1]}\n\n")
	fr := capture.NewFramer(capture.FormatAuto)
	fr.Feed(raw, capture.NoTime, func(f *capture.Frame) {
		b.Add(f, true)
		b.ValidateLast()
		b.Add(f, false)
	})
	if b.Len() != 2 || !b.Borrowed() || b.KeepRaw || b.frames[1].Raw != nil {
		t.Fatalf("batch: %d frames, borrowed %v, second Raw %q", b.Len(), b.Borrowed(), b.frames[1].Raw)
	}
	if !b.scans[0].ok || b.scans[1].ok {
		t.Fatalf("validated %v, %v; want only the first", b.scans[0].ok, b.scans[1].ok)
	}
	frames := b.frames
	b.Reset()
	if b.Len() != 0 || b.Borrowed() || frames[:1][0].Raw != nil || frames[:1][0].Data != nil {
		t.Fatal("Reset kept a borrowed frame's bytes")
	}
}
