package inspector

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestDiffsBigSnapshotsOffTheEventLoop selects an output_item.done whose
// snapshot is 4 MiB (2 MiB under -short): the first frame reads and compares nothing (it says
// what it is comparing), and the comparison, done by the command the key
// started, shows the changed members with the big one cut short to its
// start and size.
func TestDiffsBigSnapshotsOffTheEventLoop(t *testing.T) {
	m := hugeModel(t, snapshotPair(interactionSize()), 120, 40)
	pressAll(m, "4", "1")
	var view string
	var cmd func()
	alloc := allocatedBy(func() {
		_, c := m.Update(keyMsg("G")) // the output_item.done
		view = plainView(m)
		cmd = func() { settle(m, c) }
	})
	if !strings.Contains(view, "comparing") || strings.Contains(view, "~ .arguments") {
		t.Errorf("the first frame should say it is comparing, not compare:\n%s", view)
	}
	if alloc > 1<<20 {
		t.Errorf("the first frame allocated %d bytes; a snapshot of megabytes must not be read on the event loop", alloc)
	}
	cmd()
	view = plainView(m)
	for _, want := range []string{`~ .status "in_progress" → "completed"`, `~ .arguments "" → "{\"content\":\"BEGIN-w0000000`} {
		if !strings.Contains(view, want) {
			t.Errorf("once compared the pane should show %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "comparing") {
		t.Errorf("the comparison is done:\n%s", view)
	}
}

// twoSnapshotPairs is a stream of two calls, each opened and closed with
// arguments of n bytes that start FIRST- and SECOND-: their .done events
// are 2 and 4.
func twoSnapshotPairs(n int) []byte {
	var b bytes.Buffer
	sseEvent(&b, "response.created", `{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}`)
	for i, name := range []string{"FIRST-", "SECOND-"} {
		sseEvent(&b, "response.output_item.added", fmt.Sprintf(`{"type":"response.output_item.added","output_index":%d,"item":{"id":"fc_%d","type":"function_call","status":"in_progress","arguments":"","call_id":"call_%d","name":"write_file"}}`, i, i, i))
		args := `{"content":` + jsonString(name+payloadText(n)) + `}`
		sseEvent(&b, "response.output_item.done", fmt.Sprintf(`{"type":"response.output_item.done","output_index":%d,"item":{"id":"fc_%d","type":"function_call","status":"completed","arguments":%s,"call_id":"call_%d","name":"write_file"}}`, i, i, jsonString(args), i))
	}
	return b.Bytes()
}

// TestDiffsComparisonLandsWhereItBelongs moves the selection while a
// comparison is under way: its result does not show for the event
// selected now, and shows at once, without comparing again, when the
// selection comes back to it.
func TestDiffsComparisonLandsWhereItBelongs(t *testing.T) {
	t.Parallel()
	m := hugeModel(t, twoSnapshotPairs(interactionSize()/4), 120, 40)
	m.insp.tl.SelectOrd(2)
	_, first := m.Update(keyMsg("4"))
	m.Update(keyMsg("1"))
	_, second := m.Update(keyMsg("j")) // output_item.added #3: the second pair
	if first == nil || second == nil {
		t.Fatal("each big pair selected should start a comparison")
	}
	if _, cmd := m.Update(keyMsg("j")); cmd != nil { // its .done: the same pair, under way
		t.Fatal("a pair under way should not be compared twice")
	}
	settle(m, first)
	if view := plainView(m); strings.Contains(view, "FIRST-") || !strings.Contains(view, "comparing") {
		t.Fatalf("the first pair's comparison must not show for the second:\n%s", view)
	}
	settle(m, second)
	if view := plainView(m); !strings.Contains(view, "SECOND-") || strings.Contains(view, "comparing") {
		t.Fatalf("the second pair's comparison should show:\n%s", view)
	}
	m.Update(keyMsg("k"))
	if _, cmd := m.Update(keyMsg("k")); cmd != nil || !strings.Contains(plainView(m), "FIRST-") {
		t.Fatalf("back at the first pair its comparison should show, not start again:\n%s", plainView(m))
	}
}

// TestDiffsResultOfAnotherSessionDropped switches the inspector to another
// session while a comparison runs (as the proxy's inspector does): the
// result, for the session before, is not kept.
func TestDiffsResultOfAnotherSessionDropped(t *testing.T) {
	t.Parallel()
	m := hugeModel(t, twoSnapshotPairs(interactionSize()/4), 120, 40)
	m.insp.tl.SelectOrd(2)
	_, cmd := m.Update(keyMsg("4"))
	msgs := messagesOf(cmd)
	m.insp.Attach(newSession(twoSnapshotPairs(16))) // small: compared at once
	m.insp.side = m.insp.indexOf(m.insp.diff)
	m.insp.tl.SelectOrd(2)
	for _, msg := range msgs {
		m.Update(msg)
	}
	if len(m.insp.diff.results) != 0 || strings.Contains(plainView(m), "MiB") {
		t.Errorf("a comparison of another session was kept: %v\n%s", m.insp.diff.results, plainView(m))
	}
}

// TestJSONDiff compares snapshots as their bytes hold them.
func TestJSONDiff(t *testing.T) {
	long := strings.Repeat("w0123456 ", 40) // 360 bytes
	tests := []struct {
		name string
		a, b string
		want []string
	}{
		{"same", `{"a":1,"b":[1,2]}`, `{"a":1,"b":[1,2]}`, nil},
		{"whitespace between tokens", `{"a": 1, "b": [1, 2]}`, "{\"a\":1,\n\"b\":[1,2]}", nil},
		{"key order", `{"a":1,"b":2}`, `{"b":2,"a":1}`, nil},
		{"escapes of the same text", `{"s":"é\n"}`, `{"s":"\u00e9\u000a"}`, nil},
		{"changed, added, removed", `{"a":1,"b":"x","gone":true}`, `{"a":2,"b":"x","new":null}`,
			[]string{"~ .a 1 → 2", "- .gone true", "+ .new null"}},
		{"nested", `{"o":{"p":[1,{"q":"r"}]}}`, `{"o":{"p":[1,{"q":"s"},3]}}`,
			[]string{`~ .o.p[1].q "r" → "s"`, "+ .o.p[2] 3"}},
		{"number spelling", `{"n":1}`, `{"n":1.0}`, []string{"~ .n 1 → 1.0"}},
		{"type change", `{"v":[1]}`, `{"v":{"a":1}}`, []string{`~ .v [1] → {"a":1}`}},
		{"last of a repeated key", `{"k":1,"k":2}`, `{"k":2}`, nil},
		{"escaped key", `{"a\"b":1}`, `{"a\"b":2}`, []string{`~ .a"b 1 → 2`}},
		{"added container compacted", `{}`, "{\"x\": [1, \n 2]}", []string{"+ .x [1,2]"}},
		{"long value: its start and size", `{"s":""}`, `{"s":"` + long + `"}`,
			[]string{`~ .s "" → "w0123456 w0123456 w0123456 w0123456 w0123456 w0123456 w0123456 w0123456 w012345… (362 B)`}},
		{"long values: where they differ", `{"s":"` + long + `A"}`, `{"s":"` + long + `B"}`,
			[]string{`~ .s …123456 w0123456 A" (363 B) → …123456 w0123456 B" (363 B)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			jsonDiff("", []byte(tt.a), []byte(tt.b), func(e diffEntry) bool {
				switch e.op {
				case '+':
					got = append(got, "+ "+e.path+" "+e.to)
				case '-':
					got = append(got, "- "+e.path+" "+e.from)
				default:
					got = append(got, "~ "+e.path+" "+e.from+" → "+e.to)
				}
				return true
			})
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("jsonDiff(%q, %q) =\n%s\nwant\n%s", tt.a, tt.b, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestDiffsEntriesBounded compares arrays whose every element changed:
// the pane lists the first diffEntriesMax differences and says there are
// more.
func TestDiffsEntriesBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range 2 * diffEntriesMax {
		sep := map[bool]string{true: "", false: ","}[i == 0]
		fmt.Fprintf(&a, "%s%d", sep, i)
		fmt.Fprintf(&b, "%s%d", sep, -i-1)
	}
	var buf bytes.Buffer
	sseEvent(&buf, "response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"id":"m_1","type":"message","status":"in_progress","v":[`+a.String()+`]}}`)
	sseEvent(&buf, "response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"id":"m_1","type":"message","status":"completed","v":[`+b.String()+`]}}`)
	m := hugeModel(t, buf.Bytes(), 120, 40)
	m.insp.tl.SelectOrd(1)
	pressAll(m, "4")
	lines := m.insp.diff.lines
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(ansi.Strip(l), "    ~ .v[") {
			n++
		}
	}
	if n != diffEntriesMax-1 || !strings.Contains(ansi.Strip(strings.Join(lines, "\n")), "more differences past the first") {
		t.Errorf("%d element changes listed; want %d (and .status) and a note of more", n, diffEntriesMax-1)
	}
}
