package checks

import "github.com/streamtap/streamtap/model"

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

// converseDialect registers the Bedrock ConverseStream rules (see
// dialects).
var converseDialect = dialectRules{
	dialect: model.DialectBedrockConverse,
	new:     func() dialectChecks { return new(converseChecks) },
	rules: []Rule{
		rule(bUnknownBlock, Error, Error, "a toolUse delta for a block no contentBlockStart opened, or a delta or stop after its block's stop"),
		rule(bWrongBlock, Error, Error, "a delta that does not fit its contentBlockIndex's block (text on a toolUse block, toolUse input on a text block …)"),
		rule(bEmptyStart, Error, Error, "a contentBlockStart whose start union is empty; boto3 fails on it (text and reasoning blocks have no start)"),
		rule(bInputInvalid, Error, Error, "a toolUse block's concatenated input does not parse at contentBlockStop (warning when stopReason is max_tokens)"),
		rule(bNoStop, Error, Error, "the stream ends without messageStop: no stopReason (not reported after an exception)"),
		rule(bNoMetadata, Warning, Warning, "messageStop is not followed by metadata: the usage and latency are lost"),
		rule(bUnknownEvent, Info, Info, "an :event-type outside the documented ConverseStream"),
		rule(bStartAgain, Error, Error, "a second messageStart in one stream: a ConverseStream response is one message, and clients merge the second into it"),
	},
}

// Rule ids of the Bedrock InvokeModelWithResponseStream rules. What a chunk
// wraps is judged by its own dialect's rules: Anthropic's events by the
// anthropic/ rules, Nova's by the bedrock/ ones.
const (
	iChunkInvalid = "invoke/chunk-invalid"
	iUnknownModel = "invoke/unknown-model"
)

// invokeDialect registers the InvokeModel rules (see dialects).
var invokeDialect = dialectRules{
	dialect: model.DialectBedrockInvoke,
	new:     func() dialectChecks { return new(invokeChecks) },
	rules: []Rule{
		rule(iChunkInvalid, Error, Error, "a chunk whose bytes is missing, not base64, or not a JSON object once decoded; the SDKs fail on it"),
		rule(iUnknownModel, Info, Info, "a chunk of a model family streamtap does not read (not Anthropic, Nova, Titan, Llama, Cohere, Mistral or AI21)"),
	},
}
