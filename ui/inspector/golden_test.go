package inspector

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/streamtap/streamtap/ui/app"
)

// paneCase puts the model into the state that shows one pane.
type paneCase struct {
	name  string
	setup func(m *Model)
}

var paneCases = []paneCase{
	// Event 27 is a delta of get_weather while get_local_time is half
	// streamed: both calls partial, the fragment marked.
	{"timeline", func(m *Model) { m.insp.tl.SelectOrd(27) }},
	{"detail", func(m *Model) { m.insp.tl.SelectOrd(27); press(m, "2") }},
	{"detail-raw", func(m *Model) { m.insp.tl.SelectOrd(27); press(m, "2", "r") }},
	{"calls", func(m *Model) { m.insp.tl.SelectOrd(27); press(m, "3") }},
	{"diffs", func(m *Model) { m.insp.tl.SelectOrd(36); press(m, "4") }},
	{"findings", func(m *Model) { m.insp.tl.SelectOrd(27); press(m, "5") }},
	{"lanes", func(m *Model) { m.insp.tl.SelectOrd(27); press(m, "6") }},
	{"lanes-zoomed", func(m *Model) { m.insp.tl.SelectOrd(27); press(m, "6", "z") }},
	{"help", func(m *Model) { press(m, "?") }},
}

func goldenModel(t testing.TB, w, h int) *Model {
	t.Helper()
	m := newProgram(newSession(sampleBytes(t, goldenSample)), Options{Source: "sample " + goldenSample, Checks: fakeChecks})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// TestGolden renders every pane at 80×24 and 120×40. The 120×40 views keep
// their ANSI styling (one styled golden per pane); the others are stripped.
func TestGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, pc := range paneCases {
			t.Run(fmt.Sprintf("%s_%dx%d", pc.name, size[0], size[1]), func(t *testing.T) {
				m := goldenModel(t, size[0], size[1])
				pc.setup(m)
				out := viewOf(m)
				checkFits(t, out, size[0], size[1])
				if size[0] != 120 {
					out = ansi.Strip(out)
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}

// TestGoldenTimed draws the timeline of a timed recording read from stdin
// (its first event, the recording's header, has no time): the time and gap
// columns show as far as the width allows.
func TestGoldenTimed(t *testing.T) {
	rec := stdinRecording(t, sampleBytes(t, goldenSample))
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newProgram(newSession(rec), Options{Source: "rec.sse", Checks: fakeChecks})
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m.insp.tl.SelectOrd(28)
			out := viewOf(m)
			checkFits(t, out, size[0], size[1])
			if size[0] != 120 {
				out = ansi.Strip(out)
			}
			golden.RequireEqual(t, out)
		})
	}
}

// TestWidthSweep draws every pane at widths from 20 to 160 and checks that
// no line overflows, including the notice shown below the minimum size.
func TestWidthSweep(t *testing.T) {
	t.Parallel()
	for _, h := range []int{10, 15, 24} {
		for _, w := range widths(20, 160, 3) {
			for _, pc := range paneCases {
				m := goldenModel(t, w, h)
				pc.setup(m)
				out := viewOf(m)
				lines := strings.Split(out, "\n")
				for i, l := range lines {
					if lw := ansi.StringWidth(l); lw > w {
						t.Fatalf("%s at %dx%d: line %d is %d cells: %q", pc.name, w, h, i, lw, ansi.Strip(l))
					}
				}
				if len(lines) > h {
					t.Fatalf("%s at %dx%d: %d lines", pc.name, w, h, len(lines))
				}
				if (w < app.MinWidth || h < app.MinHeight) && len(lines) != 1 {
					t.Fatalf("%s at %dx%d: want the one-line notice, got %d lines", pc.name, w, h, len(lines))
				}
			}
		}
	}
}
