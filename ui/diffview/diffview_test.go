package diffview

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/inspector"
	"github.com/streamtap/streamtap/ui/pane"
	"github.com/streamtap/streamtap/ui/theme"
)

// The pairs the diff page is drawn from: a gateway's re-stream of a call
// (its deltas re-cut, its function_call_arguments.done dropped), and the
// same pair the other way round, where that event is only in B.
const (
	diffOfficial = "responses-single-call"
	diffGateway  = "gateway-responses-single-call"
)

// diffSideOf models a sample as `streamtap A --diff B` builds each side:
// events kept, the checks and the comparison's recorder observing.
func diffSideOf(t testing.TB, name string) (*model.Session, *streamdiff.Recorder) {
	t.Helper()
	return diffSideOfBytes(sampleBytes(t, name))
}

// newDiffModel opens the diff page on samples a and b at w×h, as the
// command does: A through NewDiff, B read and handed over, the comparison
// run as the page asks for it.
func newDiffModel(t testing.TB, a, b string, w, h int) *Model {
	t.Helper()
	m := newDiffModelUnread(t, a, w, h)
	_, cmd := m.Update(sideRead(t, b))
	drain(t, m, cmd)
	if m.dv.view == nil {
		t.Fatal("the page did not compare the streams once both were read")
	}
	return m
}

// sideRead is sample b read as stream B, handed to the page.
func sideRead(t testing.TB, b string) tea.Msg {
	sb, recB := diffSideOf(t, b)
	return SideRead(streamdiff.NewSide("sample "+b, sb, recB), nil)
}

// newDiffModelUnread opens the diff page on sample a, B not read yet.
func newDiffModelUnread(t testing.TB, a string, w, h int) *Model {
	t.Helper()
	sa, recA := diffSideOf(t, a)
	m := NewDiff(sa, recA, Options{Source: "sample " + a, Checks: StrictChecks},
		Config{B: "sample b", Compare: streamdiff.DefaultOptions()})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// drain runs cmd and gives the model the messages meant for the diff page
// and the panes' work, and runs what those return, until nothing is left;
// and the results of a search or a filter, without running what they
// return (a notice, whose fade waits four seconds).
func drain(t testing.TB, m *Model, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			drain(t, m, c)
		}
	case sideMsg:
		_, next := m.Update(msg)
		if _, ok := msg.msg.(pane.Msg); ok {
			drain(t, m, next)
		}
	case diffPageMsg, pane.Msg:
		_, next := m.Update(msg)
		drain(t, m, next)
	default:
		if inspector.Handles(msg) { // a search's or a filter's results
			m.Update(msg)
		}
	}
}

// diffMsgOf runs the commands of cmd each on a goroutine, as the program
// does, and returns the first message for the diff page among their
// results; the others (a notice's fade) are left to finish on their own.
func diffMsgOf(t testing.TB, cmd tea.Cmd) tea.Msg {
	t.Helper()
	results := make(chan tea.Msg, 16)
	run := func(c tea.Cmd) {
		if c != nil {
			go func() { results <- c() }()
		}
	}
	run(cmd)
	deadline := time.After(10 * time.Second) // liveness only
	for {
		select {
		case msg := <-results:
			switch msg := msg.(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					run(c)
				}
			case diffPageMsg:
				return msg
			}
		case <-deadline:
			t.Fatal("no message for the diff page within 10 s")
			return nil
		}
	}
}

// pressDrain presses keys one by one, running the work each starts.
func pressDrain(t testing.TB, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		drain(t, m, cmd)
	}
}

// sel is the selected event of side A and of side B on the page.
func sel(m *Model) [2]int { return [2]int{m.dv.side[0].Selected(), m.dv.side[1].Selected()} }

// TestDiffGolden draws the diff page at 80×24 (stacked) and 160×48 (side
// by side): a gateway's stream against the official one, opened at the
// first difference (deltas re-cut), the same after n (the .done the
// gateway dropped, only in A), the pair the other way round at that
// event (only in B),
// two dialects, B still being read, two equal streams, a search on and
// one being typed. The 160×48 views of the first and of the search keep
// their styling.
func TestDiffGolden(t *testing.T) {
	cases := []struct {
		name   string
		a, b   string
		keys   []string
		unread bool
	}{
		{name: "gateway", a: diffOfficial, b: diffGateway},
		{name: "gateway-only-in-a", a: diffOfficial, b: diffGateway, keys: []string{"n"}},
		{name: "only-in-b", a: diffGateway, b: diffOfficial, keys: []string{"n"}},
		{name: "two-dialects", a: "chat-single-call", b: diffOfficial},
		{name: "reading-b", a: diffOfficial, unread: true},
		{name: "equal", a: diffOfficial, b: diffOfficial},
		// A search on: /done⏎ then n, the matches marked • (or their
		// difference's glyph in reverse) and counted in the status.
		{name: "search", a: diffOfficial, b: diffGateway, keys: []string{"/", "d", "o", "n", "e", "enter", "n"}},
		{name: "search-prompt", a: diffOfficial, b: diffGateway, keys: []string{"/", "f", "c", "_"}},
	}
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				var m *Model
				if tc.unread {
					m = newDiffModelUnread(t, tc.a, size[0], size[1])
				} else {
					m = newDiffModel(t, tc.a, tc.b, size[0], size[1])
				}
				pressDrain(t, m, tc.keys...)
				out := viewOf(m)
				checkFits(t, out, size[0], size[1])
				if tc.name != "gateway" && tc.name != "search" || size[0] != 160 {
					out = ansi.Strip(out)
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}

// TestDiffWidthSweep draws the page at widths from 60 to 172 and heights
// 15 and 24 and checks that no line overflows.
func TestDiffWidthSweep(t *testing.T) {
	t.Parallel()
	for _, h := range []int{15, 24} {
		for _, w := range widths(60, 172, 4) {
			m := newDiffModel(t, diffGateway, diffOfficial, w, h)
			checkFits(t, viewOf(m), w, h)
			pressDrain(t, m, "n", "tab", "j")
			checkFits(t, viewOf(m), w, h)
		}
	}
}

// TestDiffLinkedSelection: moving on the active side moves the other to
// the counterpart of the selected event, marked ≈ when it is only near
// (re-cut deltas); tab makes the other side the one that leads.
func TestDiffLinkedSelection(t *testing.T) {
	m := newDiffModel(t, diffOfficial, diffGateway, 160, 48)
	links := m.dv.view.links
	pressDrain(t, m, "g") // response.created: aligned one to one
	if got := sel(m); got != [2]int{0, 0} {
		t.Fatalf("after g: selections %v; want [0 0]", got)
	}
	if v := plainView(m); !strings.Contains(v, "= A#0") {
		t.Errorf("an exact counterpart should read = A#0:\n%s", v)
	}
	for range 5 {
		pressDrain(t, m, "j")
		s := sel(m)
		want, _ := links.Counterpart(streamdiff.SideA, s[0])
		if s[1] != want {
			t.Fatalf("A at #%d: B at #%d; want its counterpart #%d", s[0], s[1], want)
		}
	}
	// A#5 is a re-cut delta: B is only near it.
	if got := sel(m); got[0] != 5 {
		t.Fatalf("A at #%d; want #5", got[0])
	}
	v := plainView(m)
	if !strings.Contains(v, "≈ near A#5") || !strings.Contains(v, theme.GlyphNear+"÷") {
		t.Errorf("a near counterpart should be marked on B's cursor and header:\n%s", v)
	}
	pressDrain(t, m, "tab", "G") // B leads now: its last event, response.completed
	s := sel(m)
	if s[1] != 8 || s[0] != 13 {
		t.Errorf("after tab and G: selections %v; want A#13 (the counterpart of B#8), B#8", s)
	}
	if v := plainView(m); !strings.Contains(v, "= B#8") {
		t.Errorf("with B active, A's header should say = B#8:\n%s", v)
	}
}

// TestDiffNextPrevious: n and N go from difference to difference on the
// active side, around again past either end, and the panel lists the
// differences at the events selected.
func TestDiffNextPrevious(t *testing.T) {
	m := newDiffModel(t, diffOfficial, diffGateway, 80, 24)
	// Opened at the first difference: the re-cut deltas.
	if got := sel(m); got != [2]int{3, 3} {
		t.Fatalf("opened at %v; want the first difference, A#3 and B#3", got)
	}
	steps := []struct {
		key   string
		want  [2]int
		panel string
	}{
		{"n", [2]int{11, 6}, "only-in-a A#11 - only in A: response.function_call_arguments.done"},
		{"n", [2]int{3, 3}, "chunking A#3–#10 B#3–#6"},
		{"N", [2]int{11, 6}, "only-in-a A#11"},
		{"N", [2]int{3, 3}, "chunking A#3–#10 B#3–#6"},
	}
	for i, st := range steps {
		pressDrain(t, m, st.key)
		if got := sel(m); got != st.want {
			t.Fatalf("step %d (%s): selections %v; want %v", i, st.key, got, st.want)
		}
		if v := plainView(m); !strings.Contains(v, st.panel) {
			t.Errorf("step %d (%s): the panel should list %q:\n%s", i, st.key, st.panel, v)
		}
	}
	// On B, the difference only A has stops after the nearest counterpart.
	m = newDiffModel(t, diffGateway, diffOfficial, 80, 24)
	pressDrain(t, m, "tab", "g")
	var got [][2]int
	for range 3 {
		pressDrain(t, m, "n")
		got = append(got, sel(m))
	}
	if want := [][2]int{{3, 3}, {6, 11}, {3, 3}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("n on B from the top stops at %v; want %v", got, want)
	}
}

// TestDiffEnterEsc: enter opens the active side in the normal inspector
// at the selected event; a move there and esc come back to the page with
// that selection, the other side linked to it. B's inspector gets its own
// work back: a search in it finds B's events.
func TestDiffEnterEsc(t *testing.T) {
	m := newDiffModel(t, diffOfficial, diffGateway, 120, 40)
	pressDrain(t, m, "enter")
	if m.dv.opened() != m.insp {
		t.Fatalf("enter on A should show A's inspector")
	}
	v := plainView(m)
	if !strings.Contains(v, "1 timeline") || !strings.Contains(v, "2 detail") || m.insp.Selected() != 3 {
		t.Fatalf("A's inspector should show at A#3 (selected %d):\n%s", m.insp.Selected(), v)
	}
	if !strings.Contains(v, "esc back to the diff") {
		t.Errorf("the help line should say how to come back:\n%s", v)
	}
	pressDrain(t, m, "G", "esc")
	if m.dv.opened() != nil {
		t.Fatal("esc should come back to the diff page")
	}
	if got := sel(m); got != [2]int{13, 8} {
		t.Errorf("back from A's inspector at its last event: selections %v; want [13 8]", got)
	}
	// B: its own inspector; its search results come back to it.
	pressDrain(t, m, "tab", "enter")
	b := m.dv.side[1].in
	if m.dv.opened() != b || b == m.insp {
		t.Fatal("enter on B should show B's own inspector")
	}
	if v := plainView(m); !strings.Contains(v, "B sample "+diffGateway) {
		t.Errorf("B's inspector should name B in its status line:\n%s", v)
	}
	pressDrain(t, m, "/")
	typeText(m, "output_item")
	pressDrain(t, m, "enter")
	if b.Matches() == 0 || m.insp.Matches() != 0 {
		t.Errorf("search in B: B's matches %v, A's %v; want B's only", b.Matches(), m.insp.Matches())
	}
	pressDrain(t, m, "esc") // clears the search first
	if m.dv.opened() != b {
		t.Fatal("the first esc clears B's search; the page should stay on B's inspector")
	}
	pressDrain(t, m, "esc")
	if m.dv.opened() != nil || m.dv.active != streamdiff.SideB {
		t.Errorf("the second esc should come back to the page with B active")
	}
}

// TestDiffWaitsForBothSides: the sides show as they are read; the
// comparison starts once A has ended and B is read, in a command, and the
// page says "comparing…" until its result comes.
func TestDiffWaitsForBothSides(t *testing.T) {
	data := sampleBytes(t, diffOfficial)
	opts, recA := streamdiff.Attach(model.Options{KeepEvents: true, Raw: bytes.NewReader(data)}, streamdiff.NewIgnore(streamdiff.DefaultIgnore()...))
	m := NewDiff(model.NewSession(opts), recA, Options{Source: "stdin", Live: true}, Config{B: "b.sse", Compare: streamdiff.DefaultOptions()})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if v := plainView(m); !strings.Contains(v, "reading B…") || !strings.Contains(v, "B b.sse") {
		t.Fatalf("before B is read:\n%s", v)
	}
	fs := frames(data)
	m.Update(batch(fs[:5]))
	_, cmd := m.Update(sideRead(t, diffGateway))
	drain(t, m, cmd)
	if v := plainView(m); !strings.Contains(v, "waiting for A to end…") || m.dv.view != nil {
		t.Fatalf("B read, A live: the page should wait for A:\n%s", v)
	}
	if m.dv.side[0].tl.Selected() != 4 {
		t.Errorf("A's timeline follows the live tail: selected %d; want 4", m.dv.side[0].tl.Selected())
	}
	m.Update(batch(fs[5:]))
	_, cmd = m.Update(SourceDone(nil))
	if v := plainView(m); !strings.Contains(v, "comparing…") {
		t.Fatalf("A ended: the page should be comparing:\n%s", v)
	}
	m.Update(diffMsgOf(t, cmd)) // the comparison, beside the "stream ended" notice
	if m.dv.view == nil || m.dv.view.res.Counts["chunking"] != 1 {
		t.Fatalf("the comparison should have come: %+v", m.dv.view)
	}
	if v := plainView(m); !strings.Contains(v, "2 in all: 1 only-in-a, 1 chunking") {
		t.Errorf("after the comparison:\n%s", v)
	}
}

// TestDiffBUnreadable: B that cannot be read is said in its place and in
// the status line; A stays browsable.
func TestDiffBUnreadable(t *testing.T) {
	m := newDiffModelUnread(t, diffOfficial, 80, 24)
	m.Update(SideRead(nil, errors.New("open b.sse: no such file or directory")))
	v := plainView(m)
	for _, want := range []string{"cannot read B: open b.sse: no such file or directory", "B could not be read"} {
		if !strings.Contains(v, want) {
			t.Errorf("the page should say %q:\n%s", want, v)
		}
	}
	pressDrain(t, m, "j", "tab")
	if got := sel(m); got[0] != 1 || m.dv.active != streamdiff.SideA {
		t.Errorf("A should move alone and keep the keys: %v, active %v", got, m.dv.active)
	}
}

// TestDiffMarks: the gutter marks each event of a difference's stretch,
// and only those: the re-cut deltas on both sides, the .done only A has.
func TestDiffMarks(t *testing.T) {
	m := newDiffModel(t, diffOfficial, diffGateway, 120, 40)
	v := m.dv.view
	kinds := func(w streamdiff.Which) string {
		var b strings.Builder
		for ord := range m.dv.side[w].s.Len() {
			if i := v.markAt(w, ord); i >= 0 {
				b.WriteString(kindGlyph(v.res.Differences[i].Kind))
			} else {
				b.WriteString(".")
			}
		}
		return b.String()
	}
	if got, want := kinds(streamdiff.SideA), "...÷÷÷÷÷÷÷÷-.."; got != want {
		t.Errorf("marks on A = %s; want %s", got, want)
	}
	if got, want := kinds(streamdiff.SideB), "...÷÷÷÷.."; got != want {
		t.Errorf("marks on B = %s; want %s", got, want)
	}
}

// TestDiffKeys: the page's keys show in its help only while it is shown,
// and the inspector's that do nothing there are off (its search is the
// page's own).
func TestDiffKeys(t *testing.T) {
	m := newDiffModel(t, diffOfficial, diffGateway, 160, 48)
	help := func() string { return ansi.Strip(m.dv.HelpLine()) }
	for _, want := range []string{"n next diff", "N prev diff", "tab other side", "enter inspect side"} {
		if !strings.Contains(help(), want) {
			t.Errorf("the page's help line lacks %q: %s", want, help())
		}
	}
	if k := &m.Keys; !k.Search.Search.Enabled() || k.Search.Filter.Enabled() || k.Stream.Play.Enabled() || k.Sessions.Back.Enabled() {
		t.Errorf("the page's search should be on, and the filter, replay and back off")
	}
	pressDrain(t, m, "?")
	if v := plainView(m); !strings.Contains(v, "Diff") || !strings.Contains(v, "next diff") {
		t.Errorf("the full help should list the page's keys:\n%s", v)
	}
	pressDrain(t, m, "?", "enter")
	if k := &m.Keys; k.Diff.NextDiff.Enabled() || !k.Search.Search.Enabled() || !k.Sessions.Back.Enabled() {
		t.Errorf("in a side's inspector the page's keys are off and the inspector's on")
	}
}

// TestDiffCompareBesideView runs the comparison while the page is drawn,
// as the program does: under -race it shows that the command only reads
// what nothing changes.
func TestDiffCompareBesideView(t *testing.T) {
	m := newDiffModelUnread(t, diffOfficial, 120, 40)
	_, cmd := m.Update(sideRead(t, diffGateway))
	if !m.dv.comparing || cmd == nil {
		t.Fatal("both sides are whole: the page should start comparing")
	}
	var wg sync.WaitGroup
	var msg tea.Msg
	wg.Go(func() { msg = cmd() })
	pressDrain(t, m, "enter", "3") // A's inspector, its calls pane
	for range 10 {
		pressDrain(t, m, "j")
		_ = viewOf(m)
	}
	wg.Wait()
	m.Update(msg)
	if m.dv.view == nil {
		t.Fatal("the comparison did not come")
	}
}

// TestDiffMarksInterleaved: a stretch of one call's deltas that only A
// has, interleaved with the other call's, marks its own events and not
// the other call's between them.
func TestDiffMarksInterleaved(t *testing.T) {
	data := sampleBytes(t, "responses-parallel-calls")
	events := strings.SplitAfter(string(data), "\n\n")
	dropped := strings.Join(events[:26], "") + events[27] + strings.Join(events[29:], "") // get_local_time's #26 and #28
	sa, recA := diffSideOf(t, "responses-parallel-calls")
	opts, recB := streamdiff.Attach(model.Options{KeepEvents: true, Raw: strings.NewReader(dropped)}, streamdiff.NewIgnore(streamdiff.DefaultIgnore()...))
	sb := model.Assemble([]byte(dropped), capture.FormatAuto, opts)
	m := NewDiff(sa, recA, Options{Source: "a"}, Config{B: "b", Compare: streamdiff.DefaultOptions()})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	_, cmd := m.Update(SideRead(streamdiff.NewSide("b", sb, recB), nil))
	drain(t, m, cmd)
	v := m.dv.view
	marks := func(w streamdiff.Which, from, to int) string {
		var b strings.Builder
		for ord := from; ord < to; ord++ {
			if i := v.markAt(w, ord); i >= 0 {
				b.WriteString(kindGlyph(v.res.Differences[i].Kind))
			} else {
				b.WriteString(".")
			}
		}
		return b.String()
	}
	// A#26 and A#28 are the dropped deltas; the get_weather deltas between
	// them (A#27, A#29) are aligned, their sequence numbers out of step.
	// The call whose deltas now disagree with its .done is listed at each
	// of get_local_time's events but marks only the events that differ:
	// on B, the first delta past the dropped bytes (B#28, A#30), where
	// the arguments start to differ, not the identical deltas before it.
	if got, want := marks(streamdiff.SideB, 26, 29), "##◆"; got != want {
		t.Errorf("marks on B#26–#28 = %s; want %s", got, want)
	}
	if got, want := marks(streamdiff.SideA, 20, 39), "......-#-#........."; got != want {
		t.Errorf("marks on A#20–#38 = %s; want %s", got, want)
	}
}

// TestDiffWarning: what the command warned of on stderr as the page
// opened (an --ignore name that matches nothing), which the screen hides,
// stays in the status line, escaped.
func TestDiffWarning(t *testing.T) {
	sa, recA := diffSideOf(t, diffOfficial)
	const warning = "warning: --ignore usgae\x1b[2J matches nothing (did you mean usage?)"
	m := NewDiff(sa, recA, Options{Source: "sample " + diffOfficial, Checks: StrictChecks, Warning: warning},
		Config{B: "sample b", Compare: streamdiff.DefaultOptions()})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	_, cmd := m.Update(sideRead(t, diffOfficial))
	drain(t, m, cmd)
	v := viewOf(m)
	if strings.Contains(v, "\x1b[2J") {
		t.Error("the warning reached the terminal raw")
	}
	lines := strings.Split(plainView(m), "\n")
	if status := lines[len(lines)-1]; !strings.Contains(status, "--ignore usgae") || !strings.Contains(status, "did you mean usage?") {
		t.Errorf("the status line should keep the warning:\n%s", status)
	}
}
