package gemini_test

import (
	"testing"

	"github.com/streamtap/streamtap/model/dialect/gemini"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// TestRules runs the rules' trigger and near-miss cases.
func TestRules(t *testing.T) {
	t.Parallel()
	dialecttest.Run(t, cases())
}

// TestEveryRuleTested: every rule of the dialect has a case that
// triggers it and a near miss.
func TestEveryRuleTested(t *testing.T) {
	dialecttest.EveryRuleTested(t, gemini.Rules.Rules, cases())
}

func cases() []dialecttest.Case {
	return []dialecttest.Case{
		dialecttest.Hit("gemini/finish-reason-nonstandard", "finishReason outside the enum", modeltest.DataSSE([]string{modeltest.GemBase()[0],
			modeltest.GemChunk(`{"text":"Done."}`, `"finishReason":"FAKE_ENUM"`)}), 1),
		dialecttest.Miss("gemini/finish-reason-nonstandard", "MODEL_ARMOR, Vertex's own", modeltest.DataSSE([]string{modeltest.GemBase()[0],
			modeltest.GemChunk(`{"text":""}`, `"finishReason":"MODEL_ARMOR"`)})),
		dialecttest.Miss("gemini/finish-reason-nonstandard", "a prompt's blockReason", modeltest.DataSSE([]string{`{"promptFeedback":{"blockReason":"JAILBREAK"},"modelVersion":"gemini-3","responseId":"r1"}`})),

		dialecttest.Hit("gemini/args-not-object", "args as a string", modeltest.DataSSE([]string{modeltest.GemBase()[0],
			modeltest.GemChunk(`{"functionCall":{"name":"get_weather","args":"{\"city\":\"Paris\"}"}}`, `"finishReason":"STOP"`)}), 1),
		dialecttest.Miss("gemini/args-not-object", "args object", modeltest.DataSSE(modeltest.GemBase())),

		dialecttest.Hit("gemini/partial-args-unterminated", "still continuing at finishReason", modeltest.DataSSE(modeltest.GemPartial(`{"text":""}`, `"finishReason":"STOP"`)), 0, 2, 3),
		dialecttest.Hit("gemini/partial-args-unterminated", "still continuing at EOF", modeltest.DataSSE(modeltest.GemPartial(`{"text":""}`, "")[:3]), 0, 2),
		dialecttest.Miss("gemini/partial-args-unterminated", "end marker", modeltest.DataSSE(modeltest.GemPartial(`{"functionCall":{}}`, `"finishReason":"STOP"`))),

		dialecttest.Hit("gemini/partial-args-no-end-marker", "last fragment says stop, no marker", modeltest.DataSSE(append(modeltest.GemPartial(
			`{"functionCall":{"partialArgs":[{"jsonPath":"$.unit","stringValue":"c"}]}}`, ""),
			modeltest.GemChunk(`{"text":""}`, `"finishReason":"STOP"`))), 0, 3, 4),
		dialecttest.Miss("gemini/partial-args-no-end-marker", "last fragment, then the marker", modeltest.DataSSE(append(modeltest.GemPartial(
			`{"functionCall":{"partialArgs":[{"jsonPath":"$.unit","stringValue":"c"}]}}`, ""),
			modeltest.GemChunk(`{"functionCall":{}}`, `"finishReason":"STOP"`)))),
		// A bare {"willContinue":true} part keeps the call open; it is no
		// end marker.
		dialecttest.Hit("gemini/partial-args-no-end-marker", "bare willContinue part, then no marker", modeltest.DataSSE(append(modeltest.GemPartial(
			`{"functionCall":{"willContinue":true}}`, ""),
			modeltest.GemChunk(`{"functionCall":{"partialArgs":[{"jsonPath":"$.unit","stringValue":"c"}]}}`, ""),
			modeltest.GemChunk(`{"text":""}`, `"finishReason":"STOP"`))), 0, 4, 5),
		dialecttest.Miss("gemini/partial-args-no-end-marker", "bare willContinue part, then the marker", modeltest.DataSSE(append(modeltest.GemPartial(
			`{"functionCall":{"willContinue":true}}`, ""),
			modeltest.GemChunk(`{"functionCall":{"partialArgs":[{"jsonPath":"$.unit","stringValue":"c"}]}}`, ""),
			modeltest.GemChunk(`{"functionCall":{}}`, `"finishReason":"STOP"`)))),
	}
}
