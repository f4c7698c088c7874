package inspector

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// lanesKey is the number key of the lanes pane.
const lanesKey = "6"

// lanesModel opens sample at w×h with the real checks, selects event sel
// and shows the lanes pane, focused.
func lanesModel(t testing.TB, sample string, w, h, sel int) *Model {
	t.Helper()
	m := newProgram(newSession(sampleBytes(t, sample)), Options{Source: "sample " + sample, Checks: StrictChecks})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.insp.tl.SelectOrd(sel)
	pressAll(m, lanesKey)
	return m
}

// lanesGoldenCases are the streams the lanes pane is drawn from, each
// with the event selected: one of every dialect's shapes, and a defect.
var lanesGoldenCases = []struct {
	sample string
	sel    int
}{
	// Two calls whose deltas interleave: a run of text deltas, then the
	// calls' lanes taking turns; a delta of get_weather selected.
	{"responses-parallel-calls", 27},
	// A text block then a tool_use block, pings between their deltas.
	{"anthropic-text-then-tool", 12},
	// Two calls of one choice; the finish chunk closes both.
	{"chat-parallel-calls", 15},
	// Text, then a chunk that carries a whole call and ends the response.
	{"gemini-call", 2},
	// The call's id changes at its .done: the finding marks the lanes.
	{"broken-item-id-changes", 12},
}

// TestLanesGolden draws the lanes pane over every case at 80×24 (the
// panes stacked) and 200×60 (side by side), focused, and zoomed at both
// sizes (z). The 200×60 views keep their styling.
func TestLanesGolden(t *testing.T) {
	for _, gc := range lanesGoldenCases {
		for _, size := range [][2]int{{80, 24}, {200, 60}} {
			for _, zoom := range []bool{false, true} {
				name := fmt.Sprintf("%s_%dx%d", gc.sample, size[0], size[1])
				if zoom {
					name += "_zoomed"
				}
				t.Run(name, func(t *testing.T) {
					m := lanesModel(t, gc.sample, size[0], size[1], gc.sel)
					if zoom {
						pressAll(m, "z")
					}
					out := viewOf(m)
					checkFits(t, out, size[0], size[1])
					if size[0] != 200 {
						out = ansi.Strip(out)
					}
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}

// lanesText is the lanes pane's content on screen, under its title,
// without styling.
func lanesText(m *Model) string {
	var b strings.Builder
	r := m.insp.r.side
	for i, l := range strings.Split(ansi.Strip(viewOf(m)), "\n") {
		if i > r.Y && i < r.Y+r.H {
			b.WriteString(ansi.Cut(l, r.X, r.X+r.W))
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestLanesHugeGolden draws the lanes pane over big events at 80×24 and
// 200×60: a 20 MB output_item.done, 20 MB of text in one delta, and a
// small delta between two of 2 MB each, selected in their run.
func TestLanesHugeGolden(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("20 MB goldens skipped under -short")
	}
	cases := []struct {
		name string
		data func() []byte
		sel  int
	}{
		{"done-args-20M", doneArgs20M, 0},
		{"text-delta-20M", sync.OnceValue(func() []byte { return hugeShapes[2].build(size20M) }), 1},
		{"delta-amid-big", sync.OnceValue(func() []byte { return bigDeltaStream(bigSize / 2) }), 2},
	}
	for _, gc := range cases {
		for _, size := range [][2]int{{80, 24}, {200, 60}} {
			t.Run(fmt.Sprintf("%s_%dx%d", gc.name, size[0], size[1]), func(t *testing.T) {
				t.Parallel()
				m := newProgram(newSession(gc.data()), Options{Source: "huge"})
				resize(m, size[0], size[1])
				m.insp.tl.SelectOrd(gc.sel)
				pressAll(m, lanesKey)
				out := viewOf(m)
				checkFits(t, out, size[0], size[1])
				if size[0] != 200 {
					out = ansi.Strip(out)
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}

// TestLanesShapeTypedDialects: the response lane of a dialect whose
// events name no type of their own (model.NamedByShape: a Chat chunk, a
// Gemini chunk, an Ollama line) says what its first and terminal events
// did, not the type they all share. The lanes pane used to list Chat and
// Gemini by hand, and showed an Ollama stream's "(ollama chat)" twice.
func TestLanesShapeTypedDialects(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"ollama-chat-tool-calls", "chat-single-call", "gemini-call"} {
		m := newProgram(newSession(sampleBytes(t, name)), Options{Source: name})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
		press(m, "6", "z")
		v := plainView(m)
		if strings.Contains(v, "● (") || strings.Contains(v, "■ (") || strings.Contains(v, "chat.completion.chunk") || !strings.Contains(v, "■ completed") {
			t.Errorf("%s: the response lane names the shared type, or no terminal status:\n%s", name, v)
		}
	}
}
