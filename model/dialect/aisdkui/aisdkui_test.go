package aisdkui_test

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/dialect/aisdkui"
)

// sse frames chunks as the SDK does: one data: line each.
func sse(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	return b.String()
}

func assemble(in string) *model.Session {
	s := model.Assemble([]byte(in), capture.FormatAuto, model.Options{KeepEvents: true})
	return s
}

// dialects lists the dialect of each event.
func dialects(s *model.Session) []string {
	var out []string
	for i := range s.Events.All() {
		out = append(out, s.Events.At(i).Dialect.String())
	}
	return out
}

// TestClaims: without a head, the chunk types of two words are the
// stream's by type, the one-word ones and data parts by their members; a
// chunk with members its schema does not allow, or one after another
// dialect's events, stays unclaimed; with the head, every chunk is the
// stream's.
func TestClaims(t *testing.T) {
	const ui = "aisdk-ui"
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"one-word chunks by shape", sse(`{"type":"data-x","id":"1","data":{}}`, `{"type":"start","messageId":"m"}`, `{"type":"error","errorText":"x"}`, `{"type":"abort"}`, `{"type":"finish"}`),
			[]string{ui, ui, ui, ui, ui}},
		{"a start with other members", sse(`{"type":"start","index":0}`), []string{"unknown"}},
		{"an unknown family member", sse(`{"type":"tool-wiggle"}`), []string{ui}},
		{"after another dialect", sse(`{"type":"message_start","message":{"id":"msg_1","content":[]}}`, `{"type":"finish"}`), []string{"anthropic", "unknown"}},
		{"the head claims all", "HTTP/1.1 200 OK\r\nX-Vercel-AI-UI-Message-Stream: v1\r\n\r\n" + sse(`{"type":"start","index":0}`, `{"type":"message_start"}`),
			[]string{"unknown", ui, ui}},
		{"another version of the head", "HTTP/1.1 200 OK\r\nx-vercel-ai-ui-message-stream: v2\r\n\r\n" + sse(`{"type":"start","index":0}`),
			[]string{"unknown", "unknown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dialects(assemble(tt.in)); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("dialects %v; want %v", got, tt.want)
			}
		})
	}
}

// TestFinishOutcome maps every finish reason, and an abort, onto the
// outcome vocabulary.
func TestFinishOutcome(t *testing.T) {
	for reason, want := range map[string]string{
		"stop": model.OutcomeCompleted, "tool-calls": model.OutcomeCompleted, "other": model.OutcomeCompleted,
		"length": model.OutcomeIncomplete, "content-filter": model.OutcomeBlocked,
		"interrupted": model.OutcomeTruncated, "error": model.OutcomeError,
	} {
		s := assemble(sse(`{"type":"start"}`, `{"type":"finish","finishReason":"`+reason+`"}`, `[DONE]`))
		if o := s.Outcome(); o.State != want || o.Detail != reason {
			t.Errorf("finishReason %s: outcome %s (%s); want %s (%s)", reason, o.State, o.Detail, want, reason)
		}
	}
	s := assemble(sse(`{"type":"start"}`, `{"type":"text-start","id":"0"}`, `{"type":"abort","reason":"user stopped"}`, `[DONE]`))
	if o := s.Outcome(); o.State != model.OutcomeTruncated || o.Detail != "aborted: user stopped" {
		t.Errorf("abort: outcome %s (%s); want truncated (aborted: user stopped)", o.State, o.Detail)
	}
	s = assemble(sse(`{"type":"start"}`, `{"type":"error","errorText":"quota"}`, `[DONE]`))
	if o := s.Outcome(); o.State != model.OutcomeError || o.Detail != "quota" {
		t.Errorf("error chunk: outcome %s (%s); want error (quota)", o.State, o.Detail)
	}
}

// TestAssembly walks the parts and calls of one message: text ids that
// repeat in the next step are new parts; a delta with no part keeps its
// text in an orphan; a data part with an earlier one's id replaces it;
// a call given whole by its input; an input error then an output (a
// provider-executed tool the route does not know); an approval
// answered no; text input (inputEncoding text); the steps, one left open.
func TestAssembly(t *testing.T) {
	s := assemble(sse(
		`{"type":"data-status","id":"s1","data":{"n":1}}`, // 0
		`{"type":"start","messageId":"msg_1"}`,            // 1
		`{"type":"start-step"}`,                           // 2
		`{"type":"text-start","id":"0"}`,                  // 3
		`{"type":"text-delta","id":"0","delta":"A"}`,      // 4
		`{"type":"text-end","id":"0"}`,                    // 5
		`{"type":"tool-input-available","toolCallId":"m1","toolName":"ask","input":{"q":1},"providerExecuted":true,"dynamic":true}`, // 6
		`{"type":"tool-input-start","toolCallId":"p1","toolName":"search","providerExecuted":true}`,                                 // 7
		`{"type":"tool-input-error","toolCallId":"p1","toolName":"search","input":{"q":"x"},"errorText":"unknown tool"}`,            // 8
		`{"type":"tool-output-available","toolCallId":"p1","output":[1],"providerExecuted":true}`,                                   // 9
		`{"type":"tool-input-start","toolCallId":"a1","toolName":"delete"}`,                                                         // 10
		`{"type":"tool-input-available","toolCallId":"a1","toolName":"delete","input":{}}`,                                          // 11
		`{"type":"tool-approval-request","approvalId":"ap1","toolCallId":"a1"}`,                                                     // 12
		`{"type":"tool-approval-response","approvalId":"ap1","approved":false}`,                                                     // 13
		`{"type":"start-step"}`,                                                                 // 14: the first step left open
		`{"type":"text-start","id":"0"}`,                                                        // 15
		`{"type":"text-delta","id":"0","delta":"B"}`,                                            // 16
		`{"type":"text-delta","id":"9","delta":"C"}`,                                            // 17: no such part
		`{"type":"tool-input-start","toolCallId":"t1","toolName":"sql"}`,                        // 18
		`{"type":"tool-input-delta","toolCallId":"t1","inputTextDelta":"select 1"}`,             // 19
		`{"type":"tool-input-available","toolCallId":"t1","toolName":"sql","input":"select 1"}`, // 20
		`{"type":"data-status","id":"s1","data":{"n":2}}`,                                       // 21
		`{"type":"finish-step"}`,                                                                // 22
		`{"type":"finish","finishReason":"stop"}`,                                               // 23
		`[DONE]`,
	))
	if got := s.Texts(); len(got) != 1 || got[0] != "ABC" {
		t.Errorf("text %q; want the parts ABC", got)
	}
	var texts, data int
	for _, it := range s.Items {
		switch {
		case it.Role == model.RoleMessage:
			texts++
		case it.Type == "data-status":
			data++
			if it.Text.String() != `{"n":2}` {
				t.Errorf("data part %s; want the replacement", it.Text.String())
			}
		}
	}
	if texts != 3 || data != 1 {
		t.Errorf("%d text parts, %d data parts; want 3 (ids repeat across steps, an orphan) and 1", texts, data)
	}
	if ev := s.Events.At(17); ev.Flags&model.Orphan == 0 {
		t.Error("the delta of no part is not flagged an orphan")
	}
	calls := map[string]*model.Item{}
	for _, it := range s.Calls() {
		calls[it.CallID] = it
	}
	if m := calls["m1"]; m == nil || m.FinalArgs() != `{"q":1}` || m.Type != "dynamic-tool" || !m.Run().ProviderExecuted || s.StepOf(m) != 1 {
		t.Errorf("the call given whole: %+v", m)
	}
	if p := calls["p1"]; p == nil || p.StatusLast() != model.ToolOutputAvailable || p.Run().Error != "" || string(p.Run().Output) != "[1]" {
		t.Errorf("the call whose output follows an input error: status %s, run %+v", p.StatusLast(), p.Run())
	}
	if a := calls["a1"]; a == nil || a.StatusLast() != model.ToolOutputDenied || a.Run().ApprovalID != "ap1" {
		t.Errorf("the refused call: status %s, run %+v", a.StatusLast(), a.Run())
	}
	if c := calls["t1"]; c == nil || c.FinalArgs() != "select 1" || s.StepOf(c) != 2 {
		t.Errorf("the text-input call: %+v", c)
	}
	steps := s.Steps(s.Responses[0])
	if len(s.Responses) != 1 || len(steps) != 2 || steps[0].End != 13 || steps[1] != (model.Step{Response: 0, Start: 14, End: 22}) {
		t.Errorf("%d responses, steps %v; want one message of two steps, the first ending before the second", len(s.Responses), steps)
	}
	if s.Responses[0].ID != "msg_1" {
		t.Errorf("message id %q", s.Responses[0].ID)
	}
}

// TestMessages: a start after a finish begins the next message; data
// parts after a finish stay with the message they follow.
func TestMessages(t *testing.T) {
	s := assemble(sse(`{"type":"start"}`, `{"type":"finish"}`, `{"type":"data-x","data":1}`,
		`{"type":"start"}`, `{"type":"text-start","id":"0"}`, `{"type":"finish"}`))
	if len(s.Responses) != 2 || s.Items[0].Response != 0 || s.Items[1].Response != 1 {
		t.Fatalf("%d messages; the data part in %d, the text in %d; want 2, 0, 1", len(s.Responses), s.Items[0].Response, s.Items[1].Response)
	}
	if !aisdkui.KnownType("data-x") || aisdkui.KnownType("data-") || aisdkui.KnownType("tool-wiggle") {
		t.Error("KnownType")
	}
}
