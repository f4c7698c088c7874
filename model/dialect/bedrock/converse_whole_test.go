package bedrock_test

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// converseDocBody is a Converse response in the shape of AWS's Converse
// API reference (Response Syntax: output.message.content[], stopReason,
// usage, metrics), spread over lines as a client's log or a curl -o file
// keeps it.
const converseDocBody = `{
  "output": {
    "message": {
      "role": "assistant",
      "content": [
        {"text": "I'll look up the weather in Paris."},
        {"toolUse": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "name": "get_weather", "input": {"city": "Paris", "unit": "celsius"}}}
      ]
    }
  },
  "stopReason": "tool_use",
  "usage": {"inputTokens": 392, "outputTokens": 71, "totalTokens": 463},
  "metrics": {"latencyMs": 1502}
}
`

// TestConverseWholeBody: a whole, non-streaming Converse response is one
// bedrock-converse event whose blocks are the response's calls and text,
// and whose stopReason gives the outcome in the stream's words. Before, it
// was an unknown event and the stream "truncated (no response
// recognised)".
func TestConverseWholeBody(t *testing.T) {
	cases := []struct {
		name, body     string
		calls          []modeltest.WantCall
		kinds          []string
		text           string
		state, detail  string
		items, reasons int // items made; reasoning items among them
	}{
		{name: "aws reference, spread over lines", body: converseDocBody,
			calls: []modeltest.WantCall{{ID: modeltest.Ptr("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"), Name: "get_weather", Arguments: `{"city":"Paris","unit":"celsius"}`}},
			kinds: []string{"tool_use"}, text: "I'll look up the weather in Paris.",
			state: model.OutcomeCompleted, detail: "tool_use", items: 2},
		{name: "one line, as a proxy or cassette keeps it (two calls, usage with serverToolUsage)",
			body: `{"metrics":{"latencyMs":545},"output":{"message":{"content":[{"text":"<thinking>Two cities.</thinking>\n"},` +
				`{"toolUse":{"input":{"city":"London","date":"2022-01-01"},"name":"temperature","toolUseId":"tooluse_a"}},` +
				`{"toolUse":{"input":{},"name":"now","toolUseId":"tooluse_b"}}],"role":"assistant"}},` +
				`"stopReason":"tool_use","usage":{"inputTokens":551,"outputTokens":136,"serverToolUsage":{},"totalTokens":687}}` + "\n",
			calls: []modeltest.WantCall{
				{ID: modeltest.Ptr("tooluse_a"), Name: "temperature", Arguments: `{"city":"London","date":"2022-01-01"}`},
				{ID: modeltest.Ptr("tooluse_b"), Name: "now", Arguments: `{}`}},
			kinds: []string{"tool_use", "tool_use"}, text: "<thinking>Two cities.</thinking>\n",
			state: model.OutcomeCompleted, detail: "tool_use", items: 3},
		{name: "max_tokens is incomplete",
			body:  `{"metrics":{"latencyMs":215},"output":{"message":{"content":[{"text":"The capital of France is"}],"role":"assistant"}},"stopReason":"max_tokens","usage":{"inputTokens":13,"outputTokens":5,"totalTokens":18}}`,
			text:  "The capital of France is",
			state: model.OutcomeIncomplete, detail: "max_tokens", items: 1},
		{name: "guardrail_intervened with no content is blocked",
			body:  `{"output":{"message":{"role":"assistant","content":[]}},"stopReason":"guardrail_intervened","usage":{"inputTokens":7,"outputTokens":0,"totalTokens":7},"trace":{"guardrail":{"actionReason":"Guardrail blocked."}}}`,
			state: model.OutcomeBlocked, detail: "guardrail_intervened"},
		{name: "guardrail_intervened with the canned message, no role",
			body:  `{"output":{"message":{"content":[{"text":"Sorry, the model cannot answer this question."}]}},"stopReason":"guardrail_intervened"}`,
			text:  "Sorry, the model cannot answer this question.",
			state: model.OutcomeBlocked, detail: "guardrail_intervened", items: 1},
		{name: "content_filtered is blocked",
			body:  `{"output":{"message":{"role":"assistant","content":[{"text":""}]}},"stopReason":"content_filtered","usage":{"inputTokens":3,"outputTokens":0,"totalTokens":3}}`,
			state: model.OutcomeBlocked, detail: "content_filtered", items: 1},
		{name: "reasoning with its signature, redacted reasoning, then the answer",
			body: `{"output":{"message":{"role":"assistant","content":[` +
				`{"reasoningContent":{"reasoningText":{"text":"The user greets me.","signature":"EqoBCkgIARABGAIiQ"}}},` +
				`{"reasoningContent":{"redactedContent":"RXFvQkNrZ0lBUkFC"}},{"text":"Hello!"}]}},` +
				`"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":9,"totalTokens":12},"metrics":{"latencyMs":900}}`,
			text: "Hello!", state: model.OutcomeCompleted, detail: "end_turn", items: 3, reasons: 2},
		{name: "a server tool's call and result (Nova code interpreter), then a client call",
			body: `{"output":{"message":{"role":"assistant","content":[` +
				`{"toolUse":{"toolUseId":"tooluse_s","name":"nova_code_interpreter","type":"server_tool_use","input":{"snippet":"1234 * 5678"}}},` +
				`{"toolResult":{"toolUseId":"tooluse_s","content":[{"json":{"stdOut":"7006652"}}],"status":"success","type":"nova_code_interpreter_result"}},` +
				`{"toolUse":{"toolUseId":"tooluse_c","name":"final_result","type":"tool_use","input":{"result":7006652.0}}}]}},` +
				`"stopReason":"tool_use","usage":{"inputTokens":10,"outputTokens":20,"totalTokens":30}}`,
			calls: []modeltest.WantCall{
				{ID: modeltest.Ptr("tooluse_s"), Name: "nova_code_interpreter", Arguments: `{"snippet":"1234 * 5678"}`},
				{ID: modeltest.Ptr("tooluse_c"), Name: "final_result", Arguments: `{"result":7006652.0}`}},
			kinds: []string{"server_tool_use", "tool_use"},
			state: model.OutcomeCompleted, detail: "tool_use", items: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := model.Assemble([]byte(tc.body), capture.FormatAuto, model.Options{KeepEvents: true})
			rep := s.Report()
			dialecttest.SameReportJSON(t, s, rep)
			if rep.Dialect != "bedrock-converse" || rep.Dialects != nil {
				t.Fatalf("dialect = %s %v; want only bedrock-converse", rep.Dialect, rep.Dialects)
			}
			if s.Len() != 1 {
				t.Fatalf("%d events; want the body as one", s.Len())
			}
			ev := s.Events.At(0)
			if got := s.TypeName(ev.Type); got != "(converse response)" || ev.Kind != model.KindTerminal {
				t.Errorf("event = %s %v; want %s terminal", got, ev.Kind, "(converse response)")
			}
			if len(rep.Calls) != len(tc.calls) {
				t.Fatalf("%d calls %+v; want %d", len(rep.Calls), rep.Calls, len(tc.calls))
			}
			for i, w := range tc.calls {
				g := rep.Calls[i]
				if g.Name != w.Name || g.Arguments != w.Arguments || modeltest.Deref(g.ID) != modeltest.Deref(w.ID) || g.Kind != tc.kinds[i] ||
					g.Status != "completed" || g.ArgumentsJSON != "complete" {
					t.Errorf("call %d = %v %s %s %s %s %s; want %v %s %s %s completed complete", i,
						modeltest.Deref(g.ID), g.Name, g.Arguments, g.Kind, g.Status, g.ArgumentsJSON, modeltest.Deref(w.ID), w.Name, w.Arguments, tc.kinds[i])
				}
			}
			if rep.Text != tc.text {
				t.Errorf("text = %q; want %q", rep.Text, tc.text)
			}
			if o := s.Outcome(); o.State != tc.state || o.Detail != tc.detail || o.Ordinal != 0 {
				t.Errorf("outcome = %+v; want %s (%s) at event 0", o, tc.state, tc.detail)
			}
			reasons := 0
			for _, it := range s.Items {
				if it.Closed != 0 || it.Dialect != dialecttest.Dialect(t, "bedrock-converse") {
					t.Errorf("item %d (%s) closed at %d, dialect %s; want closed by event 0, bedrock-converse", it.Index, it.Type, it.Closed, it.Dialect)
				}
				if it.Role == model.RoleReasoning {
					reasons++
				}
			}
			if len(s.Items) != tc.items || reasons != tc.reasons {
				t.Errorf("%d items, %d reasoning; want %d, %d", len(s.Items), reasons, tc.items, tc.reasons)
			}
			sh := s.Shape(ev, 0, []byte(tc.body))
			if sh.Dialect != dialecttest.Dialect(t, "bedrock-converse") || sh.Type != "(converse response)" {
				t.Errorf("shape = %+v; want the whole response's", sh)
			}
			if !dialecttest.Explained(sh) {
				t.Errorf("shape %+v has no explanation", sh)
			}
		})
	}
}

// TestConverseWholeBodyNearMisses: what only looks like a Converse body
// stays what it was: a Responses body (output, but no stopReason), a
// body whose output holds no message, a stopReason beside a type (another
// dialect's event), and a ConverseStream messageStop payload sent as a
// JSON line (a top-level stopReason, no output).
func TestConverseWholeBodyNearMisses(t *testing.T) {
	cases := []struct{ name, body, dialect string }{
		{"responses body", `{"id":"resp_1","object":"response","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"hi"}]}]}`, "openai-responses"},
		{"output without message", `{"output":{"text":"hi"},"stopReason":"end_turn"}`, "unknown"},
		{"output message not an object", `{"output":{"message":"hi"},"stopReason":"end_turn"}`, "unknown"},
		{"typed", `{"type":"x","output":{"message":{"content":[]}},"stopReason":"end_turn"}`, "unknown"},
		{"stopReason not a string", `{"output":{"message":{"content":[]}},"stopReason":7}`, "unknown"},
		{"messageStop payload as a line", `{"stopReason":"end_turn","p":"abc"}`, "unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := model.Assemble([]byte(tc.body+"\n"), capture.FormatAuto, model.Options{KeepEvents: true})
			if rep := s.Report(); rep.Dialect != tc.dialect {
				t.Errorf("dialect = %s; want %s", rep.Dialect, tc.dialect)
			}
		})
	}
}

// TestConverseWholeBodyInHTTP: the body after a curl -i head, as the
// proxy or a HAR entry hands it, reads the same.
func TestConverseWholeBodyInHTTP(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-amzn-RequestId: 5d1b\r\n\r\n"
	s := model.Assemble([]byte(head+converseDocBody), capture.FormatAuto, model.Options{KeepEvents: true})
	rep := s.Report()
	if rep.Dialect != "bedrock-converse" || len(rep.Calls) != 1 || rep.Calls[0].Name != "get_weather" ||
		!strings.Contains(rep.Text.(string), "weather in Paris") || rep.Outcome.State != model.OutcomeCompleted {
		t.Errorf("report = %+v", rep)
	}
}
