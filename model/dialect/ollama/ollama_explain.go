package ollama

import (
	"github.com/streamtap/streamtap/model"
)

// This file teaches the Ollama stream: the shape of each line (see
// Session.Shape) and the explanation of each shape.

// Ollama line shapes: what a line carries. A line that does several things
// is named by the most telling (done, then a call, then thinking, then
// text), as the model ranks its kinds.
const (
	ollContent  = "content"    // message.content (/api/chat)
	ollResponse = "response"   // response (/api/generate)
	ollThinking = "thinking"   // message.thinking or thinking
	ollCalls    = "tool_calls" // whole calls
	ollDone     = "done"       // done:true, the last line
	ollEmpty    = "empty"      // a line that adds nothing
)

// Shape names what an Ollama line carries, from what the session kept:
// its kind and the item it touched.
func (ollamaDialect) Shape(s *model.Session, ev *model.Event, _ int, typ string, _ []byte) model.Shape {
	sh := model.Shape{Dialect: Protocol.ID(), Type: typ}
	switch ev.Kind {
	case model.KindError:
		sh.Sub = model.ShapeError
	case model.KindTerminal:
		sh.Sub = ollDone
	case model.KindItemOpen:
		sh.Sub = ollCalls
	case model.KindTextDelta:
		switch it := s.EventItem(ev); {
		case it != nil && it.Role == model.RoleReasoning:
			sh.Sub = ollThinking
		case typ == TypeOllamaGenerate:
			sh.Sub = ollResponse
		default:
			sh.Sub = ollContent
		}
	default:
		sh.Sub = ollEmpty
	}
	return sh
}

// Explanations are the Ollama rows of the explanations table (see
// Explanations in explain_table.go).
func (ollamaDialect) Explanations() []model.Explanation {
	oll := Protocol.ID()
	const (
		lineFields = "model, created_at, done: false"
		doneFields = "done: true, done_reason (stop, length, load, unload), total_duration, load_duration, prompt_eval_count, prompt_eval_duration, eval_count, eval_duration (nanoseconds)"
	)
	return []model.Explanation{
		// /api/chat: every line is a ChatResponse, message holding what it adds.
		model.NewExplanation(oll, TypeOllamaChat, ollContent,
			"Adds text to the assistant message: one NDJSON line of /api/chat, message.content a piece of the answer. Ollama sends no open or close events.",
			lineFields+", message {role: assistant, content}.",
			"Appends message.content; the text is complete at the done: true line.",
			"Clients that read the body as one JSON document, or as SSE, find no event.",
		),
		model.NewExplanation(oll, TypeOllamaChat, ollThinking,
			"Adds reasoning: message.thinking, sent when the request asked think: true; it comes before the answer, apart from it.",
			lineFields+", message {role, content (often \"\"), thinking}.",
			"Shows it apart from the answer; sends it back as the message's thinking if the model needs it.",
			"Thinking shown as the answer, or dropped by clients that read only content.",
		),
		model.NewExplanation(oll, TypeOllamaChat, ollCalls,
			"Delivers whole tool calls: message.tool_calls, each call complete in this one line, its arguments a JSON object (not a string, never in pieces).",
			lineFields+", message.tool_calls[] {id (newer servers), function {index (newer servers), name, arguments {…}}}.",
			"Collects every call of every line; runs each with arguments as they are; answers with a role: tool message (tool_name, and tool_call_id when the call had an id).",
			"arguments sent as a JSON string (an OpenAI habit) break ollama-python; a call cut across lines; clients that wait for done_reason tool_calls, which Ollama never sends.",
			"ollama/args-not-object", "ollama/call-split", "ollama/stop-with-tool-calls"),
		model.NewExplanation(oll, TypeOllamaChat, ollDone,
			"Ends the response: done: true with the reason and the counters; message is usually empty, but may carry the last text or calls. No [DONE] follows.",
			doneFields+", message.",
			"Stops reading; a tool call was made if any line carried one, whatever done_reason says (stop).",
			"Never sent (a cut stream: ollama-js throws); lines after it; done_reason tool_calls expected by OpenAI-minded translators.",
			"ollama/done-missing", "ollama/after-done", "ollama/done-reason-unknown", "ollama/stop-with-tool-calls"),
		model.NewExplanation(oll, TypeOllamaChat, ollEmpty,
			"A line that adds nothing the assembly reads: empty content, or only logprobs, while a tool call is being parsed.",
			lineFields+", message {role, content: \"\"}, logprobs.",
			"Nothing to do.",
			"Clients that treat an empty line's message as the end.",
		),
		model.NewExplanation(oll, TypeOllamaChat, model.ShapeError,
			"Reports a failure after the stream started: a line {\"error\": \"…\"} (the HTTP status is already 200); the server ends the stream with it.",
			"error (a string).",
			"Raises it (ollama-python ResponseError, ollama-js Error); keeps what came before.",
			"Clients that parse it as a response line and report an empty success.",
			"framing/error-payload"),

		// /api/generate: every line is a GenerateResponse, its text at the top.
		model.NewExplanation(oll, TypeOllamaGenerate, ollResponse,
			"Adds text to the completion: one NDJSON line of /api/generate, response a piece of it.",
			lineFields+", response.",
			"Appends response; the text is complete at the done: true line.",
			"Clients that read the body as one JSON document, or as SSE, find no event.",
		),
		model.NewExplanation(oll, TypeOllamaGenerate, ollThinking,
			"Adds reasoning: thinking, sent when the request asked think: true, before the response text.",
			lineFields+", response (often \"\"), thinking.",
			"Shows it apart from the response.",
			"Thinking shown as the response.",
		),
		model.NewExplanation(oll, TypeOllamaGenerate, ollCalls,
			"Delivers whole tool calls at the top level of a generate line (newer servers), each complete, its arguments a JSON object.",
			lineFields+", tool_calls[] {id, function {index, name, arguments {…}}}.",
			"Collects the calls and runs each with arguments as they are.",
			"arguments sent as a string; a call cut across lines.",
			"ollama/args-not-object", "ollama/call-split", "ollama/stop-with-tool-calls"),
		model.NewExplanation(oll, TypeOllamaGenerate, ollDone,
			"Ends the completion: done: true with the reason, the counters and context (the token ids to send back for a follow-up). No [DONE] follows.",
			doneFields+", context [token ids].",
			"Stops reading; keeps context if it continues the conversation this way.",
			"Never sent (a cut stream: ollama-js throws); lines after it.",
			"ollama/done-missing", "ollama/after-done", "ollama/done-reason-unknown"),
		model.NewExplanation(oll, TypeOllamaGenerate, ollEmpty,
			"A line that adds nothing the assembly reads: an empty response, or only logprobs.",
			lineFields+", response: \"\", logprobs.",
			"Nothing to do.",
			"Clients that treat an empty line as the end.",
		),
		model.NewExplanation(oll, TypeOllamaGenerate, model.ShapeError,
			"Reports a failure after the stream started: a line {\"error\": \"…\"} (the HTTP status is already 200); the server ends the stream with it.",
			"error (a string).",
			"Raises it; keeps what came before.",
			"Clients that parse it as a response line and report an empty success.",
			"framing/error-payload"),
	}
}
