package ui

import (
	"bytes"
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/streamdiff"
)

// diffSideFrom models data as one side of the diff page.
func diffSideFrom(data []byte) (*model.Session, *streamdiff.Recorder) {
	opts, _ := checks.Attach(model.Options{KeepEvents: true, Raw: bytes.NewReader(data)})
	opts, rec := streamdiff.Attach(opts, streamdiff.NewIgnore(streamdiff.DefaultIgnore()...))
	return model.Assemble(data, capture.FormatAuto, opts), rec
}

// BenchmarkViewDiffPage measures one frame of the diff page while the
// selection moves a row down and up in A (B's selection follows through
// the links), on two streams of n events that differ in one argument
// fragment: the key-to-frame work, with the comparison done.
func BenchmarkViewDiffPage(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			a := synthStream(n)
			bb := bytes.Replace(a, []byte(`"delta":"abc7 "`), []byte(`"delta":"abd7 "`), 1)
			sa, recA := diffSideFrom(a)
			m := NewDiff(sa, recA, Options{Source: "a"}, Diff{B: "b", Compare: streamdiff.DefaultOptions()})
			m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
			sb, recB := diffSideFrom(bb)
			_, cmd := m.Update(SideRead(streamdiff.NewSide("b", sb, recB), nil))
			drain(b, m, cmd)
			if m.dv.view == nil {
				b.Fatal("not compared")
			}
			for range n / 2 / 1000 {
				m.Update(keyMsg("pgdown"))
			}
			keys := [2]tea.Msg{keyMsg("j"), keyMsg("k")}
			i := 0
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				m.Update(keys[i%2])
				_ = m.View()
				i++
			}
		})
	}
}
