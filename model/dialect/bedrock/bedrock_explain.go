package bedrock

// This file teaches the Bedrock streams, ConverseStream and
// InvokeModelWithResponseStream: the shape of each event (see
// Session.Shape) and the explanation of each shape.

import (
	"encoding/base64"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Shapes of the Bedrock events beyond their types.
const (
	shapeException = "exception" // the Type of an event stream exception
	convEmpty      = "empty"     // a contentBlockStart with an empty start union
	convToolUse    = "toolUse"
	convServerTool = "server_tool_use"
	convToolResult = "toolResult"
	chunkText      = "text"
	chunkEnd       = "end"
	chunkGuardrail = "guardrail"
	chunkInvalid   = "invalid"
	chunkUnknown   = "unknown"
	chunkMetrics   = "metrics"
	chunkOther     = "other"
)

// Shape names a Converse event by its type, a block's events by the
// block's kind, a delta by its member (text, toolUse, reasoningContent …).
func (converseDialect) Shape(s *model.Session, ev *model.Event, ord int, typ string, data []byte) model.Shape {
	sh := model.Shape{Dialect: Converse.ID(), Type: typ}
	it := s.EventItem(ev)
	switch {
	case ev.Kind == model.KindError:
		sh.Type = shapeException
	case ev.Flags&model.NonStandard != 0:
		sh.Type = model.TypeNonStandard
	case typ == "contentBlockStart":
		sh.Sub = converseStartShape(it, data)
	case typ == "contentBlockDelta":
		sh.Sub = converseDeltaShape(ev, ord, it, data)
	case typ == "contentBlockStop" && it != nil && it.IsCall():
		sh.Sub = convToolUse
	}
	return sh
}

// converseStartShape names the block a contentBlockStart opens: from the
// start union when the data is at hand, else from the item it opened.
func converseStartShape(it *model.Item, data []byte) string {
	typ := ""
	switch {
	case data != nil:
		jsonscan.Members(jsonscan.Get(data, "start"), func(k, v []byte) bool {
			typ = string(k)
			if typ == convToolUse && jsonscan.Equal(jsonscan.Get(v, "type"), convServerTool) {
				typ = convServerTool
			}
			return false
		})
	case it != nil:
		typ = it.Type
	}
	switch typ {
	case "":
		return convEmpty
	case convToolUse, "tool_use":
		return convToolUse
	case convServerTool:
		return convServerTool
	case convToolResult, "tool_result":
		return convToolResult
	}
	return chunkOther
}

// converseDeltaShape names a delta by its member: read from data when at
// hand, else inferred from the block and the buffer it grew.
func converseDeltaShape(ev *model.Event, ord int, it *model.Item, data []byte) string {
	key := ""
	switch {
	case data != nil:
		jsonscan.Members(jsonscan.Get(data, "delta"), func(k, _ []byte) bool {
			key = string(k)
			return false
		})
	case ev.Kind == model.KindArgsDelta:
		key = convToolUse
	case it == nil:
	case it.Role == model.RoleReasoning:
		key = "reasoningContent"
	case it.Type == "tool_result":
		key = convToolResult
	case it.Role == model.RoleMessage:
		key = "citation" // a delta that added no text to a text block
		if _, _, ok := it.Text.FragmentAt(ord); ok {
			key = "text"
		}
	}
	switch key {
	case "text", convToolUse, "reasoningContent", convToolResult, "citation":
		return key
	}
	return chunkOther
}

// Shape names an InvokeModel chunk by what it wraps: an Anthropic or Nova
// event is shaped (and explained) as its own dialect shapes it; the chunk
// of a text family by what it does.
func (invokeDialect) Shape(s *model.Session, ev *model.Event, ord int, typ string, data []byte) model.Shape {
	switch {
	case ev.Frame&capture.EventStream == 0:
		return model.Shape{Dialect: Invoke.ID(), Type: TypeInvokeResponse} // a whole body
	case ev.Kind == model.KindError && typ != "error":
		return model.Shape{Dialect: Invoke.ID(), Type: shapeException}
	case ev.Flags&model.NonStandard != 0:
		return model.Shape{Dialect: Invoke.ID(), Type: model.TypeNonStandard}
	}
	var inner []byte
	if data != nil {
		b64, _ := jsonscan.String(jsonscan.Get(data, "bytes"))
		dec, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || jsonscan.Kind(dec) != '{' || jsonscan.Validate(dec) != nil {
			return model.Shape{Dialect: Invoke.ID(), Type: TypeInvokeChunk, Sub: chunkInvalid}
		}
		inner = dec
	}
	anth, _ := model.Lookup(anthropicName)
	switch {
	case anth.Protocol() != nil && (anth.Protocol().ClaimType(typ) || typ == "error"):
		return anth.Protocol().Shape(s, ev, ord, typ, inner)
	case converseType(typ):
		_, body := novaEvent(nil, inner)
		return converseDialect{}.Shape(s, ev, ord, typ, body)
	}
	sh := model.Shape{Dialect: Invoke.ID(), Type: TypeInvokeChunk, Sub: chunkOther}
	family := ""
	if inner != nil {
		family = chunkFamilyOf(inner)
	}
	switch {
	case family == FamilyUnknown, inner == nil && ev.Kind == model.KindUnknown:
		sh.Sub = chunkUnknown
	case family == FamilyMetrics, inner == nil && ev.Kind != model.KindTextDelta && metricsOnly(s, ev, ord):
		sh.Sub = chunkMetrics
	case ev.Kind == model.KindTerminal:
		sh.Sub = chunkEnd
		if inner != nil && jsonscan.Equal(jsonscan.Get(inner, "amazon-bedrock-guardrailAction"), "INTERVENED") ||
			inner == nil && s.ResponseAt(ord, Invoke.ID()) != nil && s.ResponseAt(ord, Invoke.ID()).Status.AsOf(ord) == model.OutcomeBlocked {
			sh.Sub = chunkGuardrail
		}
	case ev.Kind == model.KindTextDelta:
		sh.Sub = chunkText
	}
	return sh
}

// metricsOnly reports, for a chunk whose data is not at hand, whether it
// was Bedrock's metrics alone: a chunk of a text response that neither
// began it nor added text, after the response had ended or as the event
// that ended it without a stop reason.
func metricsOnly(s *model.Session, ev *model.Event, ord int) bool {
	r := s.ResponseAt(ord, Invoke.ID())
	if r == nil || r.First == ord {
		return false
	}
	if ev.Kind == model.KindTerminal {
		for _, cf := range r.Finish {
			for _, c := range cf.Reasons {
				if c.Ordinal == ord {
					return false // a stop reason: the last chunk of the model's own
				}
			}
		}
		return true
	}
	return r.Terminal >= 0 && r.Terminal < ord
}

// chunkFamilyOf is chunkFamily for an inner event not at the session's
// hand: read by scanning.
func chunkFamilyOf(inner []byte) string {
	return chunkFamily(nil, jsonscan.Get(inner, "type"), inner)
}

// Explanations are the ConverseStream rows of the explanations table (see
// Explanations in explain_table.go).
func (converseDialect) Explanations() []model.Explanation {
	return []model.Explanation{
		model.NewExplanation(Converse.ID(), "messageStart", "",
			"Opens the assistant's message: the first event of a ConverseStream, carried by an event stream message whose :event-type names it.",
			"role (assistant); p, random padding every payload carries (ignore it).",
			"Starts the message; the SDKs dispatch on :event-type, not on the payload.",
			"Converters that translate the padding, or expect a type member in the payload; a second messageStart in one stream, whose blocks clients merge into the first message's.",
			"bedrock/message-start-repeated"),
		model.NewExplanation(Converse.ID(), "contentBlockStart", convToolUse,
			"Opens block contentBlockIndex for a client tool call: its toolUseId and name. Only tool use and tool results have a start.",
			"contentBlockIndex, start.toolUse {toolUseId, name, type tool_use (newer streams)}.",
			"Creates the call; toolUse.input deltas build its arguments, parsed at contentBlockStop.",
			"Deltas routed to the last started block instead of by contentBlockIndex.",
			"bedrock/delta-wrong-block"),
		model.NewExplanation(Converse.ID(), "contentBlockStart", convServerTool,
			"Opens a server tool's call (Nova's code interpreter …) that Bedrock runs itself: not one for the client.",
			"start.toolUse {toolUseId, name, type server_tool_use}.",
			"Shows the call; its result comes as a toolResult block in the same stream. The client runs nothing.",
			"Clients that run it as their own tool.",
		),
		model.NewExplanation(Converse.ID(), "contentBlockStart", convToolResult,
			"Opens a server tool's result block (Nova's code interpreter output): a result, not a call.",
			"start.toolResult {toolUseId, type, status}.",
			"Attaches the result to its server tool call; toolResult deltas carry its content.",
			"Clients that take it for a call.",
		),
		model.NewExplanation(Converse.ID(), "contentBlockStart", chunkOther,
			"Opens a block of a kind this table does not know (image, and the start unions to come).",
			"contentBlockIndex, start.<kind>.",
			"Keeps or skips the block without failing.",
			"Exhaustive parsers abort.",
		),
		model.NewExplanation(Converse.ID(), "contentBlockStart", convEmpty,
			"A start with an empty union, start: {}: a block of no kind. Text and reasoning blocks take no start at all.",
			"contentBlockIndex, start {}.",
			"boto3 and the other SDKs fail to read the union.",
			"Translators that send a start for every block, as Anthropic's content_block_start.",
			"bedrock/empty-block-start"),
		model.NewExplanation(Converse.ID(), "contentBlockDelta", "text",
			"Adds text to block contentBlockIndex; the first text delta of an index opens its block (there is no start).",
			"contentBlockIndex, delta.text; inside an InvokeModel chunk (Nova), amazon-bedrock-guardrailAction INTERVENED beside it when a guardrail acted on the output (masked it: messageStop's stopReason says whether it blocked).",
			"Appends the text to the block its index names; Nova may give every delta a block of its own.",
			"Text routed to the tool block started last (merged into a call's arguments), a delta after its block's stop.",
			"bedrock/delta-wrong-block", "bedrock/delta-unknown-block"),
		model.NewExplanation(Converse.ID(), "contentBlockDelta", convToolUse,
			"Adds a fragment of a tool call's arguments: a piece of JSON text (Claude's first is often \"\"; Nova sends the whole object once).",
			"contentBlockIndex, delta.toolUse.input (a string).",
			"Concatenates the input strings per block; parses the whole at contentBlockStop.",
			"A block no contentBlockStart opened; input that does not parse at the stop.",
			"bedrock/delta-unknown-block", "bedrock/tool-input-invalid-json", "bedrock/delta-wrong-block"),
		model.NewExplanation(Converse.ID(), "contentBlockDelta", "reasoningContent",
			"Adds reasoning to block contentBlockIndex: text, the signature to send back, or redacted (encrypted) content; its first delta opens the block.",
			"delta.reasoningContent {text | signature | redactedContent}.",
			"Shows the reasoning apart from the answer; keeps the signature or redacted content for the next turn.",
			"Reasoning shown as the answer; the signature dropped.",
			"bedrock/delta-wrong-block"),
		model.NewExplanation(Converse.ID(), "contentBlockDelta", convToolResult,
			"Adds a server tool's result content to its toolResult block.",
			"delta.toolResult [{json} | {text}].",
			"Attaches the content to the result.",
			"Clients that know only text and toolUse deltas.",
		),
		model.NewExplanation(Converse.ID(), "contentBlockDelta", "citation",
			"Attaches a citation to a text block; adds no text. Without the event's data, a delta that adds nothing to a text block is taken for one.",
			"delta.citation.",
			"Keeps the citation with the block.",
			"Parsers that expect only text on a text block.",
		),
		model.NewExplanation(Converse.ID(), "contentBlockDelta", chunkOther,
			"A delta of a kind this table does not know: the API adds delta members over time.",
			"contentBlockIndex, delta.<kind>.",
			"Ignores the delta without failing.",
			"Exhaustive parsers abort.",
			"bedrock/delta-wrong-block"),
		model.NewExplanation(Converse.ID(), "contentBlockStop", "",
			"Closes block contentBlockIndex (text and reasoning blocks too).",
			"contentBlockIndex.",
			"Finishes the block.",
			"A stop for a block never started, or stopped twice.",
			"bedrock/delta-unknown-block"),
		model.NewExplanation(Converse.ID(), "contentBlockStop", convToolUse,
			"Closes a tool call's block: its arguments are complete now.",
			"contentBlockIndex.",
			"Parses the concatenated toolUse.input strings; the call is ready to run.",
			"Input that does not parse.",
			"bedrock/tool-input-invalid-json", "bedrock/delta-unknown-block"),
		model.NewExplanation(Converse.ID(), "messageStop", "",
			"Ends the message: why generation stopped. metadata follows; there is no other terminator.",
			"stopReason (end_turn, tool_use, max_tokens, stop_sequence, guardrail_intervened, content_filtered), additionalModelResponseFields.",
			"tool_use means run the calls; max_tokens means the output (and a call's input) may be cut; guardrail_intervened means it was blocked.",
			"Missing: the stream was cut.",
			"bedrock/message-stop-missing"),
		model.NewExplanation(Converse.ID(), "metadata", "",
			"The last event: usage and latency of the whole call; the stream ends at EOF after it.",
			"usage {inputTokens, outputTokens, totalTokens}, metrics.latencyMs, trace (guardrails).",
			"Records the usage; stops reading.",
			"Missing after messageStop: usage lost.",
			"bedrock/metadata-missing"),
		model.NewExplanation(Converse.ID(), TypeConverseResponse, "",
			"A whole Converse response: the answer to Converse (not ConverseStream), or to InvokeModel with Amazon Nova; one JSON body, no event stream.",
			"output.message {role, content[] of text, toolUse {toolUseId, name, input as an object}, reasoningContent …}, stopReason, usage, metrics.latencyMs, trace (guardrails).",
			"Reads content directly; there is nothing to assemble. stopReason as in messageStop: tool_use means run the calls, max_tokens a cut output, guardrail_intervened a blocked one.",
			"A client that asked for ConverseStream and cannot read a body; guardrail_intervened read as a normal answer.",
		),
		model.NewExplanation(Converse.ID(), shapeException, "",
			"An exception mid-stream (:message-type exception): the service failed after HTTP 200; the stream ends.",
			":exception-type (throttlingException, modelStreamErrorException, validationException, internalServerException, serviceUnavailableException); payload message.",
			"The SDK raises it; the partial output is not a complete answer.",
			"Clients that take the partial text for the answer.",
			"framing/eventstream-exception"),
		model.NewExplanation(Converse.ID(), model.TypeNonStandard, "",
			"An :event-type outside the documented ConverseStream.",
			":event-type; the payload.",
			"The SDKs skip event types they do not model.",
			"Proxies that invent event types.",
			"bedrock/unknown-event"),
	}
}

// Explanations are the InvokeModel rows of the explanations table (see
// Explanations in explain_table.go). The chunks that wrap an Anthropic or
// a Nova event are explained by those dialects' rows.
func (invokeDialect) Explanations() []model.Explanation {
	return []model.Explanation{
		model.NewExplanation(Invoke.ID(), TypeInvokeChunk, chunkText,
			"A chunk of a text model (Claude's Text Completions, Titan, Llama, Cohere, Mistral, AI21 Jamba): base64 bytes wrapping the model's own JSON, here a piece of its text. Cohere asked for several generations (num_generations) numbers each piece with the generation it belongs to; a choices family numbers its choices.",
			"bytes (base64 of {completion} Claude 2 and Instant, with type \"completion\" or without; {outputText} Titan; {generation} Llama; {text, index} Cohere; {outputs[].text} Mistral; {choices[].delta.content, index} AI21 Jamba, Mistral Large); p padding.",
			"Decodes bytes and appends the text to its generation's: one text per generation, as Chat's choices.",
			"Clients that read the chunk's JSON without decoding bytes; generations joined into one text.",
			"invoke/chunk-invalid"),
		model.NewExplanation(Invoke.ID(), TypeInvokeChunk, chunkEnd,
			"The last chunk of a text model: its stop reason, and the invocation metrics every family's last chunk carries (AI21 Jamba sends them in a chunk of their own).",
			"completionReason (Titan), stop_reason and stop (Claude 2), stop_reason (Llama, Mistral), finish_reason with is_finished (Cohere), choices[].finish_reason (AI21); amazon-bedrock-invocationMetrics.",
			"Ends the response; LENGTH, length, max_tokens or MAX_TOKENS mean the text was cut.",
			"A stream that ends without it was cut.",
		),
		model.NewExplanation(Invoke.ID(), TypeInvokeChunk, chunkMetrics,
			"Bedrock's invocation metrics in a chunk of their own, after the model's last chunk (AI21 Jamba): no text, no stop reason.",
			"amazon-bedrock-invocationMetrics {inputTokenCount, outputTokenCount, invocationLatency, firstByteLatency}.",
			"Records the usage; the model's own last chunk gave the stop reason (when none did, this chunk ends the response).",
			"Parsers that take it for a chunk of an unknown model, or wait for it as the model's own.",
		),
		model.NewExplanation(Invoke.ID(), TypeInvokeChunk, chunkGuardrail,
			"A guardrail intervened: the chunk carries the guardrail's canned message instead of the model's answer (\"Input blocked\").",
			"amazon-bedrock-guardrailAction INTERVENED, amazon-bedrock-trace.guardrail.",
			"Reports the answer as blocked; the text is the guardrail's, not the model's.",
			"Clients that show the canned message as the model's answer.",
		),
		model.NewExplanation(Invoke.ID(), TypeInvokeChunk, chunkInvalid,
			"A chunk whose bytes is missing, not base64, or no JSON object once decoded.",
			"bytes.",
			"The SDK's JSON decoding of the chunk fails.",
			"Proxies that re-encode the chunk or send the inner JSON bare.",
			"invoke/chunk-invalid"),
		model.NewExplanation(Invoke.ID(), TypeInvokeChunk, chunkUnknown,
			"A chunk no model family explains: its members are none of the documented families' (beside Bedrock's own amazon-bedrock-* members), so its text is not assembled.",
			"bytes: the model's own streaming JSON.",
			"Decodes it as that model's API says.",
			"None known.",
			"invoke/unknown-model"),
		model.NewExplanation(Invoke.ID(), TypeInvokeChunk, chunkOther,
			"A chunk of a text model that adds no text and ends nothing (an empty piece, usage).",
			"bytes.",
			"Reads what it carries.",
			"None known.",
		),
		model.NewExplanation(Invoke.ID(), TypeInvokeResponse, "",
			"A whole InvokeModel body of a text model: the answer to InvokeModel (not InvokeModelWithResponseStream); one JSON body of the model's own shape, no event stream, no base64.",
			"results[].outputText, completionReason (Titan); generation, stop_reason (Llama); outputs[].text, stop_reason (Mistral); generations[].text, finish_reason (Cohere); completions[].data.text, finishReason.reason (AI21 Jurassic); completion, stop_reason (Claude 2); amazon-bedrock-guardrailAction.",
			"Reads the first result's text; the stop reason tells a cut answer (LENGTH, length, MAX_TOKENS, max_tokens) or a blocked one (CONTENT_FILTERED, ERROR_TOXIC, a guardrail's INTERVENED).",
			"A client that asked for a stream and cannot read a body; a guardrail's canned message read as the model's answer.",
		),
		model.NewExplanation(Invoke.ID(), shapeException, "",
			"An exception mid-stream (:message-type exception): the service failed after HTTP 200; the stream ends.",
			":exception-type (modelStreamErrorException, throttlingException, internalServerException, validationException, modelTimeoutException); payload message.",
			"The SDK raises it; the partial output is not a complete answer.",
			"Clients that take the partial text for the answer.",
			"framing/eventstream-exception"),
		model.NewExplanation(Invoke.ID(), model.TypeNonStandard, "",
			"An :event-type other than chunk in an InvokeModel stream.",
			":event-type; the payload.",
			"The SDKs skip event types they do not model.",
			"Proxies that invent event types.",
		),
	}
}
