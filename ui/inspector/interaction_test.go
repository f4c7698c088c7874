package inspector

import (
	"errors"
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// liveModel is an inspector over an empty live session whose bytes are
// data, fed later by Frames messages.
func liveModel(t *testing.T, data []byte, w, h int) *Model {
	t.Helper()
	s := model.NewSession(model.Options{KeepEvents: true, Raw: strings.NewReader(string(data))})
	m := newProgram(s, Options{Source: "stdin", Live: true})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

func TestMovingUpShrinksArguments(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-single-call"), 120, 40)
	press(m, "G")
	if v := plainView(m); !strings.Contains(v, `"location": "Paris, France"`) {
		t.Fatalf("at the last event the calls pane should show the full arguments:\n%s", v)
	}
	// Walk up to the third argument delta: only its prefix had arrived.
	for m.insp.Selected() > 5 {
		press(m, "k")
	}
	v := plainView(m)
	if !strings.Contains(v, "as of event #5") || strings.Contains(v, "France") {
		t.Fatalf("as of event 5 the arguments must be cut back:\n%s", v)
	}
	if !strings.Contains(v, "json incomplete") {
		t.Errorf("partial arguments should be marked incomplete:\n%s", v)
	}
	// The fragment event 5 added is marked (styled with the mark style).
	it := m.insp.s.Items[m.insp.s.Events.At(5).Item]
	a, b, ok := it.Args.FragmentAt(5)
	if !ok {
		t.Fatal("event 5 added no fragment")
	}
	// The fragment is ` "Par`: the pretty printer drops the space, the
	// string part is marked.
	frag := strings.TrimSpace(string(it.Args.Bytes()[a:b]))
	if want := m.Styles.JSONMark[theme.TokString].Render(frag); !strings.Contains(viewOf(m), want) {
		t.Errorf("fragment %q not marked in the calls pane", frag)
	}
}

func TestLiveBatchesFollowWithoutYanking(t *testing.T) {
	data := sampleBytes(t, "responses-parallel-calls")
	fs := frames(data)
	m := liveModel(t, data, 120, 40)
	if v := plainView(m); !strings.Contains(v, "waiting for events") {
		t.Fatalf("empty live view:\n%s", v)
	}
	m.Update(batch(fs[:20]))
	if got := m.insp.Selected(); got != 19 {
		t.Fatalf("following: selected = %d; want 19", got)
	}
	// The reader scrolls up: new events must not move the selection.
	press(m, "k", "k")
	m.Update(batch(fs[20:30]))
	if got := m.insp.Selected(); got != 17 {
		t.Fatalf("scrolled up: selected = %d; want 17 (no yank)", got)
	}
	if v := plainView(m); !strings.Contains(v, "follow off") || !strings.Contains(v, "30 events") {
		t.Errorf("status bar should say follow off and 30 events:\n%s", v)
	}
	press(m, "f") // follow again: jump to the tail
	m.Update(batch(fs[30:]))
	if got, want := m.insp.Selected(), len(fs)-1; got != want {
		t.Fatalf("following again: selected = %d; want %d", got, want)
	}
	m.Update(SourceDone(nil))
	if v := plainView(m); !strings.Contains(v, "ended: completed") {
		t.Errorf("after the source ended the status bar should say so:\n%s", v)
	}
}

func TestSourceDoneShowsHowTheStreamEnded(t *testing.T) {
	tests := []struct {
		name, sample string
		err          error
		want         string
	}{
		{"terminal event", "responses-single-call", nil, "ended: completed"},
		{"done sentinel", "chat-single-call", nil, "ended: completed"},
		{"eof without terminal", "broken-cut-before-terminal", nil, "ended: truncated"},
		{"read error", "broken-cut-before-terminal", errors.New("connection reset"), "read error: connection reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := sampleBytes(t, tt.sample)
			m := liveModel(t, data, 140, 30)
			m.Update(batch(frames(data)))
			m.Update(SourceDone(tt.err))
			if v := plainView(m); !strings.Contains(v, tt.want) {
				t.Errorf("status after %s = %q; want it to contain %q", tt.name, lastLine(v), tt.want)
			}
		})
	}
}

func TestFocusAndPanes(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-single-call"), 120, 40)
	tests := []struct {
		keys  []string
		focus string
		side  string
		want  string
	}{
		{[]string{"tab"}, "detail", "detail", "#0  response.created"},
		{[]string{"tab"}, "calls", "calls", "as of event #0"},
		{[]string{"tab"}, "diffs", "diffs", "Sequence numbers"},
		{[]string{"tab"}, "findings", "findings", "checks are not available"},
		{[]string{"tab"}, "lanes", "lanes", "● created"},
		{[]string{"tab"}, "timeline", "lanes", "1 timeline"},
		{[]string{"shift+tab"}, "lanes", "lanes", "6 lanes"},
		{[]string{"2"}, "detail", "detail", "#0  response.created"},
		{[]string{"1"}, "timeline", "detail", "#0  response.created"},
	}
	for i, tt := range tests {
		press(m, tt.keys...)
		if focusName(m) != tt.focus || sideName(m) != tt.side {
			t.Fatalf("step %d %v: focus %v side %v; want %v %v", i, tt.keys, focusName(m), sideName(m), tt.focus, tt.side)
		}
		if v := plainView(m); !strings.Contains(v, tt.want) {
			t.Fatalf("step %d %v: view lacks %q:\n%s", i, tt.keys, tt.want, v)
		}
	}
}

func TestNavigationKeys(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-parallel-calls"), 120, 30)
	n := m.insp.s.Len()
	tests := []struct {
		key  string
		want int
	}{
		{"j", 1}, {"down", 2}, {"k", 1}, {"up", 0}, {"G", n - 1}, {"g", 0},
		// A page is the rows in view: the pane's height less its title
		// and column header.
		{"ctrl+d", 13}, {"ctrl+u", 0}, {"pgdown", 26}, {"]", 27}, {"[", 26},
	}
	for _, tt := range tests {
		press(m, tt.key)
		if got := m.insp.Selected(); got != tt.want {
			t.Fatalf("after %q selected = %d; want %d", tt.key, got, tt.want)
		}
	}
}

func TestRawToggle(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "gemini-call"), 120, 40)
	press(m, "2")
	if v := plainView(m); strings.Contains(v, theme.GlyphCR) {
		t.Fatalf("pretty view shows line endings:\n%s", v)
	}
	press(m, "r")
	v := plainView(m)
	if !strings.Contains(v, theme.GlyphCR+theme.GlyphLF) || !strings.Contains(v, "data:") {
		t.Fatalf("raw view of a CRLF stream should show ␍␊ and the data: field:\n%s", v)
	}
}

func TestSearchAndMatches(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-parallel-calls"), 120, 40)
	press(m, "/")
	typeText(m, "Tokyo")
	_, cmd := m.Update(keyMsg("enter"))
	if cmd == nil {
		t.Fatal("enter should start a search command")
	}
	m.Update(cmd())
	if len(m.insp.tl.matches) == 0 {
		t.Fatal("no matches for Tokyo")
	}
	first := m.insp.Selected()
	if first != int(m.insp.tl.matches[0]) {
		t.Fatalf("selected %d; want the first match %d", first, m.insp.tl.matches[0])
	}
	press(m, "n")
	if len(m.insp.tl.matches) > 1 && m.insp.Selected() != int(m.insp.tl.matches[1]) {
		t.Errorf("n selected %d; want %d", m.insp.Selected(), m.insp.tl.matches[1])
	}
	press(m, "N")
	if m.insp.Selected() != first {
		t.Errorf("N selected %d; want %d", m.insp.Selected(), first)
	}
	// Argument content is JSON-escaped in the stream; `"timezone` must
	// still be found.
	press(m, "/")
	press(m, "ctrl+u")
	typeText(m, `"timezone`)
	_, cmd = m.Update(keyMsg("enter"))
	m.Update(cmd())
	if len(m.insp.tl.matches) == 0 {
		t.Errorf("no matches for an escaped argument fragment")
	}
	// A stale result (older generation) is dropped.
	old := searchResultMsg{gen: m.insp.gen - 1, query: "x", matches: []int32{0}}
	m.Update(old)
	if len(m.insp.tl.matches) == 1 && m.insp.tl.matches[0] == 0 {
		t.Errorf("a stale search result replaced the current one")
	}
}

func TestFilter(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-parallel-calls"), 120, 40)
	press(m, `\`)
	typeText(m, "kind:args-delta")
	submit(t, m)
	if len(m.insp.tl.rows) == 0 {
		t.Fatal("filter selected nothing")
	}
	for _, o := range m.insp.tl.rows {
		if k := m.insp.s.Events.At(int(o)).Kind; k != model.KindArgsDelta {
			t.Fatalf("filtered row %d has kind %v", o, k)
		}
	}
	v := plainView(m)
	if strings.Contains(v, "output_item.added") || !strings.Contains(v, "filter kind:args-delta") {
		t.Errorf("filtered timeline should only list argument deltas and say so:\n%s", v)
	}
	press(m, "esc")
	if m.insp.tl.rows != nil {
		t.Errorf("esc should clear the filter")
	}
}

func TestReplay(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-single-call"), 120, 40)
	press(m, "G")
	_, cmd := m.Update(keyMsg("space"))
	if cmd == nil || !m.insp.rep.playing || m.insp.Selected() != 0 {
		t.Fatalf("space at the end should replay from the start (playing %v, selected %d)", m.insp.rep.playing, m.insp.Selected())
	}
	m.Update(replayTickMsg{gen: m.insp.rep.gen})
	m.Update(replayTickMsg{gen: m.insp.rep.gen})
	if m.insp.Selected() != 2 {
		t.Fatalf("after two ticks selected = %d; want 2", m.insp.Selected())
	}
	m.Update(replayTickMsg{gen: m.insp.rep.gen - 1}) // stale
	if m.insp.Selected() != 2 {
		t.Fatalf("a stale tick moved the replay")
	}
	press(m, "+")
	if m.insp.rep.speed != 2 {
		t.Errorf("speed = %v; want 2", m.insp.rep.speed)
	}
	if v := plainView(m); !strings.Contains(v, "replay 2x") {
		t.Errorf("status bar should show the replay speed:\n%s", lastLine(v))
	}
	press(m, "space")
	if m.insp.rep.playing {
		t.Errorf("space should pause")
	}
}

func TestSlowGaps(t *testing.T) {
	data := sampleBytes(t, "responses-single-call")
	m := liveModel(t, data, 120, 40)
	fs := frames(data)
	for i := range fs {
		fs[i].At = time.Duration(i) * 100 * time.Millisecond
	}
	fs[7].At += 3 * time.Second
	fs[8].At += 3 * time.Second
	m.Update(batch(fs))
	m.Update(SourceDone(nil))
	press(m, "g", "s")
	if m.insp.Selected() != 7 {
		t.Fatalf("s selected %d; want the slow event 7", m.insp.Selected())
	}
	press(m, "G", "S")
	if m.insp.Selected() != 7 {
		t.Fatalf("S selected %d; want 7", m.insp.Selected())
	}
	if v := plainView(m); !strings.Contains(v, "+3.10s") {
		t.Errorf("the slow gap should be shown:\n%s", v)
	}
}

func TestFindingsJump(t *testing.T) {
	m := newProgram(newSession(sampleBytes(t, goldenSample)), Options{Source: "x", Checks: fakeChecks})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	press(m, "g", "e")
	if m.insp.Selected() != 21 {
		t.Fatalf("e selected %d; want 21", m.insp.Selected())
	}
	press(m, "e")
	if m.insp.Selected() != 24 {
		t.Fatalf("e selected %d; want 24", m.insp.Selected())
	}
	press(m, "E")
	if m.insp.Selected() != 21 {
		t.Fatalf("E selected %d; want 21", m.insp.Selected())
	}
	if v := plainView(m); !strings.Contains(v, "1 err") || !strings.Contains(v, "1 warn") {
		t.Errorf("status bar should count findings:\n%s", lastLine(v))
	}
}

func TestCopyAndSave(t *testing.T) {
	saved := int64(-1)
	m := newProgram(newSession(sampleBytes(t, "responses-single-call")), Options{Source: "x", Save: func(n int64) (string, error) {
		saved = n
		return "out.sse", nil
	}})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.insp.tl.SelectOrd(6)
	if _, cmd := m.Update(keyMsg("y")); cmd == nil {
		t.Fatal("y should return a clipboard command")
	}
	if !strings.Contains(plainView(m), "copied 23 bytes") {
		t.Errorf("copy notice missing:\n%s", lastLine(plainView(m)))
	}
	_, cmd := m.Update(keyMsg("w"))
	if cmd == nil {
		t.Fatal("w should return a save command")
	}
	m.Update(cmd())
	if saved != m.insp.s.Bytes() || !strings.Contains(plainView(m), "saved to out.sse") {
		t.Errorf("save wrote %d bytes (want %d); status %q", saved, m.insp.s.Bytes(), lastLine(plainView(m)))
	}
}

func TestMouse(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-parallel-calls"), 120, 40)
	// Line 0 is the title, line 1 the column header: line 5 shows event 3.
	m.Update(tea.MouseClickMsg{X: 5, Y: 5, Button: tea.MouseLeft})
	if m.insp.Selected() != 3 {
		t.Fatalf("click on line 5 selected %d; want 3", m.insp.Selected())
	}
	m.Update(tea.MouseWheelMsg{X: 5, Y: 4, Button: tea.MouseWheelDown})
	if m.insp.Selected() != 6 {
		t.Fatalf("wheel down selected %d; want 6", m.insp.Selected())
	}
	m.Update(tea.MouseClickMsg{X: 100, Y: 10, Button: tea.MouseLeft})
	if focusName(m) != "calls" {
		t.Errorf("click on the side pane focused %v; want calls", focusName(m))
	}
}

func TestThemeAndNoColor(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-single-call"), 120, 40)
	dark := viewOf(m)
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if m.Styles.IsDark {
		t.Fatal("a white background should select the light theme")
	}
	if light := viewOf(m); light == dark || ansi.Strip(light) != ansi.Strip(dark) {
		t.Errorf("the light theme should change colours only")
	}
	nc := newProgram(newSession(sampleBytes(t, "responses-single-call")), Options{Source: "x", NoColor: true})
	nc.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	v := viewOf(nc)
	if strings.Contains(v, "38;2;") || strings.Contains(v, "48;2;") {
		t.Errorf("NO_COLOR view contains colour codes")
	}
	if !strings.Contains(v, "\x1b[7m") && !strings.Contains(v, ";7m") {
		t.Errorf("NO_COLOR view should still mark the selection (reverse video)")
	}
}

func TestTooSmall(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-single-call"), 59, 20)
	if v := plainView(m); strings.Contains(v, "\n") || !strings.Contains(v, "needs at least 60×15") {
		t.Errorf("below 60 columns: %q", v)
	}
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 15})
	if v := plainView(m); strings.Count(v, "\n") != 14 {
		t.Errorf("at 60×15 the full UI should show, got %d lines", strings.Count(v, "\n")+1)
	}
}

func TestSourcesDisagreeSideBySide(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "broken-done-args-differ"), 140, 40)
	press(m, "G", "3")
	v := plainView(m)
	if !strings.Contains(v, "sources of the final arguments disagree") {
		t.Fatalf("disagreeing sources not shown:\n%s", v)
	}
	if !strings.Contains(v, "append") || !strings.Contains(v, "overwrite") {
		t.Errorf("both values should be side by side:\n%s", v)
	}
	if !strings.Contains(viewOf(m), m.Styles.Calls.Diff.Render("append")) && !strings.Contains(viewOf(m), m.Styles.Calls.Diff.Render("overwrite")) {
		t.Errorf("the difference should be marked")
	}
}

func TestSequenceGap(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "broken-sequence-gap"), 140, 40)
	for ord := range m.insp.s.Len() {
		if m.insp.s.Events.At(ord).Seq == 10 {
			m.insp.tl.SelectOrd(ord)
		}
	}
	press(m, "4")
	if v := plainView(m); !strings.Contains(v, "gap: 5 missing") {
		t.Errorf("the sequence view should mark the gap:\n%s", v)
	}
}

func TestSnapshotDiffs(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-single-call"), 140, 40)
	tests := []struct {
		name string
		ord  func(m *Model) int
		want []string
	}{
		{"item done", func(m *Model) int { return m.insp.s.Items[0].Closed }, []string{"added #", "~ .status", `"in_progress" → "completed"`, "~ .arguments"}},
		{"response terminal", func(m *Model) int { return m.insp.s.Responses[0].Final }, []string{"created #0", "~ .status", "in_progress → completed", "+ .output[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m.insp.tl.SelectOrd(tt.ord(m))
			press(m, "4")
			v := plainView(m)
			for _, w := range tt.want {
				if !strings.Contains(v, w) {
					t.Errorf("diffs pane lacks %q:\n%s", w, v)
				}
			}
		})
	}
}

func TestHelpOverlay(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-single-call"), 120, 40)
	for _, closeKey := range []string{"?", "esc"} {
		press(m, "?")
		if v := plainView(m); !strings.Contains(v, "streamtap keys") || !strings.Contains(v, "Navigate") {
			t.Fatalf("? should open the full help:\n%s", v)
		}
		press(m, "j") // keys other than close and quit are ignored
		if m.insp.Selected() != 0 || !strings.Contains(plainView(m), "streamtap keys") {
			t.Fatalf("keys leaked through the help overlay")
		}
		press(m, closeKey)
		if strings.Contains(plainView(m), "streamtap keys") {
			t.Fatalf("%q should close the help", closeKey)
		}
	}
}

func TestSearchFollowsNewEvents(t *testing.T) {
	data := sampleBytes(t, "responses-parallel-calls")
	fs := frames(data)
	m := liveModel(t, data, 120, 40)
	m.Update(batch(fs[:10]))
	press(m, "/")
	typeText(m, "Tokyo")
	_, cmd := m.Update(keyMsg("enter"))
	m.Update(cmd())
	before := len(m.insp.tl.matches)
	_, cmd = m.Update(batch(fs[10:]))
	if cmd == nil {
		t.Fatal("new events during a search should be searched too")
	}
	m.Update(cmd())
	if len(m.insp.tl.matches) <= before {
		t.Errorf("matches %d after new events; want more than %d", len(m.insp.tl.matches), before)
	}
	for i := 1; i < len(m.insp.tl.matches); i++ {
		if m.insp.tl.matches[i] <= m.insp.tl.matches[i-1] {
			t.Fatalf("matches not sorted: %v", m.insp.tl.matches)
		}
	}
}

// TestReplayOptionPlaysOnceRead: with Options.Replay the inspector starts
// playing from the first event when the stream has been read, at that
// speed (streamtap replay FILE on a terminal).
func TestReplayOptionPlaysOnceRead(t *testing.T) {
	data := sampleBytes(t, "responses-single-call")
	s := model.NewSession(model.Options{KeepEvents: true, Raw: strings.NewReader(string(data))})
	m := newProgram(s, Options{Source: "test", Live: true, Replay: 4})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(batch(frames(data)))
	if m.insp.rep.playing {
		t.Fatal("playing before the stream was read")
	}
	_, cmd := m.Update(SourceDone(nil))
	if !m.insp.rep.playing || m.insp.rep.speed != 4 || m.insp.tl.cursor != 0 || cmd == nil {
		t.Fatalf("after the stream ended: playing %v speed %v cursor %d", m.insp.rep.playing, m.insp.rep.speed, m.insp.tl.cursor)
	}
	m.Update(replayTickMsg{gen: m.insp.rep.gen})
	if m.insp.tl.cursor != 1 {
		t.Fatalf("a replay tick moved the cursor to %d; want 1", m.insp.tl.cursor)
	}
}

// TestCopyAndSummaryAtDisagreeingDone holds y and the timeline's summary of
// a .done event to the arguments the calls pane shows there: the .done's
// value, not the fragments that came before it.
func TestCopyAndSummaryAtDisagreeingDone(t *testing.T) {
	m := newProgram(newSession(sampleBytes(t, "broken-done-args-differ")), Options{Source: "x"})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	const done = 14 // response.function_call_arguments.done, "overwrite" where the deltas said "append"
	m.insp.tl.SelectOrd(done)
	it := m.insp.s.Items[m.insp.s.Events.At(done).Item]
	want := it.FinalArgsAsOf(done)
	if !strings.Contains(want, "overwrite") || string(it.ArgsAsOf(done)) == want {
		t.Fatalf("the sample no longer disagrees at event %d: final %q, fragments %q", done, want, it.ArgsAsOf(done))
	}
	if _, cmd := m.Update(keyMsg("y")); cmd == nil {
		t.Fatal("y should return a clipboard command")
	}
	if v := plainView(m); !strings.Contains(v, fmt.Sprintf("copied %d bytes", len(want))) {
		t.Errorf("y at the .done should copy the %d bytes the calls pane shows:\n%s", len(want), lastLine(v))
	}
	raw, _ := m.insp.s.Raw(m.insp.s.Events.At(done))
	if got := plain.Summary(m.insp.s, m.insp.s.Events.At(done), done, raw); !strings.Contains(got, fmt.Sprintf("args done (%d bytes)", len(want))) {
		t.Errorf("Summary at the .done = %q; want the %d bytes of its arguments", got, len(want))
	}
}
