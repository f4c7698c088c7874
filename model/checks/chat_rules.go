package checks

import "github.com/streamtap/streamtap/model"

// Rule ids of the OpenAI Chat Completions rules.
const (
	cIdentity       = "chat/identity-changed"
	cCreated        = "chat/created-changed"
	cIndexMissing   = "chat/tool-index-missing"
	cIndexDense     = "chat/tool-index-not-dense"
	cCollision      = "chat/tool-index-collision"
	cIDMissing      = "chat/tool-id-missing"
	cNameMissing    = "chat/tool-name-missing"
	cNameChanged    = "chat/tool-name-changed"
	cRepeated       = "chat/tool-id-repeated"
	cEmptyID        = "chat/tool-id-empty"
	cToolNull       = "chat/tool-field-null"
	cArgsNotString  = "chat/args-not-string"
	cArgsResent     = "chat/args-resent"
	cArgsInvalid    = "chat/args-invalid-json"
	cArgsEmpty      = "chat/args-empty"
	cArgsMissing    = "chat/args-missing"
	cFinishMissing  = "chat/finish-reason-missing"
	cFinishRepeated = "chat/finish-reason-repeated"
	cFinishOdd      = "chat/finish-reason-nonstandard"
	cStopWithCalls  = "chat/stop-with-tool-calls"
	cCallsNoCalls   = "chat/tool-calls-without-calls"
	cAfterFinish    = "chat/delta-after-finish"
	cDoneMissing    = "chat/done-missing"
	cAfterDone      = "chat/data-after-done"
	cMessageInChunk = "chat/message-in-chunk"
)

// chatDialect registers the OpenAI Chat Completions rules (see dialects).
var chatDialect = dialectRules{
	dialect:   model.DialectChat,
	new:       func() dialectChecks { return new(chatChecks) },
	afterDone: cAfterDone,
	rules: []Rule{
		rule(cIdentity, Warning, Info, "id or model changes between chunks (including an empty id or model on some chunks)"),
		rule(cCreated, Info, Info, "created changes between chunks (a per-chunk timestamp); clients keep the first"),
		rule(cMessageInChunk, Info, Info, "a chunk's choice carries a whole message next to its delta; a client that reads both doubles the text and the calls"),
		rule(cIndexMissing, Error, Error, "a tool_calls[] entry without index", "cc-tool-index-missing"),
		rule(cIndexDense, Error, Info, "tool-call indices of a choice do not start at 0 or have gaps; the official helper splits or drops calls"),
		rule(cCollision, Error, Error, "two calls (different ids) share one tool-call index", "cc-tool-index-collision",
			"cc-tool-id-changes-within-index"),
		rule(cIDMissing, Error, Error, "a call whose id never appears, or appears only on a later fragment", "cc-tool-id-missing"),
		rule(cNameMissing, Error, Error, "a call whose name never appears, or appears only on a later fragment", "cc-tool-name-missing"),
		rule(cNameChanged, Error, Error, "a later fragment names a call differently"),
		rule(cRepeated, Warning, Warning, "id or name repeated on continuation fragments; clients concatenate them (call_1call_1, fnfn)",
			"cc-tool-id-or-name-repeated"),
		rule(cEmptyID, Warning, Warning, `continuation fragments carry "id":"" or "name":""`, "cc-tool-id-empty-string-continuation"),
		rule(cToolNull, Warning, Warning, `a tool-call fragment carries "arguments": null, or a continuation "id", "type" or "name": null; clients that concatenate build "null{…}"`),
		rule(cArgsNotString, Error, Error, "function.arguments is JSON (an object) instead of a string", "cc-args-not-string"),
		rule(cArgsResent, Error, Error, "arguments re-sent whole after the deltas, or every fragment repeats the arguments so far",
			"cc-args-duplicated-tail", "cc-args-cumulative"),
		rule(cArgsInvalid, Error, Error, "a call's concatenated arguments are not valid JSON", "cc-args-invalid-json"),
		rule(cArgsEmpty, Warning, Info, `a call's arguments are "" rather than "{}"`, "cc-args-empty-string"),
		rule(cArgsMissing, Warning, Warning, "a call whose arguments never arrive", "cc-args-null"),
		rule(cFinishMissing, Error, Error, "a choice ends (EOF or [DONE]) without a finish_reason", "cc-finish-reason-missing"),
		rule(cFinishRepeated, Error, Error, "a choice has more than one finish_reason (info when every one is the same value)", "cc-finish-reason-multiple"),
		rule(cFinishOdd, Warning, Warning, `finish_reason outside stop|length|tool_calls|content_filter|function_call (including "")`,
			"cc-finish-reason-nonstandard", "cc-finish-reason-empty-string"),
		rule(cStopWithCalls, Warning, Info, `tool calls were sent but finish_reason is "stop"`, "cc-stop-with-tool-calls"),
		rule(cCallsNoCalls, Error, Error, `finish_reason "tool_calls" but no tool call was sent`, "cc-tool-calls-reason-without-calls"),
		rule(cAfterFinish, Warning, Warning, "deltas for a choice after its finish_reason"),
		rule(cDoneMissing, Warning, Warning, "the stream ends without data: [DONE]", "cc-done-missing"),
		rule(cAfterDone, Error, Error, "events after data: [DONE], or [DONE] repeated", "cc-data-after-done"),
	},
}
