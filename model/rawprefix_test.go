package model

import (
	"bytes"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// TestRawPrefix reads the start of an event back without the rest of it.
func TestRawPrefix(t *testing.T) {
	data := []byte("data: {\"a\":1}\n\ndata: {\"b\":\"" + string(bytes.Repeat([]byte("x"), 1000)) + "\"}\n\n")
	s := Assemble(data, capture.FormatAuto, Options{KeepEvents: true, Raw: bytes.NewReader(data)})
	ev := s.Events.At(1)
	whole, err := s.Raw(ev)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{-1, 0, 1, 10, len(whole), len(whole) + 100} {
		got, err := s.RawPrefix(ev, n)
		if err != nil {
			t.Fatalf("RawPrefix(%d): %v", n, err)
		}
		want := whole[:clampLen(n, len(whole))]
		if !bytes.Equal(got, want) {
			t.Errorf("RawPrefix(%d) = %q; want %q", n, got, want)
		}
	}
	if _, err := NewSession(Options{}).RawPrefix(ev, 10); err == nil {
		t.Error("RawPrefix without Options.Raw: want an error")
	}
}

func clampLen(n, l int) int { return min(max(n, 0), l) }
