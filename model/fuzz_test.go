package model_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// sse joins data lines into an SSE stream, one event per line.
var sse = modeltest.SSE

// dialectSeeds are small streams of each dialect, including the defects the
// assembly must survive.
var dialectSeeds = modeltest.Seeds()

// addFileSeeds adds every recorded stream to the corpus, and nothing when
// there are none.
var addFileSeeds = modeltest.FileSeeds

// FuzzAssemble runs whole streams through framing and assembly: it never
// panics, always finishes, its events tile the input, every call's
// arguments as of any event are consistent, the items of each response
// are kept in output order, and the report marshals.
func FuzzAssemble(f *testing.F) {
	addFileSeeds(f, func(data []byte) { f.Add(data) })
	for _, s := range dialectSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := dialecttest.AssembleWithin(t, data, model.Options{KeepEvents: true, Raw: bytes.NewReader(data)})
		dialecttest.CheckTiling(t, s, data)
		dialecttest.CheckArgsAsOf(t, s, len(data))
		dialecttest.CheckOutputs(t, s)
		rep := s.Report()
		if _, err := json.Marshal(rep); err != nil {
			t.Fatalf("json.Marshal(Report()) = %v", err)
		}
		if len(rep.Calls) != len(s.Calls()) {
			t.Fatalf("report has %d calls; session %d", len(rep.Calls), len(s.Calls()))
		}
		for _, it := range s.ItemsAsOf(s.Len() / 2) {
			it.Text.AsOf(s.Len() / 2)
			it.Args.FragmentAt(s.Len() / 2)
			it.SourcesDisagree()
		}
		dialecttest.CheckSourcesAsOf(t, s)
	})
}

// quote returns s as a JSON string.
func quote(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fragments cuts s into pieces whose lengths are the bytes of cuts, the
// rest forming the last piece. A cut inside a UTF-8 sequence moves to its
// end: producers send JSON strings, which cannot hold half a character.
// Empty pieces are kept; producers send those too.
func fragments(s string, cuts []byte) []string {
	var out []string
	for _, c := range cuts {
		n := min(int(c), len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// dialectWrappers wraps argument fragments in a stream of each dialect that
// streams arguments as text.
var dialectWrappers = []struct {
	name string
	wrap func(t *testing.T, args string, frags []string) string
}{
	{"responses", func(t *testing.T, args string, frags []string) string {
		a := quote(t, args)
		lines := []string{
			`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress"}}`,
			`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","call_id":"call_1","name":"f","arguments":""}}`,
		}
		for i, fr := range frags {
			lines = append(lines, fmt.Sprintf(`{"type":"response.function_call_arguments.delta","sequence_number":%d,"item_id":"fc_1","output_index":0,"delta":%s}`, i+2, quote(t, fr)))
		}
		lines = append(lines,
			`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":`+a+`}`,
			`{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"f","arguments":`+a+`}}`,
			`{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"f","arguments":`+a+`}]}}`,
		)
		return sse(lines...)
	}},
	{"chat", func(t *testing.T, _ string, frags []string) string {
		lines := []string{
			`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":` + quote(t, frags[0]) + `}}]},"finish_reason":null}]}`,
		}
		for _, fr := range frags[1:] {
			lines = append(lines, `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":`+quote(t, fr)+`}}]},"finish_reason":null}]}`)
		}
		lines = append(lines, `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`)
		return sse(lines...)
	}},
	{"anthropic", func(t *testing.T, _ string, frags []string) string {
		var b strings.Builder
		ev := func(name, data string) { b.WriteString("event: " + name + "\ndata: " + data + "\n\n") }
		ev("message_start", `{"type":"message_start","message":{"id":"msg_1","content":[]}}`)
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`)
		for _, fr := range frags {
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+quote(t, fr)+`}}`)
		}
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"}}`)
		ev("message_stop", `{"type":"message_stop"}`)
		return b.String()
	}},
}

// FuzzArgAssembly cuts an arguments string into fragments, streams them in
// each dialect, and expects the assembled arguments back byte for byte.
func FuzzArgAssembly(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"location":"Paris","unit":"celsius"}`, `{"a":[1,2,{"b":null}],"c":true}`,
		`{"q":"line\nbreak\ttab \"quoted\" back\\slash"}`, `{"html":"<a href='x'>&amp;</a>"}`,
		`{"emoji":"😀","accents":"é ü ß","cjk":"天気"}`, "{\"ctl\":\"\x00\x01\x1f\"}", "{\"ls\":\"\u2028\u2029\"}",
		`{"loc`, `not json at all`, `{"a":1}{"b":2}`, `   {"spaces" : 1 }   `,
	} {
		f.Add(s, []byte{1, 2, 3})
		f.Add(s, []byte{0, 0, 5, 0})
	}
	addFileSeeds(f, func(data []byte) {
		s := model.Assemble(data, capture.FormatAuto, model.Options{})
		for _, it := range s.Calls() {
			f.Add(it.FinalArgs(), []byte{4, 7, 1})
		}
	})
	f.Fuzz(func(t *testing.T, args string, cuts []byte) {
		if !utf8.ValidString(args) {
			t.Skip("JSON strings cannot carry invalid UTF-8: encoding/json replaces it")
		}
		frags := fragments(args, cuts)
		if got := strings.Join(frags, ""); got != args {
			t.Fatalf("fragments(%q) = %q; joined %q", args, frags, got)
		}
		for _, d := range dialectWrappers {
			stream := []byte(d.wrap(t, args, frags))
			s := dialecttest.AssembleWithin(t, stream, model.Options{KeepEvents: true, Raw: bytes.NewReader(stream)})
			dialecttest.CheckTiling(t, s, stream)
			calls := s.Calls()
			if len(calls) != 1 {
				t.Fatalf("%s: %d calls from %q; want 1", d.name, len(calls), stream)
			}
			it := calls[0]
			if got := it.FinalArgs(); got != args {
				t.Fatalf("%s: FinalArgs() = %q; want %q (fragments %q)", d.name, got, args, frags)
			}
			if got := it.Args.String(); got != args {
				t.Fatalf("%s: assembled deltas = %q; want %q (fragments %q)", d.name, got, args, frags)
			}
			if src, differ := it.SourcesDisagree(); differ {
				t.Fatalf("%s: sources disagree: %q", d.name, src)
			}
			if st := s.CallStatus(it); st != "completed" {
				t.Fatalf("%s: call status = %q; want completed", d.name, st)
			}
		}
	})
}
