package aisdkui_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model/dialect/aisdkui"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// TestRules runs the rules' trigger and near-miss cases.
func TestRules(t *testing.T) {
	t.Parallel()
	dialecttest.Run(t, uiCases())
}

// TestEveryRuleTested: every rule of the dialect has a case that
// triggers it and a near miss.
func TestEveryRuleTested(t *testing.T) {
	dialecttest.EveryRuleTested(t, aisdkui.Rules.Rules, uiCases())
}

// TestBaseClean: the stream the cases mutate is a correct one, with no
// finding at all.
func TestBaseClean(t *testing.T) {
	rep, _ := dialecttest.Check(dialecttest.Miss("", "base", sse(uiBase()...)))
	if len(rep.Findings) > 0 || rep.Outcome.State != "completed" {
		t.Errorf("base: outcome %v, findings %v; want completed and none", rep.Outcome, rep.Findings)
	}
}

// The UI message stream's rule ids (model/dialect/aisdkui).
const (
	uBeforeStart       = "aisdk-ui/before-start"
	uDeltaWithoutStart = "aisdk-ui/delta-without-start"
	uInputMismatch     = "aisdk-ui/input-mismatch"
	uUnknownCall       = "aisdk-ui/unknown-call"
	uUnknownChunk      = "aisdk-ui/unknown-chunk"
	uMalformedChunk    = "aisdk-ui/malformed-chunk"
	uFinishMissing     = "aisdk-ui/finish-missing"
	uAfterFinish       = "aisdk-ui/after-finish"
	uDoneMissing       = "aisdk-ui/done-missing"
	uAfterDone         = "aisdk-ui/after-done"
	uStepUnbalanced    = "aisdk-ui/step-unbalanced"
	uErrorMasked       = "aisdk-ui/error-masked"
)

// uiBase is a clean UI message stream: start (0), a step (1-10) with a
// text part (2-4) and a call (5-8) with its output (9), finish (11) and
// [DONE] (12).
func uiBase() []string {
	return []string{
		`{"type":"start","messageId":"msg_1"}`,
		`{"type":"start-step"}`,
		`{"type":"text-start","id":"t1"}`,
		`{"type":"text-delta","id":"t1","delta":"Let me check."}`,
		`{"type":"text-end","id":"t1"}`,
		`{"type":"tool-input-start","toolCallId":"call_1","toolName":"get_weather"}`,
		`{"type":"tool-input-delta","toolCallId":"call_1","inputTextDelta":"{\"city\": "}`,
		`{"type":"tool-input-delta","toolCallId":"call_1","inputTextDelta":"\"Paris\"}"}`,
		`{"type":"tool-input-available","toolCallId":"call_1","toolName":"get_weather","input":{"city":"Paris"}}`,
		`{"type":"tool-output-available","toolCallId":"call_1","output":{"celsius":11}}`,
		`{"type":"finish-step"}`,
		`{"type":"finish","finishReason":"tool-calls"}`,
		`[DONE]`,
	}
}

// uiWith returns the base with chunk i replaced (or, with an empty
// replacement, removed), and more chunks inserted before chunk at.
func uiWith(i int, chunk string) []string {
	b := uiBase()
	if chunk == "" {
		return slices.Delete(b, i, i+1)
	}
	b[i] = chunk
	return b
}

// uiInsert returns the base with chunks inserted before chunk at.
func uiInsert(at int, chunks ...string) []string {
	return slices.Insert(uiBase(), at, chunks...)
}

func uiCases() []dialecttest.Case {
	base := sse(uiBase()...)
	b := uiBase()
	// The first delta moved before the call's start.
	early := slices.Clone(b)
	early[5], early[6] = early[6], early[5]
	// A text part resumed mid-way: a delta and an end with no start.
	resumed := sse(append([]string{b[0], b[1], b[3], b[4]}, b[10:]...)...)
	// A call given whole, as Anthropic's mcp_tool_use is: no start, no delta.
	whole := sse(append(append([]string{}, b[:5]...),
		`{"type":"tool-input-available","toolCallId":"mcptoolu_1","toolName":"ask","input":{},"providerExecuted":true,"dynamic":true}`,
		`{"type":"tool-output-available","toolCallId":"mcptoolu_1","output":[{"type":"text","text":"ok"}],"providerExecuted":true}`,
		b[10], b[11], b[12])...)
	errored := sse([]string{b[0], `{"type":"error","errorText":"You exceeded your current quota"}`, `[DONE]`}...)
	return []dialecttest.Case{
		dialecttest.Hit(uBeforeStart, "delta before its call's start", sse(early...), 5, 6),
		dialecttest.Hit(uBeforeStart, "tool-input-available before its start", sse(append(uiInsert(5, b[8]), b[12:]...)...)),
		dialecttest.Hit(uBeforeStart, "text delta before its start", sse([]string{b[0], b[1], b[3], b[2], b[4], b[10], b[11], b[12]}...), 2, 3),
		dialecttest.Miss(uBeforeStart, "clean", base),
		dialecttest.Miss(uBeforeStart, "a call given whole, with no start", whole),
		dialecttest.Miss(uBeforeStart, "ids reused by the next step", sse(slices.Insert(uiBase(), 11, `{"type":"start-step"}`, b[2], b[3], b[4], b[10])...)),

		dialecttest.Hit(uDeltaWithoutStart, "a resumed text part", resumed, 2, 3),
		dialecttest.Hit(uDeltaWithoutStart, "deltas of a call never started", sse(uiWith(5, "")...)),
		dialecttest.Miss(uDeltaWithoutStart, "clean", base),
		dialecttest.Miss(uDeltaWithoutStart, "a call given whole, with no start", whole),

		dialecttest.Hit(uInputMismatch, "input differs from the deltas", sse(uiWith(8, `{"type":"tool-input-available","toolCallId":"call_1","toolName":"get_weather","input":{"city":"London"}}`)...), 6, 7, 8),
		dialecttest.Hit(uInputMismatch, "deltas that do not parse", sse(uiWith(7, `{"type":"tool-input-delta","toolCallId":"call_1","inputTextDelta":"\"Paris\""}`)...)),
		dialecttest.Miss(uInputMismatch, "clean: the input re-serialised", base),
		dialecttest.Miss(uInputMismatch, "no delta: the input stands alone", sse(slices.Delete(uiBase(), 6, 8)...)),

		dialecttest.Hit(uUnknownCall, "output for a call never made", sse(uiWith(9, `{"type":"tool-output-available","toolCallId":"call_9","output":1}`)...), 9),
		dialecttest.Hit(uUnknownCall, "approval for a call never made", sse(uiInsert(10, `{"type":"tool-approval-request","approvalId":"a1","toolCallId":"call_9"}`)...), 10),
		dialecttest.Miss(uUnknownCall, "clean", base),

		dialecttest.Hit(uUnknownChunk, "a type of a known family", sse(uiInsert(4, `{"type":"text-wiggle","id":"t1"}`)...), 4),
		dialecttest.Hit(uUnknownChunk, "a type of no family", sse(uiInsert(4, `{"type":"wiggle"}`)...), 4),
		dialecttest.Hit(uUnknownChunk, "a type of no family, the head said", "HTTP/1.1 200 OK\r\nx-vercel-ai-ui-message-stream: v1\r\n\r\n"+sse(uiInsert(4, `{"type":"wiggle"}`)...), 5),
		dialecttest.Miss(uUnknownChunk, "a data part", sse(uiInsert(4, `{"type":"data-weather","id":"w1","data":{"c":11}}`)...)),
		// " data: …" is no data field: the event carries nothing
		// (framing/leading-space-field says so).
		dialecttest.Miss(uUnknownChunk, "an event without data", strings.Replace(base, "data: {\"type\":\"text-end\"", " data: {\"type\":\"text-end\",\"id\":\"t1\"}\n\ndata: {\"type\":\"text-end\"", 1)),

		dialecttest.Hit(uMalformedChunk, "a text delta without its delta", sse(uiWith(3, `{"type":"text-delta","id":"t1"}`)...), 3),
		dialecttest.Hit(uMalformedChunk, "a finish reason outside the schema", sse(uiWith(11, `{"type":"finish","finishReason":"done"}`)...), 11),
		dialecttest.Hit(uMalformedChunk, "providerExecuted not a boolean", sse(uiWith(5, `{"type":"tool-input-start","toolCallId":"call_1","toolName":"get_weather","providerExecuted":"yes"}`)...), 5),
		dialecttest.Miss(uMalformedChunk, "clean", base),

		dialecttest.Hit(uFinishMissing, "a body cut after the step", sse(b[:11]...), 10),
		dialecttest.Miss(uFinishMissing, "an error ends the stream", errored),
		dialecttest.Miss(uFinishMissing, "an abort ends the stream", sse(append(b[:8:8], `{"type":"abort","reason":"stop"}`, `[DONE]`)...)),

		dialecttest.Hit(uAfterFinish, "a text part after finish", sse(uiInsert(12, b[2], b[3], b[4])...), 11, 12, 13, 14),
		dialecttest.Miss(uAfterFinish, "data parts after finish", sse(uiInsert(12, `{"type":"data-status","id":"s1","data":{"state":"done"}}`)...)),
		dialecttest.Miss(uAfterFinish, "a second message", sse(slices.Concat(b[:12], b[:12], b[12:])...)),

		dialecttest.Hit(uDoneMissing, "no [DONE]", sse(b[:12]...), 11),
		dialecttest.Miss(uDoneMissing, "clean", base),

		dialecttest.Hit(uAfterDone, "a chunk after [DONE]", sse(append(uiBase(), `{"type":"data-x","data":1}`)...)),
		dialecttest.Miss(uAfterDone, "clean", base),

		dialecttest.Hit(uStepUnbalanced, "a step started twice", sse(uiInsert(2, b[1])...), 1, 2),
		dialecttest.Hit(uStepUnbalanced, "a step finished twice", sse(uiInsert(11, b[10])...), 11),
		dialecttest.Miss(uStepUnbalanced, "clean", base),

		dialecttest.Hit(uErrorMasked, "the default onError", sse([]string{b[0], `{"type":"error","errorText":"An error occurred."}`, `[DONE]`}...), 1),
		dialecttest.Miss(uErrorMasked, "the cause passed on", errored),
	}
}
