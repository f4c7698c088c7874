package chat

import (
	"github.com/streamtap/streamtap/model/checks"
)

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

// Rules registers the OpenAI Chat Completions rules (see dialects).
var Rules = checks.DialectRules{
	New:       func() checks.Judge { return new(chatChecks) },
	AfterDone: cAfterDone,
	Rules: []checks.Rule{
		checks.NewRule(cIdentity, checks.Warning, checks.Info, "id or model changes between chunks (including an empty id or model on some chunks)"),
		checks.NewRule(cCreated, checks.Info, checks.Info, "created changes between chunks (a per-chunk timestamp); clients keep the first"),
		checks.NewRule(cMessageInChunk, checks.Info, checks.Info, "a chunk's choice carries a whole message next to its delta; a client that reads both doubles the text and the calls"),
		checks.NewRule(cIndexMissing, checks.Error, checks.Error, "a tool_calls[] entry without index", "cc-tool-index-missing"),
		checks.NewRule(cIndexDense, checks.Error, checks.Info, "tool-call indices of a choice do not start at 0 or have gaps; the official helper splits or drops calls"),
		checks.NewRule(cCollision, checks.Error, checks.Error, "two calls (different ids) share one tool-call index", "cc-tool-index-collision",
			"cc-tool-id-changes-within-index"),
		checks.NewRule(cIDMissing, checks.Error, checks.Error, "a call whose id never appears, or appears only on a later fragment", "cc-tool-id-missing"),
		checks.NewRule(cNameMissing, checks.Error, checks.Error, "a call whose name never appears, or appears only on a later fragment", "cc-tool-name-missing"),
		checks.NewRule(cNameChanged, checks.Error, checks.Error, "a later fragment names a call differently"),
		checks.NewRule(cRepeated, checks.Warning, checks.Warning, "id or name repeated on continuation fragments; clients concatenate them (call_1call_1, fnfn)",
			"cc-tool-id-or-name-repeated"),
		checks.NewRule(cEmptyID, checks.Warning, checks.Warning, `continuation fragments carry "id":"" or "name":""`, "cc-tool-id-empty-string-continuation"),
		checks.NewRule(cToolNull, checks.Warning, checks.Warning, `a tool-call fragment carries "arguments": null, or a continuation "id", "type" or "name": null; clients that concatenate build "null{…}"`),
		checks.NewRule(cArgsNotString, checks.Error, checks.Error, "function.arguments is JSON (an object) instead of a string", "cc-args-not-string"),
		checks.NewRule(cArgsResent, checks.Error, checks.Error, "arguments re-sent whole after the deltas, or every fragment repeats the arguments so far",
			"cc-args-duplicated-tail", "cc-args-cumulative"),
		checks.NewRule(cArgsInvalid, checks.Error, checks.Error, "a call's concatenated arguments are not valid JSON", "cc-args-invalid-json"),
		checks.NewRule(cArgsEmpty, checks.Warning, checks.Info, `a call's arguments are "" rather than "{}"`, "cc-args-empty-string"),
		checks.NewRule(cArgsMissing, checks.Warning, checks.Warning, "a call whose arguments never arrive", "cc-args-null"),
		checks.NewRule(cFinishMissing, checks.Error, checks.Error, "a choice ends (EOF or [DONE]) without a finish_reason", "cc-finish-reason-missing"),
		checks.NewRule(cFinishRepeated, checks.Error, checks.Error, "a choice has more than one finish_reason (info when every one is the same value)", "cc-finish-reason-multiple"),
		checks.NewRule(cFinishOdd, checks.Warning, checks.Warning, `finish_reason outside stop|length|tool_calls|content_filter|function_call (including "")`,
			"cc-finish-reason-nonstandard", "cc-finish-reason-empty-string"),
		checks.NewRule(cStopWithCalls, checks.Warning, checks.Info, `tool calls were sent but finish_reason is "stop"`, "cc-stop-with-tool-calls"),
		checks.NewRule(cCallsNoCalls, checks.Error, checks.Error, `finish_reason "tool_calls" but no tool call was sent`, "cc-tool-calls-reason-without-calls"),
		checks.NewRule(cAfterFinish, checks.Warning, checks.Warning, "deltas for a choice after its finish_reason"),
		checks.NewRule(cDoneMissing, checks.Warning, checks.Warning, "the stream ends without data: [DONE]", "cc-done-missing"),
		checks.NewRule(cAfterDone, checks.Error, checks.Error, "events after data: [DONE], or [DONE] repeated", "cc-data-after-done"),
	},
}
