// Package gemini is the Gemini dialect (generateContent and
// streamGenerateContent, the Gemini API's and Vertex AI's): chunks of
// candidates whose parts carry text and function calls. It holds the
// dialect's detection and assembly, its explanations and its rules (the
// gemini/ rule ids). It imports no other dialect; model/dialects registers
// it.
package gemini

import (
	"strings"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// TypeGemini is the type given to a Gemini chunk, which names none.
const TypeGemini = "(gemini chunk)"

// Protocol is the Gemini dialect, for model.Register.
var Protocol = new(geminiDialect)

var _ model.FinishOutcomer = Protocol // its finish reasons tell the outcome

// geminiDialect is Gemini's streamGenerateContent: chunks that are each a
// GenerateContentResponse, as SSE events (alt=sse) or one JSON array.
type geminiDialect struct{ model.Base }

func (*geminiDialect) Info() model.DialectInfo {
	return model.DialectInfo{Name: "gemini", Short: "gemini", ArgsRebuilt: true, ShapeTypes: []string{TypeGemini}}
}

// ClaimShape takes a chunk by the members only a GenerateContentResponse
// has. Gemini names no type of its own.
func (*geminiDialect) ClaimShape(s *model.Session, _ string) bool {
	return s.Member(mCandidates) != nil || s.Member(mUsageMeta) != nil || s.Member(mPromptFeedback) != nil
}

func (*geminiDialect) NewAssembly() model.Assembly { return new(gemState) }

// FinishOutcome reads a candidate's finishReason
// (https://ai.google.dev/api/generate-content#FinishReason, and Vertex's
// MODEL_ARMOR): MAX_TOKENS is the limit; the reasons that say the
// candidate was flagged (safety, recitation, a blocklist, prohibited
// content, personal data, an unsupported language, Model Armor, and their
// image counterparts) are blocks. A malformed or unexpected call, OTHER
// and NO_IMAGE end the candidate without a block.
func (*geminiDialect) FinishOutcome(reason string) string {
	switch reason {
	case "MAX_TOKENS":
		return model.OutcomeIncomplete
	case "SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MODEL_ARMOR",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return model.OutcomeBlocked
	}
	return ""
}

// Array applies the chunks of an array body: the elements with candidates,
// or with the promptFeedback of a prompt refused before any candidate.
func (*geminiDialect) Array(s *model.Session, ev *model.Event, data []byte, ord int) bool {
	var st *gemState
	s.JSON().Elements(data, func(_ int, v []byte) bool {
		if s.JSON().Get(v, "candidates") != nil || s.JSON().Get(v, "promptFeedback") != nil {
			if st == nil {
				st = s.Assembly(Protocol.ID()).(*gemState)
			}
			st.chunk(s, ev, v, ord)
		}
		return true
	})
	if st == nil {
		return false
	}
	ev.Type = s.Intern([]byte(TypeGemini))
	return true
}

// gemState tracks a Gemini streamGenerateContent stream: per candidate, its
// text, its reasoning and the call whose partialArgs are streaming.
type gemState struct {
	resp      *model.Response
	open      map[int]*model.Item
	texts     map[int]*model.Item
	reasoning map[int]*model.Item
	calls     int
	model.NoSentinel
}

func (st *gemState) response(s *model.Session, ord int) *model.Response {
	if st.resp == nil || st.resp.Terminal >= 0 {
		st.resp = s.NewResponse(Protocol.ID(), ord)
		st.open, st.texts, st.reasoning = map[int]*model.Item{}, map[int]*model.Item{}, map[int]*model.Item{}
	}
	return st.resp
}

func (st *gemState) Event(s *model.Session, ev *model.Event, _ string, data []byte, ord int) {
	st.chunk(s, ev, data, ord)
}

// chunk applies one chunk (a GenerateContentResponse).
func (st *gemState) chunk(s *model.Session, ev *model.Event, chunk []byte, ord int) {
	r := st.response(s, ord)
	if ev.Type == 0 {
		ev.Type = s.Intern([]byte(TypeGemini))
	}
	kind := model.KindLifecycle
	var finished bool
	s.JSON().Members(chunk, func(k, v []byte) bool {
		switch string(k) {
		case "responseId":
			if r.ID == "" {
				r.ID = model.StringOf(v)
			}
		case "modelVersion":
			if r.Model == "" {
				r.Model = model.StringOf(v)
			}
		case "error":
			s.ErrorEvent(ev, v, ord)
			kind = model.KindError
		case "promptFeedback":
			// A prompt refused outright: no candidate follows, and this
			// chunk ends the response.
			if br := s.JSON().Get(v, "blockReason"); !jsonscan.IsNull(br) {
				finished = true
				r.AddFinish(model.PromptChoice, ord, model.StringOf(br))
			}
		case "candidates":
			s.JSON().Elements(v, func(pos int, cand []byte) bool {
				ci := model.IntOr(s.JSON().Get(cand, "index"), pos)
				s.JSON().Elements(s.JSON().Path(cand, "content", "parts"), func(_ int, part []byte) bool {
					kind.Raise(st.part(s, ev, r, ci, part, ord))
					return true
				})
				if fr := s.JSON().Get(cand, "finishReason"); !jsonscan.IsNull(fr) {
					finished = true
					r.AddFinish(ci, ord, model.StringOf(fr))
					if it := st.open[ci]; it != nil {
						st.close(it, ord)
						delete(st.open, ci)
					}
				}
				return true
			})
		}
		return true
	})
	r.Status.Set(ord, "in_progress")
	if finished && kind != model.KindError {
		kind = model.KindTerminal
		r.Terminal = ord
		r.Status.Set(ord, "completed")
	}
	ev.Kind = kind
}

func (st *gemState) text(s *model.Session, m map[int]*model.Item, role model.ItemRole, typ string, r *model.Response, ci, ord int) *model.Item {
	it := m[ci]
	if it == nil {
		it = s.NewItem(Protocol.ID(), role, typ, ord)
		it.Response, it.Choice, it.Opened = r.Index, ci, ord
		m[ci] = it
	}
	it.Touch(ord)
	return it
}

func (st *gemState) part(s *model.Session, ev *model.Event, r *model.Response, ci int, part []byte, ord int) model.Kind {
	var text, fc []byte
	thought := false
	s.JSON().Members(part, func(k, v []byte) bool {
		switch string(k) {
		case "text":
			text = v
		case "thought":
			thought = string(v) == "true"
		case "functionCall":
			fc = v
		}
		return true
	})
	if fc == nil {
		if len(text) <= 2 { // absent or ""
			return model.KindLifecycle
		}
		m, role, typ := st.texts, model.RoleMessage, "text"
		if thought {
			m, role, typ = st.reasoning, model.RoleReasoning, "thought"
		}
		it := st.text(s, m, role, typ, r, ci, ord)
		it.Text.AddString(ord, text)
		if ev.Item < 0 {
			ev.Item = int32(it.Index)
		}
		return model.KindTextDelta
	}
	call := ReadFunctionCall(fc)
	name, id, args, partial, cont := call.Name, call.ID, call.Args, call.PartialArgs, call.WillContinue
	it := st.open[ci]
	kind := model.KindArgsDelta
	if len(name) > 2 {
		if it != nil { // a new call while one is streaming: close it
			st.close(it, ord)
		}
		it = s.NewItem(Protocol.ID(), model.RoleCall, "functionCall", ord)
		it.Response, it.Choice, it.Position, it.Opened = r.Index, ci, st.calls, ord
		it.Name, it.CallID = model.StringOf(name), model.StringOf(id)
		it.Status.Set(ord, "in_progress")
		st.calls++
		kind = model.KindItemOpen
		delete(st.open, ci)
		if args != nil {
			it.Args.Add(ord, []byte(model.CompactJSON(args)))
			it.Deltas++
		} else {
			it.SetPathArgs(&model.PathArgs{})
		}
	}
	if it == nil { // partialArgs or an end marker with no call open
		ev.Flags |= model.Orphan
		it = s.NewItem(Protocol.ID(), model.RoleCall, "functionCall", ord)
		it.Response, it.Choice, it.Position = r.Index, ci, st.calls
		it.SetPathArgs(&model.PathArgs{})
		st.calls++
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	if partial != nil && it.PathArgs() != nil {
		addPartial(it.PathArgs(), ord, partial)
		it.Deltas++
	}
	switch {
	case len(name) <= 2 && partial == nil && args == nil && !cont:
		// functionCall: {} ends a partialArgs stream.
		if it.PathArgs() != nil {
			it.PathArgs().Ended = true
		}
		st.close(it, ord)
		return model.KindArgsDone
	case cont:
		// A bare {"willContinue":true} (Vertex sends one between the
		// objects of an array) carries nothing but keeps the call open.
		st.open[ci] = it
	default:
		st.close(it, ord)
		delete(st.open, ci)
	}
	return kind
}

// FunctionCall is the raw members of a Gemini functionCall part, each nil
// when absent. The model assembles from it; model/checks judges it.
type FunctionCall struct {
	Name, ID, Args, PartialArgs []byte
	WillContinue                bool
}

// ReadFunctionCall reads a functionCall part in one walk.
func ReadFunctionCall(fc []byte) FunctionCall {
	var c FunctionCall
	jsonscan.Members(fc, func(k, v []byte) bool {
		switch string(k) {
		case "name":
			c.Name = v
		case "id":
			c.ID = v
		case "args":
			c.Args = v
		case "partialArgs":
			c.PartialArgs = v
		case "willContinue":
			c.WillContinue = string(v) == "true"
		}
		return true
	})
	return c
}

func (st *gemState) close(it *model.Item, ord int) {
	if it.Closed < 0 {
		it.Close(ord)
		it.Status.Set(ord, "completed")
	}
	for ci, o := range st.open {
		if o == it {
			delete(st.open, ci)
		}
	}
}

// Ended reports, for a Gemini call streamed with partialArgs, whether the
// explicit end marker (an empty functionCall) arrived.
func Ended(it *model.Item) (streamed, ended bool) {
	if it.PathArgs() == nil {
		return false, false
	}
	return true, it.PathArgs().Ended
}

// addPartial records a part's partialArgs: each a value at a JSON path
// (stringValue, numberValue, …), a string possibly continued by the next.
func addPartial(g *model.PathArgs, ord int, partial []byte) {
	jsonscan.Elements(partial, func(_ int, pa []byte) bool {
		op := model.PathOp{Ord: ord}
		jsonscan.Members(pa, func(k, v []byte) bool {
			switch key := string(k); key {
			case "jsonPath":
				op.Path = model.StringOf(v)
			case "willContinue":
				op.Cont = string(v) == "true"
			case "stringValue":
				op.IsStr, op.Str = true, jsonscan.Unquote(nil, v)
			case "nullValue":
				op.Raw = []byte("null")
			default:
				if strings.HasSuffix(key, "Value") {
					op.Raw = []byte(model.CompactJSON(v))
				}
			}
			return true
		})
		g.Ops = append(g.Ops, op)
		return true
	})
}
