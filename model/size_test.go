package model

import (
	"testing"
	"unsafe"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// TestLiveStructSizes holds the structures a session keeps one of per item
// or response, live until the end of a read, to their allocation size
// class. A headless read runs under a soft memory limit (48 MiB); a 100 MB
// capture holds tens of thousands of items, and each extra word of them
// is heap the collector marks on every cycle, with less room left under
// the limit before the next: one field that moved Item up a class (352 to
// 384 bytes) and two that moved Response up (128 to 192) cost calls --json
// 12% of its time. Move a new field into a struct only some items have
// (argStatements, itemExtra) or raise the bound here knowingly.
func TestLiveStructSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		size, max uintptr
	}{
		{"Item", unsafe.Sizeof(Item{}), 352},
		{"Response", unsafe.Sizeof(Response{}), 176},
		{"argStatements", unsafe.Sizeof(argStatements{}), 176},
	} {
		if c.size > c.max {
			t.Errorf("%s is %d bytes; want at most %d (its size class)", c.name, c.size, c.max)
		}
	}
}

// An ended session's queries only read it: End places every item in
// output order, so the index is not built by the first query, which may
// run on another goroutine than the one that added (the diff page
// compares ended sessions in the background).
func TestEndPlacesItems(t *testing.T) {
	for _, name := range []string{"responses-parallel-calls", "chat-parallel-calls", "anthropic-text-then-tool", "gemini-call"} {
		data, err := samples.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		s := Assemble(data, capture.FormatAuto, Options{})
		if len(s.Items) == 0 || s.placed != len(s.Items) {
			t.Errorf("%s: %d of %d items placed after End", name, s.placed, len(s.Items))
		}
	}
}
