package model_test

import (
	"reflect"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/samples"
)

// TestReportReasoning: calls --json gives the reasoning of every dialect
// that streams it in a field of its own, marked as reasoning and kept out
// of text; one string per choice when several choices reason; "" for
// reasoning without text (encrypted); absent when there is none. Before,
// the headless outputs had no reasoning at all (the TUI alone showed it).
func TestReportReasoning(t *testing.T) {
	sample := func(name string) []byte {
		data, err := samples.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	cases := []struct {
		name      string
		stream    []byte
		reasoning any
		text      any
	}{
		{"responses summary", sample("responses-reasoning-then-call"),
			"**Finding flights from SFO to Tokyo**\n\nThe user wants a one-way economy flight on October 14. Narita (NRT) is the usual choice, so I'll search SFO to NRT for that date.", ""},
		{"anthropic thinking", sample("anthropic-thinking-then-tool"),
			"The user wants 250 euros in Japanese yen. I shouldn't guess the rate; the convert_currency tool gives a live one. Amount 250, from EUR, to JPY.", ""},
		{"responses encrypted, no summary", []byte("event: response.output_item.added\ndata: " +
			`{"type":"response.output_item.added","sequence_number":0,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"gAAAA"}}` + "\n\n" +
			"event: response.output_item.done\ndata: " +
			`{"type":"response.output_item.done","sequence_number":1,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"gAAAA"}}` + "\n\n"),
			"", ""},
		{"gemini thoughts per candidate", []byte("data: " +
			`{"candidates":[{"index":0,"content":{"parts":[{"text":"Hm.","thought":true},{"text":"A"}]}},{"index":1,"content":{"parts":[{"text":"Ok.","thought":true},{"text":"B"}]},"finishReason":"STOP"}]}` + "\n\n"),
			[]string{"Hm.", "Ok."}, []string{"A", "B"}},
		{"ollama thinking", []byte(`{"model":"m","message":{"role":"assistant","content":"Hi","thinking":"Greet."},"done":false}` + "\n" +
			`{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n"),
			"Greet.", "Hi"},
		{"bedrock converse reasoning, redacted reasoning beside it", []byte(`{"output":{"message":{"role":"assistant","content":[` +
			`{"reasoningContent":{"reasoningText":{"text":"The user greets me.","signature":"EqoB"}}},{"reasoningContent":{"redactedContent":"RXFv"}},{"text":"Hello!"}]}},"stopReason":"end_turn"}`),
			"The user greets me.", "Hello!"},
		{"no reasoning", sample("chat-single-call"), nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := model.Assemble(tc.stream, capture.FormatAuto, model.Options{})
			rep := s.Report()
			if !reflect.DeepEqual(rep.Reasoning, tc.reasoning) || !reflect.DeepEqual(rep.Text, tc.text) {
				t.Errorf("reasoning = %#v, text = %#v; want %#v, %#v", rep.Reasoning, rep.Text, tc.reasoning, tc.text)
			}
			matchesEncoder(t, rep)
			dialecttest.SameReportJSON(t, s, rep)
		})
	}
}
