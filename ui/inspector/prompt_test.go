package inspector

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
)

// submit presses enter in a prompt and applies the command it starts (a
// search or a filter), as the program would.
func submit(t *testing.T, m *Model) {
	t.Helper()
	_, cmd := m.Update(keyMsg("enter"))
	if cmd != nil {
		m.Update(cmd())
	}
}

func searchFor(t *testing.T, m *Model, q string) []int32 {
	t.Helper()
	press(m, "/", "ctrl+u")
	typeText(m, q)
	submit(t, m)
	return m.insp.tl.matches
}

func filterBy(t *testing.T, m *Model, q string) []int32 {
	t.Helper()
	press(m, `\`, "ctrl+u")
	typeText(m, q)
	submit(t, m)
	return m.insp.tl.rows
}

// TestFilterWordsMatchLikeSearch: a filter word keeps exactly the events
// a search for it finds — content, ids, names, types — because both use
// one matcher.
func TestFilterWordsMatchLikeSearch(t *testing.T) {
	data := sampleBytes(t, goldenSample)
	words := []string{"tokyo", `"timezone`, "call_8e6lctez", "get_local_time", "output_text", "Paris", "in_progress"}
	for _, w := range words {
		t.Run(w, func(t *testing.T) {
			m := newTestModel(t, data, 120, 40)
			found := slices.Clone(searchFor(t, m, w))
			rows := filterBy(t, m, w)
			if len(found) == 0 {
				t.Fatalf("search for %q found nothing", w)
			}
			if !slices.Equal(found, rows) {
				t.Errorf("filter %q kept %v; search found %v", w, rows, found)
			}
		})
	}
	// Content only a search of the bytes finds: the text delta " Tokyo"
	// (event 15) and the argument fragment "Asia/Tokyo".
	m := newTestModel(t, data, 120, 40)
	rows := filterBy(t, m, "tokyo")
	if !slices.Contains(rows, 15) {
		t.Errorf("filter tokyo = %v; want the text delta 15 among them", rows)
	}
}

// TestFilterPrefixes: the prefixed terms select by metadata, and terms
// combine with and.
func TestFilterPrefixes(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, goldenSample), 120, 40)
	item := func(ord int32) *model.Item {
		ev := m.insp.s.Events.At(int(ord))
		if ev.Item < 0 {
			return nil
		}
		return m.insp.s.Items[ev.Item]
	}
	tests := []struct {
		q  string
		ok func(ord int32) bool
	}{
		{"kind:args-delta", func(o int32) bool { return m.insp.s.Events.At(int(o)).Kind == model.KindArgsDelta }},
		{"kind:args", func(o int32) bool {
			k := m.insp.s.Events.At(int(o)).Kind
			return k == model.KindArgsDelta || k == model.KindArgsDone
		}},
		{"call:call_8e6l", func(o int32) bool { it := item(o); return it != nil && it.Name == "get_local_time" }},
		{"item:fc_68e78674260865", func(o int32) bool { it := item(o); return it != nil && it.Name == "get_local_time" }},
		{"dialect:openai-responses", func(o int32) bool { return m.insp.s.Events.At(int(o)).Dialect.String() == "openai-responses" }},
		{"type:output_text", func(o int32) bool {
			return strings.Contains(m.insp.s.TypeName(m.insp.s.Events.At(int(o)).Type), "output_text")
		}},
		{"kind:args-delta toky", func(o int32) bool {
			it := item(o)
			return m.insp.s.Events.At(int(o)).Kind == model.KindArgsDelta && it != nil && it.Name == "get_local_time"
		}},
	}
	for _, tt := range tests {
		rows := filterBy(t, m, tt.q)
		if len(rows) == 0 {
			t.Errorf("filter %q kept nothing", tt.q)
		}
		for _, o := range rows {
			if !tt.ok(o) {
				t.Errorf("filter %q kept event %d", tt.q, o)
			}
		}
	}
}

func TestPromptPaste(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, goldenSample), 120, 40)
	press(m, "/")
	m.Update(tea.PasteMsg{Content: "Tokyo"})
	submit(t, m)
	if m.insp.query != "Tokyo" || len(m.insp.tl.matches) == 0 {
		t.Fatalf("after pasting Tokyo: query %q, %d matches", m.insp.query, len(m.insp.tl.matches))
	}
	if got := m.insp.Selected(); got != int(m.insp.tl.matches[0]) {
		t.Errorf("selected %d; want the first match %d", got, m.insp.tl.matches[0])
	}
	// Pasted into the filter prompt too.
	press(m, `\`)
	m.Update(tea.PasteMsg{Content: "kind:args-delta"})
	submit(t, m)
	if m.insp.filt.text != "kind:args-delta" || len(m.insp.tl.rows) == 0 {
		t.Errorf("after pasting a filter: filter %q, %d rows", m.insp.filt.text, len(m.insp.tl.rows))
	}
}

// TestPromptPasteControlCharacters: control characters and bidi overrides
// in pasted text never reach the terminal.
func TestPromptPasteControlCharacters(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, goldenSample), 120, 40)
	press(m, "/")
	m.Update(tea.PasteMsg{Content: "Tok\x1b]0;owned\x07yo\u202e\r\n\x9b2J"})
	v := viewOf(m)
	for _, bad := range []string{"\x1b]0;", "\x07", "\u202e", "\x9b", "\r"} {
		if strings.Contains(v, bad) {
			t.Errorf("the view contains %q from the pasted text", bad)
		}
	}
	if !strings.Contains(plainView(m), "Tok]0;ownedyo") {
		t.Errorf("the prompt should show the pasted text without its control characters:\n%s", lastLines(plainView(m), 2))
	}
}

func TestPromptEditing(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, goldenSample), 120, 40)
	press(m, "/")
	typeText(m, "okyo")
	press(m, "home")
	typeText(m, "T")
	press(m, "end")
	typeText(m, " x")
	press(m, "backspace", "backspace")
	submit(t, m)
	if m.insp.query != "Tokyo" {
		t.Fatalf("query = %q; want Tokyo (cursor moves, then deletes at the end)", m.insp.query)
	}
	press(m, "/")
	if v := lastLines(plainView(m), 2); !strings.Contains(v, "/Tokyo") {
		t.Errorf("the search prompt should open with the last query:\n%s", v)
	}
	press(m, "ctrl+u")
	typeText(m, "Paris")
	press(m, "left", "left", "ctrl+k")
	submit(t, m)
	if m.insp.query != "Par" {
		t.Errorf("query = %q; want Par (ctrl+u clears, ctrl+k cuts after the cursor)", m.insp.query)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

func TestGotoEvent(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, goldenSample), 120, 40)
	steps := []struct {
		keys   []string
		paste  string
		want   int
		status string
	}{
		{keys: []string{":", "1", "2", "enter"}, want: 12},
		{keys: []string{":", "9", "9", "9", "enter"}, want: 12, status: "no event 999"},
		{keys: []string{":", "x", "1", "enter"}, want: 12, status: "not an event number"},
		{keys: []string{":", "-", "3", "enter"}, want: 12, status: "not an event number"},
		{keys: []string{":", "3", "esc"}, want: 12},
		{keys: []string{":", "enter"}, want: 12},
		{keys: []string{":"}, paste: "27", want: 27},
	}
	for i, st := range steps {
		press(m, st.keys...)
		if st.paste != "" {
			m.Update(tea.PasteMsg{Content: st.paste})
			press(m, "enter")
		}
		if got := m.insp.Selected(); got != st.want {
			t.Fatalf("step %d %v: selected %d; want %d", i, st.keys, got, st.want)
		}
		if m.insp.prompt.active() {
			t.Fatalf("step %d %v: the prompt is still open", i, st.keys)
		}
		if st.status != "" && !strings.Contains(lastLine(plainView(m)), st.status) {
			t.Errorf("step %d %v: status %q; want %q", i, st.keys, lastLine(plainView(m)), st.status)
		}
	}
	// An event the filter hides: the nearest row after it is selected, and
	// the status says why.
	filterBy(t, m, "kind:args-delta")
	press(m, ":", "2", "enter")
	if got := m.insp.Selected(); got != 21 {
		t.Errorf(":2 under a filter selected %d; want 21, the next row shown", got)
	}
	if !strings.Contains(lastLine(plainView(m)), "hidden by the filter") {
		t.Errorf("status %q should say the event is hidden by the filter", lastLine(plainView(m)))
	}
}

func TestHelpNamesNewKeys(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, goldenSample), 120, 40)
	press(m, "?")
	if v := plainView(m); !strings.Contains(v, ":N") || !strings.Contains(v, "go to event") {
		t.Errorf("full help lacks :N:\n%s", v)
	}
	press(m, "esc")
	m2 := newProgram(newSession(sampleBytes(t, goldenSample)), Options{Source: "x", Checks: fakeChecks})
	m2.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	press(m2, "5")
	if v := lastLines(plainView(m2), 2); !strings.Contains(v, "enter") || !strings.Contains(v, "cited events") {
		t.Errorf("the findings pane's help line lacks enter:\n%s", v)
	}
}

// TestFilterStaleResultsDropped: results of a filter replaced since, or of
// another session, never reach the timeline.
func TestFilterStaleResultsDropped(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, goldenSample), 120, 40)
	press(m, `\`)
	typeText(m, "kind:args-delta")
	_, old := m.Update(keyMsg("enter"))
	press(m, `\`, "ctrl+u")
	typeText(m, "kind:terminal")
	_, cur := m.Update(keyMsg("enter"))
	m.Update(old())
	if len(m.insp.tl.rows) != 0 || !strings.Contains(plainView(m), "filtering…") {
		t.Fatalf("a replaced filter's rows were shown: %v", m.insp.tl.rows)
	}
	m.Update(cur())
	if len(m.insp.tl.rows) != 1 || m.insp.s.Events.At(int(m.insp.tl.rows[0])).Kind != model.KindTerminal {
		t.Fatalf("rows = %v; want the terminal event", m.insp.tl.rows)
	}
	other := newSession(sampleBytes(t, goldenSample))
	m.Update(filterResultMsg{s: other, gen: m.insp.filt.gen, rows: []int32{1, 2, 3}})
	if len(m.insp.tl.rows) != 1 {
		t.Errorf("another session's filter result changed the rows: %v", m.insp.tl.rows)
	}
}

// TestFilterFollowsNewEvents: events that arrive while a filter is on are
// filtered too.
func TestFilterFollowsNewEvents(t *testing.T) {
	data := sampleBytes(t, goldenSample)
	fs := frames(data)
	m := liveModel(t, data, 120, 40)
	m.Update(batch(fs[:10]))
	filterBy(t, m, "get_weather")
	if !slices.Equal(m.insp.tl.rows, []int32{0, 1}) { // the tools the response declares
		t.Fatalf("rows %v; want 0 and 1", m.insp.tl.rows)
	}
	_, cmd := m.Update(batch(fs[10:]))
	if cmd == nil {
		t.Fatal("new events under a filter should be filtered")
	}
	m.Update(cmd())
	if !slices.Contains(m.insp.tl.rows, 21) || slices.Contains(m.insp.tl.rows, 24) {
		t.Errorf("rows %v; want the deltas of get_weather (21) and not those of get_local_time (24)", m.insp.tl.rows)
	}
	if got := m.insp.Selected(); got != int(m.insp.tl.rows[len(m.insp.tl.rows)-1]) {
		t.Errorf("following: selected %d; want the last row shown", got)
	}
}
