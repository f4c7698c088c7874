package diffview

import (
	"bytes"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/streamdiff"
)

// diffSideOfBytes models data as `streamtap A --diff B` builds each side
// (diffSideOf, for bytes that are no sample).
func diffSideOfBytes(data []byte) (*model.Session, *streamdiff.Recorder) {
	opts, _ := checks.Attach(model.Options{KeepEvents: true, Raw: bytes.NewReader(data)})
	opts, rec := streamdiff.Attach(opts, streamdiff.NewIgnore(streamdiff.DefaultIgnore()...))
	return model.Assemble(data, capture.FormatAuto, opts), rec
}

// newDiffModelOf opens the diff page on streams a and b at w×h, compared.
func newDiffModelOf(t testing.TB, a, b []byte, w, h int) *Model {
	t.Helper()
	sa, recA := diffSideOfBytes(a)
	m := NewDiff(sa, recA, Options{Source: "a.sse", Checks: StrictChecks}, Config{B: "b.sse", Compare: streamdiff.DefaultOptions()})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	sb, recB := diffSideOfBytes(b)
	_, cmd := m.Update(SideRead(streamdiff.NewSide("b.sse", sb, recB), nil))
	drain(t, m, cmd)
	if m.dv.view == nil {
		t.Fatal("the page did not compare the streams")
	}
	return m
}

// TestDiffEmptySide: when one stream has no events, nothing is selected
// on it, and the page says so instead of naming an event #-1, whichever
// side is empty and whichever is active. A side of one event says
// "1 event".
func TestDiffEmptySide(t *testing.T) {
	one := []byte("data: [DONE]\n\n")
	for _, tt := range []struct {
		name string
		a, b []byte
		keys []string
		want []string
	}{
		{"A empty", nil, one, nil, []string{"nothing selected on A", "at A: none · B#0", "0 events", "· 1 event "}},
		{"A empty, B active", nil, one, []string{"tab"}, []string{"∅ no match for B#0", "at A: none · B#0"}},
		{"B empty, B active", one, nil, []string{"tab"}, []string{"nothing selected on B", "at A#0 · B: none"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newDiffModelOf(t, tt.a, tt.b, 100, 30)
			pressDrain(t, m, tt.keys...)
			v := plainView(m)
			if strings.Contains(v, "#-1") {
				t.Errorf("the page names an event #-1:\n%s", v)
			}
			for _, w := range tt.want {
				if !strings.Contains(v, w) {
					t.Errorf("the page should say %q:\n%s", w, v)
				}
			}
		})
	}
}

// TestDiffPageHugeFieldsCheap: the page's headers and its panel of
// differences cost what they show, not the size of the streams' strings:
// with a 4 MB tool name, id, model, status, error code or message, or
// event type in B (A the same stream with short ones), drawing them
// allocates well under that size at every difference: the panel wraps a
// message cut to what it can show, not a megabyte-long word (which took
// minutes), and the headers read a side's outcome once.
func TestDiffPageHugeFieldsCheap(t *testing.T) {
	size := 4 << 20
	if testing.Short() {
		size = 1 << 20
	}
	for _, field := range []string{"name", "id", "model", "status", "code", "message", "type"} {
		t.Run(field, func(t *testing.T) {
			m := newDiffModelOf(t, hugeFieldStream(field, 64), hugeFieldStream(field, size), 160, 48)
			dp := m.dv
			// The first frame reads how each stream ended, once: the
			// outcome of an error joins its code and message whole.
			dp.sideHeader(0)
			dp.sideHeader(1)
			for i := range 8 {
				got := allocatedBy(func() {
					dp.sideHeader(0)
					dp.sideHeader(1)
					dp.panelLines()
				})
				if got > uint64(size/8) {
					t.Errorf("at A#%d B#%d the headers and panel allocated %d bytes; want under %d",
						dp.side[0].Selected(), dp.side[1].Selected(), got, size/8)
				}
				pressDrain(t, m, "n")
				if i == 0 {
					checkFits(t, viewOf(m), 160, 48)
				}
			}
		})
	}
}

// TestDiffEqualLinksOnCompare: when the comparison of two equal streams
// lands, the passive side moves to the counterpart of the event selected
// on the active one (A followed its tail while it was read live, or the
// user moved on it while B was read), instead of staying at its first
// event and reading "near" an event it is far from.
func TestDiffEqualLinksOnCompare(t *testing.T) {
	m := newDiffModelUnread(t, diffOfficial, 120, 40)
	m.dv.side[0].tl.SelectOrd(13)
	_, cmd := m.Update(sideRead(t, diffOfficial))
	drain(t, m, cmd)
	if m.dv.view == nil || !m.dv.view.res.Equal() {
		t.Fatal("the page did not find the streams equal")
	}
	if got := sel(m); got != [2]int{13, 13} {
		t.Errorf("selections %v; want A#13 and its counterpart B#13", got)
	}
	if v := plainView(m); !strings.Contains(v, "= A#13") {
		t.Errorf("B should read = A#13:\n%s", v)
	}
}

// TestEmptySideSaysSo: a side of the diff page over a stream that ended
// without an event says there are no events, not that it waits for some
// (the inspector's TestEmptyStreamSaysSo, on this page).
func TestEmptySideSaysSo(t *testing.T) {
	m := newDiffModelOf(t, nil, []byte("data: [DONE]\n\n"), 120, 40)
	v := plainView(m)
	if got := strings.Count(v, "no events"); got != 1 || strings.Contains(v, "waiting for events") {
		t.Errorf("%q shown %d times; want 1:\n%s", "no events", got, v)
	}
}
