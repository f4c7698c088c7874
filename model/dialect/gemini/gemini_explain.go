package gemini

import (
	"github.com/streamtap/streamtap/model"
)

// This file teaches the Gemini stream: the shape of each event (see
// Session.Shape) and the explanation of each shape.

// Gemini chunk shapes.
const (
	gemText      = "text"
	gemThought   = "thought"
	gemCall      = "functionCall"
	gemCallStart = "functionCall.start"
	gemPartial   = "partialArgs"
	gemCallEnd   = "functionCall.end"
	gemFinish    = "finishReason"
	gemNoParts   = "usageMetadata"
)

// Shape names what a Gemini chunk carries. The last chunk of a candidate
// often carries its last part beside finishReason: a call opened or ended
// there is named by the call, which is what a client acts on.
func (geminiDialect) Shape(s *model.Session, ev *model.Event, ord int, _ string, _ []byte) model.Shape {
	sh := model.Shape{Dialect: Protocol.ID(), Type: TypeGemini}
	it := s.EventItem(ev)
	switch ev.Kind {
	case model.KindError:
		sh.Sub = model.ShapeError
	case model.KindTerminal:
		sh.Sub = gemFinish
		if it != nil && it.IsCall() {
			streamed, ended := Ended(it)
			switch {
			case it.Opened == ord && streamed:
				sh.Sub = gemCallStart
			case it.Opened == ord:
				sh.Sub = gemCall
			case it.Closed == ord && ended:
				sh.Sub = gemCallEnd
			}
		}
	case model.KindItemOpen:
		sh.Sub = gemCall
		if it != nil {
			if streamed, _ := Ended(it); streamed {
				sh.Sub = gemCallStart
			}
		}
	case model.KindArgsDelta:
		sh.Sub = gemPartial
	case model.KindArgsDone:
		sh.Sub = gemCallEnd
	case model.KindTextDelta:
		sh.Sub = gemText
		if it != nil && it.Role == model.RoleReasoning {
			sh.Sub = gemThought
		}
	default:
		sh.Sub = gemNoParts
	}
	return sh
}

// Explanations are the Gemini rows of the explanations table (see
// Explanations in explain_table.go).
func (geminiDialect) Explanations() []model.Explanation {
	gem := Protocol.ID()
	return []model.Explanation{
		// Gemini streamGenerateContent: every event is a GenerateContentResponse;
		// the shapes are what its candidates' parts carry.
		model.NewExplanation(gem, TypeGemini, gemText,
			"Adds text to candidate index's answer: a text part. Gemini sends no open or close events.",
			"candidates[i].content.parts[].text; usageMetadata may ride along.",
			"Appends the text to the candidate's answer.",
			"Clients that read only parts[0] miss later parts.",
		),
		model.NewExplanation(gem, TypeGemini, gemThought,
			"Adds a thought summary: a text part marked thought: true, reasoning rather than answer.",
			"parts[].text, parts[].thought, thoughtSignature.",
			"Shows it apart from the answer; keeps thoughtSignature for the next turn.",
			"Thoughts shown as the answer.",
		),
		model.NewExplanation(gem, TypeGemini, gemCall,
			"Delivers a whole function call in one part: the name and args as a JSON object, no deltas; often in the last chunk, beside finishReason.",
			"parts[].functionCall {name, args, id (optional)}, thoughtSignature.",
			"Runs the call with args as they are; sends thoughtSignature back with it.",
			"args sent as a JSON string (an OpenAI habit); no id to pair the result by.",
			"gemini/args-not-object"),
		model.NewExplanation(gem, TypeGemini, gemCallStart,
			"Opens a streamed function call (Vertex streamFunctionCallArguments): the name with willContinue: true; partialArgs follow.",
			"functionCall {name, willContinue true, partialArgs (maybe)}.",
			"Starts the call; collects partialArgs until the empty functionCall {} ends it.",
			"A call still continuing when its candidate finishes; no end marker.",
			"gemini/partial-args-unterminated", "gemini/partial-args-no-end-marker"),
		model.NewExplanation(gem, TypeGemini, gemPartial,
			"Adds argument values to a streamed call: each partialArgs entry is a value at a JSON path, not a piece of text.",
			"functionCall.partialArgs[] {jsonPath, stringValue | numberValue | boolValue | nullValue, willContinue}, functionCall.willContinue.",
			"Sets each value at its jsonPath; a string with willContinue goes on in the next entry for the same path.",
			"Clients that concatenate partialArgs as text; a call left continuing.",
			"gemini/partial-args-unterminated"),
		model.NewExplanation(gem, TypeGemini, gemCallEnd,
			"Closes a streamed function call: the empty functionCall {} end marker, in a chunk of its own before the next call opens, or in the last chunk beside finishReason.",
			"functionCall {}.",
			"The call's arguments are complete: runs it.",
			"Never sent: clients that wait for it lose the call.",
			"gemini/partial-args-no-end-marker"),
		model.NewExplanation(gem, TypeGemini, gemFinish,
			"Closes candidate index: finishReason is set (STOP, MAX_TOKENS, SAFETY …); the last chunk, usually with the full usageMetadata.",
			"candidates[i].finishReason, usageMetadata; possibly a last part.",
			"Ends the candidate and runs its function calls; Gemini sends no [DONE].",
			"A streamed call still continuing when it arrives.",
			"gemini/partial-args-unterminated"),
		model.NewExplanation(gem, TypeGemini, gemNoParts,
			"A chunk with no part the assembly reads: usageMetadata, promptFeedback, or an empty part.",
			"usageMetadata {promptTokenCount, candidatesTokenCount, totalTokenCount}, promptFeedback.blockReason.",
			"Records the usage; a blockReason means the prompt was refused.",
			"Clients that expect candidates[0] in every chunk.",
		),
		model.NewExplanation(gem, TypeGemini, model.ShapeError,
			"Reports an error in the stream: an error object instead of candidates.",
			"error {code, message, status}.",
			"Raises it.",
			"Clients that take it for an empty chunk.",
			"framing/error-payload"),
	}
}
