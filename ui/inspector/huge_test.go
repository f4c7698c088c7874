package inspector

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/ui/doc"
)

// Payload sizes the huge-payload tests sweep. size64K1 is past what the
// calls pane shows side by side (sideBySideMax) and what chroma colours
// (chromaLimit); size1M1 past what the panes index, diff or show on the
// event loop (syncIndexMax, diffSyncMax, eventPrefixMax, syncBudgetBytes);
// sizeChunks past one chunk of the background index (indexChunkBytes), so
// that its layout is laid out in two; size50M is the big payload the
// panes promise to show at once.
const (
	size64K1   = 64<<10 + 1
	size1M1    = 1<<20 + 1
	sizeChunks = doc.IndexChunk + 1
	size20M    = 20_000_000
	size50M    = 50_000_000
	// sizeLoop1 is the smallest size past every bound of the event loop
	// above: -short walks it rather than size1M1.
	sizeLoop1 = max(doc.SyncBudget, diffSyncMax, eventPrefixMax) + 1
)

// markers are what the first and the last screen of a pane show for a
// payload of n bytes ("" when it is too small to carry them).
func markers(n int) (begin, end string) {
	if n < 16 {
		return "", ""
	}
	return "BEGIN-", "-END"
}

// sseEvent writes one SSE event whose data is the JSON value v, marshalled
// as is (the caller builds the big parts by hand so nothing is copied
// needlessly).
func sseEvent(b *bytes.Buffer, typ, data string) {
	fmt.Fprintf(b, "event: %s\ndata: %s\n\n", typ, data)
}

// hugeShape is one kind of big event: build makes a stream whose event at
// ordinal ev carries a payload of n bytes.
type hugeShape struct {
	name  string
	build func(n int) []byte
	ev    int
	calls bool // the calls pane shows the payload (as arguments or text)
	diffs bool // the diffs pane compares a snapshot holding the payload with an earlier one
	big   bool // run it past one index chunk (sizeChunks) too, and doneArgs at 50 MB
}

var hugeShapes = []hugeShape{
	// One output_item.done whose function call carries all its arguments.
	{name: "doneArgs", ev: 0, calls: true, big: true, build: func(n int) []byte {
		var b bytes.Buffer
		args := `{"content":` + jsonString(payloadText(n)) + `}`
		sseEvent(&b, "response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":`+jsonString(args)+`,"call_id":"call_1","name":"write_file"}}`)
		return b.Bytes()
	}},
	// Arguments streamed as one huge delta of many small JSON members.
	{name: "deltaMembers", ev: 1, calls: true, build: func(n int) []byte {
		var b bytes.Buffer
		sseEvent(&b, "response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"put_rows"}}`)
		var a strings.Builder
		a.WriteString(`{"rows":[{"v":"BEGIN-"}`)
		for i := 0; a.Len() < n-20; i++ {
			fmt.Fprintf(&a, `,{"i":%d,"ok":true}`, i)
		}
		a.WriteString(`,{"v":"-END"}]}`)
		sseEvent(&b, "response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":`+jsonString(a.String())+`}`)
		return b.Bytes()
	}},
	// Message text as one huge delta.
	{name: "textDelta", ev: 1, calls: true, big: true, build: func(n int) []byte {
		var b bytes.Buffer
		sseEvent(&b, "response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}`)
		sseEvent(&b, "response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":`+jsonString(strings.ReplaceAll(payloadText(n), "0 ", "0\n"))+`}`)
		return b.Bytes()
	}},
	// Data cut short in the middle of a string: not JSON.
	{name: "cutShort", ev: 0, big: true, build: func(n int) []byte {
		var b bytes.Buffer
		q := jsonString(payloadText(n))
		sseEvent(&b, "response.output_text.delta", `{"type":"response.output_text.delta","delta":`+q[:len(q)-1])
		return b.Bytes()
	}},
	// Bytes that are not JSON at all: controls, escapes, invalid UTF-8.
	{name: "blob", ev: 0, big: true, build: func(n int) []byte {
		p := []byte(payloadText(n))
		rng := rand.New(rand.NewPCG(7, uint64(n)))
		for i := 8; i < len(p)-8; i += 1 + rng.IntN(40) {
			c := byte(rng.IntN(256))
			if c != '\n' && c != '\r' {
				p[i] = c
			}
		}
		var b bytes.Buffer
		b.WriteString("data: ")
		b.Write(p)
		b.WriteString("\n\n")
		return b.Bytes()
	}},
	// Wide runes, combining marks and emoji in one string.
	{name: "unicode", ev: 0, build: func(n int) []byte {
		var s strings.Builder
		s.WriteString("BEGIN-")
		for s.Len() < n-4 {
			s.WriteString("日本語 e\u0301 😀 ")
		}
		text := strings.ToValidUTF8(s.String()[:max(n-4, 6)], "") + "-END"
		var b bytes.Buffer
		sseEvent(&b, "message", `{"text":`+jsonString(text)+`}`)
		return b.Bytes()
	}},
	// Deep nesting: a line per level.
	{name: "deep", ev: 0, build: func(n int) []byte {
		half := max(n/2-8, 0)
		var b bytes.Buffer
		sseEvent(&b, "message", `{"v":"BEGIN-",`+`"n":`+strings.Repeat("[", half)+strings.Repeat("]", half)+`,"w":"-END"}`)
		return b.Bytes()
	}},
	// An output_item.added, then its .done with all the arguments: the
	// diffs pane compares the two snapshots.
	{name: "snapshots", ev: 2, calls: true, diffs: true, big: true, build: snapshotPair},
}

// snapshotPair is a stream whose output_item.added opens a call with no
// arguments and whose output_item.done (event 2) closes it with arguments
// of n bytes: the diffs pane compares the two snapshots.
func snapshotPair(n int) []byte {
	var b bytes.Buffer
	sseEvent(&b, "response.created", `{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}`)
	sseEvent(&b, "response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"write_file"}}`)
	args := `{"content":` + jsonString(payloadText(n)) + `}`
	sseEvent(&b, "response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":`+jsonString(args)+`,"call_id":"call_1","name":"write_file"}}`)
	return b.Bytes()
}

// hugeChecks finds something on the big event, so the findings pane has a
// finding pointing at it.
func hugeChecks(ev int) func(*model.Session) []checks.Finding {
	return func(s *model.Session) []checks.Finding {
		return []checks.Finding{{Severity: checks.Warning, Rule: "huge", Message: "a huge event", Events: []int{ev}}}
	}
}

// settle runs the commands Update returned and feeds their messages back
// until none are left: the panes' layout work off the event loop.
func settle(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// pressAll presses keys one by one, letting the work each starts finish.
func pressAll(m *Model, keys ...string) {
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		settle(m, cmd)
	}
}

// sideText is the side pane's text on screen with every space and line
// break removed, so markers wrapped across lines still read whole.
func sideText(m *Model) string {
	var b strings.Builder
	for _, l := range strings.Split(ansi.Strip(viewOf(m)), "\n") {
		if m.insp.r.side.X < ansi.StringWidth(l) {
			b.WriteString(ansi.Cut(l, m.insp.r.side.X, m.insp.w))
		}
	}
	return strings.Join(strings.Fields(b.String()), "")
}

type hugeCase struct {
	shape hugeShape
	n     int
}

// hugeCases are the shapes and sizes TestHugePayloads draws: every shape
// from 1 byte past the thresholds of what the panes do on the event loop
// (size1M1), the big shapes past one index chunk (sizeChunks), and the
// function call's arguments at 50 MB. Under -short, only 1 byte and
// sizeLoop1, just past every threshold of the event loop. Each size crosses
// a threshold the one before it does not; more sizes between them walk
// the same code (more chunks of the same index: TestDocResumes checks a
// layout resumed from any chunk), and what they cost is measured by
// BenchmarkHugeShapesEnd, BenchmarkDetailFirstFrame, BenchmarkCallsFirstFrame
// and BenchmarkDiffsFirstFrame at 20 and 50 MB.
func hugeCases() []hugeCase {
	var out []hugeCase
	sizes := []int{1, 1 << 10, size64K1, size1M1, sizeChunks, size50M}
	if testing.Short() {
		sizes = []int{1, sizeLoop1}
	}
	for _, sh := range hugeShapes {
		for _, n := range sizes {
			if n == sizeChunks && !sh.big || n == size50M && sh.name != "doneArgs" {
				continue
			}
			out = append(out, hugeCase{sh, n})
		}
	}
	return out
}

// TestHugePayloads draws every pane with payloads from 1 byte to 50 MB of
// every shape: nothing panics or overflows, the detail pane (pretty and
// raw) and the calls pane show the payload from its real start, G reaches
// its real end, and the diffs pane compares snapshots that hold it.
func TestHugePayloads(t *testing.T) {
	t.Parallel()
	for _, hc := range hugeCases() {
		t.Run(fmt.Sprintf("%s/%d", hc.shape.name, hc.n), func(t *testing.T) {
			t.Parallel()
			data := hc.shape.build(hc.n)
			s := newSession(data)
			m := newProgram(s, Options{Source: "huge", Checks: hugeChecks(hc.shape.ev)})
			w, h := 120, 40
			if hc.n%2 == 1 {
				w, h = 80, 24
			}
			// The calls pane, beside the timeline from the start, starts
			// indexing at once: hold that work back until its first screen
			// has been checked.
			_, held := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
			m.insp.tl.SelectOrd(hc.shape.ev)
			begin, end := markers(hc.n)
			screen := func(what string) string {
				t.Helper()
				out := viewOf(m)
				checkFits(t, out, w, h)
				if t.Failed() {
					t.Fatalf("%s:\n%s", what, ansi.Strip(out))
				}
				return sideText(m)
			}
			expect := func(what, text string) {
				t.Helper()
				if got := screen(what); !strings.Contains(got, text) {
					t.Fatalf("%s: want %q on screen:\n%s", what, text, ansi.Strip(viewOf(m)))
				}
			}
			// now presses k and wants want on screen before any background
			// work has run (the first screen) and after; later wants it
			// once the work is done (G waits for the end to be known).
			now := func(k, what, want string) {
				t.Helper()
				_, cmd := m.Update(keyMsg(k))
				expect(what, want)
				settle(m, cmd)
				expect(what+", work done", want)
			}
			if hc.shape.calls {
				now("3", "calls, first screen", begin)
			}
			settle(m, held)
			later := func(k, what, want string) {
				t.Helper()
				pressAll(m, k)
				expect(what, want)
			}
			screen("timeline")
			now("2", "detail, first screen", begin)
			later("G", "detail, after G", end)
			now("g", "detail, after g", begin)
			now("r", "raw, first screen", begin)
			later("G", "raw, after G", end)
			pressAll(m, "r")
			if hc.shape.calls {
				now("3", "calls, again", begin)
				for range 3 { // G moves the window of items by one item
					pressAll(m, "G")
				}
				expect("calls, after G", end)
			} else {
				pressAll(m, "3")
				screen("calls")
			}
			if hc.shape.diffs {
				// The first screen compares small snapshots at once and
				// says it is comparing big ones; then the difference shows
				// from the value's start.
				_, cmd := m.Update(keyMsg("4"))
				if got := screen("diffs, first screen"); !strings.Contains(got, "~.arguments") && !strings.Contains(got, "comparing") {
					t.Fatalf("diffs, first screen: want the comparison or its progress:\n%s", ansi.Strip(viewOf(m)))
				}
				settle(m, cmd)
				expect("diffs, compared", `~.arguments""→"{\"content\":\"`+begin)
				expect("diffs, compared", `~.status"in_progress"→"completed"`)
			} else {
				pressAll(m, "4")
				screen("diffs")
			}
			pressAll(m, "G")
			screen("diffs, after G")
			pressAll(m, "5")
			screen("findings")
			// The lanes pane highlights the big event's row, its
			// fragment, if it added one, cut to the lane.
			pressAll(m, lanesKey)
			screen("lanes")
			if row := selectedLaneRow(m); row == "" || laneRowOrd(t, row) > hc.shape.ev {
				t.Fatalf("lanes: the selected row %q should hold event %d:\n%s", row, hc.shape.ev, ansi.Strip(viewOf(m)))
			}
		})
	}
}
