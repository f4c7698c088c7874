package checks

import "github.com/streamtap/streamtap/model"

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

// ollamaDialect registers the Ollama rules (see dialects). An invalid JSON
// line and an error line are the transport's findings
// (framing/invalid-json, framing/error-payload), whatever the dialect.
var ollamaDialect = dialectRules{
	dialect: model.DialectOllama,
	new:     func() dialectChecks { return new(ollamaChecks) },
	rules: []Rule{
		rule(oBlankLine, Error, Warning, "a blank line between NDJSON lines; ollama-python's json.loads raises on it"),
		rule(oArgsNotObject, Error, Error, "function.arguments is not a JSON object (a string, as OpenAI sends it, or absent)"),
		rule(oCallSplit, Error, Error, "a call continued on another tool_calls entry (no name, or the id or function.index of an earlier call); clients run each entry as a call"),
		rule(oDoneReason, Warning, Info, `done_reason outside stop|length|load|unload (including "")`),
		rule(oStopWithCalls, Info, Info, `tool calls with done_reason "stop": Ollama's normal end, which clients expecting "tool_calls" misread`),
		rule(oDoneMissing, Error, Error, "the stream ends without its done: true line (ollama-js throws; the reason and counters are lost)"),
		rule(oAfterDone, Warning, Warning, "lines after the done: true line; ollama-js stops reading there, ollama-python reads on"),
	},
}
