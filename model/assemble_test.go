package model_test

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

func assemble(t *testing.T, in string) *model.Session {
	t.Helper()
	return model.Assemble([]byte(in), capture.FormatAuto, model.Options{KeepEvents: true})
}

func onlyCall(t *testing.T, s *model.Session) *model.Item {
	t.Helper()
	calls := s.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d calls; want 1: %s", len(calls), mustJSON(s.Report()))
	}
	return calls[0]
}

func TestWholeResponses(t *testing.T) {
	tests := []struct {
		name, in, dialect, id, callName, args, text string
	}{
		{
			name: "chat.completion",
			in: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Checking.",` +
				`"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`,
			dialect: "openai-chat", id: "call_1", callName: "get_weather", args: `{"city":"Paris"}`, text: "Checking.",
		},
		{
			name: "responses response object, pretty-printed",
			in: "{\n  \"id\": \"resp_1\",\n  \"object\": \"response\",\n  \"status\": \"completed\",\n  \"output\": [\n" +
				`    {"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"On it."}]},` + "\n" +
				`    {"type":"function_call","id":"fc_1","call_id":"call_9","name":"lookup","arguments":"{\"q\":1}","status":"completed"}` + "\n  ]\n}\n",
			dialect: "openai-responses", id: "call_9", callName: "lookup", args: `{"q":1}`, text: "On it.",
		},
		{
			name: "anthropic message",
			in: `{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"Sure."},` +
				`{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city": "Paris", "days": [1, 2]}}],"stop_reason":"tool_use"}`,
			dialect: "anthropic", id: "toolu_1", callName: "get_weather", args: `{"city":"Paris","days":[1,2]}`, text: "Sure.",
		},
		{
			name: "gemini array of chunks (streamGenerateContent without alt=sse)",
			in: "[{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hi \"}]}}]},\n" +
				"{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"b\":1,\"a\":2}}}]},\"finishReason\":\"STOP\"}]}]",
			dialect: "gemini", callName: "f", args: `{"b":1,"a":2}`, text: "Hi ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := assemble(t, tt.in)
			rep := s.Report()
			if rep.Dialect != tt.dialect {
				t.Fatalf("dialect = %s; want %s", rep.Dialect, tt.dialect)
			}
			if s.Events.Len() != 1 {
				t.Fatalf("%d events; want the whole body as one", s.Events.Len())
			}
			c := rep.Calls
			if len(c) != 1 || deref(c[0].ID) != deref(strPtr(tt.id)) || c[0].Name != tt.callName || c[0].Arguments != tt.args {
				t.Fatalf("calls = %s", mustJSON(c))
			}
			if rep.Text != tt.text {
				t.Fatalf("text = %q; want %q", rep.Text, tt.text)
			}
			if rep.Outcome.State != "completed" {
				t.Fatalf("outcome = %+v", rep.Outcome)
			}
		})
	}
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

const responsesTwoCalls = `event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"function_call","id":"fc_a","call_id":"call_a","name":"a","arguments":"","status":"in_progress"}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":2,"output_index":1,"item":{"type":"function_call","id":"fc_b","call_id":"call_b","name":"b","arguments":"","status":"in_progress"}}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":3,"item_id":"fc_b","output_index":1,"delta":"{\"y\""}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":4,"output_index":0,"delta":"{\"x\""}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":5,"item_id":"fc_a","output_index":0,"delta":":1}"}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":6,"item_id":"fc_b","output_index":1,"delta":":2}"}

`

func TestResponsesAsOfAndFallbacks(t *testing.T) {
	s := assemble(t, responsesTwoCalls)
	calls := s.Calls()
	if len(calls) != 2 || calls[0].Name != "a" || calls[1].Name != "b" {
		t.Fatalf("calls = %s", mustJSON(s.Report().Calls))
	}
	a, b := calls[0], calls[1]
	// Event 4 has no item_id: matched by output_index.
	if s.Events.At(4).Item != int32(a.Index) || s.Events.At(4).Flags&model.Matched == 0 {
		t.Fatalf("event 4 went to item %d (flags %b); want %d by output_index", s.Events.At(4).Item, s.Events.At(4).Flags, a.Index)
	}
	asOf := []struct {
		ord  int
		a, b string
	}{{2, "", ""}, {3, "", `{"y"`}, {4, `{"x"`, `{"y"`}, {5, `{"x":1}`, `{"y"`}, {6, `{"x":1}`, `{"y":2}`}}
	for _, w := range asOf {
		if got := string(a.ArgsAsOf(w.ord)); got != w.a {
			t.Errorf("a as of %d = %q; want %q", w.ord, got, w.a)
		}
		if got := string(b.ArgsAsOf(w.ord)); got != w.b {
			t.Errorf("b as of %d = %q; want %q", w.ord, got, w.b)
		}
	}
	if st := model.ArgsState(a.ArgsAsOf(4), false); !st.Incomplete {
		t.Errorf("state of %q = %v; want incomplete", a.ArgsAsOf(4), st)
	}
	if start, end, ok := a.Args.FragmentAt(5); !ok || string(a.Args.Bytes()[start:end]) != ":1}" {
		t.Errorf("FragmentAt(5) = %d,%d,%v", start, end, ok)
	}
	if items := s.ItemsAsOf(1); len(items) != 1 {
		t.Errorf("ItemsAsOf(1) has %d items; want 1", len(items))
	}
	// The stream ended without response.completed.
	if o := s.Outcome(); o.State != "truncated" {
		t.Errorf("outcome = %+v; want truncated", o)
	}
	if got := s.CallStatus(a); got != "incomplete" {
		t.Errorf("status = %q; want incomplete", got)
	}
}

func TestResponsesSingleOpenCallFallback(t *testing.T) {
	in := strings.Join([]string{
		`data: {"type":"response.created","response":{"id":"r","status":"in_progress"}}`,
		`data: {"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":""}}`,
		`data: {"type":"response.function_call_arguments.delta","delta":"{}"}`,
		`data: {"type":"response.function_call_arguments.done","arguments":"{}"}`,
		`data: {"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}","status":"completed"}}`,
		`data: {"type":"response.completed","response":{"id":"r","status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}"}]}}`,
	}, "\n\n") + "\n\n"
	s := assemble(t, in)
	c := onlyCall(t, s)
	if c.Args.String() != "{}" || c.Deltas != 1 || s.Events.At(2).Flags&model.Matched == 0 {
		t.Fatalf("args %q deltas %d flags %b", c.Args.String(), c.Deltas, s.Events.At(2).Flags)
	}
	if _, differ := c.SourcesDisagree(); differ {
		t.Fatal("sources disagree on a consistent stream")
	}
	if st := c.Status.AsOf(3); st != "" {
		t.Fatalf("status as of 3 = %q; want none stated yet", st)
	}
	if c.Status.Last() != "completed" || s.Outcome().State != "completed" {
		t.Fatalf("status %q outcome %+v", c.Status.Last(), s.Outcome())
	}
}

func chunk(choices string) string {
	return `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[` + choices + `]}` + "\n\n"
}

func TestChatFallbacks(t *testing.T) {
	t.Run("a new id at an open index starts a new call", func(t *testing.T) {
		s := assemble(t, chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"f","arguments":"{\"a\":1}"}}]}}`)+
			chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_b","function":{"name":"g","arguments":"{\"b\":2}"}}]}}`)+
			chunk(`{"index":0,"delta":{},"finish_reason":"tool_calls"}`)+"data: [DONE]\n\n")
		rep := s.Report()
		if len(rep.Calls) != 2 || rep.Calls[0].Arguments != `{"a":1}` || rep.Calls[1].Name != "g" || rep.Calls[1].Status != "completed" {
			t.Fatalf("calls = %s", mustJSON(rep.Calls))
		}
	})
	t.Run("missing index continues the latest call", func(t *testing.T) {
		s := assemble(t, chunk(`{"index":0,"delta":{"tool_calls":[{"id":"call_a","function":{"name":"f","arguments":"{\"a\""}}]}}`)+
			chunk(`{"index":0,"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}`))
		c := onlyCall(t, s)
		if c.Args.String() != `{"a":1}` || c.CallID != "call_a" {
			t.Fatalf("call = %s %q", c.CallID, c.Args.String())
		}
	})
	t.Run("repeated id and name are not concatenated", func(t *testing.T) {
		s := assemble(t, chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"0","function":{"name":"v","arguments":""}}]}}`)+
			chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"0","function":{"name":"v","arguments":"{}"}}]}}`))
		c := onlyCall(t, s)
		if c.CallID != "0" || c.Name != "v" || c.Args.String() != "{}" || len(c.IDs) != 2 {
			t.Fatalf("call %q %q %q, ids seen %v", c.CallID, c.Name, c.Args.String(), c.IDs)
		}
	})
	t.Run("arguments sent as an object are kept as their JSON text", func(t *testing.T) {
		s := assemble(t, chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"v","arguments":{"a": 1}}}]}}`))
		if c := onlyCall(t, s); c.Args.String() != `{"a":1}` {
			t.Fatalf("args = %q", c.Args.String())
		}
	})
	t.Run("choices keep their own text", func(t *testing.T) {
		s := assemble(t, chunk(`{"index":1,"delta":{"content":"B"}}`)+chunk(`{"index":0,"delta":{"content":"A"}}`))
		if got := s.Texts(); len(got) != 2 || got[0] != "A" || got[1] != "B" {
			t.Fatalf("texts = %q", got)
		}
	})
}

func TestAnthropicDeltaForUnknownBlock(t *testing.T) {
	in := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[]}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n"
	s := assemble(t, in)
	c := onlyCall(t, s)
	if c.Args.String() != "{}" || s.Events.At(2).Flags&model.Matched == 0 {
		t.Fatalf("args %q flags %b: want the delta matched to the open block", c.Args.String(), s.Events.At(2).Flags)
	}
}

func TestHTTPErrorBody(t *testing.T) {
	in := "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n\r\n" +
		`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`
	s := assemble(t, in)
	if s.Events.Len() != 2 || s.Events.At(0).Kind != model.KindError || s.Events.At(1).Kind != model.KindError {
		t.Fatalf("events = %+v", s.Events)
	}
	o := s.Outcome()
	if o.State != "error" || !strings.Contains(o.Detail, "Rate limit reached") {
		t.Fatalf("outcome = %+v", o)
	}
}

// TestTypeFromEventName: a gateway that drops data.type but keeps the
// event: line still assembles.
func TestTypeFromEventName(t *testing.T) {
	in := "event: response.output_item.added\ndata: {\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc\",\"call_id\":\"c\",\"name\":\"f\",\"arguments\":\"\"}}\n\n" +
		"event: response.function_call_arguments.delta\ndata: {\"item_id\":\"fc\",\"output_index\":0,\"delta\":\"{}\"}\n\n"
	s := assemble(t, in)
	if c := onlyCall(t, s); c.Args.String() != "{}" || c.CallID != "c" {
		t.Fatalf("call %q %q", c.CallID, c.Args.String())
	}
}
