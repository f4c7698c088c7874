package responses

import (
	"strings"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

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
	rNameMissing     = "responses/event-name-missing"
)

// Rules registers the OpenAI Responses rules (see dialects).
var Rules = checks.DialectRules{
	New:      func() checks.Judge { return new(respChecks) },
	ToolUse:  builtinUse,
	CallKind: toolKind,
	Rules: []checks.Rule{
		checks.NewRule(rFirstNotCreated, checks.Error, checks.Error, "the first event of a response is not response.created (a resumed stream is responses/resumed-stream)",
			"resp-first-not-created"),
		checks.NewRule(rResumed, checks.Info, checks.Info, "the stream starts at a sequence_number above 0 without response.created: a stream resumed with starting_after, whose earlier events are not in it"),
		checks.NewRule(rSeqMissing, checks.Warning, checks.Info, "events without an integer sequence_number", "resp-seq-missing"),
		checks.NewRule(rNameMissing, checks.Warning, checks.Info, "SSE events without an event: line; the OpenAI SDKs read data.type, clients that dispatch on the event name get nothing"),
		checks.NewRule(rSeqOrder, checks.Warning, checks.Warning, "a sequence_number repeats or goes backwards", "resp-seq-nonmonotonic"),
		checks.NewRule(rSeqGap, checks.Info, checks.Info, "sequence_number skips values or does not start at 0", "resp-seq-gaps"),
		checks.NewRule(rNotAdded, checks.Error, checks.Error, "an event names an item_id or output_index never opened by response.output_item.added (info in a resumed stream)",
			"resp-item-not-added"),
		checks.NewRule(rBadIndex, checks.Error, checks.Error, "a negative output_index, content_index or summary_index, or output_item.added out of order (0, 1, 2 …)",
			"resp-bad-index"),
		checks.NewRule(rItemIDChanged, checks.Error, checks.Error, "an item's id differs between its events or in the terminal output[]",
			"resp-item-id-mismatch"),
		checks.NewRule(rItemIDMissing, checks.Warning, checks.Warning, "a delta, .done or part event that must name its item (function_call_arguments.delta/.done, output_text.delta/.done, content_part.added/.done …) has no item_id"),
		checks.NewRule(rRespIDChanged, checks.Warning, checks.Warning, "the response's id differs between its snapshots (response.created, .in_progress, the terminal event)"),
		checks.NewRule(rCallIDChanged, checks.Error, checks.Error, "a call's call_id differs between its events or in the terminal output[]",
			"resp-call-id-changes"),
		checks.NewRule(rCallIDMissing, checks.Error, checks.Error, "a function_call item without call_id, or without it at output_item.added",
			"resp-call-id-missing"),
		checks.NewRule(rNameChanged, checks.Error, checks.Error, "a call's name differs between its events or in the terminal output[]"),
		checks.NewRule(rNameLate, checks.Warning, checks.Warning, "a call's name is empty at output_item.added and appears only later", "resp-fc-name-late"),
		checks.NewRule(rTypeChanged, checks.Error, checks.Error, "an item's type differs between output_item.added, output_item.done and the terminal output[]"),
		checks.NewRule(rTypeUnknown, checks.Info, checks.Info, "an output item type outside the documented ones"),
		checks.NewRule(rDoneMissing, checks.Warning, checks.Warning, "an item added but never closed by response.output_item.done before response.completed",
			"resp-item-never-done"),
		checks.NewRule(rDoneTwice, checks.Warning, checks.Warning, "two output_item.done (or two *_arguments.done) events for one item", "resp-duplicate-done"),
		checks.NewRule(rItemStatus, checks.Error, checks.Error, "an item's status does not progress in_progress → completed/incomplete (e.g. output_item.done says in_progress)",
			"resp-status-mismatch"),
		checks.NewRule(rRespStatus, checks.Error, checks.Error, "the response's status does not progress in_progress → completed/incomplete/failed",
			"resp-status-mismatch"),
		checks.NewRule(rTermStatus, checks.Error, checks.Error, "the terminal event's type disagrees with response.status (response.completed saying incomplete)",
			"resp-status-mismatch"),
		checks.NewRule(rArgsMismatch, checks.Error, checks.Error, "a call's argument sources disagree: deltas, *_arguments.done, output_item.done, terminal output[]",
			"resp-fc-args-mismatch"),
		checks.NewRule(rTextMismatch, checks.Error, checks.Error, "a message's text sources disagree: the output_text deltas, output_text.done, content_part.done, output_item.done, terminal output[]"),
		checks.NewRule(rArgsInAdded, checks.Info, checks.Info, "output_item.added already carries the arguments and the deltas repeat them", "resp-fc-args-in-added"),
		checks.NewRule(rArgsDoneOnly, checks.Info, checks.Info, "a call's arguments arrive only in .done, with no delta", "resp-fc-done-only"),
		checks.NewRule(rArgsInvalid, checks.Error, checks.Error, "a call's final arguments are not valid JSON", "resp-fc-args-invalid-json"),
		checks.NewRule(rArgsEmpty, checks.Info, checks.Info, `a call's final arguments are "" (a tool with no parameters; JSON.parse("") fails)`),
		checks.NewRule(rNoTerminal, checks.Error, checks.Error, "the stream ends without response.completed, response.incomplete or response.failed",
			"resp-no-terminal"),
		checks.NewRule(rTermRepeated, checks.Error, checks.Error, "more than one terminal event"),
		checks.NewRule(rAfterTerminal, checks.Warning, checks.Warning, "events after the terminal event", "resp-trailing-after-terminal"),
		checks.NewRule(rOutputEmpty, checks.Warning, checks.Info, "the terminal response's output[] is empty or missing although items were streamed",
			"resp-completed-output-empty"),
		checks.NewRule(rOutputMismatch, checks.Error, checks.Error, "the terminal output[] is missing streamed items, adds others, renames them, or orders them differently (warning when only reasoning or other non-call, non-message items differ)",
			"resp-completed-output-mismatch"),
		checks.NewRule(rIncompleteCall, checks.Warning, checks.Warning, "response.incomplete while a call was open: its arguments are truncated",
			"resp-incomplete-with-open-call"),
		checks.NewRule(rNonStandard, checks.Info, checks.Info, "an event type outside the documented stream (response.required_action, response.keep_alive …)",
			"resp-nonstandard-event"),
		checks.NewRule(rDoneSentinel, checks.Info, checks.Info, "data: [DONE] after the terminal event: not in the contract; tolerated, but clients that wait for it hang without it"),
		checks.NewRule(rDoneEarly, checks.Error, checks.Error, "data: [DONE] before the terminal event: the official SDKs stop reading there"),
		checks.NewRule(rNoReasoning, checks.Info, checks.Info, "a response snapshot without the reasoning field"),
	},
}

// builtinUse reports whether an item is a Responses built-in's
// (web_search_call, tool_search_call …, and an MCP approval request): the
// model using a tool, which tool_choice "required" counts.
func builtinUse(it *model.Item) bool {
	return strings.HasSuffix(it.Type, "_call") || it.Type == "mcp_approval_request"
}

// toolKind is the kind of tool a call item is of: a function_call calls a
// function, a custom_tool_call a custom tool.
func toolKind(it *model.Item) (model.ToolKind, bool) {
	switch it.Type {
	case "function_call":
		return model.ToolFunction, true
	case "custom_tool_call":
		return model.ToolCustom, true
	}
	return 0, false
}
