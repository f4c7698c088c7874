package ui

import (
	"fmt"
	"strings"
	"testing"
)

// hugeFieldStream is a Responses stream of a call and a text, an error
// and an event of no known type, where one field holds n bytes of "é":
// the call's name, its ids, the response's model or status, the error's
// code or message, or the type of the unknown event.
func hugeFieldStream(field string, n int) []byte {
	big := strings.Repeat("é", n/2)
	v := map[string]string{"name": "f", "id": "fc_1", "model": "m", "status": "in_progress", "code": "c", "message": "m", "type": "x.y"}
	if _, ok := v[field]; !ok {
		panic("no field " + field)
	}
	v[field] = big
	var b strings.Builder
	add := func(typ, body string) {
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":\"%s\",%s}\n\n", typ, typ, body)
	}
	resp := fmt.Sprintf(`"response":{"id":"resp_%s","status":"%s","model":"%s","output":[]}`, v["id"], v["status"], v["model"])
	item := func(status string) string {
		return fmt.Sprintf(`"item":{"id":"%s","type":"function_call","status":"%s","arguments":"{}","call_id":"call_%s","name":"%s"}`, v["id"], status, v["id"], v["name"])
	}
	add("response.created", `"sequence_number":0,`+resp)
	add("response.output_item.added", `"sequence_number":1,"output_index":0,`+item("in_progress"))
	add("response.output_item.added", `"sequence_number":2,"output_index":1,"item":{"id":"msg","type":"message","status":"in_progress","content":[]}`)
	add("response.output_text.delta", `"sequence_number":3,"item_id":"msg","output_index":1,"delta":"hi"`)
	add(v["type"], `"sequence_number":4`)
	add("error", fmt.Sprintf(`"sequence_number":5,"code":"%s","message":"%s"`, v["code"], v["message"]))
	add("response.output_item.done", `"sequence_number":6,"output_index":0,`+item(v["status"]))
	add("response.completed", `"sequence_number":7,`+resp)
	return []byte(b.String())
}

// TestLanesHugeFieldsCheap: a frame of the lanes pane costs what its
// cells show, not the size of the stream's strings. With a 4 MB tool
// name, id, model, status, error code or message, or event type, drawing
// the pane (every row selected in turn) allocates well under the size of
// that string: the pane cuts a string to what a lane can show before
// making it safe and measuring it. Allocation, not time, is what the test
// counts, so that it does not depend on the machine.
func TestLanesHugeFieldsCheap(t *testing.T) {
	skipHugeFieldsUnderShort(t)
	const size = 4 << 20
	for _, field := range []string{"name", "id", "model", "status", "code", "message", "type"} {
		t.Run(field, func(t *testing.T) {
			m := New(newSession(hugeFieldStream(field, size)), Options{Source: "huge " + field, Checks: StrictChecks})
			resize(m, 200, 50)
			pressAll(m, lanesKey, "z")
			p := m.insp.lanes
			if n := len(p.idx.rows); n < 8 {
				t.Fatalf("the lanes show %d rows; want 8:\n%s", n, lanesText(m))
			}
			p.view(0, true) // index and lay out first
			for ord := range m.insp.s.Len() {
				if got := allocatedBy(func() { p.view(ord, true) }); got > size/8 {
					t.Errorf("a frame with event %d selected allocated %d bytes; want under %d", ord, got, size/8)
				}
			}
			checkFits(t, viewOf(m), 200, 50)
		})
	}
}

// TestIDEnd: idEnd keeps the last idTail runes of an id longer than
// idTail+1 runes, counting an invalid byte as a rune.
func TestIDEnd(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"a", "a"},
		{"abcde", "abcde"},
		{"abcdef", "…cdef"},
		{"é漢字😀xy", "…字😀xy"},
		{"漢字😀xy", "漢字😀xy"},
		{"ab\xff\xfecd", "…\xff\xfecd"},
		{strings.Repeat("x", 1<<20) + "1234", "…1234"},
	} {
		if got := idEnd(tt.in); got != tt.want {
			t.Errorf("idEnd(%.20q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestEmptyStreamSaysSo: over a stream that ended without an event (an
// empty file, a body that is not SSE), the timeline, the lanes pane and
// the diff page's side say there are no events, not that they are
// waiting for some; over a live stream not started yet, they wait.
func TestEmptyStreamSaysSo(t *testing.T) {
	ended := newTestModel(t, nil, 120, 40)
	pressAll(ended, lanesKey)
	live := liveModel(t, nil, 120, 40)
	pressAll(live, lanesKey)
	diff := newDiffModelOf(t, nil, []byte("data: [DONE]\n\n"), 120, 40)
	for _, tt := range []struct {
		name string
		m    *Model
		want string
		n    int
	}{
		{"ended", ended, "no events", 2},
		{"live", live, "waiting for events…", 2},
		{"diff page", diff, "no events", 1},
	} {
		v := plainView(tt.m)
		if got := strings.Count(v, tt.want); got != tt.n || (tt.want != "waiting for events…" && strings.Contains(v, "waiting for events")) {
			t.Errorf("%s: %q shown %d times; want %d:\n%s", tt.name, tt.want, got, tt.n, v)
		}
	}
}

// TestZoomedHelpSaysUnzoom: zoomed, whichever pane is shown, the help
// line says how to bring both panes back (z), which only the lanes pane's
// help said before; unzoomed, the lanes pane's help still offers z.
func TestZoomedHelpSaysUnzoom(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "responses-parallel-calls"), 160, 30)
	helpLine := func() string {
		lines := strings.Split(plainView(m), "\n")
		return lines[len(lines)-2]
	}
	pressAll(m, lanesKey)
	if h := helpLine(); !strings.Contains(h, "z zoom pane") {
		t.Errorf("the lanes pane's help %q should offer z", h)
	}
	for _, k := range []string{"z", "1", "2", "3", "4", "5", lanesKey} {
		pressAll(m, k)
		if h := helpLine(); !strings.Contains(h, "z unzoom") || strings.Contains(h, "zoom pane") {
			t.Errorf("zoomed, after %s, the help %q should say z unzoom", k, h)
		}
	}
}
