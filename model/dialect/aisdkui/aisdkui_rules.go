package aisdkui

import "github.com/streamtap/streamtap/model/checks"

// Rule ids of the UI message stream's rules.
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

// Rules registers the UI message stream's rules (see dialects). Invalid
// JSON and an error chunk are the transport's findings
// (framing/invalid-json, framing/error-payload), whatever the dialect.
var Rules = checks.DialectRules{
	New:       func() checks.Judge { return newUIChecks() },
	AfterDone: uAfterDone,
	Rules: []checks.Rule{
		checks.NewRule(uBeforeStart, checks.Error, checks.Error, "a delta, end or tool-input-available before the start of its part or call: useChat has no part for it yet and throws (vercel/ai#11463)"),
		checks.NewRule(uDeltaWithoutStart, checks.Error, checks.Error, "a delta or end for a part or call that never started (a resumed stream that begins mid-part): useChat throws \"Received text-delta for missing text part\" (vercel/ai#11700, #13160)"),
		checks.NewRule(uInputMismatch, checks.Error, checks.Error, "tool-input-available's input differs, as a JSON value, from the concatenated inputTextDeltas: the UI streamed one set of arguments, execute() got another"),
		checks.NewRule(uUnknownCall, checks.Error, checks.Error, "a tool output, error, approval request or denial for a toolCallId no call has: useChat throws \"No tool invocation found\""),
		checks.NewRule(uUnknownChunk, checks.Error, checks.Error, "a chunk type the schema does not know: useChat's parse fails, the chat ends in an error and the rest of the stream is lost"),
		checks.NewRule(uMalformedChunk, checks.Error, checks.Error, "a chunk without a member its type requires, or with one of the wrong type: useChat's parse fails as for an unknown type"),
		checks.NewRule(uFinishMissing, checks.Error, checks.Error, "the stream ends without finish (nor error, nor abort): useChat takes the cut answer for a whole one"),
		checks.NewRule(uAfterFinish, checks.Warning, checks.Info, "a chunk other than a data-* part after finish: the message was done, and readers that stop there drop it"),
		checks.NewRule(uDoneMissing, checks.Warning, checks.Info, "the stream ends without data: [DONE], which the SDK appends whenever its chunk stream closes: the body was cut, or another writer made it"),
		checks.NewRule(uAfterDone, checks.Warning, checks.Info, "chunks after data: [DONE]: useChat skips [DONE] and reads on, readers that stop there drop them"),
		checks.NewRule(uStepUnbalanced, checks.Warning, checks.Info, "a start-step before the last step's finish-step, or a finish-step with no step open: the steps no longer match the model calls"),
		checks.NewRule(uErrorMasked, checks.Info, checks.Info, "an error chunk that says only \"An error occurred.\": the route's onError (the default) masks the cause from the client"),
	},
}
