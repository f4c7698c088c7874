package checks

import "slices"

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

func uiCases() []ruleCase {
	base := dataSSE(uiBase())
	b := uiBase()
	// The first delta moved before the call's start.
	early := slices.Clone(b)
	early[5], early[6] = early[6], early[5]
	// A text part resumed mid-way: a delta and an end with no start.
	resumed := dataSSE(append([]string{b[0], b[1], b[3], b[4]}, b[10:]...))
	// A call given whole, as Anthropic's mcp_tool_use is: no start, no delta.
	whole := dataSSE(append(append([]string{}, b[:5]...),
		`{"type":"tool-input-available","toolCallId":"mcptoolu_1","toolName":"ask","input":{},"providerExecuted":true,"dynamic":true}`,
		`{"type":"tool-output-available","toolCallId":"mcptoolu_1","output":[{"type":"text","text":"ok"}],"providerExecuted":true}`,
		b[10], b[11], b[12]))
	errored := dataSSE([]string{b[0], `{"type":"error","errorText":"You exceeded your current quota"}`, `[DONE]`})
	return []ruleCase{
		hit(uBeforeStart, "delta before its call's start", dataSSE(early), 5, 6),
		hit(uBeforeStart, "tool-input-available before its start", dataSSE(append(uiInsert(5, b[8]), b[12:]...))),
		hit(uBeforeStart, "text delta before its start", dataSSE([]string{b[0], b[1], b[3], b[2], b[4], b[10], b[11], b[12]}), 2, 3),
		miss(uBeforeStart, "clean", base),
		miss(uBeforeStart, "a call given whole, with no start", whole),
		miss(uBeforeStart, "ids reused by the next step", dataSSE(slices.Insert(uiBase(), 11, `{"type":"start-step"}`, b[2], b[3], b[4], b[10]))),

		hit(uDeltaWithoutStart, "a resumed text part", resumed, 2, 3),
		hit(uDeltaWithoutStart, "deltas of a call never started", dataSSE(uiWith(5, ""))),
		miss(uDeltaWithoutStart, "clean", base),
		miss(uDeltaWithoutStart, "a call given whole, with no start", whole),

		hit(uInputMismatch, "input differs from the deltas", dataSSE(uiWith(8, `{"type":"tool-input-available","toolCallId":"call_1","toolName":"get_weather","input":{"city":"London"}}`)), 6, 7, 8),
		hit(uInputMismatch, "deltas that do not parse", dataSSE(uiWith(7, `{"type":"tool-input-delta","toolCallId":"call_1","inputTextDelta":"\"Paris\""}`))),
		miss(uInputMismatch, "clean: the input re-serialised", base),
		miss(uInputMismatch, "no delta: the input stands alone", dataSSE(slices.Delete(uiBase(), 6, 8))),

		hit(uUnknownCall, "output for a call never made", dataSSE(uiWith(9, `{"type":"tool-output-available","toolCallId":"call_9","output":1}`)), 9),
		hit(uUnknownCall, "approval for a call never made", dataSSE(uiInsert(10, `{"type":"tool-approval-request","approvalId":"a1","toolCallId":"call_9"}`)), 10),
		miss(uUnknownCall, "clean", base),

		hit(uUnknownChunk, "a type of a known family", dataSSE(uiInsert(4, `{"type":"text-wiggle","id":"t1"}`)), 4),
		hit(uUnknownChunk, "a type of no family", dataSSE(uiInsert(4, `{"type":"wiggle"}`)), 4),
		hit(uUnknownChunk, "a type of no family, the head said", "HTTP/1.1 200 OK\r\nx-vercel-ai-ui-message-stream: v1\r\n\r\n"+dataSSE(uiInsert(4, `{"type":"wiggle"}`)), 5),
		miss(uUnknownChunk, "a data part", dataSSE(uiInsert(4, `{"type":"data-weather","id":"w1","data":{"c":11}}`))),

		hit(uMalformedChunk, "a text delta without its delta", dataSSE(uiWith(3, `{"type":"text-delta","id":"t1"}`)), 3),
		hit(uMalformedChunk, "a finish reason outside the schema", dataSSE(uiWith(11, `{"type":"finish","finishReason":"done"}`)), 11),
		hit(uMalformedChunk, "providerExecuted not a boolean", dataSSE(uiWith(5, `{"type":"tool-input-start","toolCallId":"call_1","toolName":"get_weather","providerExecuted":"yes"}`)), 5),
		miss(uMalformedChunk, "clean", base),

		hit(uFinishMissing, "a body cut after the step", dataSSE(b[:11]), 10),
		miss(uFinishMissing, "an error ends the stream", errored),
		miss(uFinishMissing, "an abort ends the stream", dataSSE(append(b[:8:8], `{"type":"abort","reason":"stop"}`, `[DONE]`))),

		hit(uAfterFinish, "a text part after finish", dataSSE(uiInsert(12, b[2], b[3], b[4])), 11, 12, 13, 14),
		miss(uAfterFinish, "data parts after finish", dataSSE(uiInsert(12, `{"type":"data-status","id":"s1","data":{"state":"done"}}`))),
		miss(uAfterFinish, "a second message", dataSSE(slices.Concat(b[:12], b[:12], b[12:]))),

		hit(uDoneMissing, "no [DONE]", dataSSE(b[:12]), 11),
		miss(uDoneMissing, "clean", base),

		hit(uAfterDone, "a chunk after [DONE]", dataSSE(append(uiBase(), `{"type":"data-x","data":1}`))),
		miss(uAfterDone, "clean", base),

		hit(uStepUnbalanced, "a step started twice", dataSSE(uiInsert(2, b[1])), 1, 2),
		hit(uStepUnbalanced, "a step finished twice", dataSSE(uiInsert(11, b[10])), 11),
		miss(uStepUnbalanced, "clean", base),

		hit(uErrorMasked, "the default onError", dataSSE([]string{b[0], `{"type":"error","errorText":"An error occurred."}`, `[DONE]`}), 1),
		miss(uErrorMasked, "the cause passed on", errored),
	}
}
