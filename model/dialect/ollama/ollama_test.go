package ollama_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// ollamaCaptures returns the Ollama rows of captures-next's MANIFEST.tsv
// (file, expected calls, expected text), with the folder (see nextRows).
func ollamaCaptures(t *testing.T) (string, []modeltest.Row) {
	t.Helper()
	// The dialect column is called format there.
	return modeltest.NextRows(t, "ollama stream", func(r modeltest.Row) bool { return r.Dialect == "ollama" })
}

// TestOllamaCaptures: every Ollama stream of captures-next assembles as
// its MANIFEST says: the calls (arguments compared as JSON values, as the
// MANIFEST asks: the server's Go serialisation may order keys otherwise),
// the text byte for byte; every byte is in one event, every event is
// Ollama's, and the stream completes with the done_reason the notes name.
func TestOllamaCaptures(t *testing.T) {
	dir, rows := ollamaCaptures(t)
	for _, row := range rows {
		t.Run(row.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, row.File))
			if err != nil {
				t.Fatal(err)
			}
			s := model.Assemble(data, capture.FormatAuto, model.Options{KeepEvents: true})
			rep := s.Report()
			dialecttest.SameReportJSON(t, s, rep)
			if rep.Dialect != "ollama" || rep.Dialects != nil {
				t.Errorf("dialect = %s %v; want only ollama", rep.Dialect, rep.Dialects)
			}
			var want []modeltest.WantCall
			if err := json.Unmarshal([]byte(row.Calls), &want); err != nil {
				t.Fatalf("manifest calls: %v", err)
			}
			if len(rep.Calls) != len(want) {
				t.Fatalf("%d calls; want %d", len(rep.Calls), len(want))
			}
			for i, w := range want {
				if g := rep.Calls[i]; g.Name != w.Name || !modeltest.SameJSON(g.Arguments, w.Arguments) || !reflect.DeepEqual(g.ID, w.ID) {
					t.Errorf("call %d = %v %s %s; want %v %s %s", i, modeltest.Deref(g.ID), g.Name, g.Arguments, modeltest.Deref(w.ID), w.Name, w.Arguments)
				}
			}
			var wantText string
			if err := json.Unmarshal([]byte(row.Text), &wantText); err != nil {
				t.Fatalf("manifest text: %v", err)
			}
			if rep.Text != wantText {
				t.Errorf("text = %q; want %q", rep.Text, wantText)
			}
			reason := ""
			if _, r, ok := strings.Cut(row.Notes, "done_reason="); ok {
				reason, _, _ = strings.Cut(r, ";")
			}
			if rep.Outcome.State != model.OutcomeCompleted || rep.Outcome.Detail != reason {
				t.Errorf("outcome = %v; want completed (%s)", rep.Outcome, reason)
			}
			var at int64
			for i, ev := range s.Events.All() {
				if ev.Offset != at || ev.Dialect != dialecttest.Dialect(t, "ollama") || ev.Kind == model.KindUnknown {
					t.Fatalf("event %d at %d (previous ended at %d): %s %s", i, ev.Offset, at, ev.Dialect, ev.Kind)
				}
				at = ev.Offset + int64(ev.Len)
			}
			if at != int64(len(data)) {
				t.Fatalf("events cover %d of %d bytes", at, len(data))
			}
			if last := s.Events.At(s.Events.Len() - 1); last.Kind != model.KindTerminal {
				t.Errorf("last event is %s; want the terminal done line", last.Kind)
			}
		})
	}
}

// ollamaStream is an /api/chat stream exercising what the dialect reads:
// thinking, text, a line with two whole calls (ids, indexes, arguments
// written as Go writes them, one with spaces kept as sent), a line with
// both thinking and text, and the done line.
const ollamaStream = `{"model":"qwen3:8b","created_at":"2025-09-18T09:12:03Z","message":{"role":"assistant","content":"","thinking":"Two cities."},"done":false}
{"model":"qwen3:8b","created_at":"2025-09-18T09:12:03Z","message":{"role":"assistant","content":"Checking"},"done":false}
{"model":"qwen3:8b","created_at":"2025-09-18T09:12:03Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_a1","function":{"index":0,"name":"get_weather","arguments":{"city":"Paris","note":"\u003cb\u003e \u0026"}}},{"id":"call_b2","function":{"index":1,"name":"get_time","arguments":{ "tz" : "Asia/Tokyo" }}}]},"done":false}
{"model":"qwen3:8b","created_at":"2025-09-18T09:12:04Z","message":{"role":"assistant","content":" both.","thinking":" Done."},"done":false}
{"model":"qwen3:8b","created_at":"2025-09-18T09:12:04Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":5,"eval_count":3}
`

// TestOllamaAssembly: text and thinking apart, each call whole at its
// line with its arguments the line's bytes exactly, ids and indexes, the
// shapes of each line, as of any event.
func TestOllamaAssembly(t *testing.T) {
	s, evs := dialecttest.ShapeStream([]byte(ollamaStream), capture.FormatAuto)
	rep := s.Report()
	if rep.Text != "Checking both." {
		t.Errorf("text = %q", rep.Text)
	}
	var thinking string
	for _, it := range s.Items {
		if it.Role == model.RoleReasoning {
			thinking += it.Text.String()
		}
	}
	if thinking != "Two cities. Done." {
		t.Errorf("thinking = %q", thinking)
	}
	want := []struct{ id, name, args string }{
		{"call_a1", "get_weather", `{"city":"Paris","note":"\u003cb\u003e \u0026"}`},
		{"call_b2", "get_time", `{ "tz" : "Asia/Tokyo" }`},
	}
	if len(rep.Calls) != len(want) {
		t.Fatalf("%d calls; want %d", len(rep.Calls), len(want))
	}
	for i, w := range want {
		c := rep.Calls[i]
		if modeltest.Deref(c.ID) != w.id || c.Name != w.name || c.Arguments != w.args || c.Index != i || c.Kind != "function" ||
			c.Status != "completed" || c.ArgumentsJSON != "complete" || c.Sources != nil {
			t.Errorf("call %d = %+v; want %s %s %s at index %d, completed", i, c, w.id, w.name, w.args, i)
		}
		it := s.Calls()[i]
		if got := it.ArgsAsOf(1); got != nil {
			t.Errorf("call %d as of event 1 = %q; want none yet", i, got)
		}
		if got := string(it.ArgsAsOf(2)); got != w.args {
			t.Errorf("call %d as of its line = %q; want %q", i, got, w.args)
		}
		if st, en, ok := it.ArgsFragmentAt(2); !ok || st != 0 || en != len(w.args) {
			t.Errorf("call %d fragment at its line = %d..%d %v; want the whole arguments", i, st, en, ok)
		}
	}
	shapes := []string{"(ollama chat)/thinking", "(ollama chat)/content", "(ollama chat)/tool_calls", "(ollama chat)/thinking", "(ollama chat)/done"}
	for i, e := range evs {
		if e.WithData.String() != shapes[i] || e.Bare != e.WithData {
			t.Errorf("event %d: shape %v (bare %v); want %s", i, e.WithData, e.Bare, shapes[i])
		}
		if _, ok := model.Explain(e.WithData); !ok {
			t.Errorf("event %d: no explanation for %v", i, e.WithData)
		}
	}
	if o := s.Outcome(); o.State != model.OutcomeCompleted || o.Detail != "stop" || o.Ordinal != 4 {
		t.Errorf("outcome = %+v; want completed (stop) at event 4", o)
	}
	if r := s.Responses[0]; r.Model != "qwen3:8b" || len(s.Responses) != 1 {
		t.Errorf("responses = %d, model %q", len(s.Responses), r.Model)
	}
}

// TestOllamaGenerate: /api/generate lines carry their text in response,
// thinking and (newer servers) tool_calls at the top, and context on the
// done line.
func TestOllamaGenerate(t *testing.T) {
	stream := `{"model":"llama3","created_at":"2024-05-24T21:02:00Z","response":"","thinking":"Hmm.","done":false}
{"model":"llama3","created_at":"2024-05-24T21:02:00Z","response":"A joke","done":false}
{"model":"llama3","created_at":"2024-05-24T21:02:01Z","response":"","tool_calls":[{"function":{"name":"tell","arguments":{"n":1}}}],"done":false}
{"model":"llama3","created_at":"2024-05-24T21:02:02Z","response":"","done":true,"done_reason":"length","context":[1,2,3]}
`
	s, evs := dialecttest.ShapeStream([]byte(stream), capture.FormatAuto)
	rep := s.Report()
	if rep.Text != "A joke" || len(rep.Calls) != 1 || rep.Calls[0].Arguments != `{"n":1}` || rep.Calls[0].ID != nil {
		t.Errorf("report = %+v", rep)
	}
	if rep.Outcome.State != model.OutcomeIncomplete || rep.Outcome.Detail != "length" {
		t.Errorf("outcome = %v; want incomplete (length)", rep.Outcome)
	}
	shapes := []string{"(ollama generate)/thinking", "(ollama generate)/response", "(ollama generate)/tool_calls", "(ollama generate)/done"}
	for i, e := range evs {
		if e.WithData.String() != shapes[i] || e.Bare != e.WithData {
			t.Errorf("event %d: shape %v (bare %v); want %s", i, e.WithData, e.Bare, shapes[i])
		}
	}
}

// TestOllamaEnds: how an Ollama stream ends, in the outcome vocabulary of
// every dialect, and what an odd line does to the model.
func TestOllamaEnds(t *testing.T) {
	line := func(content string) string {
		return `{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"` + content + `"},"done":false}` + "\n"
	}
	done := func(reason string) string {
		return `{"model":"m","created_at":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":""},"done":true` + reason + `}` + "\n"
	}
	tests := []struct {
		name, stream, state, detail string
		responses                   int
		text                        string
	}{
		{"stop", line("a") + done(`,"done_reason":"stop"`), model.OutcomeCompleted, "stop", 1, "a"},
		{"length", line("a") + done(`,"done_reason":"length"`), model.OutcomeIncomplete, "length", 1, "a"},
		{"load", done(`,"done_reason":"load"`), model.OutcomeCompleted, "load", 1, ""},
		{"no done_reason (old servers)", line("a") + done(""), model.OutcomeCompleted, "", 1, "a"},
		{"an error line", line("a") + `{"error":"an error was encountered while running the model: unexpected EOF"}` + "\n", model.OutcomeError,
			"an error was encountered while running the model: unexpected EOF", 1, "a"},
		{"no done line", line("a") + line("b"), model.OutcomeTruncated, "the stream ended without its terminal event", 1, "ab"},
		{"cut mid-line", line("a") + `{"model":"m","mess`, model.OutcomeTruncated, "the stream ended without its terminal event", 1, "a"},
		{"a line after done", line("a") + done(`,"done_reason":"stop"`) + line("b"), model.OutcomeTruncated, "the stream ended without its terminal event", 2, "ab"},
		{"an invalid line kept", line("a") + "{\"mess\n" + line("b") + done(`,"done_reason":"stop"`), model.OutcomeCompleted, "stop", 1, "ab"},
	}
	for _, tt := range tests {
		s := model.Assemble([]byte(tt.stream), capture.FormatAuto, model.Options{KeepEvents: true})
		rep := s.Report()
		if rep.Outcome.State != tt.state || rep.Outcome.Detail != tt.detail || len(s.Responses) != tt.responses || rep.Text != tt.text {
			t.Errorf("%s: outcome %v, %d responses, text %q; want %s (%s), %d, %q", tt.name, rep.Outcome, len(s.Responses), rep.Text,
				tt.state, tt.detail, tt.responses, tt.text)
		}
		if rep.Dialect != "ollama" {
			t.Errorf("%s: dialect %s", tt.name, rep.Dialect)
		}
		for i, ev := range s.Events.All() {
			if sh := s.Shape(&ev, i, nil); !dialecttest.Explained(sh) {
				t.Errorf("%s: event %d: no explanation for %v", tt.name, i, sh)
			}
		}
	}
	// The error line is the stream's: an error event of Ollama, recorded
	// with its message.
	s := model.Assemble([]byte(tests[4].stream), capture.FormatAuto, model.Options{KeepEvents: true})
	if ev := s.Events.At(1); ev.Dialect != dialecttest.Dialect(t, "ollama") || ev.Kind != model.KindError || len(s.Errors) != 1 || s.Errors[0].Ordinal != 1 {
		t.Errorf("error line: %s %s, errors %v", ev.Dialect, ev.Kind, s.Errors)
	}
}
