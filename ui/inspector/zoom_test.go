package inspector

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestZoom: z shows the focused pane alone over the whole body, whichever
// it is; tab and the number keys show another the same way; a resize
// keeps the zoom; z again brings the timeline back beside the side pane.
func TestZoom(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-parallel-calls"), 120, 30)
	m.insp.tl.SelectOrd(27)
	firstLine := func() string { return strings.Split(plainView(m), "\n")[0] }
	if !strings.Contains(firstLine(), "│2 detail") {
		t.Fatalf("unzoomed, the first line should hold both titles: %q", firstLine())
	}
	press(m, "z")
	v := plainView(m)
	if strings.Contains(v, "2 detail") || !strings.HasPrefix(firstLine(), "1 timeline") || !strings.Contains(v, `get_weather +", Franc"`) {
		t.Fatalf("z on the timeline should show it alone, full width:\n%s", v)
	}
	checkFits(t, viewOf(m), 120, 30)
	for _, tt := range []struct{ key, want, title string }{
		{"tab", "#27  response.function_call_arguments.delta", "2 detail"},
		{"3", "as of event #27", "3 calls"},
		{"6", "get_local_time", "6 lanes"},
	} {
		press(m, tt.key)
		v := plainView(m)
		if strings.Contains(v, "1 timeline") || !strings.Contains(firstLine(), tt.title) || !strings.Contains(v, tt.want) {
			t.Fatalf("zoomed, %s should show %s alone:\n%s", tt.key, tt.title, v)
		}
		w := 0
		for _, l := range strings.Split(v, "\n")[1:28] {
			w = max(w, ansi.StringWidth(strings.TrimRight(l, " ")))
		}
		if w <= 66 {
			t.Errorf("zoomed, %s draws %d cells wide; want more than the side pane's", tt.title, w)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	checkFits(t, viewOf(m), 80, 24)
	if v := plainView(m); strings.Contains(v, "1 timeline") || !strings.Contains(v, "get_local_time") {
		t.Fatalf("a resize should keep the zoom:\n%s", v)
	}
	press(m, "z")
	if v := plainView(m); !strings.Contains(v, "1 timeline") || !strings.Contains(v, "6 lanes") {
		t.Fatalf("z again should show the timeline and the side pane:\n%s", v)
	}
}

// TestZoomClick: zoomed, a click lands in the pane shown, at its place.
func TestZoomClick(t *testing.T) {
	m := lanesModel(t, "responses-parallel-calls", 120, 40, 0)
	press(m, "z")
	// The title, two header lines, then the rows: the fifth row is the
	// run of text deltas 4-16, whose first event the click selects.
	m.Update(tea.MouseClickMsg{X: 100, Y: 1 + 2 + 4, Button: tea.MouseLeft})
	if got := m.insp.Selected(); got != 4 {
		t.Errorf("a click on the run's row selected %d; want 4", got)
	}
}

// TestSideTitleKeepsStatus: when the tabs and the status of the pane shown
// do not fit in the side pane's title, the tabs not shown shrink to their
// numbers and the status stays.
func TestSideTitleKeepsStatus(t *testing.T) {
	t.Parallel()
	// Many more events than a frame indexes (4,096), so the lanes are still
	// indexing when the title is drawn, after a key or two.
	m := newProgram(newSession(synthStream(30_000)), Options{Source: "big"})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	press(m, lanesKey)
	title := sideTitleText(m)
	if !strings.Contains(title, "indexing") || !strings.Contains(title, "6 lanes") || !strings.HasPrefix(title, "2 deta 3 call 4 diff 5 find 6 lanes") {
		t.Errorf("side title %q; want the other tabs by the start of their names (issue 19), the lanes tab and its status", title)
	}
	press(m, "1") // the timeline focused, the lanes still shown
	if title := sideTitleText(m); !strings.Contains(title, "indexing") {
		t.Errorf("side title %q; want the status", title)
	}
	m2 := newTestModel(t, sampleBytes(t, "responses-single-call"), 120, 40)
	if title := sideTitleText(m2); !strings.HasPrefix(title, "2 detail  3 calls  4 diffs  5 findings  6 lanes") {
		t.Errorf("with room the side title %q should name every tab", title)
	}
}
