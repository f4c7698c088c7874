package bedrock

import (
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// The whole bodies of the non-streaming InvokeModel. A text model answers
// InvokeModel with one JSON body of its own shape, which is one of its
// stream's chunks grown to the whole answer: the text and the stop reason,
// with no base64 around it. Claude's Messages body and Nova's Converse
// body are claimed by the Anthropic and Converse dialects; the bodies
// below are read here, each as one chunk that ends its response.

// TypeInvokeResponse is the type given to a whole, non-streaming
// InvokeModel body of a text model, which names none (Claude 2's names
// itself "completion").
const TypeInvokeResponse = "(invoke response)"

// FamilyJurassic is the family only a whole body has: AI21 Jurassic-2
// does not stream. Its body holds completions[] {data.text,
// finishReason.reason}.
const FamilyJurassic = "jurassic"

// wholeInvoke tells the family of the event being added, a JSON body
// outside an event stream, when it has the whole-body shape of a text
// model's InvokeModel answer, or "". Each shape is told by the members
// only it has, its text a string and its stop reason present:
//
//	Titan    inputTextTokenCount, results[0].outputText, results[0].completionReason
//	Llama    generation, prompt_token_count, generation_token_count, stop_reason
//	Mistral  outputs[0].text, outputs[0].stop_reason
//	Cohere   generations[0].text, generations[0].finish_reason
//	Jurassic completions[0].data.text, completions[0].finishReason.reason
//	Claude 2 completion, stop_reason (beside type "completion", or no type)
//
// Any other type member rules a body out (every typed dialect's events
// have one), as does a body that lacks a shape's key: a line holding a
// generation and nothing else is no Llama answer. So does
// amazon-bedrock-invocationMetrics, which only a stream's last chunk
// carries (a whole answer's metrics are response headers): a stream's
// chunks saved as lines are not taken for bodies. It runs only for an
// event no other dialect claimed, and walks its top members once.
func wholeInvoke(s *model.Session) string {
	if s.Data() == nil {
		return ""
	}
	typed := s.Member(mType) != nil
	if typed && !jsonscan.Equal(s.Member(mType), "completion") {
		return ""
	}
	var m struct {
		inputCount, results, generation, promptCount, genCount, stop,
		outputs, generations, completions, completion []byte
		metrics bool
	}
	s.JSON().Members(s.Data(), func(k, v []byte) bool {
		switch string(k) {
		case "inputTextTokenCount":
			m.inputCount = v
		case "results":
			m.results = v
		case "generation":
			m.generation = v
		case "prompt_token_count":
			m.promptCount = v
		case "generation_token_count":
			m.genCount = v
		case "stop_reason":
			m.stop = v
		case "outputs":
			m.outputs = v
		case "generations":
			m.generations = v
		case "completions":
			m.completions = v
		case "completion":
			m.completion = v
		case "amazon-bedrock-invocationMetrics":
			m.metrics = true
		}
		return true
	})
	isString := func(v []byte) bool { return jsonscan.Kind(v) == '"' }
	first := func(arr []byte) []byte {
		if jsonscan.Kind(arr) != '[' {
			return nil
		}
		if f := firstElement(s, arr); jsonscan.Kind(f) == '{' {
			return f
		}
		return nil
	}
	switch {
	case m.metrics:
	case isString(m.completion):
		if isString(m.stop) {
			return FamilyClaudeText
		}
	case typed:
	case isString(m.generation):
		if isString(m.stop) && m.promptCount != nil && m.genCount != nil {
			return FamilyLlama
		}
	case m.inputCount != nil:
		if f := first(m.results); f != nil && isString(s.JSON().Get(f, "outputText")) && isString(s.JSON().Get(f, "completionReason")) {
			return FamilyTitan
		}
	case m.outputs != nil:
		if f := first(m.outputs); f != nil && isString(s.JSON().Get(f, "text")) && isString(s.JSON().Get(f, "stop_reason")) {
			return FamilyMistral
		}
	case m.generations != nil:
		if f := first(m.generations); f != nil && isString(s.JSON().Get(f, "text")) && isString(s.JSON().Get(f, "finish_reason")) {
			return FamilyCohere
		}
	case m.completions != nil:
		if f := first(m.completions); f != nil && isString(s.JSON().Path(f, "data", "text")) &&
			isString(s.JSON().Path(f, "finishReason", "reason")) {
			return FamilyJurassic
		}
	}
	return ""
}

// whole applies a whole InvokeModel body of a text model (its family
// told by wholeInvoke): one chunk that carries the whole text and ends
// its response, the stop reason giving the outcome as a chunk's does.
func (st *invokeState) whole(s *model.Session, ev *model.Event, ord int) {
	st.chunk = Chunk{Family: wholeInvoke(s)}
	ev.Type = s.Intern([]byte(TypeInvokeResponse))
	st.resp = nil // a body is a response of its own, whatever came before
	st.textChunk(s, ev, s.Data(), ord, true)
	st.resp.Created = ord
}
