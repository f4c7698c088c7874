package inspector

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// selectedLaneRow is the line of the lanes pane that the selection
// highlights, without styling, or "".
func selectedLaneRow(m *Model) string {
	for l := range strings.SplitSeq(lanesText(m), "\n") {
		if strings.HasPrefix(l, theme.GlyphCursor) {
			return l
		}
	}
	return ""
}

// laneRowOrd is the ordinal a lanes row starts with.
func laneRowOrd(t *testing.T, row string) int {
	t.Helper()
	var ord int
	if _, err := fmt.Sscan(strings.TrimPrefix(row, theme.GlyphCursor), &ord); err != nil {
		t.Fatalf("row %q has no ordinal: %v", row, err)
	}
	return ord
}

// TestLanesFollowTimeline: the lanes pane beside the timeline highlights
// the row of the event the timeline selects, whatever selected it, even
// inside a run of deltas (which then says which of the run it is).
func TestLanesFollowTimeline(t *testing.T) {
	m := lanesModel(t, "responses-parallel-calls", 120, 40, 0)
	press(m, "1") // the timeline has the keys; the lanes stay beside it
	if sideName(m) != "lanes" {
		t.Fatalf("side pane %q; want lanes", sideName(m))
	}
	for _, tt := range []struct {
		keys []string
		ord  int    // the row highlighted
		want string // on that row
	}{
		{[]string{"j", "j"}, 2, "● open"},
		{[]string{"j", "j", "j"}, 4, "┆ 2/13"}, // event 5, in the run 4-16
		{[]string{":", "2", "7", "enter"}, 27, `│ +", Franc"`},
		{[]string{"G"}, 39, "■ completed"},
	} {
		press(m, tt.keys...)
		row := selectedLaneRow(m)
		if got := laneRowOrd(t, row); got != tt.ord || !strings.Contains(row, tt.want) {
			t.Errorf("after %v the lanes highlight %q; want row %d with %q\n%s", tt.keys, row, tt.ord, tt.want, lanesText(m))
		}
	}
}

// TestLanesMoveSelection: j and k in the lanes pane move a row at a time,
// a run of deltas being one row, and select the row's first event in the
// timeline.
func TestLanesMoveSelection(t *testing.T) {
	m := lanesModel(t, "responses-parallel-calls", 120, 40, 2)
	for _, tt := range []struct {
		key  string
		want int
	}{
		{"j", 3}, {"j", 4}, {"j", 17}, {"k", 4}, {"k", 3}, {"G", 39}, {"g", 0},
	} {
		press(m, tt.key)
		if got := m.insp.Selected(); got != tt.want {
			t.Fatalf("after %s the selection is %d; want %d", tt.key, got, tt.want)
		}
		if !strings.Contains(plainView(m), fmt.Sprintf("%s %3d ", theme.GlyphCursor, tt.want)) {
			t.Fatalf("after %s the timeline should highlight %d:\n%s", tt.key, tt.want, plainView(m))
		}
	}
	// From inside a run, j goes to the row after it and k to the one
	// before.
	m.insp.tl.SelectOrd(9)
	press(m, "j")
	if got := m.insp.Selected(); got != 17 {
		t.Errorf("j from event 9 of the run 4-16 selected %d; want 17", got)
	}
	m.insp.tl.SelectOrd(9)
	press(m, "k")
	if got := m.insp.Selected(); got != 3 {
		t.Errorf("k from event 9 of the run 4-16 selected %d; want 3", got)
	}
}

// TestLanesMoveUnderFilter: with a filter, the timeline shows only some
// events; k in the lanes still goes up, past rows whose events it hides.
func TestLanesMoveUnderFilter(t *testing.T) {
	m := lanesModel(t, "responses-parallel-calls", 120, 40, 0)
	press(m, "\\")
	typeText(m, "kind:item-open")
	pressAll(m, "enter", "6", "G")
	if got := m.insp.Selected(); got != 23 {
		t.Fatalf("G under the filter selected %d; want 23, the last open", got)
	}
	press(m, "k")
	if got := m.insp.Selected(); got != 20 {
		t.Errorf("k under the filter selected %d; want 20, the open before", got)
	}
	press(m, "k")
	if got := m.insp.Selected(); got != 2 {
		t.Errorf("k under the filter selected %d; want 2", got)
	}
}

// manyLanes is a stream of one response with calls of 48 deltas each, one
// after another: more lanes than fit.
func manyLanes(t *testing.T, w, h int) *Model {
	t.Helper()
	m := newProgram(newSession(synthStream(800)), Options{Source: "many"})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	pressAll(m, lanesKey)
	return m
}

// laneHeader is the first header line of the lanes pane.
func laneHeader(m *Model) string { return strings.SplitN(lanesText(m), "\n", 2)[0] }

// TestLanesScrollSideways: when the lanes do not fit, the header counts
// the ones hidden on each side, the selected event's lane comes into view
// as the selection moves, and h/l scroll until it moves again.
func TestLanesScrollSideways(t *testing.T) {
	m := manyLanes(t, 80, 24)
	s := m.insp.s
	calls := s.Calls()
	if len(calls) < 10 {
		t.Fatalf("the stream has %d calls; want many", len(calls))
	}
	head := laneHeader(m)
	if !strings.HasPrefix(strings.TrimSpace(head), "response") || !strings.Contains(head, fmt.Sprintf("+%d›", len(calls)+1-lanesVisible(m))) {
		t.Fatalf("first lanes: header %q; want the response first and the lanes hidden on the right counted", head)
	}
	// Select the open of call 9: its lane comes into view, the last one.
	open := calls[9].Opened
	m.insp.tl.SelectOrd(open)
	vis := lanesVisible(m)
	view := lanesText(m)
	if !strings.Contains(view, "…0009") || !strings.Contains(laneHeader(m), fmt.Sprintf("‹+%d", 10-vis+1)) {
		t.Fatalf("after selecting call 9's open the lanes pane should show its lane (…0009) and count the lanes hidden on the left:\n%s", view)
	}
	if row := selectedLaneRow(m); laneRowOrd(t, row) != open || !strings.Contains(row, "● open") {
		t.Fatalf("the selected row %q; want %d's open", row, open)
	}
	col0 := lanesCol0(m)
	press(m, "h", "h")
	if got, row := lanesCol0(m), selectedLaneRow(m); got != col0-2 || strings.Contains(lanesText(m), "…0009") || !strings.HasSuffix(strings.TrimRight(row, " "), "›") {
		t.Fatalf("h h: first lane %d; want %d, the selected lane out of view and its row pointing right (%q):\n%s", got, col0-2, row, lanesText(m))
	}
	press(m, "l")
	if got := lanesCol0(m); got != col0-1 {
		t.Fatalf("l: first lane %d; want %d", got, col0-1)
	}
	// Moving the selection brings its lane back.
	press(m, "j")
	if row := selectedLaneRow(m); !strings.Contains(row, "│ 1/48") {
		t.Errorf("after j the selected row %q; want call 9's run of deltas in view\n%s", row, lanesText(m))
	}
	// l stops at the last lanes, h at the first.
	press(m, strings.Split(strings.Repeat("l ", 40), " ")[:40]...)
	if got, want := lanesCol0(m), len(calls)+1-vis; got != want {
		t.Errorf("l past the end: first lane %d; want %d", got, want)
	}
	if head := laneHeader(m); strings.Contains(head, "›") {
		t.Errorf("at the last lanes the header %q counts lanes on the right", head)
	}
	press(m, strings.Split(strings.Repeat("h ", 40), " ")[:40]...)
	if got := lanesCol0(m); got != 0 {
		t.Errorf("h past the start: first lane %d; want 0", got)
	}
}

// TestLanesKeysHelp: h/l show in the help only when lanes are hidden.
func TestLanesKeysHelp(t *testing.T) {
	few := lanesModel(t, "responses-parallel-calls", 200, 40, 0)
	if help := strings.Split(plainView(few), "\n")[38]; strings.Contains(help, "lanes left") || !strings.Contains(help, "z zoom pane") {
		t.Errorf("with every lane in view the help line %q should offer z, not h/l", help)
	}
	many := manyLanes(t, 120, 40)
	if help := strings.Split(plainView(many), "\n")[38]; !strings.Contains(help, "h/← lanes left") {
		t.Errorf("with lanes hidden the help line %q should offer h/l", help)
	}
}

// TestLanesMouse: a click selects the row's event; the wheel scrolls the
// rows, leaving the selection where it was.
func TestLanesMouse(t *testing.T) {
	m := lanesModel(t, "responses-parallel-calls", 120, 20, 0)
	r := m.insp.r.side
	// The pane's content starts under the title; the rows under the two
	// header lines: the fourth row is event 3.
	m.Update(tea.MouseClickMsg{X: r.X + 10, Y: r.Y + 1 + 2 + 3, Button: tea.MouseLeft})
	if got := m.insp.Selected(); got != 3 {
		t.Fatalf("a click on the fourth row selected %d; want 3", got)
	}
	m.Update(tea.MouseWheelMsg{X: r.X + 10, Y: r.Y + 5, Button: tea.MouseWheelDown})
	if got, top := m.insp.Selected(), lanesTop(m); got != 3 || top != 3 {
		t.Errorf("after the wheel: selection %d, first row %d; want 3 and 3", got, top)
	}
	if first := strings.Split(lanesText(m), "\n")[2]; laneRowOrd(t, first) != 3 {
		t.Errorf("after the wheel the first row is %q; want event 3's", first)
	}
}

// TestLanesIncremental: the index built as a live stream arrives, in
// batches of any size, equals the index of the whole stream: every
// sample, and a stream of many calls.
func TestLanesIncremental(t *testing.T) {
	t.Parallel()
	n := 3000 // events of the generated stream
	if testing.Short() {
		n = 600 // as many batches of 1 to 7 events, as fewer rows
	}
	streams := map[string][]byte{"synth": synthStream(n)}
	for _, sm := range samples.List() {
		streams[sm.Name] = sampleBytes(t, sm.Name)
	}
	for name, data := range streams {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			whole := newProgram(newSession(data), Options{Source: "whole"})
			whole.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			pressAll(whole, lanesKey)
			_ = viewOf(whole)
			want := whole.insp.lanes.Index()

			rng := rand.New(rand.NewPCG(1, uint64(len(data))))
			live := liveModel(t, data, 120, 40)
			pressAll(live, lanesKey)
			fs := frames(data)
			for i := 0; i < len(fs); {
				n := 1 + rng.IntN(7)
				live.Update(batch(fs[i:min(i+n, len(fs))]))
				_ = viewOf(live) // the index grows as the pane is drawn
				i += n
			}
			got := live.insp.lanes.Index()
			if got != want {
				t.Fatalf("indexed live: %d events, %d rows %s;\nwhole: %d events, %d rows %s",
					got.Scanned, got.Rows, got.Layout, want.Scanned, want.Rows, want.Layout)
			}
		})
	}
}

// TestLanesHugeStream opens the lanes pane on a generated stream of 100k
// events: it indexes in pieces of background work, a run of deltas is one
// row, and the selection far down the stream is drawn with its lane.
func TestLanesHugeStream(t *testing.T) {
	t.Parallel()
	const n = 100_000
	m := newProgram(newSession(synthStream(n)), Options{Source: "huge"})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	sel := n/2 + 10 // a delta of a call amid the stream
	m.insp.tl.SelectOrd(sel)
	_, work := m.Update(keyMsg(lanesKey))
	p := m.insp.lanes
	_ = viewOf(m)
	if p.Index().Scanned >= n || !strings.Contains(sideTitleText(m), "indexing") {
		t.Fatalf("the first frames indexed %d events, title %q; want a part and the progress", p.Index().Scanned, sideTitleText(m))
	}
	settle(m, work)
	if p.Index().Behind != 0 {
		t.Fatalf("after the work the index is %d events behind", p.Index().Behind)
	}
	calls := len(m.insp.s.Calls())
	// Each call: its open, one run of deltas, its done; and the response's
	// first and last events.
	if got, want := p.Index().Rows, 3*calls+2; got != want {
		t.Errorf("%d rows for %d events of %d calls; want %d", got, n, calls, want)
	}
	row := selectedLaneRow(m)
	it := m.insp.s.Items[m.insp.s.Events.At(sel).Item]
	if !strings.Contains(row, fmt.Sprintf("/%d", it.Deltas)) || !strings.Contains(lanesText(m), plain.IDEnd(it.ItemID)) {
		t.Errorf("the selected row %q should be a place in the run of %s's %d deltas, its lane in view:\n%s", row, it.ItemID, it.Deltas, lanesText(m))
	}
	checkFits(t, viewOf(m), 80, 24)
	press(m, "G")
	if got := laneRowOrd(t, selectedLaneRow(m)); got != n-1 || !strings.Contains(lanesText(m), "■ completed") {
		t.Errorf("G selected row %d; want %d, the terminal:\n%s", got, n-1, ansi.Strip(lanesText(m)))
	}
}

// TestLanesStreamLane: events before any response (a curl -i capture's
// HTTP head) get a lane of their own, first, named for what they are.
func TestLanesStreamLane(t *testing.T) {
	data := append([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"), sampleBytes(t, "chat-single-call")...)
	m := newProgram(newSession(data), Options{Source: "curl"})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
	pressAll(m, lanesKey)
	text := lanesText(m)
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(strings.TrimSpace(lines[0]), "stream") || !strings.Contains(lines[1], "before any response") {
		t.Errorf("the first lane should be the stream's:\n%s", text)
	}
	if row := selectedLaneRow(m); !strings.Contains(row, "· HTTP/1.1 200") {
		t.Errorf("the head's row %q; want its status line\n%s", row, text)
	}
}

// lanesCol0, lanesVisible and lanesTop say where the lanes pane's view
// stands: its first lane column, how many fit, its first row.
func lanesCol0(m *Model) int    { c, _, _ := m.insp.lanes.Scroll(); return c }
func lanesVisible(m *Model) int { _, v, _ := m.insp.lanes.Scroll(); return v }
func lanesTop(m *Model) int     { _, _, t := m.insp.lanes.Scroll(); return t }
