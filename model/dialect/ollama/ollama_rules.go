package ollama

import (
	"github.com/streamtap/streamtap/model/checks"
)

// Rule ids of the Ollama rules.
const (
	oBlankLine     = "ollama/blank-line"
	oArgsNotObject = "ollama/args-not-object"
	oCallSplit     = "ollama/call-split"
	oDoneReason    = "ollama/done-reason-unknown"
	oStopWithCalls = "ollama/stop-with-tool-calls"
	oDoneMissing   = "ollama/done-missing"
	oAfterDone     = "ollama/after-done"
)

// Rules registers the Ollama rules (see dialects). An invalid JSON
// line and an error line are the transport's findings
// (framing/invalid-json, framing/error-payload), whatever the dialect.
var Rules = checks.DialectRules{
	New: func() checks.Judge { return new(ollamaChecks) },
	Rules: []checks.Rule{
		checks.NewRule(oBlankLine, checks.Error, checks.Warning, "a blank line between NDJSON lines; ollama-python's json.loads raises on it"),
		checks.NewRule(oArgsNotObject, checks.Error, checks.Error, "function.arguments is not a JSON object (a string, as OpenAI sends it, or absent)"),
		checks.NewRule(oCallSplit, checks.Error, checks.Error, "a call continued on another tool_calls entry (no name, or the id or function.index of an earlier call); clients run each entry as a call"),
		checks.NewRule(oDoneReason, checks.Warning, checks.Info, `done_reason outside stop|length|load|unload (including "")`),
		checks.NewRule(oStopWithCalls, checks.Info, checks.Info, `tool calls with done_reason "stop": Ollama's normal end, which clients expecting "tool_calls" misread`),
		checks.NewRule(oDoneMissing, checks.Error, checks.Error, "the stream ends without its done: true line (ollama-js throws; the reason and counters are lost)"),
		checks.NewRule(oAfterDone, checks.Warning, checks.Warning, "lines after the done: true line; ollama-js stops reading there, ollama-python reads on"),
	},
}
