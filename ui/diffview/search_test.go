package diffview

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/internal/uitest"
)

// search types q at the page's / prompt and runs the search.
func search(t *testing.T, m *Model, q string) {
	t.Helper()
	pressDrain(t, m, "/", "ctrl+u")
	typeText(m, q)
	pressDrain(t, m, "enter")
}

// rowsOf lists the sides' rows holding text: each side of a side-by-side
// line on its own.
func rowsOf(view, text string) []string {
	var out []string
	for _, l := range strings.Split(view, "\n") {
		for _, part := range strings.Split(l, "│") {
			if strings.Contains(part, text) {
				out = append(out, part)
			}
		}
	}
	return out
}

// statusLine is the page's last line, plain.
func statusLine(m *Model) string {
	v := plainView(m)
	return v[strings.LastIndexByte(v, '\n')+1:]
}

// TestDiffSearch drives the page's search through the real router: /done⏎
// finds the .done events of both sides, selects the first at or after the
// selection (A#11, B linked), counts them in the status, and marks their
// rows; n and N go round A's matches with B following; while a search has
// matches the help offers n/N for them, and esc clears it, n going to the
// differences again. Before, / only said that search was in a side's
// inspector.
func TestDiffSearch(t *testing.T) {
	m := newDiffModel(t, diffOfficial, diffGateway, 160, 48)
	if got := sel(m); got[0] != 3 {
		t.Fatalf("the page should open at the first difference, A#3: %v", got)
	}
	search(t, m, "done")
	if a, b := m.dv.search.sides[0].matches, m.dv.search.sides[1].matches; !slices.Equal(a, []int32{11, 12}) || !slices.Equal(b, []int32{7}) {
		t.Fatalf("/done should match A#11, A#12 (fn_args.done, output_item.done) and B#7: A %v B %v", a, b)
	}
	if got := sel(m); got[0] != 11 {
		t.Errorf("/done from A#3 should select A#11: %v", got)
	}
	if want, _ := m.dv.view.links.Counterpart(0, 11); sel(m)[1] != want {
		t.Errorf("B should follow A#11 to B#%d: %v", want, sel(m))
	}
	if s := statusLine(m); !strings.Contains(s, "/done  A 1/2 · B –/1") {
		t.Errorf("the status should count the matches of both sides:\n%s", s)
	}
	help := ansi.Strip(m.dv.HelpLine())
	if !strings.Contains(help, "n next match") || !strings.Contains(help, "esc clear search") || strings.Contains(help, "next diff") {
		t.Errorf("with matches, n and N are the matches' and esc clears: %s", help)
	}
	// The rows that match: the output_item.done row of A, which no
	// difference marks, shows • in the gutter.
	if rows := rowsOf(plainView(m), "output_item.done  fc_68e7"); len(rows) != 1 || !strings.HasPrefix(rows[0], " • 12") {
		t.Errorf("A#12 matches: its gutter should show •:\n%q", rows)
	}

	for _, step := range []struct {
		key  string
		want int
	}{{"n", 12}, {"n", 11}, {"N", 12}, {"N", 11}} {
		pressDrain(t, m, step.key)
		if got := sel(m); got[0] != step.want {
			t.Fatalf("%s should select A#%d: %v", step.key, step.want, got)
		}
		if want, _ := m.dv.view.links.Counterpart(0, step.want); sel(m)[1] != want {
			t.Errorf("B should follow A#%d to B#%d: %v", step.want, want, sel(m))
		}
	}
	pressDrain(t, m, "tab", "n")
	if got := sel(m); got[1] != 7 {
		t.Errorf("with B leading, n should go to B's match, B#7: %v", got)
	}

	pressDrain(t, m, "esc")
	if m.dv.search.query != "" || strings.Contains(statusLine(m), "/done") || strings.Contains(plainView(m), "•") {
		t.Fatalf("esc should clear the search:\n%s", plainView(m))
	}
	before := sel(m)
	pressDrain(t, m, "n")
	if got := sel(m); got == before || m.dv.view.markAt(m.dv.active, got[m.dv.active]) < 0 {
		t.Errorf("after esc, n should go to the next difference: %v → %v", before, got)
	}
}

// TestDiffSearchWhatRowsSay: a search matches what a row says, not only
// its bytes: an item id on the side that has it (the other side leading
// when only it matches), the type column's abbreviation, and nothing on
// either side said as such; typing / again starts from the search on now.
func TestDiffSearchWhatRowsSay(t *testing.T) {
	m := newDiffModel(t, diffOfficial, diffGateway, 120, 40)
	search(t, m, "FC_GW")
	if a, b := m.dv.search.sides[0].matches, m.dv.search.sides[1].matches; len(a) != 0 || len(b) == 0 {
		t.Fatalf("the gateway's item id is only B's: A %v B %v", a, b)
	}
	if m.dv.active != streamdiff.SideB || !m.dv.search.sides[1].has(sel(m)[1]) {
		t.Errorf("only B matches: B should lead, at a match: active %v, %v", m.dv.active, sel(m))
	}
	search(t, m, "fn_args")
	if a := m.dv.search.sides[0].matches; !slices.Equal(a, []int32{3, 4, 5, 6, 7, 8, 9, 10, 11}) {
		t.Errorf("fn_args is how the type column abbreviates function_call_arguments: A %v", a)
	}
	search(t, m, "no such text anywhere")
	if s := statusLine(m); !strings.Contains(s, "A no match · B no match") {
		t.Errorf("a search that finds nothing should say so:\n%s", s)
	}
	if help := ansi.Strip(m.dv.HelpLine()); !strings.Contains(help, "next diff") {
		t.Errorf("with no match, n and N stay the differences': %s", help)
	}
	pressDrain(t, m, "/")
	if help := ansi.Strip(m.dv.HelpLine()); !strings.HasPrefix(help, "/no such text anywhere") {
		t.Errorf("/ should open on the search on now: %q", help)
	}
	pressDrain(t, m, "esc")
	if m.dv.searchPrompt.on || m.dv.search.query == "" {
		t.Errorf("esc at the prompt cancels the typing, not the search")
	}
}

// TestDiffSearchHostileQuery: a pasted query's escapes, bidi overrides and
// line breaks never reach the screen: the prompt drops them, and the
// status repeats only what is left.
func TestDiffSearchHostileQuery(t *testing.T) {
	m := newDiffModel(t, diffOfficial, diffGateway, 120, 40)
	pressDrain(t, m, "/")
	m.Update(tea.PasteMsg{Content: "do\x1b[31m\u202ene\u2028\x9b"})
	pressDrain(t, m, "enter")
	q := m.dv.search.query
	if termtext.Safe(q) != q {
		t.Errorf("the query kept what acts on a terminal: %q", q)
	}
	status := m.dv.Status()
	for _, bad := range []string{"\u202e", "\u2028", "\x9b", "\x1b[31m"} {
		if strings.Contains(status, bad) {
			t.Errorf("the status line carries %q: %q", bad, status)
		}
	}
}

// TestDiffSearchLiveA: on a live A, the search runs on the event loop a
// chunk at a time, each message searching at most searchChunk events
// however many have arrived, and goes on through the events that arrive
// later; B, read whole, is searched off the loop once it comes.
func TestDiffSearchLiveA(t *testing.T) {
	data := synthStream(3*searchChunk + 100)
	opts, recA := streamdiff.Attach(model.Options{KeepEvents: true, Raw: bytes.NewReader(data)}, streamdiff.NewIgnore(streamdiff.DefaultIgnore()...))
	m := NewDiff(model.NewSession(opts), recA, Options{Source: "stdin", Live: true}, Config{B: "b.sse", Compare: streamdiff.DefaultOptions()})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	fs := frames(data)
	m.Update(batch(fs[:10]))
	search(t, m, "output_item.done")
	if sm := m.dv.search.sides[0]; sm.scanned != 10 || len(sm.matches) != 0 {
		t.Fatalf("the first 10 events searched, none a .done: %+v", sm)
	}

	_, cmd := m.Update(batch(fs[10:]))
	if got := m.dv.search.sides[0].scanned; got != 10+searchChunk {
		t.Fatalf("one message should search one chunk of the new events: scanned %d, want %d", got, 10+searchChunk)
	}
	drain(t, m, cmd)
	a := m.dv.side[0].s
	var want []int32
	for i := range a.Len() {
		if a.TypeName(a.Events.At(i).Type) == "response.output_item.done" {
			want = append(want, int32(i))
		}
	}
	if got := m.dv.search.sides[0]; got.scanned != a.Len() || !slices.Equal(got.matches, want) {
		t.Fatalf("the chunks should go on to the end: scanned %d of %d, %d matches, want %d", got.scanned, a.Len(), len(got.matches), len(want))
	}

	_, cmd = m.Update(sideRead(t, diffGateway))
	drain(t, m, cmd)
	if b := m.dv.search.sides[1].matches; !slices.Equal(b, []int32{7}) {
		t.Errorf("B, read after the search was typed, should be searched too: %v", b)
	}
}

// TestDiffSearchBesideView runs an ended side's search while the page is
// drawn and moved, as the program does: under -race it shows that the
// command only reads what nothing changes.
func TestDiffSearchBesideView(t *testing.T) {
	m := newDiffModel(t, diffOfficial, diffGateway, 120, 40)
	pressDrain(t, m, "/")
	typeText(m, "get_weather")
	_, cmd := m.Update(keyMsg("enter"))
	var wg sync.WaitGroup
	var msgs []tea.Msg
	wg.Go(func() { msgs = uitest.MessagesOf(cmd) })
	for range 10 {
		pressDrain(t, m, "j")
		_ = viewOf(m)
	}
	wg.Wait()
	for _, msg := range msgs {
		m.Update(msg)
	}
	if a, b := m.dv.search.sides[0].matches, m.dv.search.sides[1].matches; len(a) != 14 || len(b) != 9 {
		t.Fatalf("every event of both sides is get_weather's: A %v B %v", a, b)
	}
}
