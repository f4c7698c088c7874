package chat

// This file teaches the OpenAI Chat Completions stream: the shape of each event (see
// Session.Shape) and the explanation of each shape.

import (
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Chat chunk shapes.
const (
	chatRole         = "role"
	chatContent      = "content"
	chatRefusal      = "refusal"
	chatReasoning    = "reasoning"
	chatCallFirst    = "tool_calls.first"
	chatCallMore     = "tool_calls.continuation"
	chatFunctionCall = "function_call"
	chatFinish       = "finish_reason"
	chatUsage        = "usage"
	chatEmpty        = "empty"
)

// Shape names what a Chat chunk carries.
func (chatDialect) Shape(s *model.Session, ev *model.Event, ord int, typ string, data []byte) model.Shape {
	if typ == "chat.completion" {
		return model.Shape{Dialect: Protocol.ID(), Type: typ}
	}
	sh := model.Shape{Dialect: Protocol.ID(), Type: TypeChunk}
	it := s.EventItem(ev)
	switch {
	case ev.Kind == model.KindError:
		sh.Sub = model.ShapeError
	case ev.Kind == model.KindItemOpen || ev.Kind == model.KindArgsDelta:
		switch {
		case it != nil && it.Type == "function_call": // the deprecated delta.function_call
			sh.Sub = chatFunctionCall
		case ev.Kind == model.KindItemOpen:
			sh.Sub = chatCallFirst
		default:
			sh.Sub = chatCallMore
		}
	case ev.Kind == model.KindItemDone:
		sh.Sub = chatFinish
	case ev.Kind == model.KindTextDelta && it != nil:
		sh.Sub = chatTextShape(it, ord)
	default:
		sh.Sub = chatQuietShape(s, ev, ord, data)
	}
	return sh
}

// chatTextShape tells which text a Chat chunk added to item it.
func chatTextShape(it *model.Item, ord int) string {
	if it.Role == model.RoleReasoning {
		return chatReasoning
	}
	if _, _, ok := it.Refusal.FragmentAt(ord); ok {
		return chatRefusal
	}
	if start, end, ok := it.Text.FragmentAt(ord); ok && start == end && it.Opened == ord {
		return chatRole // {"role":"assistant","content":""} opens the message
	}
	return chatContent
}

// chatQuietShape tells what a Chat chunk that added nothing carried: from
// its data when at hand, else from its place (the first chunk of a
// response carries the role; a later quiet one is the usage chunk).
func chatQuietShape(s *model.Session, ev *model.Event, ord int, data []byte) string {
	if data != nil {
		if u := jsonscan.Get(data, "usage"); !jsonscan.IsNull(u) {
			return chatUsage
		}
		role := false
		jsonscan.Elements(jsonscan.Get(data, "choices"), func(_ int, ch []byte) bool {
			role = !jsonscan.IsNull(jsonscan.Path(ch, "delta", "role"))
			return !role
		})
		if role {
			return chatRole
		}
		return chatEmpty
	}
	if r := s.ResponseAt(ord, ev.Dialect); r != nil && r.First == ord {
		return chatRole
	}
	return chatUsage
}

// Explanations are the Chat rows of the explanations table (see
// Explanations in explain_table.go).
func (chatDialect) Explanations() []model.Explanation {
	chat := Protocol.ID()
	return []model.Explanation{
		// OpenAI Chat Completions: every event is a chat.completion.chunk; the
		// shapes are what its choices[].delta carries.
		model.NewExplanation(chat, TypeChunk, chatRole,
			"Opens a choice's assistant message: the first chunk, with delta.role and content \"\" or null.",
			"id, created, model (the same on every chunk), choices[i].index, delta.role.",
			"Starts the choice's message; later deltas leave role out.",
			"id or model changing on later chunks; created changing per chunk.",
			"chat/identity-changed", "chat/created-changed"),
		model.NewExplanation(chat, TypeChunk, chatContent,
			"Adds a fragment of the assistant's text to choice index.",
			"choices[i].index, delta.content (a string; null means nothing).",
			"Appends delta.content to the choice's text.",
			"Text after the choice's finish_reason; null and empty deltas that strict clients reject.",
			"chat/delta-after-finish"),
		model.NewExplanation(chat, TypeChunk, chatRefusal,
			"Adds a fragment of a refusal: the model declined (structured outputs).",
			"choices[i].index, delta.refusal.",
			"Appends to the choice's refusal and shows it as one.",
			"Clients that read only content take a refusal for an empty answer.",
			"chat/delta-after-finish"),
		model.NewExplanation(chat, TypeChunk, chatReasoning,
			"Adds a fragment of reasoning: a vendor extra (reasoning_content on DeepSeek and vLLM, reasoning on OpenRouter), not an OpenAI field.",
			"delta.reasoning_content or delta.reasoning.",
			"Shows it apart from the answer and does not send it back as content.",
			"Reasoning mixed into content; SDK types that drop it silently.",
		),
		model.NewExplanation(chat, TypeChunk, chatCallFirst,
			"Opens a tool call: the first delta.tool_calls[] entry at a new index, with the call's id, type and function.name.",
			"tool_calls[k].index (required; 0, 1 … per choice), id, type function, function.name, function.arguments (often \"\").",
			"Starts call k of the choice; later entries with the same index continue it.",
			"No index, two calls at one index (Ollama), gaps in the indexes, id or name missing or sent only later.",
			"chat/tool-index-missing", "chat/tool-index-collision", "chat/tool-index-not-dense", "chat/tool-id-missing",
			"chat/tool-name-missing"),
		model.NewExplanation(chat, TypeChunk, chatCallMore,
			"Adds a fragment of a call's arguments: an entry at an index already open, with function.arguments only.",
			"tool_calls[k].index, function.arguments (a string, cut anywhere).",
			"Appends arguments to call k's; parses the whole when the choice finishes.",
			"id or name repeated (clients concatenate them into call_1call_1), \"\" ids, arguments as an object or re-sent whole.",
			"chat/tool-id-repeated", "chat/tool-id-empty", "chat/tool-name-changed", "chat/args-not-string", "chat/args-resent",
			"chat/args-invalid-json"),
		model.NewExplanation(chat, TypeChunk, chatFunctionCall,
			"A fragment of the deprecated delta.function_call: one call per choice, from before tool_calls.",
			"function_call.name (on the first chunk), function_call.arguments.",
			"Appends arguments; finish_reason function_call ends the call.",
			"Clients that read only tool_calls miss the call.",
			"chat/args-invalid-json"),
		model.NewExplanation(chat, TypeChunk, chatFinish,
			"Closes choice index: its finish_reason is set, and every call of the choice is complete.",
			"choices[i].finish_reason (stop, length, tool_calls, content_filter, function_call); the chunk may carry a last delta.",
			"Parses each call's concatenated arguments; runs the calls when the reason is tool_calls.",
			"stop although calls were sent, tool_calls without any, a reason repeated or non-standard, deltas after it.",
			"chat/stop-with-tool-calls", "chat/tool-calls-without-calls", "chat/finish-reason-repeated",
			"chat/finish-reason-nonstandard", "chat/delta-after-finish", "chat/finish-reason-missing"),
		model.NewExplanation(chat, TypeChunk, chatUsage,
			"Reports token usage: the stream_options.include_usage chunk, with choices [] and the full usage, just before [DONE].",
			"usage {prompt_tokens, completion_tokens, total_tokens}; choices is empty.",
			"Records the usage; must not read choices[0].",
			"Clients that crash on choices[0]; choices null or missing; usage on every chunk.",
		),
		model.NewExplanation(chat, TypeChunk, chatEmpty,
			"A chunk with nothing the assembly reads: no role, text, call or finish (Azure's prompt_filter_results chunk, an empty delta).",
			"vendor extras such as prompt_filter_results; choices may be [].",
			"Ignores it.",
			"Clients that index choices[0] or require id and model fail on it.",
			"chat/identity-changed"),
		model.NewExplanation(chat, TypeChunk, model.ShapeError,
			"Reports an error mid-stream: a payload with an error object instead of choices.",
			"error {message, type, code}.",
			"Raises it: the OpenAI SDK raises on any payload with a top-level error.",
			"Clients that read only choices take it for an empty chunk and end quietly.",
			"framing/error-payload"),
		model.NewExplanation(chat, model.TypeDone, "",
			"Ends a Chat Completions stream: the sentinel after the last chunk, not JSON.",
			"none: the data is the text [DONE].",
			"Stops reading.",
			"Missing (clients wait or hang), repeated, or followed by more data.",
			"chat/done-missing", "chat/data-after-done", "chat/finish-reason-missing"),
		model.NewExplanation(chat, "chat.completion", "",
			"A whole chat completion: the answer to a request made without stream: true.",
			"choices[i].message {content, tool_calls[] with whole arguments}, finish_reason, usage.",
			"Reads the message directly; there is nothing to assemble.",
			"A client that asked for a stream and cannot read a body.",
		),
	}
}
