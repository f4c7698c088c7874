package gemini

import (
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// gemChecks follows Gemini function calls streamed as partialArgs
// (Vertex streamFunctionCallArguments): a part with the name and
// willContinue, parts with partialArgs, then an empty functionCall {} as
// the end marker.
type gemChecks struct {
	open map[int]*callFacts // by candidate index
	checks.Base
}

type callFacts struct {
	name  string
	start int
	cont  bool // the latest part said willContinue
	ord   int  // the latest part's event
}

func (gc *gemChecks) Observe(c *checks.Checker, s *model.Session, ord int, _ *model.Event, f *capture.Frame) {
	if gc.open == nil {
		gc.open = map[int]*callFacts{}
	}
	chunk := func(v []byte) {
		s.JSON().Elements(s.JSON().Get(v, "candidates"), func(pos int, cand []byte) bool {
			ci := pos
			if n, ok := jsonscan.Int(s.JSON().Get(cand, "index")); ok {
				ci = int(n)
			}
			s.JSON().Elements(s.JSON().Path(cand, "content", "parts"), func(_ int, part []byte) bool {
				if fc := s.JSON().Get(part, "functionCall"); fc != nil {
					gc.part(c, ci, fc, ord)
				}
				return true
			})
			if !jsonscan.IsNull(s.JSON().Get(cand, "finishReason")) {
				gc.end(c, ci, ord, "its candidate finishes")
			}
			return true
		})
	}
	if jsonscan.Kind(f.Data) == '[' {
		s.JSON().Elements(f.Data, func(_ int, v []byte) bool { chunk(v); return true })
	} else {
		chunk(f.Data)
	}
}

func (gc *gemChecks) part(c *checks.Checker, ci int, fc []byte, ord int) {
	part := ReadFunctionCall(fc)
	name, args, partial, cont := part.Name, part.Args, part.PartialArgs, part.WillContinue
	if args != nil && jsonscan.Kind(args) != '{' {
		c.Add(gArgsNotObject, []int{ord}, "functionCall %s at event %d: args %s is not a JSON object", checks.Quote(model.StringOf(name)), ord, checks.QuoteBytes(args))
	}
	switch {
	case len(name) > 2:
		gc.end(c, ci, ord, "another call starts")
		if cont && args == nil {
			gc.open[ci] = &callFacts{name: model.StringOf(name), start: ord, cont: true, ord: ord}
		}
	case partial != nil || (cont && args == nil):
		// partialArgs, or a bare {"willContinue":true} that only keeps
		// the call open.
		if call := gc.open[ci]; call != nil {
			call.cont, call.ord = cont, ord
		}
	case args == nil:
		delete(gc.open, ci) // functionCall {}: the end marker
	}
}

// end closes a candidate's streamed call for a reason other than its
// end marker.
func (gc *gemChecks) end(c *checks.Checker, ci, ord int, why string) {
	call := gc.open[ci]
	if call == nil {
		return
	}
	delete(gc.open, ci)
	if call.cont {
		c.Add(gUnterminated, []int{call.start, call.ord, ord}, "call %s (event %d) still says willContinue at event %d when %s (event %d); its arguments may be cut off",
			checks.Quote(call.name), call.start, call.ord, why, ord)
		return
	}
	c.Add(gNoEndMarker, []int{call.start, call.ord, ord}, "call %s (event %d) ends with its last partialArgs (event %d) and no functionCall {} end marker before %s (event %d)",
		checks.Quote(call.name), call.start, call.ord, why, ord)
}

// geminiFinishReasons are the documented values of a candidate's finishReason:
// the Gemini API's FinishReason
// (https://ai.google.dev/api/generate-content#FinishReason) and Vertex AI's,
// which adds MODEL_ARMOR
// (https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/GenerateContentResponse#FinishReason).
var geminiFinishReasons = map[string]bool{
	"FINISH_REASON_UNSPECIFIED": true, "STOP": true, "MAX_TOKENS": true, "SAFETY": true, "RECITATION": true,
	"LANGUAGE": true, "OTHER": true, "BLOCKLIST": true, "PROHIBITED_CONTENT": true, "SPII": true,
	"MALFORMED_FUNCTION_CALL": true, "MODEL_ARMOR": true, "IMAGE_SAFETY": true, "IMAGE_PROHIBITED_CONTENT": true,
	"IMAGE_RECITATION": true, "IMAGE_OTHER": true, "UNEXPECTED_TOOL_CALL": true, "NO_IMAGE": true,
	"TOO_MANY_TOOL_CALLS": true, "MISSING_THOUGHT_SIGNATURE": true, "MALFORMED_RESPONSE": true,
}

// checkFinish reports the geminiFinishReasons of a response's candidates that
// are not documented values: SDKs that read it as an enum fail on it or
// take it for a normal end, and no outcome can be read from it.
func checkFinish(out *checks.Checker, r *model.Response) {
	for _, cf := range r.Finish {
		if cf.Choice == model.PromptChoice {
			continue // a blockReason, not a candidate's finishReason
		}
		var evs []int
		var vals []string
		for _, ch := range cf.Reasons {
			if !geminiFinishReasons[ch.Value] {
				evs = append(evs, ch.Ordinal)
				if v := checks.Quote(ch.Value); !slices.Contains(vals, v) {
					vals = append(vals, v)
				}
			}
		}
		if len(evs) > 0 {
			out.Add(gFinishOdd, evs, "candidate %d: finishReason %s on %s; not a documented FinishReason value", cf.Choice,
				strings.Join(vals, ", "), checks.Plural(len(evs), "chunk"))
		}
	}
}

func (gc *gemChecks) Finish(out *checks.Checker, s *model.Session, _ bool) {
	for _, r := range s.Responses {
		if r.Dialect == Protocol.ID() {
			checkFinish(out, r)
		}
	}
	if ended, _ := s.Ended(); !ended {
		return
	}
	keys := slices.Sorted(func(yield func(int) bool) {
		for k := range gc.open {
			if !yield(k) {
				return
			}
		}
	})
	for _, ci := range keys {
		call := gc.open[ci]
		if call.cont {
			out.Add(gUnterminated, []int{call.start, call.ord}, "call %s (event %d) still says willContinue at event %d when the stream ends",
				checks.Quote(call.name), call.start, call.ord)
		} else {
			out.Add(gNoEndMarker, []int{call.start, call.ord}, "call %s (event %d) ends with its last partialArgs (event %d) and no functionCall {} end marker before the stream ends",
				checks.Quote(call.name), call.start, call.ord)
		}
	}
}
