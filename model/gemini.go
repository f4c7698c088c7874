package model

import (
	"strings"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// TypeGemini is the type given to a Gemini chunk, which names none.
const TypeGemini = "(gemini chunk)"

// geminiDialect is Gemini's streamGenerateContent: chunks that are each a
// GenerateContentResponse, as SSE events (alt=sse) or one JSON array.
type geminiDialect struct{ noHooks }

func (*geminiDialect) info() DialectInfo {
	return DialectInfo{Name: "gemini", Short: "gemini", ArgsRebuilt: true}
}

// claimShape takes a chunk by the members only a GenerateContentResponse
// has. Gemini names no type of its own.
func (*geminiDialect) claimShape(s *Session, _ string) bool {
	t := &s.top
	return t.candidates != nil || t.usageMeta != nil || t.promptFeedback != nil
}

func (*geminiDialect) newState() dialectState { return new(gemState) }

// finishOutcome reads a candidate's finishReason
// (https://ai.google.dev/api/generate-content#FinishReason, and Vertex's
// MODEL_ARMOR): MAX_TOKENS is the limit; the reasons that say the
// candidate was flagged (safety, recitation, a blocklist, prohibited
// content, personal data, an unsupported language, Model Armor, and their
// image counterparts) are blocks. A malformed or unexpected call, OTHER
// and NO_IMAGE end the candidate without a block.
func (*geminiDialect) finishOutcome(reason string) string {
	switch reason {
	case "MAX_TOKENS":
		return OutcomeIncomplete
	case "SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MODEL_ARMOR",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return OutcomeBlocked
	}
	return ""
}

// array applies the chunks of an array body: the elements with candidates,
// or with the promptFeedback of a prompt refused before any candidate.
func (*geminiDialect) array(s *Session, ev *Event, data []byte, ord int) bool {
	var st *gemState
	s.idx.Elements(data, func(_ int, v []byte) bool {
		if s.idx.Get(v, "candidates") != nil || s.idx.Get(v, "promptFeedback") != nil {
			if st == nil {
				st = s.state(DialectGemini).(*gemState)
			}
			st.chunk(s, ev, v, ord)
		}
		return true
	})
	if st == nil {
		return false
	}
	ev.Type = s.types.id([]byte(TypeGemini))
	return true
}

// gemState tracks a Gemini streamGenerateContent stream: per candidate, its
// text, its reasoning and the call whose partialArgs are streaming.
type gemState struct {
	resp      *Response
	open      map[int]*Item
	texts     map[int]*Item
	reasoning map[int]*Item
	calls     int
	noHooks
}

func (st *gemState) response(s *Session, ord int) *Response {
	if st.resp == nil || st.resp.Terminal >= 0 {
		st.resp = s.NewResponse(DialectGemini, ord)
		st.open, st.texts, st.reasoning = map[int]*Item{}, map[int]*Item{}, map[int]*Item{}
	}
	return st.resp
}

func (st *gemState) event(s *Session, ev *Event, _ string, data []byte, ord int) {
	st.chunk(s, ev, data, ord)
}

// chunk applies one chunk (a GenerateContentResponse).
func (st *gemState) chunk(s *Session, ev *Event, chunk []byte, ord int) {
	r := st.response(s, ord)
	if ev.Type == 0 {
		ev.Type = s.types.id([]byte(TypeGemini))
	}
	kind := KindLifecycle
	var finished bool
	s.idx.Members(chunk, func(k, v []byte) bool {
		switch string(k) {
		case "responseId":
			if r.ID == "" {
				r.ID = StringOf(v)
			}
		case "modelVersion":
			if r.Model == "" {
				r.Model = StringOf(v)
			}
		case "error":
			s.ErrorEvent(ev, v, ord)
			kind = KindError
		case "promptFeedback":
			// A prompt refused outright: no candidate follows, and this
			// chunk ends the response.
			if br := s.idx.Get(v, "blockReason"); !jsonscan.IsNull(br) {
				finished = true
				r.AddFinish(PromptChoice, ord, StringOf(br))
			}
		case "candidates":
			s.idx.Elements(v, func(pos int, cand []byte) bool {
				ci := IntOr(s.idx.Get(cand, "index"), pos)
				s.idx.Elements(s.idx.Path(cand, "content", "parts"), func(_ int, part []byte) bool {
					raise(&kind, st.part(s, ev, r, ci, part, ord))
					return true
				})
				if fr := s.idx.Get(cand, "finishReason"); !jsonscan.IsNull(fr) {
					finished = true
					r.AddFinish(ci, ord, StringOf(fr))
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
	if finished && kind != KindError {
		kind = KindTerminal
		r.Terminal = ord
		r.Status.Set(ord, "completed")
	}
	ev.Kind = kind
}

func (st *gemState) text(s *Session, m map[int]*Item, role ItemRole, typ string, r *Response, ci, ord int) *Item {
	it := m[ci]
	if it == nil {
		it = s.NewItem(DialectGemini, role, typ, ord)
		it.Response, it.Choice, it.Opened = r.Index, ci, ord
		m[ci] = it
	}
	it.Touch(ord)
	return it
}

func (st *gemState) part(s *Session, ev *Event, r *Response, ci int, part []byte, ord int) Kind {
	var text, fc []byte
	thought := false
	s.idx.Members(part, func(k, v []byte) bool {
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
			return KindLifecycle
		}
		m, role, typ := st.texts, RoleMessage, "text"
		if thought {
			m, role, typ = st.reasoning, RoleReasoning, "thought"
		}
		it := st.text(s, m, role, typ, r, ci, ord)
		it.Text.AddString(ord, text)
		if ev.Item < 0 {
			ev.Item = int32(it.Index)
		}
		return KindTextDelta
	}
	call := ReadFunctionCall(fc)
	name, id, args, partial, cont := call.Name, call.ID, call.Args, call.PartialArgs, call.WillContinue
	it := st.open[ci]
	kind := KindArgsDelta
	if len(name) > 2 {
		if it != nil { // a new call while one is streaming: close it
			st.close(it, ord)
		}
		it = s.NewItem(DialectGemini, RoleCall, "functionCall", ord)
		it.Response, it.Choice, it.Position, it.Opened = r.Index, ci, st.calls, ord
		it.Name, it.CallID = StringOf(name), StringOf(id)
		it.Status.Set(ord, "in_progress")
		st.calls++
		kind = KindItemOpen
		delete(st.open, ci)
		if args != nil {
			it.Args.Add(ord, []byte(CompactJSON(args)))
			it.Deltas++
		} else {
			it.paths = &PathArgs{}
		}
	}
	if it == nil { // partialArgs or an end marker with no call open
		ev.Flags |= Orphan
		it = s.NewItem(DialectGemini, RoleCall, "functionCall", ord)
		it.Response, it.Choice, it.Position = r.Index, ci, st.calls
		it.paths = &PathArgs{}
		st.calls++
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	if partial != nil && it.paths != nil {
		it.paths.addPartial(ord, partial)
		it.Deltas++
	}
	switch {
	case len(name) <= 2 && partial == nil && args == nil && !cont:
		// functionCall: {} ends a partialArgs stream.
		if it.paths != nil {
			it.paths.Ended = true
		}
		st.close(it, ord)
		return KindArgsDone
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

func (st *gemState) close(it *Item, ord int) {
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

// GeminiEnded reports, for a Gemini call streamed with partialArgs, whether
// the explicit end marker (an empty functionCall) arrived.
func (it *Item) GeminiEnded() (streamed, ended bool) {
	if it.paths == nil {
		return false, false
	}
	return true, it.paths.Ended
}

// addPartial records a part's partialArgs: each a value at a JSON path
// (stringValue, numberValue, …), a string possibly continued by the next.
func (g *PathArgs) addPartial(ord int, partial []byte) {
	jsonscan.Elements(partial, func(_ int, pa []byte) bool {
		op := PathOp{Ord: ord}
		jsonscan.Members(pa, func(k, v []byte) bool {
			switch key := string(k); key {
			case "jsonPath":
				op.Path = StringOf(v)
			case "willContinue":
				op.Cont = string(v) == "true"
			case "stringValue":
				op.IsStr, op.Str = true, jsonscan.Unquote(nil, v)
			case "nullValue":
				op.Raw = []byte("null")
			default:
				if strings.HasSuffix(key, "Value") {
					op.Raw = []byte(CompactJSON(v))
				}
			}
			return true
		})
		g.Ops = append(g.Ops, op)
		return true
	})
}
