package inspector

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/ui/doc"
	"github.com/streamtap/streamtap/ui/theme"
)

// bigSize is comfortably past everything the panes do at once: the 256 KiB
// read of an event's start, the 256 KiB indexed when a document is made,
// and the 512 KiB laid out per key press.
const bigSize = 4 << 20

// interactionSize is the size of what the interaction tests open: bigSize,
// or under -short half of it, still four times the largest of those bounds.
func interactionSize() int {
	if testing.Short() {
		return bigSize / 2
	}
	return bigSize
}

// hugeModel opens a stream at w×h.
func hugeModel(t *testing.T, data []byte, w, h int) *Model {
	t.Helper()
	m := newProgram(newSession(data), Options{Source: "huge"})
	resize(m, w, h)
	return m
}

// resize sends a window size and runs the layout work it starts (the calls
// pane, shown beside the timeline from the start, indexes its document).
func resize(m *Model, w, h int) {
	_, cmd := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	settle(m, cmd)
}

// sideTitle is the side pane's title line on screen.
func sideTitleText(m *Model) string {
	lines := strings.Split(ansi.Strip(viewOf(m)), "\n")
	row := m.insp.r.side.Y
	if row >= len(lines) {
		return ""
	}
	return ansi.Cut(lines[row], m.insp.r.side.X, m.insp.w)
}

// TestBigEventFirstScreenBeforeRead shows a big event's first screen from
// its start as soon as it is selected, before the command that reads it
// whole has run, and says in the title what is still under way.
func TestBigEventFirstScreenBeforeRead(t *testing.T) {
	t.Parallel()
	m := hugeModel(t, hugeShapes[0].build(interactionSize()), 120, 40)
	_, cmd := m.Update(keyMsg("2"))
	if got := sideText(m); !strings.Contains(got, `"arguments":"{\"content\":\"BEGIN-w0000000`) {
		t.Fatalf("first screen should show the event from its start:\n%s", ansi.Strip(viewOf(m)))
	}
	if title := sideTitleText(m); !strings.Contains(title, fmt.Sprintf("reading %d.0", interactionSize()>>20)) {
		t.Errorf("title = %q; want it to say the event is being read", title)
	}
	if cmd == nil {
		t.Fatal("selecting a big event should start a command that reads it whole")
	}
	res := cmd()
	if msg, ok := workResult(res).(eventLoadedMsg); !ok {
		t.Fatalf("the command returned %T; want eventLoadedMsg", msg)
	}
	_, cmd = m.Update(res)
	if title := sideTitleText(m); !strings.Contains(title, "indexing") {
		t.Errorf("title once read = %q; want indexing progress", title)
	}
	settle(m, cmd)
	if title := sideTitleText(m); !strings.Contains(title, "line 1/") || strings.Contains(title, "indexing") {
		t.Errorf("title once indexed = %q; want the position", title)
	}
	if got := sideText(m); !strings.Contains(got, "BEGIN-w0000000") {
		t.Errorf("the screen should stay at the start once read:\n%s", ansi.Strip(viewOf(m)))
	}
}

// TestBigEventGWaitsForEnd presses G before the event is read: the view
// goes to the end once the line count is known, and scrolls from there.
func TestBigEventGWaitsForEnd(t *testing.T) {
	t.Parallel()
	m := hugeModel(t, hugeShapes[0].build(interactionSize()), 80, 24)
	_, read := m.Update(keyMsg("2"))
	_, more := m.Update(keyMsg("G"))
	if got := sideText(m); strings.Contains(got, "-END") {
		t.Fatalf("the end cannot be known before the event is read:\n%s", ansi.Strip(viewOf(m)))
	}
	settle(m, tea.Batch(read, more))
	if got := sideText(m); !strings.Contains(got, `-END\"}","call_id":"call_1"`) {
		t.Fatalf("after the read and the index, G should have reached the end:\n%s", ansi.Strip(viewOf(m)))
	}
	before := sideText(m)
	pressAll(m, "k")
	if sideText(m) == before {
		t.Error("k at the end should scroll up")
	}
	pressAll(m, "g")
	if got := sideText(m); !strings.Contains(got, "BEGIN-") {
		t.Errorf("g should go back to the start:\n%s", ansi.Strip(viewOf(m)))
	}
}

// twoBigEvents is a stream of two big output_item.done events whose
// arguments start with FIRST- and SECOND-.
// bigPair is twoBigEvents of interactionSize, built once for the tests
// that share it (they only read it).
var bigPair = sync.OnceValue(func() []byte { return twoBigEvents(interactionSize()) })

func twoBigEvents(n int) []byte {
	var b bytes.Buffer
	for i, name := range []string{"FIRST-", "SECOND-"} {
		args := `{"content":` + jsonString(name+payloadText(n)) + `}`
		sseEvent(&b, "response.output_item.done", fmt.Sprintf(`{"type":"response.output_item.done","output_index":%d,"item":{"id":"fc_%d","type":"function_call","status":"completed","arguments":%s,"call_id":"call_%d","name":"write_file"}}`, i, i, jsonString(args), i))
	}
	return b.Bytes()
}

// TestStaleLayoutResultsAreDropped moves the selection while a big event
// is read and indexed: results for what is no longer shown change nothing.
func TestStaleLayoutResultsAreDropped(t *testing.T) {
	t.Parallel()
	m := hugeModel(t, bigPair(), 120, 40)
	m.insp.tl.SelectOrd(0)
	_, readFirst := m.Update(keyMsg("2"))
	m.Update(keyMsg("1")) // focus the timeline, to move the selection
	_, readSecond := m.Update(keyMsg("j"))
	if readFirst == nil || readSecond == nil {
		t.Fatal("each big event selected should start a read")
	}
	m.Update(readFirst())
	if got := sideText(m); !strings.Contains(got, "SECOND-") || strings.Contains(got, "FIRST-") {
		t.Fatalf("a stale read must not replace the selected event:\n%s", ansi.Strip(viewOf(m)))
	}
	if title := sideTitleText(m); !strings.Contains(title, "reading") {
		t.Errorf("title = %q; the selected event is still being read", title)
	}
	_, index := m.Update(readSecond())
	if index == nil {
		t.Fatal("the read should be followed by an index command")
	}
	staleIndex := index()
	if _, ok := workResult(staleIndex).(doc.IndexedMsg); !ok {
		t.Fatalf("the command returned %T; want docIndexedMsg", workResult(staleIndex))
	}
	m.Update(keyMsg("k")) // the first event again: its read starts anew
	m.Update(staleIndex)
	if got := sideText(m); !strings.Contains(got, "FIRST-") || strings.Contains(got, "SECOND-") {
		t.Fatalf("a stale index must not change the selected event's view:\n%s", ansi.Strip(viewOf(m)))
	}
}

// bigDeltaStream streams a call's arguments in three deltas: about n bytes
// of members, one small member, about n more; the events are the item's
// opening (0) and the deltas (1, 2, 3).
func bigDeltaStream(n int) []byte {
	members := func(from int) string {
		var a strings.Builder
		for i := from; a.Len() < n; i++ {
			fmt.Fprintf(&a, `{"i":%d,"ok":true},`, i)
		}
		return a.String()
	}
	var b bytes.Buffer
	sseEvent(&b, "response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"put_rows"}}`)
	for _, delta := range []string{`{"rows":[{"v":"BEGIN-"},` + members(0), `{"v":"FRAGMENT-HERE"},`, members(1_000_000) + `{"v":"-END"}]}`} {
		sseEvent(&b, "response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":`+jsonString(delta)+`}`)
	}
	return b.Bytes()
}

// TestCallsJumpsToFragmentInBigArguments selects a delta that added a
// small fragment in the middle of big arguments: the view goes to the
// fragment, marked, once the layout reaches it, and g still reaches the
// arguments' real start.
func TestCallsJumpsToFragmentInBigArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a multi-megabyte argument laid out several times; the full suite runs it")
	}
	t.Parallel()
	m := hugeModel(t, bigDeltaStream(interactionSize()/2), 120, 40)
	m.insp.tl.SelectOrd(2)
	_, cmd := m.Update(keyMsg("3"))
	settle(m, cmd)
	view := viewOf(m)
	if !strings.Contains(view, m.Styles.JSONMark[theme.TokString].Render(`"FRAGMENT-HERE"`)) {
		t.Fatalf("the view should show the event's fragment, marked:\n%s", ansi.Strip(view))
	}
	pressAll(m, "g")
	if got := sideText(m); !strings.Contains(got, `"rows":[{"v":"BEGIN-"}`) || !strings.Contains(got, "fragments·jsonincomplete") {
		t.Fatalf("g should reach the arguments' start, judged incomplete off the event loop:\n%s", ansi.Strip(viewOf(m)))
	}
	// The next delta added everything after it: the view goes to its start.
	pressAll(m, "1", "j")
	view = viewOf(m)
	if !strings.Contains(view, m.Styles.JSONMark[theme.TokNumber].Render("1000000")) {
		t.Errorf("at the last delta the view should show the start of its fragment, marked:\n%s", ansi.Strip(view))
	}
	// Scrolling before the layout gets there cancels the jump: the view
	// stays where the user put it.
	m.Update(keyMsg("k"))
	m.Update(keyMsg("j"))
	_, cmd = m.Update(keyMsg("3"))
	m.Update(keyMsg("g"))
	settle(m, cmd)
	if got := sideText(m); !strings.Contains(got, "BEGIN-") || strings.Contains(got, "-END") {
		t.Errorf("after g the view should stay at the start:\n%s", ansi.Strip(viewOf(m)))
	}
}

// TestCallsBigArgumentsKeepStringState shows arguments over 64 KiB that
// are one long string from their start, inside the string: spaces kept.
func TestCallsBigArgumentsKeepStringState(t *testing.T) {
	var b bytes.Buffer
	args := `{"content":"` + strings.Repeat("a b c ", 20_000) + `"}`
	sseEvent(&b, "response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":`+jsonString(args)+`,"call_id":"call_1","name":"write_file"}}`)
	m := hugeModel(t, b.Bytes(), 120, 40)
	pressAll(m, "3")
	view := ansi.Strip(viewOf(m))
	if !strings.Contains(view, `"content": "a b c a b c a b c`) {
		t.Fatalf("the arguments should show from their start, inside the string:\n%s", view)
	}
	if strings.Contains(view, "earlier bytes not shown") {
		t.Errorf("nothing should be left out:\n%s", view)
	}
	for range 3 {
		pressAll(m, "G")
	}
	if view := ansi.Strip(viewOf(m)); !strings.Contains(view, `a b c "`) || !strings.Contains(view, "}") {
		t.Errorf("G should reach the end of the string and the object:\n%s", view)
	}
}

// TestLayoutWorkBesideTheEventLoop runs the panes' commands on goroutines
// of their own while keys keep arriving, as Bubble Tea does, and delivers
// their results in whatever order they finish (run it with -race): the
// view ends up showing the selected event, all work done.
func TestLayoutWorkBesideTheEventLoop(t *testing.T) {
	t.Parallel()
	m := hugeModel(t, bigPair(), 100, 30)
	results := make(chan tea.Msg, 256)
	pending := 0
	run := func(cmd tea.Cmd) {
		if cmd != nil {
			pending++
			go func() { results <- cmd() }()
		}
	}
	handle := func(msg tea.Msg) {
		pending--
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				run(c)
			}
		default:
			_, cmd := m.Update(msg)
			run(cmd)
			viewOf(m)
		}
	}
	for _, k := range []string{"2", "G", "1", "j", "3", "k", "2", "r", "g", "G", "r", "1", "k", "j"} {
		_, cmd := m.Update(keyMsg(k))
		run(cmd)
		viewOf(m)
		for arrived := true; arrived; {
			select {
			case msg := <-results:
				handle(msg)
			default:
				arrived = false
			}
		}
	}
	for pending > 0 {
		handle(<-results)
	}
	if got := sideText(m); !strings.Contains(got, "SECOND-") || strings.Contains(got, "FIRST-") {
		t.Fatalf("the view should show the second event:\n%s", ansi.Strip(viewOf(m)))
	}
	if title := sideTitleText(m); !strings.Contains(title, "line 1/") {
		t.Errorf("title = %q; want all work done and the position shown", title)
	}
}

// TestResultsForAnotherSessionAreDropped switches the session shown (as
// the proxy's inspector does when another exchange is opened) while a big
// event of the first one is read: its result must not land in the second.
func TestResultsForAnotherSessionAreDropped(t *testing.T) {
	t.Parallel()
	m := hugeModel(t, bigPair(), 120, 40)
	_, readFirst := m.Update(keyMsg("2"))
	m.insp.Attach(newSession(hugeShapes[0].build(interactionSize()))) // as openSession does
	m.insp.SetSize(m.insp.w, m.insp.h)
	m.insp.setFocus(m.insp.indexOf(m.insp.det))
	_, readSecond := m.Update(keyMsg("g"))
	m.Update(readFirst())
	if got := sideText(m); !strings.Contains(got, "BEGIN-") || strings.Contains(got, "FIRST-") {
		t.Fatalf("a read of the first session must not show in the second:\n%s", ansi.Strip(viewOf(m)))
	}
	settle(m, readSecond)
	if got := sideText(m); !strings.Contains(got, "BEGIN-") || !strings.Contains(sideTitleText(m), "line 1/") {
		t.Fatalf("the second session's event should be read and indexed:\n%s", ansi.Strip(viewOf(m)))
	}
}
