package checks

import "github.com/streamtap/streamtap/model"

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

// anthropicDialect registers the Anthropic Messages rules (see dialects).
var anthropicDialect = dialectRules{
	dialect:     model.DialectAnthropic,
	new:         func() dialectChecks { return new(anthChecks) },
	judgesNames: true,
	rules: []Rule{
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
	},
}
