package aisdkdata

import "github.com/streamtap/streamtap/model/checks"

// Rule ids of the data stream's rules.
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

// Rules registers the data stream's rules (see dialects). A value that is
// not JSON and an error part are the transport's findings
// (framing/invalid-json, framing/error-payload), whatever the dialect; a
// last line without its newline is framing/unterminated-event.
var Rules = checks.DialectRules{
	New: func() checks.Judge { return newDataChecks() },
	Rules: []checks.Rule{
		checks.NewRule(dUnknownCode, checks.Error, checks.Error, "a line whose code is none of the data stream's: parseDataStreamPart throws \"Invalid code\" and the chat ends in an error"),
		checks.NewRule(dMalformedLine, checks.Error, checks.Error, "a line without ':' (\"No separator found\"), or whose value is not what its code carries: the client throws and the chat ends in an error"),
		checks.NewRule(dDeltaWithoutStart, checks.Error, checks.Error, "a c: tool_call_delta for a call no b: tool_call_streaming_start began: the client throws"),
		checks.NewRule(dResultUnknownCall, checks.Error, checks.Error, "an a: tool_result for a call no 9: tool_call made: the client throws"),
		checks.NewRule(dArgsMismatch, checks.Error, checks.Error, "a 9: tool_call's args differ, as a JSON value, from the concatenated c: deltas: the UI streamed one set of arguments, the tool got another"),
		checks.NewRule(dFinishMissing, checks.Error, checks.Error, "the stream ends without d: finish_message: an aborted run or a thrown route cut the body, and the client takes what came for the answer"),
		checks.NewRule(dAfterFinish, checks.Warning, checks.Info, "a part other than 2: data or 8: message_annotations after d: finish_message"),
		checks.NewRule(dStepUnbalanced, checks.Warning, checks.Info, "an f: start_step before the last step's e: finish_step, or an e: with no step open"),
		checks.NewRule(dErrorMasked, checks.Info, checks.Info, "an error part that says only \"An error occurred.\": the route's getErrorMessage (the default) masks the cause"),
	},
}
