package checks

import "github.com/streamtap/streamtap/model"

// Rule ids of the OpenAI Responses rules.
const (
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
)

// responsesDialect registers the OpenAI Responses rules (see dialects).
var responsesDialect = dialectRules{
	dialect: model.DialectResponses,
	new:     func() dialectChecks { return new(respChecks) },
	rules: []Rule{
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
	},
}
