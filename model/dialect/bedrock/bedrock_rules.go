package bedrock

import (
	"github.com/streamtap/streamtap/model/checks"
)

// Rule ids of the Bedrock ConverseStream rules. Amazon Nova's
// Converse-shaped events inside InvokeModel chunks are judged by them too.
const (
	bUnknownBlock = "bedrock/delta-unknown-block"
	bWrongBlock   = "bedrock/delta-wrong-block"
	bEmptyStart   = "bedrock/empty-block-start"
	bInputInvalid = "bedrock/tool-input-invalid-json"
	bNoStop       = "bedrock/message-stop-missing"
	bNoMetadata   = "bedrock/metadata-missing"
	bUnknownEvent = "bedrock/unknown-event"
	bStartAgain   = "bedrock/message-start-repeated"
)

// ConverseRules registers the Bedrock ConverseStream rules (see
// dialects).
var ConverseRules = checks.DialectRules{
	// A call whose toolUse.input strings are all "" (Claude opens each
	// call with one) is read as Anthropic's empty input is, as {}.
	EmptyArgsObject: true,
	New:             func() checks.Judge { return new(converseChecks) },
	Rules: []checks.Rule{
		checks.NewRule(bUnknownBlock, checks.Error, checks.Error, "a toolUse delta for a block no contentBlockStart opened, or a delta or stop after its block's stop"),
		checks.NewRule(bWrongBlock, checks.Error, checks.Error, "a delta that does not fit its contentBlockIndex's block (text on a toolUse block, toolUse input on a text block …)"),
		checks.NewRule(bEmptyStart, checks.Error, checks.Error, "a contentBlockStart whose start union is empty; boto3 fails on it (text and reasoning blocks have no start)"),
		checks.NewRule(bInputInvalid, checks.Error, checks.Error, "a toolUse block's concatenated input does not parse at contentBlockStop (warning when stopReason is max_tokens)"),
		checks.NewRule(bNoStop, checks.Error, checks.Error, "the stream ends without messageStop: no stopReason (not reported after an exception)"),
		checks.NewRule(bNoMetadata, checks.Warning, checks.Warning, "messageStop is not followed by metadata: the usage and latency are lost"),
		checks.NewRule(bUnknownEvent, checks.Info, checks.Info, "an :event-type outside the documented ConverseStream"),
		checks.NewRule(bStartAgain, checks.Error, checks.Error, "a second messageStart in one stream: a ConverseStream response is one message, and clients merge the second into it"),
	},
}

// Rule ids of the Bedrock InvokeModelWithResponseStream rules. What a chunk
// wraps is judged by its own dialect's rules: Anthropic's events by the
// anthropic/ rules, Nova's by the bedrock/ ones.
const (
	iChunkInvalid = "invoke/chunk-invalid"
	iUnknownModel = "invoke/unknown-model"
)

// InvokeRules registers the InvokeModel rules (see dialects).
var InvokeRules = checks.DialectRules{
	New: func() checks.Judge { return new(invokeChecks) },
	Rules: []checks.Rule{
		checks.NewRule(iChunkInvalid, checks.Error, checks.Error, "a chunk whose bytes is missing, not base64, or not a JSON object once decoded; the SDKs fail on it"),
		checks.NewRule(iUnknownModel, checks.Info, checks.Info, "a chunk no model family explains: its members are none of the documented families' (Claude, Nova, Titan, Llama, Cohere, Mistral, AI21), beside Bedrock's own"),
	},
}
