package bedrock

import (
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// This file assembles the chunks of the text families of
// InvokeModelWithResponseStream (Claude's Text Completions, Titan, Llama,
// Cohere, Mistral, AI21 Jamba): each chunk a piece of text and, on the
// last, a stop reason, the model's own JSON with no events around it.

// generation is one of a text response's generations (Cohere's
// num_generations, the n of a choices family): its text, and whether its
// own stop reason came.
type generation struct {
	text *model.Item
	done bool
}

// textPaths are where an element of a chunk's array (outputs, generations,
// choices, results, completions) holds its text.
var textPaths = [][]string{{"text"}, {"outputText"}, {"delta", "content"}, {"message", "content"}, {"data", "text"}}

// textChunk applies a chunk of a family that streams text and a stop
// reason. A chunk's text is its top-level outputText, generation, text or
// completion, of the generation its index names (Cohere numbers them when
// num_generations > 1), or in the elements of its array, each of the
// generation its own index names (else its place). The chunk with a stop
// reason of the whole response, a guardrail's intervention or the
// invocation metrics (every family's last chunk carries
// amazon-bedrock-invocationMetrics) ends the response; so does one whose
// elements' stop reasons leave no generation running, and a whole body
// (whole), which is such a chunk holding the whole answer: Titan's and
// Jurassic's in results[] and completions[], Claude 2's as completion.
func (st *invokeState) textChunk(s *model.Session, ev *model.Event, inner []byte, ord int, whole bool) {
	if st.resp == nil || st.resp.Terminal >= 0 {
		st.resp = s.NewResponse(Invoke.ID(), ord)
		st.resp.Status.Set(ord, "in_progress")
		clear(st.gens)
	}
	r := st.resp
	ev.Kind, ev.Item = model.KindLifecycle, -1
	var text, stop, arr []byte
	gen := 0
	blocked, last := false, whole
	s.JSON().Members(inner, func(k, v []byte) bool {
		switch string(k) {
		case "outputText", "generation", "text", "completion":
			text = v
		case "completionReason", "stop_reason", "finish_reason":
			if jsonscan.Kind(v) == '"' {
				stop = v
			}
		case "index":
			if n, ok := jsonscan.Int(v); ok && n >= 0 && n <= maxGeneration {
				gen = int(n)
			}
		case "outputs", "generations", "choices", "results", "completions":
			arr = v
		case "amazon-bedrock-guardrailAction":
			blocked = jsonscan.Equal(v, "INTERVENED")
		case "amazon-bedrock-invocationMetrics":
			last = true
		}
		return true
	})
	if jsonscan.Kind(text) == '"' {
		st.addText(s, ev, r, gen, text, ord)
	}
	var elemStop string
	s.JSON().Elements(arr, func(i int, e []byte) bool {
		g := i
		if n, ok := jsonscan.Int(s.JSON().Get(e, "index")); ok && n >= 0 && n <= maxGeneration {
			g = int(n)
		}
		st.generation(g)
		for _, p := range textPaths {
			if t := s.JSON().Path(e, p...); jsonscan.Kind(t) == '"' {
				st.addText(s, ev, r, g, t, ord)
				break
			}
		}
		if reason := elementStop(s, e); reason != "" {
			r.AddFinish(g, ord, reason)
			st.gens[g].done = true
			elemStop = reason
		}
		return true
	})
	if stop == nil && !blocked && !last && (elemStop == "" || st.running()) {
		return
	}
	ev.Kind = model.KindTerminal
	reason := ""
	if stop != nil {
		reason = model.StringOf(stop)
	}
	if blocked {
		reason = "guardrail_intervened"
	}
	if reason != "" {
		r.AddFinish(0, ord, reason)
	}
	st.end(r, reason, blocked, ord)
}

// FinishOutcome says what a text family's stop reason means: its
// generations' reasons, each recorded as its choice's, are weighed as
// Chat's choices are (the worst decides).
func (*invokeDialect) FinishOutcome(reason string) string {
	if o := stopStatus(reason); o != model.OutcomeCompleted {
		return o
	}
	return ""
}

// maxGeneration bounds the generation indexes read: Cohere streams at
// most 5, a choices family a few; a chunk naming generation 1e12 is no
// reason to keep a text per index up to it.
const maxGeneration = 1 << 10

// elementStop is the stop reason an array element states, or "".
func elementStop(s *model.Session, e []byte) string {
	if v := s.JSON().Path(e, "finishReason", "reason"); jsonscan.Kind(v) == '"' {
		return model.StringOf(v)
	}
	for _, key := range []string{"finish_reason", "stop_reason", "completionReason"} {
		if v := s.JSON().Get(e, key); jsonscan.Kind(v) == '"' {
			return model.StringOf(v)
		}
	}
	return ""
}

// generation returns generation g of the response being assembled,
// making its record.
func (st *invokeState) generation(g int) *generation {
	if st.gens == nil {
		st.gens = map[int]*generation{}
	}
	if st.gens[g] == nil {
		st.gens[g] = new(generation)
	}
	return st.gens[g]
}

// running reports whether a generation of the response has not stopped.
func (st *invokeState) running() bool {
	for _, g := range st.gens {
		if !g.done {
			return true
		}
	}
	return false
}

// addText appends text, a JSON string, to generation g's text, whose
// item it makes at its first piece (an empty piece makes none): a message
// of choice g, so that the report gives one text per generation.
func (st *invokeState) addText(s *model.Session, ev *model.Event, r *model.Response, g int, text []byte, ord int) {
	gr := st.generation(g)
	if len(text) <= 2 {
		return
	}
	if gr.text == nil {
		gr.text = s.NewItem(Invoke.ID(), model.RoleMessage, "text", ord)
		gr.text.Response, gr.text.Choice, gr.text.Position, gr.text.Opened = r.Index, g, 0, ord
		gr.text.Status.Set(ord, "in_progress")
	}
	ev.Kind = model.KindTextDelta
	gr.text.Text.AddString(ord, text)
	gr.text.Touch(ord)
	if ev.Item < 0 {
		ev.Item = int32(gr.text.Index)
	}
}

// end ends the text response at event ord: its status from the stop
// reason of the whole response, reason (or the guardrail); the
// generations' own reasons are weighed by FinishOutcome. Each
// generation's text is closed.
func (st *invokeState) end(r *model.Response, reason string, blocked bool, ord int) {
	r.Terminal, r.Final = ord, ord
	status := stopStatus(reason)
	if blocked {
		status = model.OutcomeBlocked
	}
	r.Status.Set(ord, status)
	for _, g := range st.gens {
		if g.text != nil && g.text.Closed < 0 {
			g.text.Close(ord)
			g.text.Status.Set(ord, "completed")
		}
	}
}

// metricsChunk applies a chunk of Bedrock's members alone: the
// invocation metrics AI21 Jamba sends after its last chunk. It ends the
// text response when that is still open, and is part of it otherwise.
func (st *invokeState) metricsChunk(ev *model.Event, ord int) {
	ev.Kind = model.KindLifecycle
	if r := st.resp; r != nil && r.Terminal < 0 {
		ev.Kind = model.KindTerminal
		st.end(r, "", false, ord)
	}
}
