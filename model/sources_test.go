package model_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// respMessage is a Responses stream with one message whose deltas spell
// "Hello world"; the .done statements are given: output_text.done,
// content_part.done, output_item.done and the terminal output[] (events
// 5, 6, 7 and 8).
func respMessage(textDone, partDone, itemDone, terminal string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	content := func(s string) string {
		return `[{"type":"output_text","annotations":[],"text":` + q(s) + `}]`
	}
	evs := []string{
		`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","output":[]}}`,
		`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}`,
		`{"type":"response.content_part.added","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}}`,
		`{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hello"}`,
		`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":" world"}`,
		`{"type":"response.output_text.done","sequence_number":5,"item_id":"msg_1","output_index":0,"content_index":0,"text":` + q(textDone) + `}`,
		`{"type":"response.content_part.done","sequence_number":6,"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":` + q(partDone) + `}}`,
		`{"type":"response.output_item.done","sequence_number":7,"output_index":0,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":` + content(itemDone) + `}}`,
		`{"type":"response.completed","sequence_number":8,"response":{"id":"resp_1","status":"completed","output":[{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":` + content(terminal) + `}]}}`,
	}
	return "data: " + strings.Join(evs, "\n\ndata: ") + "\n\n"
}

func onlyMessage(t *testing.T, s *model.Session) *model.Item {
	t.Helper()
	var msgs []*model.Item
	for _, it := range s.Items {
		if it.Role == model.RoleMessage {
			msgs = append(msgs, it)
		}
	}
	if len(msgs) != 1 {
		t.Fatalf("%d messages; want 1", len(msgs))
	}
	return msgs[0]
}

// TestTextSources: the text of a message is stated five times; a .done
// that disagrees with the deltas is kept and shown, not dropped.
func TestTextSources(t *testing.T) {
	s := assemble(t, respMessage("Hello World!", "Hello world", "Hello wor", "Hello world"))
	m := onlyMessage(t, s)
	src, differ := m.TextSourcesDisagree()
	want := map[string]string{"deltas": "Hello world", "text_done": "Hello World!", "part_done": "Hello world",
		"item_done": "Hello wor", "terminal": "Hello world"}
	if !differ || !reflect.DeepEqual(src, want) {
		t.Errorf("TextSourcesDisagree() = %v, %v; want %v", src, differ, want)
	}
	for n, v := range map[model.TextSourceName]string{model.TextDone: "Hello World!", model.TextPartDone: "Hello world", model.TextItemDone: "Hello wor", model.TextTerminal: "Hello world"} {
		if got, ok := m.TextStatement(n); !ok || got.Value != v || got.Name != n.String() {
			t.Errorf("TextStatement(%s) = %+v, %v; want %q", n, got, ok, v)
		}
	}
	rep := s.Report()
	if rep.Text != "Hello world" {
		t.Errorf("text = %q; want the deltas as before", rep.Text)
	}
	wantRep := []model.TextSourcesReport{{ItemID: "msg_1", Choice: 0, Index: 0, Sources: want}}
	if !reflect.DeepEqual(rep.TextSources, wantRep) {
		t.Errorf("report text_sources = %+v; want %+v", rep.TextSources, wantRep)
	}
	dialecttest.SameReportJSON(t, s, rep)
	var doc map[string]any
	var buf bytes.Buffer
	if err := s.WriteReportJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["text_sources"]; !ok {
		t.Errorf("calls --json has no text_sources: %s", buf.String())
	}
}

func TestTextSourcesAgree(t *testing.T) {
	s := assemble(t, respMessage("Hello world", "Hello world", "Hello world", "Hello world"))
	m := onlyMessage(t, s)
	if src, differ := m.TextSourcesDisagree(); differ {
		t.Errorf("TextSourcesDisagree() = %v; want agreement", src)
	}
	var buf bytes.Buffer
	if err := s.WriteReportJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "text_sources") {
		t.Errorf("calls --json names text_sources although they agree: %s", buf.String())
	}
	// Every source shares the one copy of the text.
	done, _ := m.TextStatement(model.TextDone)
	term, _ := m.TextStatement(model.TextTerminal)
	if a, b := done.Value, term.Value; a != "Hello world" || b != a {
		t.Errorf("sources %q, %q", a, b)
	}
}

// TestTextSourcesParts: a message with two content parts states each part
// in its own .done; the item-level statement is their concatenation.
func TestTextSourcesParts(t *testing.T) {
	part := func(ci int, typ, body string) string {
		return fmt.Sprintf(`{"type":%q,"item_id":"msg_1","output_index":0,"content_index":%d,%s}`, typ, ci, body)
	}
	build := func(secondDone string) string {
		evs := []string{
			`{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}`,
			`{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}`,
			part(0, "response.output_text.delta", `"delta":"One."`),
			part(0, "response.output_text.done", `"text":"One."`),
			part(1, "response.output_text.delta", `"delta":" Two."`),
			part(1, "response.output_text.done", `"text":`+secondDone),
			`{"type":"response.output_item.done","output_index":0,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[` +
				`{"type":"output_text","text":"One."},{"type":"output_text","text":" Two."}]}}`,
		}
		return "data: " + strings.Join(evs, "\n\ndata: ") + "\n\n"
	}
	m := onlyMessage(t, assemble(t, build(`" Two."`)))
	if src, differ := m.TextSourcesDisagree(); differ {
		t.Errorf("two parts, each right: TextSourcesDisagree() = %v", src)
	}
	m = onlyMessage(t, assemble(t, build(`" Three."`)))
	src, differ := m.TextSourcesDisagree()
	if !differ || src["text_done"] != "One. Three." || src["deltas"] != "One. Two." || src["item_done"] != "One. Two." {
		t.Errorf("second part wrong: TextSourcesDisagree() = %v, %v", src, differ)
	}
	// As of the first part's .done, the two parts so far agree.
	if stmts, differ := m.TextSourcesAsOf(3); differ || len(stmts) != 2 {
		t.Errorf("TextSourcesAsOf(3) = %v, %v; want text_done and deltas agreeing", stmts, differ)
	}
}

// TestAsOfDoneArgsDiffer walks the sample broken-done-args-differ event by
// event: the arguments `calls` would report, and the disagreement, are
// those of the events so far.
func TestAsOfDoneArgsDiffer(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "samples", "broken-done-args-differ.sse"))
	if err != nil {
		t.Fatal(err)
	}
	s := model.Assemble(data, capture.FormatAuto, model.Options{KeepEvents: true})
	c := onlyCall(t, s)
	const (
		append_   = `{"path": "notes/todo.md", "text": "- buy milk\n", "mode": "append"}`
		overwrite = `{"path": "notes/todo.md", "text": "- buy milk\n", "mode": "overwrite"}`
	)
	deltas := []string{`{"pat`, `h": "no`, `tes/to`, `do.md"`, `, "text`, `": "- b`, `uy mil`, "k\\n\", ", `"mode":`, ` "appe`, `nd"}`}
	for ord := range s.Len() {
		var wantArgs string
		var wantNames []string
		wantDiffer := false
		switch {
		case ord < 2:
			wantArgs = ""
		case ord == 2: // output_item.added with arguments ""
			wantArgs = ""
		case ord <= 13:
			wantArgs = strings.Join(deltas[:ord-2], "")
			wantNames = []string{"deltas"}
		case ord == 14: // function_call_arguments.done says overwrite
			wantArgs, wantDiffer = overwrite, true
			wantNames = []string{"arguments_done", "deltas"}
		case ord == 15:
			wantArgs, wantDiffer = overwrite, true
			wantNames = []string{"item_done", "arguments_done", "deltas"}
		default:
			wantArgs, wantDiffer = overwrite, true
			wantNames = []string{"item_done", "arguments_done", "terminal", "deltas"}
		}
		if ord <= 13 && ord > 2 && strings.Join(deltas[:ord-2], "") != string(c.ArgsAsOf(ord)) {
			t.Fatalf("test table: deltas as of %d are %q", ord, c.ArgsAsOf(ord))
		}
		if got := c.FinalArgsAsOf(ord); got != wantArgs {
			t.Errorf("FinalArgsAsOf(%d) = %q; want %q", ord, got, wantArgs)
		}
		stmts, differ := c.SourcesAsOf(ord)
		var names []string
		for _, st := range stmts {
			names = append(names, st.Name)
			if st.Ordinal > ord {
				t.Errorf("SourcesAsOf(%d) has %s stated at event %d", ord, st.Name, st.Ordinal)
			}
		}
		if differ != wantDiffer || !reflect.DeepEqual(names, wantNames) {
			t.Errorf("SourcesAsOf(%d) = %v, %v; want %v, %v", ord, stmts, differ, wantNames, wantDiffer)
		}
		if ord >= 13 {
			if d := stmts[len(stmts)-1]; d.Value != append_ || d.Ordinal != 13 {
				t.Errorf("SourcesAsOf(%d) deltas = %+v; want %q at event 13", ord, d, append_)
			}
		}
	}
	if c.FinalArgsAsOf(-1) != c.FinalArgs() || c.FinalArgs() != overwrite {
		t.Errorf("FinalArgsAsOf(-1) = %q, FinalArgs() = %q", c.FinalArgsAsOf(-1), c.FinalArgs())
	}
}

// TestAsOfTextSources walks a message whose output_text.done disagrees
// with its deltas, event by event.
func TestAsOfTextSources(t *testing.T) {
	s := assemble(t, respMessage("Hello World!", "Hello world", "Hello world", "Hello world"))
	m := onlyMessage(t, s)
	for ord := range s.Len() {
		stmts, differ := m.TextSourcesAsOf(ord)
		text := string(m.FinalTextAsOf(ord))
		var names []string
		for _, st := range stmts {
			names = append(names, st.Name)
		}
		var wantNames []string
		wantText := map[int]string{3: "Hello"}[ord]
		if ord >= 4 {
			wantText = "Hello world"
		}
		switch {
		case ord == 3 || ord == 4:
			wantNames = []string{"deltas"}
		case ord == 5:
			wantNames = []string{"text_done", "deltas"}
		case ord == 6:
			wantNames = []string{"text_done", "part_done", "deltas"}
		case ord == 7:
			wantNames = []string{"item_done", "text_done", "part_done", "deltas"}
		case ord >= 8:
			wantNames = []string{"item_done", "text_done", "part_done", "terminal", "deltas"}
		}
		if text != wantText || differ != (ord >= 5) || !reflect.DeepEqual(names, wantNames) {
			t.Errorf("as of %d: text %q, sources %v, %v; want %q, %v, %v", ord, text, stmts, differ, wantText, wantNames, ord >= 5)
		}
	}
}
