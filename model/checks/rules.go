package checks

// Rule describes one check. IDs are stable: scripts and CI configurations
// name them, so a rule may be reworded but never renamed.
type Rule struct {
	ID string
	// Dialect is the id's prefix: framing (the SSE transport, every
	// dialect), responses, chat, anthropic or gemini.
	Dialect string
	// Severity is the grade under the strict profile. A few rules grade
	// one documented case lower (the summary says which).
	Severity Severity
	// Tolerant is the highest grade under the tolerant profile: lower than
	// Severity for legal variations and common vendor habits.
	Tolerant Severity
	Summary  string
	// Refs are the ids of the matching defects in the protocol defect
	// catalogue; docs/rules.md cites the evidence behind each.
	Refs []string
}

// Rule ids.
const (
	fNoData          = "framing/no-data"
	fUnterminated    = "framing/unterminated-event"
	fLeadingSpace    = "framing/leading-space-field"
	fInvalidJSON     = "framing/invalid-json"
	fNotObject       = "framing/not-object"
	fEmptyData       = "framing/empty-data"
	fNameMismatch    = "framing/event-name-mismatch"
	fErrorPayload    = "framing/error-payload"
	fMixedEndings    = "framing/mixed-line-endings"
	fInvalidUTF8     = "framing/invalid-utf8"
	rFirstNotCreated = "responses/first-not-created"
	rResumed         = "responses/resumed-stream"
	rSeqMissing      = "responses/seq-missing"
	rSeqOrder        = "responses/seq-not-increasing"
	rSeqGap          = "responses/seq-gap"
	rNotAdded        = "responses/item-not-added"
	rBadIndex        = "responses/bad-index"
	rItemIDChanged   = "responses/item-id-changed"
	rRespIDChanged   = "responses/response-id-changed"
	rItemIDMissing   = "responses/item-id-missing"
	rCallIDChanged   = "responses/call-id-changed"
	rCallIDMissing   = "responses/call-id-missing"
	rNameChanged     = "responses/name-changed"
	rNameLate        = "responses/name-late"
	rTypeChanged     = "responses/item-type-changed"
	rTypeUnknown     = "responses/item-type-nonstandard"
	rDoneMissing     = "responses/item-done-missing"
	rDoneTwice       = "responses/item-done-twice"
	rItemStatus      = "responses/item-status"
	rRespStatus      = "responses/response-status"
	rTermStatus      = "responses/terminal-status-mismatch"
	rArgsMismatch    = "responses/args-done-mismatch"
	rTextMismatch    = "responses/text-done-mismatch"
	rArgsInAdded     = "responses/args-in-added"
	rArgsDoneOnly    = "responses/args-done-only"
	rArgsInvalid     = "responses/args-invalid-json"
	rArgsEmpty       = "responses/args-empty"
	rNoTerminal      = "responses/no-terminal"
	rTermRepeated    = "responses/terminal-repeated"
	rAfterTerminal   = "responses/events-after-terminal"
	rOutputEmpty     = "responses/terminal-output-empty"
	rOutputMismatch  = "responses/terminal-output-mismatch"
	rIncompleteCall  = "responses/incomplete-open-call"
	rNonStandard     = "responses/non-standard-event"
	rDoneSentinel    = "responses/done-sentinel"
	rDoneEarly       = "responses/done-before-terminal"
	rNoReasoning     = "responses/reasoning-missing"
	cIdentity        = "chat/identity-changed"
	cCreated         = "chat/created-changed"
	cIndexMissing    = "chat/tool-index-missing"
	cIndexDense      = "chat/tool-index-not-dense"
	cCollision       = "chat/tool-index-collision"
	cIDMissing       = "chat/tool-id-missing"
	cNameMissing     = "chat/tool-name-missing"
	cNameChanged     = "chat/tool-name-changed"
	cRepeated        = "chat/tool-id-repeated"
	cEmptyID         = "chat/tool-id-empty"
	cArgsNotString   = "chat/args-not-string"
	cArgsResent      = "chat/args-resent"
	cArgsInvalid     = "chat/args-invalid-json"
	cArgsEmpty       = "chat/args-empty"
	cArgsMissing     = "chat/args-missing"
	cFinishMissing   = "chat/finish-reason-missing"
	cFinishRepeated  = "chat/finish-reason-repeated"
	cFinishOdd       = "chat/finish-reason-nonstandard"
	cStopWithCalls   = "chat/stop-with-tool-calls"
	cCallsNoCalls    = "chat/tool-calls-without-calls"
	cAfterFinish     = "chat/delta-after-finish"
	cDoneMissing     = "chat/done-missing"
	cAfterDone       = "chat/data-after-done"
	aFirst           = "anthropic/first-not-message-start"
	aNameMissing     = "anthropic/event-name-missing"
	aNameMismatch    = "anthropic/event-name-mismatch"
	aUnknownBlock    = "anthropic/delta-unknown-block"
	aDeltaType       = "anthropic/delta-type-mismatch"
	aOverlap         = "anthropic/blocks-overlap"
	aIndex           = "anthropic/index-not-dense"
	aNotStopped      = "anthropic/block-not-stopped"
	aInputInvalid    = "anthropic/tool-input-invalid-json"
	aSignature       = "anthropic/thinking-signature-missing"
	aStopMissing     = "anthropic/stop-reason-missing"
	aStopTool        = "anthropic/stop-reason-tool-mismatch"
	aNoStop          = "anthropic/message-stop-missing"
	aAfterStop       = "anthropic/events-after-stop"
	aUnknownEvent    = "anthropic/unknown-event"
	gArgsNotObject   = "gemini/args-not-object"
	gUnterminated    = "gemini/partial-args-unterminated"
	gNoEndMarker     = "gemini/partial-args-no-end-marker"
)

func rule(id string, sev, tolerant Severity, summary string, refs ...string) Rule {
	d := id
	for i := range id {
		if id[i] == '/' {
			d = id[:i]
			break
		}
	}
	return Rule{ID: id, Dialect: d, Severity: sev, Tolerant: tolerant, Summary: summary, Refs: refs}
}

// table lists every rule, in the order reports and docs use.
var table = []Rule{
	rule(fNoData, Error, Error, "the stream carries no data event: it is empty, or only comments and pings"),
	rule(fUnterminated, Warning, Warning, "the last event is not ended by a blank line; spec parsers discard it at EOF",
		"sse-unterminated-final-event"),
	rule(fLeadingSpace, Error, Error, `a field line starts with a space (" data: …"); spec parsers ignore it as an unknown field`),
	rule(fInvalidJSON, Error, Error, "data is neither JSON nor [DONE] (includes a comment re-wrapped as data: \": PROCESSING\")",
		"sse-invalid-json", "sse-comment-rewrapped-as-data"),
	rule(fNotObject, Error, Error, "data is JSON but not an object (a string, number or array where an event object belongs)",
		"sse-invalid-json"),
	rule(fEmptyData, Warning, Warning, "an event with empty data or no data line (heartbeats such as \"data:\" or a bare \"event: x\")",
		"sse-empty-data"),
	rule(fNameMismatch, Info, Info, "OpenAI: the event: name differs from data.type (the SDK dispatches on data.type)",
		"sse-event-name-mismatch"),
	rule(fErrorPayload, Info, Info, "a JSON error payload in the stream; the outcome reports the failure",
		"cc-midstream-error-chunk", "an-midstream-error", "resp-error-shape"),
	rule(fMixedEndings, Info, Info, "the stream mixes line endings (LF, CRLF, CR); legal, but LF-only splitters mis-frame it",
		"sse-crlf"),
	rule(fInvalidUTF8, Warning, Warning, "an event's bytes are not valid UTF-8; decoders replace or reject them"),

	rule(rFirstNotCreated, Error, Error, "the first event of a response is not response.created (a resumed stream is responses/resumed-stream)",
		"resp-first-not-created"),
	rule(rResumed, Info, Info, "the stream starts at a sequence_number above 0 without response.created: a stream resumed with starting_after, whose earlier events are not in it"),
	rule(rSeqMissing, Warning, Info, "events without an integer sequence_number", "resp-seq-missing"),
	rule(rSeqOrder, Warning, Warning, "a sequence_number repeats or goes backwards", "resp-seq-nonmonotonic"),
	rule(rSeqGap, Info, Info, "sequence_number skips values or does not start at 0", "resp-seq-gaps"),
	rule(rNotAdded, Error, Error, "an event names an item_id or output_index never opened by response.output_item.added (info in a resumed stream)",
		"resp-item-not-added"),
	rule(rBadIndex, Error, Error, "a negative output_index, content_index or summary_index, or output_item.added out of order (0, 1, 2 …)",
		"resp-bad-index"),
	rule(rItemIDChanged, Error, Error, "an item's id differs between its events or in the terminal output[]",
		"resp-item-id-mismatch"),
	rule(rItemIDMissing, Warning, Warning, "a delta, .done or part event that must name its item (function_call_arguments.delta/.done, output_text.delta/.done, content_part.added/.done …) has no item_id"),
	rule(rRespIDChanged, Warning, Warning, "the response's id differs between its snapshots (response.created, .in_progress, the terminal event)"),
	rule(rCallIDChanged, Error, Error, "a call's call_id differs between its events or in the terminal output[]",
		"resp-call-id-changes"),
	rule(rCallIDMissing, Error, Error, "a function_call item without call_id, or without it at output_item.added",
		"resp-call-id-missing"),
	rule(rNameChanged, Error, Error, "a call's name differs between its events or in the terminal output[]"),
	rule(rNameLate, Warning, Warning, "a call's name is empty at output_item.added and appears only later", "resp-fc-name-late"),
	rule(rTypeChanged, Error, Error, "an item's type differs between output_item.added, output_item.done and the terminal output[]"),
	rule(rTypeUnknown, Info, Info, "an output item type outside the documented ones"),
	rule(rDoneMissing, Warning, Warning, "an item added but never closed by response.output_item.done before response.completed",
		"resp-item-never-done"),
	rule(rDoneTwice, Warning, Warning, "two output_item.done (or two *_arguments.done) events for one item", "resp-duplicate-done"),
	rule(rItemStatus, Error, Error, "an item's status does not progress in_progress → completed/incomplete (e.g. output_item.done says in_progress)",
		"resp-status-mismatch"),
	rule(rRespStatus, Error, Error, "the response's status does not progress in_progress → completed/incomplete/failed",
		"resp-status-mismatch"),
	rule(rTermStatus, Error, Error, "the terminal event's type disagrees with response.status (response.completed saying incomplete)",
		"resp-status-mismatch"),
	rule(rArgsMismatch, Error, Error, "a call's argument sources disagree: deltas, *_arguments.done, output_item.done, terminal output[]",
		"resp-fc-args-mismatch"),
	rule(rTextMismatch, Error, Error, "a message's text sources disagree: the output_text deltas, output_text.done, content_part.done, output_item.done, terminal output[]"),
	rule(rArgsInAdded, Info, Info, "output_item.added already carries the arguments and the deltas repeat them", "resp-fc-args-in-added"),
	rule(rArgsDoneOnly, Info, Info, "a call's arguments arrive only in .done, with no delta", "resp-fc-done-only"),
	rule(rArgsInvalid, Error, Error, "a call's final arguments are not valid JSON", "resp-fc-args-invalid-json"),
	rule(rArgsEmpty, Info, Info, `a call's final arguments are "" (a tool with no parameters; JSON.parse("") fails)`),
	rule(rNoTerminal, Error, Error, "the stream ends without response.completed, response.incomplete or response.failed",
		"resp-no-terminal"),
	rule(rTermRepeated, Error, Error, "more than one terminal event"),
	rule(rAfterTerminal, Warning, Warning, "events after the terminal event", "resp-trailing-after-terminal"),
	rule(rOutputEmpty, Warning, Info, "the terminal response's output[] is empty or missing although items were streamed",
		"resp-completed-output-empty"),
	rule(rOutputMismatch, Error, Error, "the terminal output[] is missing streamed items, adds others, renames them, or orders them differently (warning when only reasoning or other non-call, non-message items differ)",
		"resp-completed-output-mismatch"),
	rule(rIncompleteCall, Warning, Warning, "response.incomplete while a call was open: its arguments are truncated",
		"resp-incomplete-with-open-call"),
	rule(rNonStandard, Info, Info, "an event type outside the documented stream (response.required_action, response.keep_alive …)",
		"resp-nonstandard-event"),
	rule(rDoneSentinel, Info, Info, "data: [DONE] after the terminal event: not in the contract; tolerated, but clients that wait for it hang without it"),
	rule(rDoneEarly, Error, Error, "data: [DONE] before the terminal event: the official SDKs stop reading there"),
	rule(rNoReasoning, Info, Info, "a response snapshot without the reasoning field"),

	rule(cIdentity, Warning, Info, "id or model changes between chunks (including an empty id or model on some chunks)"),
	rule(cCreated, Info, Info, "created changes between chunks (a per-chunk timestamp); clients keep the first"),
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

	rule(aFirst, Error, Error, "the first event is not message_start", "an-first-not-message-start"),
	rule(aNameMissing, Error, Error, "events without an event: line; the official SDKs drop them", "sse-event-name-missing"),
	rule(aNameMismatch, Error, Error, "the event: name differs from data.type; the SDKs dispatch on the name",
		"sse-event-name-mismatch"),
	rule(aUnknownBlock, Error, Error, "a delta or stop for a block never started, or after its stop", "an-delta-unknown-index"),
	rule(aDeltaType, Error, Error, "a delta type that does not fit the block (text_delta on a tool_use block …)",
		"an-delta-type-mismatch"),
	rule(aOverlap, Error, Error, "a content block starts while another is open", "an-blocks-overlap"),
	rule(aIndex, Error, Error, "block indices do not run 0, 1, 2 … (a gap, a reuse, a start above 0)", "an-index-gap-or-reuse"),
	rule(aNotStopped, Error, Error, "message_delta or message_stop while a block is still open", "an-block-not-stopped"),
	rule(aInputInvalid, Error, Error, "a tool_use block's partial_json does not parse at content_block_stop (warning when stop_reason is max_tokens)",
		"an-tool-input-invalid-json"),
	rule(aSignature, Error, Error, "a thinking block closes without a signature", "an-thinking-signature-missing"),
	rule(aStopMissing, Error, Error, "no message_delta with a stop_reason", "an-message-delta-missing"),
	rule(aStopTool, Error, Error, `stop_reason is not "tool_use" although tool_use blocks were sent, or "tool_use" without one`,
		"an-stop-reason-tool-mismatch"),
	rule(aNoStop, Error, Error, "the stream ends without message_stop", "an-message-stop-missing"),
	rule(aAfterStop, Warning, Warning, "events after message_stop", "an-open-after-message-stop"),
	rule(aUnknownEvent, Info, Info, "an event type outside the documented stream", "an-unknown-event"),

	rule(gArgsNotObject, Error, Error, "functionCall.args is not a JSON object"),
	rule(gUnterminated, Warning, Warning, "a partialArgs call still continuing (willContinue) when its candidate finishes or the stream ends"),
	rule(gNoEndMarker, Info, Info, "a partialArgs call ends without the empty functionCall {} end marker"),
}

var ruleByID = func() map[string]*Rule {
	m := map[string]*Rule{}
	for i := range table {
		m[table[i].ID] = &table[i]
	}
	return m
}()

// Rules returns every rule, in report order. The slice is a copy.
func Rules() []Rule {
	out := make([]Rule, len(table))
	copy(out, table)
	return out
}
