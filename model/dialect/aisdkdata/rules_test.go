package aisdkdata_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model/dialect/aisdkdata"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// TestRules runs the rules' trigger and near-miss cases.
func TestRules(t *testing.T) {
	t.Parallel()
	dialecttest.Run(t, dsCases())
}

// TestEveryRuleTested: every rule of the dialect has a case that
// triggers it and a near miss.
func TestEveryRuleTested(t *testing.T) {
	dialecttest.EveryRuleTested(t, aisdkdata.Rules.Rules, dsCases())
}

// TestBaseClean: the stream the cases mutate is a correct one, with no
// finding at all.
func TestBaseClean(t *testing.T) {
	rep, _ := dialecttest.Check(dialecttest.Miss("", "base", dsLines(dsBase())))
	if len(rep.Findings) > 0 || rep.Outcome.State != "completed" {
		t.Errorf("base: outcome %v, findings %v; want completed and none", rep.Outcome, rep.Findings)
	}
}

// The data stream's rule ids (model/dialect/aisdkdata).
const (
	dUnknownCode       = "aisdk-data/unknown-code"
	dMalformedLine     = "aisdk-data/malformed-line"
	dDeltaWithoutStart = "aisdk-data/delta-without-start"
	dResultUnknownCall = "aisdk-data/result-unknown-call"
	dArgsMismatch      = "aisdk-data/args-mismatch"
	dFinishMissing     = "aisdk-data/finish-missing"
	dAfterFinish       = "aisdk-data/after-finish"
	dStepUnbalanced    = "aisdk-data/step-unbalanced"
	dErrorMasked       = "aisdk-data/error-masked"
)

// dsBase is a clean v4 data stream: a step (0-7) with text (1), a
// streamed call (2-4) and its result (5), a second step (6-8) with text
// (7), and the finish message (9).
func dsBase() []string {
	return []string{
		`f:{"messageId":"msg-1"}`,
		`0:"Let me check."`,
		`b:{"toolCallId":"call_1","toolName":"get_weather"}`,
		`c:{"toolCallId":"call_1","argsTextDelta":"{\"city\": \"Paris\"}"}`,
		`9:{"toolCallId":"call_1","toolName":"get_weather","args":{"city":"Paris"}}`,
		`a:{"toolCallId":"call_1","result":{"celsius":11}}`,
		`e:{"finishReason":"tool-calls","isContinued":false}`,
		`f:{"messageId":"msg-2"}`,
		`0:"It is 11 degrees."`,
		`e:{"finishReason":"stop","isContinued":false}`,
		`d:{"finishReason":"stop"}`,
	}
}

// dsLines joins parts as the SDK writes them: each ended by "\n".
func dsLines(lines []string) string { return strings.Join(lines, "\n") + "\n" }

// dsWith returns the base with line i replaced, or removed when line is
// empty.
func dsWith(i int, line string) string {
	b := dsBase()
	if line == "" {
		return dsLines(slices.Delete(b, i, i+1))
	}
	b[i] = line
	return dsLines(b)
}

func dsCases() []dialecttest.Case {
	base := dsLines(dsBase())
	b := dsBase()
	return []dialecttest.Case{
		dialecttest.Hit(dUnknownCode, "an unknown code", dsWith(1, `x:"Let me check."`), 1),
		dialecttest.Hit(dUnknownCode, "the assistant stream's code", dsWith(1, `4:{"id":"msg_1","role":"assistant","content":[]}`), 1),
		dialecttest.Miss(dUnknownCode, "clean", base),

		dialecttest.Hit(dMalformedLine, "a line without a separator", dsWith(1, `Let me check.`), 1),
		dialecttest.Hit(dMalformedLine, "a JSON line without a separator", dsWith(1, `"Let me check."`), 1),
		dialecttest.Hit(dMalformedLine, "text that is not a string", dsWith(1, `0:{"text":"Let me check."}`), 1),
		dialecttest.Hit(dMalformedLine, "a tool call without args", dsWith(4, `9:{"toolCallId":"call_1","toolName":"get_weather"}`), 4),
		dialecttest.Miss(dMalformedLine, "clean", base),

		dialecttest.Hit(dDeltaWithoutStart, "a delta with no b:", dsWith(2, ""), 2),
		dialecttest.Hit(dDeltaWithoutStart, "a delta before its b:", dsLines(slices.Concat(b[:2], b[3:4], b[2:3], b[4:])), 2),
		dialecttest.Miss(dDeltaWithoutStart, "clean", base),
		dialecttest.Miss(dDeltaWithoutStart, "no streaming: the call whole", dsLines(slices.Delete(dsBase(), 2, 4))),

		dialecttest.Hit(dResultUnknownCall, "a result for another call", dsWith(5, `a:{"toolCallId":"call_9","result":1}`), 5),
		dialecttest.Miss(dResultUnknownCall, "clean", base),

		dialecttest.Hit(dArgsMismatch, "args that differ from the deltas", dsWith(4, `9:{"toolCallId":"call_1","toolName":"get_weather","args":{"city":"London"}}`), 3, 4),
		dialecttest.Miss(dArgsMismatch, "clean: args re-serialised", base),
		// The b: that comes after its delta opens the call the delta
		// made: the args are the deltas' still.
		dialecttest.Miss(dArgsMismatch, "a delta before its b:", dsLines(slices.Concat(b[:2],
			[]string{`c:{"toolCallId":"call_1","argsTextDelta":"{\"city\": "}`, b[2], `c:{"toolCallId":"call_1","argsTextDelta":"\"Paris\"}"}`}, b[4:]))),
		dialecttest.Miss(dArgsMismatch, "an empty delta for a call without arguments", dsLines([]string{b[0],
			`b:{"toolCallId":"toolu_1","toolName":"fixed_version"}`, `c:{"toolCallId":"toolu_1","argsTextDelta":""}`,
			`9:{"toolCallId":"toolu_1","toolName":"fixed_version","args":{}}`, b[6], `d:{"finishReason":"tool-calls"}`})),

		dialecttest.Hit(dFinishMissing, "a body cut after a step", dsLines(b[:7]), 6),
		dialecttest.Miss(dFinishMissing, "an error part and no finish", dsLines([]string{b[0], `3:"An error occurred."`})),
		dialecttest.Miss(dFinishMissing, "clean", base),

		dialecttest.Hit(dAfterFinish, "text after the finish", dsLines(append(dsBase(), `0:"more"`)), 10, 11),
		dialecttest.Miss(dAfterFinish, "data and annotations after the finish", dsLines(append(dsBase(), `2:[{"done":true}]`, `8:[{"id":"a1"}]`))),

		dialecttest.Hit(dStepUnbalanced, "a step started twice", dsWith(6, ""), 0, 6),
		dialecttest.Hit(dStepUnbalanced, "a step finished with none open", dsLines(slices.Insert(dsBase(), 7, b[6])), 7),
		dialecttest.Miss(dStepUnbalanced, "clean", base),

		dialecttest.Hit(dErrorMasked, "the default getErrorMessage", dsLines(slices.Insert(dsBase(), 6, `3:"An error occurred."`)), 6),
		dialecttest.Miss(dErrorMasked, "the cause passed on", dsLines(slices.Insert(dsBase(), 6, `3:"Error executing tool get_weather: weather service unavailable"`))),
	}
}
