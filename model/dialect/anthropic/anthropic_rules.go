package anthropic

import (
	"github.com/streamtap/streamtap/model/checks"
)

// Rule ids of the Anthropic Messages rules.
const (
	aFirst        = "anthropic/first-not-message-start"
	aNameMissing  = "anthropic/event-name-missing"
	aNameMismatch = "anthropic/event-name-mismatch"
	aUnknownBlock = "anthropic/delta-unknown-block"
	aDeltaType    = "anthropic/delta-type-mismatch"
	aOverlap      = "anthropic/blocks-overlap"
	aIndex        = "anthropic/index-not-dense"
	aNotStopped   = "anthropic/block-not-stopped"
	aInputInvalid = "anthropic/tool-input-invalid-json"
	aSignature    = "anthropic/thinking-signature-missing"
	aStopMissing  = "anthropic/stop-reason-missing"
	aStopTool     = "anthropic/stop-reason-tool-mismatch"
	aNoStop       = "anthropic/message-stop-missing"
	aAfterStop    = "anthropic/events-after-stop"
	aUnknownEvent = "anthropic/unknown-event"
)

// Rules registers the Anthropic Messages rules (see dialects).
var Rules = checks.DialectRules{
	// Anthropic's SDKs read an empty tool input as {}.
	EmptyArgsObject: true,
	New:             func() checks.Judge { return new(anthChecks) },
	JudgesNames:     true,
	Rules: []checks.Rule{
		checks.NewRule(aFirst, checks.Error, checks.Error, "the first event is not message_start", "an-first-not-message-start"),
		checks.NewRule(aNameMissing, checks.Error, checks.Error, "events without an event: line; the official SDKs drop them", "sse-event-name-missing"),
		checks.NewRule(aNameMismatch, checks.Error, checks.Error, "the event: name differs from data.type; the SDKs dispatch on the name",
			"sse-event-name-mismatch"),
		checks.NewRule(aUnknownBlock, checks.Error, checks.Error, "a delta or stop for a block never started, or after its stop", "an-delta-unknown-index"),
		checks.NewRule(aDeltaType, checks.Error, checks.Error, "a delta type that does not fit the block (text_delta on a tool_use block …)",
			"an-delta-type-mismatch"),
		checks.NewRule(aOverlap, checks.Error, checks.Error, "a content block starts while another is open", "an-blocks-overlap"),
		checks.NewRule(aIndex, checks.Error, checks.Error, "block indices do not run 0, 1, 2 … (a gap, a reuse, a start above 0)", "an-index-gap-or-reuse"),
		checks.NewRule(aNotStopped, checks.Error, checks.Error, "message_delta or message_stop while a block is still open", "an-block-not-stopped"),
		checks.NewRule(aInputInvalid, checks.Error, checks.Error, "a tool_use block's partial_json does not parse at content_block_stop (warning when stop_reason is max_tokens)",
			"an-tool-input-invalid-json"),
		checks.NewRule(aSignature, checks.Error, checks.Error, "a thinking block closes without a signature", "an-thinking-signature-missing"),
		checks.NewRule(aStopMissing, checks.Error, checks.Error, "no message_delta with a stop_reason", "an-message-delta-missing"),
		checks.NewRule(aStopTool, checks.Error, checks.Error, `stop_reason is not "tool_use" although tool_use blocks were sent, or "tool_use" without one`,
			"an-stop-reason-tool-mismatch"),
		checks.NewRule(aNoStop, checks.Error, checks.Error, "the stream ends without message_stop", "an-message-stop-missing"),
		checks.NewRule(aAfterStop, checks.Warning, checks.Warning, "events after message_stop", "an-open-after-message-stop"),
		checks.NewRule(aUnknownEvent, checks.Info, checks.Info, "an event type outside the documented stream", "an-unknown-event"),
	},
}
