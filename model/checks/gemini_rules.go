package checks

import "github.com/streamtap/streamtap/model"

// Rule ids of the Gemini rules.
const (
	gArgsNotObject = "gemini/args-not-object"
	gUnterminated  = "gemini/partial-args-unterminated"
	gNoEndMarker   = "gemini/partial-args-no-end-marker"
	gFinishOdd     = "gemini/finish-reason-nonstandard"
)

// geminiDialect registers the Gemini rules (see dialects).
var geminiDialect = dialectRules{
	dialect: model.DialectGemini,
	new:     func() dialectChecks { return new(gemChecks) },
	rules: []Rule{
		rule(gArgsNotObject, Error, Error, "functionCall.args is not a JSON object"),
		rule(gUnterminated, Warning, Warning, "a partialArgs call still continuing (willContinue) when its candidate finishes or the stream ends"),
		rule(gNoEndMarker, Info, Info, "a partialArgs call ends without the empty functionCall {} end marker"),
		rule(gFinishOdd, Warning, Warning, "a candidate's finishReason is not a documented FinishReason value"),
	},
}
