package anthropic

// This file teaches the Anthropic Messages stream: the shape of each event (see
// Session.Shape) and the explanation of each shape.

import (
	"strings"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Anthropic shapes beyond the block and delta types themselves.
const (
	anthToolResult = "*_tool_result" // web_search_tool_result, container_upload …
	anthOther      = "other"
)

// Shape names an Anthropic event by its type, a block's events by the
// block's type, a delta by the delta's type.
func (anthropicDialect) Shape(s *model.Session, ev *model.Event, ord int, typ string, data []byte) model.Shape {
	sh := model.Shape{Dialect: Protocol.ID(), Type: typ}
	it := s.EventItem(ev)
	switch {
	case typ == "error", ev.Kind == model.KindError:
		sh.Type = "error"
	case ev.Flags&model.NonStandard != 0:
		sh.Type = model.TypeNonStandard
	case typ == "content_block_start" && it != nil:
		sh.Sub = anthropicBlockShape(it.Type)
	case typ == "content_block_delta":
		sh.Sub = anthropicDeltaShape(ev, ord, it, data)
	case typ == "content_block_stop" && it != nil:
		switch it.Role {
		case model.RoleCall:
			sh.Sub = "tool_use"
		case model.RoleReasoning:
			sh.Sub = "thinking"
		}
	}
	return sh
}

// anthropicBlockShape names a block type: as it is when the assembly
// knows it, as a family for the server tools' result blocks.
func anthropicBlockShape(typ string) string {
	switch {
	case typ == "text", anthropicRole(typ) != model.RoleOther:
		return typ
	case strings.HasSuffix(typ, "_tool_result"), typ == "container_upload":
		return anthToolResult
	}
	return anthOther
}

// anthropicDeltaShape names the delta type: read from data when at hand,
// else inferred from the buffer the delta grew. Inferred, a delta of the
// wrong type for its block (anthropic/delta-type-mismatch) is named by
// what it did, and any delta that added nothing to a text block is taken
// for a citations_delta.
func anthropicDeltaShape(ev *model.Event, ord int, it *model.Item, data []byte) string {
	if data != nil {
		dt, _ := jsonscan.String(jsonscan.Path(data, "delta", "type"))
		if _, known := model.Explain(model.Shape{Dialect: Protocol.ID(), Type: "content_block_delta", Sub: dt}); known && dt != anthOther {
			return dt
		}
		return anthOther
	}
	switch {
	case ev.Kind == model.KindArgsDelta:
		return "input_json_delta"
	case it == nil:
		return anthOther
	}
	if _, _, ok := it.Sign.FragmentAt(ord); ok {
		return "signature_delta"
	}
	if _, _, ok := it.Text.FragmentAt(ord); ok {
		if it.Role == model.RoleReasoning {
			return "thinking_delta"
		}
		return "text_delta"
	}
	if it.Type == "text" {
		return "citations_delta"
	}
	return anthOther
}

// Explanations are the Anthropic rows of the explanations table (see
// Explanations in explain_table.go).
func (anthropicDialect) Explanations() []model.Explanation {
	anth := Protocol.ID()
	return []model.Explanation{
		// Anthropic Messages: the SDKs dispatch on the event: name.
		model.NewExplanation(anth, "message_start", "",
			"Opens a message: the first event, with an empty message snapshot.",
			"message.id, model, role assistant, content [] (already holding blocks with programmatic tool calling), usage.input_tokens.",
			"Starts the message; the SDK raises if any other event comes first.",
			"Another event first; a snapshot without content, stop_reason or usage (converters); no event: line.",
			"anthropic/first-not-message-start", "anthropic/event-name-missing"),
		model.NewExplanation(anth, "content_block_start", "text",
			"Opens text block index: part of the answer's visible text.",
			"index (0, 1, 2 … in order), content_block {type text, text \"\"}.",
			"Creates content[index]; text_delta events fill it.",
			"An index that skips or repeats; a block that starts while another is open.",
			"anthropic/index-not-dense", "anthropic/blocks-overlap"),
		model.NewExplanation(anth, "content_block_start", "tool_use",
			"Opens a client tool call: block index with the tool's id and name.",
			"content_block {type tool_use, id toolu_…, name, input {} (a placeholder)}.",
			"Creates the call; input_json_delta fragments build its input, parsed at content_block_stop.",
			"input already filled in and then repeated by the deltas; overlapping blocks; index gaps.",
			"anthropic/blocks-overlap", "anthropic/index-not-dense", "anthropic/stop-reason-tool-mismatch"),
		model.NewExplanation(anth, "content_block_start", "server_tool_use",
			"Opens a server tool call (web search, code execution …) that Anthropic runs itself.",
			"content_block {type server_tool_use, id srvtoolu_…, name, input {}}.",
			"Shows the call; its result comes as a *_tool_result block. The client runs nothing.",
			"Clients that run it as their own tool; a turn that ends with pause_turn, not tool_use.",
			"anthropic/stop-reason-tool-mismatch", "anthropic/blocks-overlap"),
		model.NewExplanation(anth, "content_block_start", "mcp_tool_use",
			"Opens a call to a remote MCP server's tool, run by Anthropic (the MCP connector).",
			"content_block {type mcp_tool_use, id mcptoolu_…, name, server_name, input}.",
			"Shows the call; an mcp_tool_result block follows. The client runs nothing.",
			"Clients that take it for one of their own tool calls.",
			"anthropic/blocks-overlap", "anthropic/index-not-dense"),
		model.NewExplanation(anth, "content_block_start", "thinking",
			"Opens a thinking block: extended-thinking reasoning, not part of the answer.",
			"content_block {type thinking, thinking \"\"}.",
			"Creates the block; thinking_delta fragments, then one signature_delta, fill it. The whole block goes back in the next turn.",
			"Thinking shown as the answer; the block closed without a signature.",
			"anthropic/thinking-signature-missing", "anthropic/blocks-overlap"),
		model.NewExplanation(anth, "content_block_start", "redacted_thinking",
			"Delivers a redacted thinking block, whole at its start: reasoning encrypted by the safety systems.",
			"content_block {type redacted_thinking, data (opaque)}.",
			"Keeps data and sends the block back verbatim in the next turn; shows nothing.",
			"Clients that keep only thinking blocks drop it, and the next turn fails.",
		),
		model.NewExplanation(anth, "content_block_start", anthToolResult,
			"Delivers a server tool's result (web_search_tool_result, code_execution_tool_result, mcp_tool_result …), whole at its start.",
			"content_block {type, tool_use_id, content}.",
			"Attaches the result to its server tool call; no delta follows.",
			"Parsers that know only text and tool_use blocks reject it.",
		),
		model.NewExplanation(anth, "content_block_start", anthOther,
			"Opens a block of a type this table does not know: the API adds block types over time.",
			"index, content_block.type.",
			"Keeps or skips the block without failing.",
			"Exhaustive parsers abort.",
			"anthropic/index-not-dense"),
		model.NewExplanation(anth, "content_block_delta", "text_delta",
			"Adds a fragment of text to text block index.",
			"index, delta {type text_delta, text}.",
			"Appends delta.text to content[index].text.",
			"A delta for a block never started or already stopped, or for a block of another type.",
			"anthropic/delta-unknown-block", "anthropic/delta-type-mismatch"),
		model.NewExplanation(anth, "content_block_delta", "input_json_delta",
			"Adds a fragment of a tool_use block's input: a piece of JSON text in partial_json.",
			"index, delta {type input_json_delta, partial_json}; the first is often \"\".",
			"Appends partial_json per block; parses the whole at content_block_stop (nothing at all means {}).",
			"A concatenation that does not parse at the stop (max_tokens, fine-grained streaming); a delta for an unknown block.",
			"anthropic/tool-input-invalid-json", "anthropic/delta-unknown-block", "anthropic/delta-type-mismatch"),
		model.NewExplanation(anth, "content_block_delta", "thinking_delta",
			"Adds a fragment of extended-thinking reasoning to thinking block index.",
			"index, delta {type thinking_delta, thinking}.",
			"Appends delta.thinking to the block and shows it apart from the answer.",
			"Thinking mixed into the answer; a thinking_delta on a text block; a signature carried here.",
			"anthropic/delta-type-mismatch", "anthropic/delta-unknown-block"),
		model.NewExplanation(anth, "content_block_delta", "signature_delta",
			"Delivers a thinking block's signature: one delta, just before its content_block_stop.",
			"index, delta {type signature_delta, signature} (opaque: replayed verbatim).",
			"Stores the signature with the block and sends both back in the next turn.",
			"A missing, empty or cut signature: the next request fails with 400.",
			"anthropic/thinking-signature-missing", "anthropic/delta-type-mismatch"),
		model.NewExplanation(anth, "content_block_delta", "citations_delta",
			"Attaches a citation to text block index (with citations on); adds no text. Without the event's data, a delta that adds nothing to a text block is taken for one.",
			"index, delta {type citations_delta, citation {type, cited_text, …}}.",
			"Appends the citation to the block's citations.",
			"Parsers that expect only text_delta on a text block.",
			"anthropic/delta-type-mismatch"),
		model.NewExplanation(anth, "content_block_delta", anthOther,
			"A delta of a type this table does not know: the API adds delta types over time.",
			"index, delta.type.",
			"Ignores the delta without failing.",
			"Exhaustive parsers abort; a delta that does not fit its block.",
			"anthropic/delta-type-mismatch", "anthropic/delta-unknown-block"),
		model.NewExplanation(anth, "content_block_stop", "",
			"Closes block index: no delta may follow for it.",
			"index.",
			"Finishes content[index]; the next block may start.",
			"A stop for a block never started or stopped twice; a block left open at message_delta.",
			"anthropic/delta-unknown-block", "anthropic/block-not-stopped"),
		model.NewExplanation(anth, "content_block_stop", "tool_use",
			"Closes a tool call's block: its input is complete now.",
			"index.",
			"Parses the concatenated partial_json (nothing at all means {}); the call is ready to run.",
			"Input that does not parse; no stop before message_delta.",
			"anthropic/tool-input-invalid-json", "anthropic/block-not-stopped", "anthropic/delta-unknown-block"),
		model.NewExplanation(anth, "content_block_stop", "thinking",
			"Closes a thinking block: its thinking and its signature are complete.",
			"index.",
			"Keeps the block whole, thinking and signature, for the next turn.",
			"A thinking block closed without a signature_delta.",
			"anthropic/thinking-signature-missing", "anthropic/block-not-stopped"),
		model.NewExplanation(anth, "message_delta", "",
			"Ends the message's content: the stop reason and final usage, after the last block stops.",
			"delta.stop_reason (end_turn, tool_use, max_tokens, pause_turn …), delta.stop_sequence, usage.output_tokens (cumulative).",
			"Records why generation stopped: tool_use means run the calls; max_tokens means their input may be cut.",
			"Missing; sent while a block is open; a stop_reason that disagrees with the tool_use blocks.",
			"anthropic/stop-reason-missing", "anthropic/block-not-stopped", "anthropic/stop-reason-tool-mismatch"),
		model.NewExplanation(anth, "message_stop", "",
			"Closes the message: the last event of the stream.",
			"none beyond type.",
			"Stops reading; the message is complete.",
			"Missing (the stream was cut), or events after it.",
			"anthropic/message-stop-missing", "anthropic/events-after-stop"),
		model.NewExplanation(anth, "ping", "",
			"Keeps the connection alive; it may come any number of times, anywhere, even between a block's deltas.",
			"none.",
			"Ignores it (the SDK skips event: ping).",
			"Clients that expect nothing but deltas between a block's start and stop.",
		),
		model.NewExplanation(anth, "error", "",
			"Reports an error mid-stream after HTTP 200 (overloaded_error, api_error): the message ends without message_stop.",
			"error {type, message}, sent with event: error.",
			"Raises it; the SDK dispatches on the event: name, so it needs event: error.",
			"An error sent under another event name is silently ignored.",
			"framing/error-payload", "anthropic/event-name-mismatch"),
		model.NewExplanation(anth, "message", "",
			"A whole message: the answer to a request made without stream: true.",
			"content[] with whole blocks (tool_use input as an object), stop_reason, usage.",
			"Reads content directly; there is nothing to assemble.",
			"A client that asked for a stream and cannot read a body.",
		),
		model.NewExplanation(anth, model.TypeNonStandard, "",
			"An event type outside the documented Messages stream.",
			"type.",
			"Ignores it: the docs say new event types may be added.",
			"Clients that fail on a type they do not know.",
			"anthropic/unknown-event"),
	}
}
