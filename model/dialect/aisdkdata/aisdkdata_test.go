package aisdkdata_test

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/dialect/aisdkdata"
)

func assemble(in string) *model.Session {
	return model.Assemble([]byte(in), capture.FormatAuto, model.Options{KeepEvents: true})
}

// TestParts: each line is typed by its part's name, its code its event
// name; a code the stream does not know is non-standard, a line without
// ':' that parses as JSON is "(no separator)", one that does not is
// invalid JSON; every line but the invalid one is the stream's.
func TestParts(t *testing.T) {
	s := assemble("f:{\"messageId\":\"m1\"}\n0:\"Hi\"\n2:[1]\nz:1\n42\nnot json\nd:{\"finishReason\":\"stop\"}\n")
	want := []struct{ typ, dialect string }{
		{aisdkdata.PartStartStep, "aisdk-data"}, {aisdkdata.PartText, "aisdk-data"}, {aisdkdata.PartData, "aisdk-data"},
		{"z", "aisdk-data"}, {aisdkdata.TypeNoSeparator, "aisdk-data"}, {model.TypeInvalid, "unknown"},
		{aisdkdata.PartFinishMessage, "aisdk-data"},
	}
	if s.Len() != len(want) {
		t.Fatalf("%d events; want %d", s.Len(), len(want))
	}
	for i, w := range want {
		ev := s.Events.At(i)
		if got := s.TypeName(ev.Type); got != w.typ || ev.Dialect.String() != w.dialect {
			t.Errorf("event %d: %s of %s; want %s of %s", i, got, ev.Dialect, w.typ, w.dialect)
		}
	}
	if ev := s.Events.At(3); ev.Flags&model.NonStandard == 0 {
		t.Error("the unknown code is not non-standard")
	}
	for code, name := range map[string]string{"0": "text", "9": "tool_call", "a": "tool_result", "d": "finish_message", "k": "file"} {
		if got := aisdkdata.Code(name); got != code {
			t.Errorf("Code(%s) = %q; want %q", name, got, code)
		}
	}
}

// TestOutcomes: d:'s reasons onto the vocabulary (unknown: the provider
// gave none, its stream cut), a 3: error deciding even before a d:, no d:
// truncated, and the head alone naming a body whose lines start oddly.
func TestOutcomes(t *testing.T) {
	for _, tt := range []struct{ in, state, detail string }{
		{"f:{\"messageId\":\"m\"}\nd:{\"finishReason\":\"stop\"}\n", model.OutcomeCompleted, "stop"},
		{"f:{\"messageId\":\"m\"}\nd:{\"finishReason\":\"length\"}\n", model.OutcomeIncomplete, "length"},
		{"f:{\"messageId\":\"m\"}\nd:{\"finishReason\":\"content-filter\"}\n", model.OutcomeBlocked, "content-filter"},
		{"f:{\"messageId\":\"m\"}\nd:{\"finishReason\":\"unknown\"}\n", model.OutcomeTruncated, "unknown"},
		{"f:{\"messageId\":\"m\"}\n3:\"boom\"\ne:{\"finishReason\":\"stop\"}\nd:{\"finishReason\":\"stop\"}\n", model.OutcomeError, "boom"},
		{"f:{\"messageId\":\"m\"}\n0:\"Hi\"\n", model.OutcomeTruncated, "the stream ended without its terminal event"},
		{"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nX-Vercel-AI-Data-Stream: v1\r\n\r\n42\nd:{\"finishReason\":\"stop\"}\n", model.OutcomeCompleted, "stop"},
	} {
		if o := assemble(tt.in).Outcome(); o.State != tt.state || o.Detail != tt.detail {
			t.Errorf("%q: outcome %s (%s); want %s (%s)", tt.in, o.State, o.Detail, tt.state, tt.detail)
		}
	}
}

// TestCalls: a streamed call's arguments are its deltas, a call sent only
// whole (toolCallStreaming off) its args as written; a result is the
// call's output; the steps and the message's id; an f: after d: begins
// the next message.
func TestCalls(t *testing.T) {
	s := assemble(strings.Join([]string{
		`f:{"messageId":"msg-1"}`,
		`b:{"toolCallId":"c1","toolName":"get_weather"}`,
		`c:{"toolCallId":"c1","argsTextDelta":"{\"city\": "}`,
		`c:{"toolCallId":"c1","argsTextDelta":"\"Oslo\"}"}`,
		`9:{"toolCallId":"c1","toolName":"get_weather","args":{"city":"Oslo"}}`,
		`a:{"toolCallId":"c1","result":{"c":3}}`,
		`9:{"toolCallId":"c2","toolName":"get_time","args":{"tz":"UTC"}}`,
		`e:{"finishReason":"tool-calls","isContinued":false}`,
		`f:{"messageId":"msg-2"}`,
		`g:"thinking"`,
		`j:{"signature":"sig"}`,
		`0:"Done."`,
		`e:{"finishReason":"stop","isContinued":false}`,
		`d:{"finishReason":"stop"}`,
		`f:{"messageId":"msg-3"}`,
		`d:{"finishReason":"stop"}`,
	}, "\n") + "\n")
	calls := s.Calls()
	if len(calls) != 2 || calls[0].FinalArgs() != `{"city": "Oslo"}` || calls[1].FinalArgs() != `{"tz":"UTC"}` {
		t.Fatalf("calls %v", calls)
	}
	if r := calls[0].Run(); r == nil || string(r.Output) != `{"c":3}` || calls[0].StatusLast() != model.ToolOutputAvailable {
		t.Errorf("the first call's run %+v, status %s", r, calls[0].StatusLast())
	}
	if calls[1].StatusLast() != model.ToolInputAvailable || calls[1].Run() != nil {
		t.Errorf("the second call: status %s, run %+v; want input-available, not run", calls[1].StatusLast(), calls[1].Run())
	}
	if len(s.Responses) != 2 || s.Responses[0].ID != "msg-1" || len(s.Steps(s.Responses[0])) != 2 || s.StepOf(calls[1]) != 1 {
		t.Errorf("%d messages, id %q, steps %v", len(s.Responses), s.Responses[0].ID, s.Steps(s.Responses[0]))
	}
	var reasoning *model.Item
	for _, it := range s.Items {
		if it.Role == model.RoleReasoning {
			reasoning = it
		}
	}
	if reasoning == nil || reasoning.Text.String() != "thinking" || reasoning.Sign.String() != "sig" {
		t.Errorf("reasoning %+v", reasoning)
	}
	if got := s.Texts(); len(got) != 1 || got[0] != "Done." {
		t.Errorf("text %q", got)
	}
}
