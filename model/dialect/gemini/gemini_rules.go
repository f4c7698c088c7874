package gemini

import (
	"github.com/streamtap/streamtap/model/checks"
)

// Rule ids of the Gemini rules.
const (
	gArgsNotObject = "gemini/args-not-object"
	gUnterminated  = "gemini/partial-args-unterminated"
	gNoEndMarker   = "gemini/partial-args-no-end-marker"
	gFinishOdd     = "gemini/finish-reason-nonstandard"
)

// Rules registers the Gemini rules (see dialects).
var Rules = checks.DialectRules{
	// A functionCall without args passes none.
	EmptyArgsObject: true,
	New:             func() checks.Judge { return new(gemChecks) },
	Rules: []checks.Rule{
		checks.NewRule(gArgsNotObject, checks.Error, checks.Error, "functionCall.args is not a JSON object"),
		checks.NewRule(gUnterminated, checks.Warning, checks.Warning, "a partialArgs call still continuing (willContinue) when its candidate finishes or the stream ends"),
		checks.NewRule(gNoEndMarker, checks.Info, checks.Info, "a partialArgs call ends without the empty functionCall {} end marker"),
		checks.NewRule(gFinishOdd, checks.Warning, checks.Warning, "a candidate's finishReason is not a documented FinishReason value"),
	},
}
