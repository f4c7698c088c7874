package streamdiff

import (
	"bytes"
	"slices"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// TestAttachBesideChecks: a recorder attached to options that already have
// the checks' observer (as the inspector's --diff builds each side) records
// every event while the checks still see them, and the comparison and the
// findings are those of each alone.
func TestAttachBesideChecks(t *testing.T) {
	a := sampleBytes(t, "broken-sequence-gap")
	b := sampleBytes(t, "responses-single-call")
	copts, checker := checks.Attach(model.Options{KeepEvents: true, Raw: bytes.NewReader(a)})
	opts, rec := Attach(copts, NewIgnore(DefaultIgnore()...))
	s := model.Assemble(a, capture.FormatAuto, opts)
	if got, ok := model.FindObserver[*checks.Checker](s); !ok || got != checker {
		t.Fatalf("the session's checker = %p, %v; want the one attached first (%p)", got, ok, checker)
	}
	if rec.Len() != s.Len() {
		t.Fatalf("the recorder saw %d of %d events", rec.Len(), s.Len())
	}
	want := checks.CheckBytes(a, capture.FormatAuto, checks.Strict)
	if got := checks.Check(s, checks.Strict); len(got.Findings) != len(want.Findings) || len(want.Findings) == 0 {
		t.Errorf("findings beside the recorder: %d; alone: %d (want the same, and some)", len(got.Findings), len(want.Findings))
	}
	o := DefaultOptions()
	together := Compare(NewSide("A", s, rec), Build("B", b, capture.FormatAuto, o.Ignore), o)
	alone := Compare(Build("A", a, capture.FormatAuto, o.Ignore), Build("B", b, capture.FormatAuto, o.Ignore), o)
	if g, w := dump(together), dump(alone); g != w {
		t.Errorf("comparison beside the checks:\n%s\nalone:\n%s", g, w)
	}
}

// TestLinksNearAfterRechunkedDeltas: an event one side only has, right
// after deltas the other side cut differently, is near the last of those
// deltas' counterparts, not back at the item's opening: the gateway drops
// the .done that follows its re-cut deltas.
func TestLinksNearAfterRechunkedDeltas(t *testing.T) {
	r := compare(t, sampleBytes(t, "responses-single-call"), sampleBytes(t, "gateway-responses-single-call"), DefaultOptions())
	l := r.Links()
	for _, tt := range []struct {
		w          Which
		ord, other int
		exact      bool
	}{
		{SideA, 10, 6, false}, // the last delta of A: the last of B's
		{SideA, 11, 6, false}, // function_call_arguments.done, only in A
		{SideA, 12, 7, true},  // output_item.done, aligned
	} {
		if other, exact := l.Counterpart(tt.w, tt.ord); other != tt.other || exact != tt.exact {
			t.Errorf("Counterpart(%d, %d) = %d, %t; want %d, %t", tt.w, tt.ord, other, exact, tt.other, tt.exact)
		}
	}
	// The difference only B has sorts after the re-cut deltas it follows.
	r = compare(t, sampleBytes(t, "gateway-responses-single-call"), sampleBytes(t, "responses-single-call"), DefaultOptions())
	var kinds []Kind
	for _, d := range r.Differences {
		kinds = append(kinds, d.Kind)
	}
	if want := []Kind{Chunking, OnlyInB}; !slices.Equal(kinds, want) {
		t.Errorf("differences in order %v; want %v", kinds, want)
	}
}
