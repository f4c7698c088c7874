package ui

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
	m := NewDiff(sa, recA, Options{Source: "a.sse", Checks: StrictChecks}, Diff{B: "b.sse", Compare: streamdiff.DefaultOptions()})
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
