// Package chat is the OpenAI Chat Completions dialect: chat.completion.chunk
// events keyed by choice and tool-call index, and whole chat.completion
// bodies. It holds the dialect's detection and assembly, its explanations
// and its rules (the chat/ rule ids). It imports no other dialect;
// model/dialects registers it.
package chat

import (
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// The notes a Chat chunk may bring (model.Note), for the chat/ rules.
const (
	// NoteMessageInChunk: a chunk's choice carries a whole message next to
	// its delta.
	NoteMessageInChunk = "message in chunk"
	// NoteNullArguments: a tool-call fragment sends "arguments": null.
	NoteNullArguments = "arguments"
	// NoteNullID, NoteNullType, NoteNullName: a fragment that continues a
	// call sends "id", "type" or "name": null.
	NoteNullID   = "id"
	NoteNullType = "type"
	NoteNullName = "name"
)

// TypeChunk is the type of a Chat Completions chunk: its object member.
const TypeChunk = "chat.completion.chunk"

// Protocol is the Chat Completions dialect, for model.Register.
var Protocol = new(chatDialect)

var _ model.FinishOutcomer = Protocol  // its finish reasons tell the outcome
var _ model.CompleteWithout = Protocol // complete without [DONE]

// chatDialect is OpenAI Chat Completions: chat.completion.chunk events
// keyed by choice and tool-call index, and whole chat.completion bodies.
type chatDialect struct{ model.Base }

func (*chatDialect) Info() model.DialectInfo {
	return model.DialectInfo{Name: "openai-chat", Short: "chat", Abbrev: []string{TypeChunk, "chat.chunk"}, // not "chunk": Bedrock's InvokeModel event type
		ShapeTypes: []string{TypeChunk}}
}

// ClaimShape takes a chunk or a whole completion by its object or its
// choices. Chat names no type of its own.
func (*chatDialect) ClaimShape(s *model.Session, _ string) bool {
	return jsonscan.Equal(s.Member(mObject), TypeChunk) || jsonscan.Equal(s.Member(mObject), "chat.completion") || s.Member(mChoices) != nil
}

func (*chatDialect) NewAssembly() model.Assembly { return new(chatState) }

// FinishOutcome reads a finish_reason: "length" is the max_tokens limit,
// "content_filter" a filter that withheld the rest of the answer.
func (*chatDialect) FinishOutcome(reason string) string {
	switch reason {
	case "length":
		return model.OutcomeIncomplete
	case "content_filter":
		return model.OutcomeBlocked
	}
	return ""
}

// FinishedWithout reports whether a completion that never got its data:
// [DONE] (Writer never sends one; a JSON-lines or whole body has none)
// was complete anyway: every choice it streamed has its finish_reason.
// The event that completed it is the last finish_reason.
func (*chatDialect) FinishedWithout(s *model.Session, r *model.Response) (int, bool) {
	if len(r.Finish) == 0 {
		return 0, false
	}
	ord := -1
	for _, cf := range r.Finish {
		ord = max(ord, cf.Reasons[len(cf.Reasons)-1].Ordinal)
	}
	for _, it := range s.ResponseItems(r.Index) {
		if r.FinishOf(it.Choice) == nil {
			return 0, false
		}
	}
	return ord, true
}

// chatState tracks an OpenAI Chat Completions stream: calls keyed by
// (choice, tool-call index), the message and reasoning text per choice.
type chatState struct {
	resp      *model.Response
	calls     map[[2]int]*model.Item
	all       []*model.Item       // every call of the response, including ones displaced at their index
	last      map[int]*model.Item // per choice, the call the latest fragment went to
	count     map[int]int         // per choice, calls started
	messages  map[int]*model.Item
	reasoning map[int]*model.Item
}

// Sentinel ends the completion at data: [DONE] when no whole
// chat.completion or terminal chunk did.
func (st *chatState) Sentinel(_ *model.Session, ord int) {
	if r := st.resp; r != nil && r.Terminal < 0 {
		r.Terminal = ord
		r.Status.Set(ord, "completed")
	}
}

func (st *chatState) response(s *model.Session, ord int) *model.Response {
	idRaw, _ := jsonscan.Raw(s.Member(mID)) // no allocation: this runs for every chunk
	if st.resp == nil || (st.resp.Terminal >= 0 && len(idRaw) > 0 && string(idRaw) != st.resp.ID) {
		st.resp = s.NewResponse(Protocol.ID(), ord)
		st.resp.ID = model.StringOf(s.Member(mID))
		st.calls, st.last, st.count = map[[2]int]*model.Item{}, map[int]*model.Item{}, map[int]int{}
		st.all = nil
		st.messages, st.reasoning = map[int]*model.Item{}, map[int]*model.Item{}
	}
	r := st.resp
	if r.ID == "" && len(idRaw) > 0 {
		r.ID = model.StringOf(s.Member(mID))
	}
	if r.Model == "" && len(s.Member(mModel)) > 2 {
		r.Model = model.StringOf(s.Member(mModel))
	}
	return r
}

// Event applies a chunk, or a whole chat.completion body.
func (st *chatState) Event(s *model.Session, ev *model.Event, _ string, _ []byte, ord int) {
	r := st.response(s, ord)
	r.Status.Set(ord, "in_progress")
	whole := jsonscan.Equal(s.Member(mObject), "chat.completion")
	kind := model.KindLifecycle
	if s.Member(mError) != nil && !jsonscan.IsNull(s.Member(mError)) {
		s.ErrorEvent(ev, s.Member(mError), ord)
		r.Status.Set(ord, "error")
	}
	s.JSON().Elements(s.Member(mChoices), func(pos int, ch []byte) bool {
		var index, delta, finish []byte
		s.JSON().Members(ch, func(k, v []byte) bool {
			switch string(k) {
			case "index":
				if index == nil { // the first, as Get reads it
					index = v
				}
			case "delta":
				if !whole {
					delta = v
				}
			case "message":
				if whole {
					delta = v
				} else if jsonscan.Kind(v) == '{' {
					s.AddNote(-1, NoteMessageInChunk)
				}
			case "finish_reason":
				finish = v
			}
			return true
		})
		ci := model.IntOr(index, pos)
		s.JSON().Members(delta, func(k, v []byte) bool {
			switch string(k) {
			case "content":
				if jsonscan.Kind(v) == '"' {
					kind.Raise(model.KindTextDelta)
					it := st.text(s, st.messages, ci, model.RoleMessage, "message", ev, ord)
					it.Text.AddString(ord, v)
				}
			case "refusal":
				if jsonscan.Kind(v) == '"' {
					kind.Raise(model.KindTextDelta)
					it := st.text(s, st.messages, ci, model.RoleMessage, "message", ev, ord)
					it.RefusalBuffer().AddString(ord, v)
				}
			case "reasoning_content", "reasoning":
				if jsonscan.Kind(v) == '"' {
					kind.Raise(model.KindTextDelta)
					it := st.text(s, st.reasoning, ci, model.RoleReasoning, "reasoning", ev, ord)
					it.Text.AddString(ord, v)
				}
			case "tool_calls":
				s.JSON().Elements(v, func(i int, entry []byte) bool {
					def := -1
					if whole {
						def = i
					}
					kind.Raise(st.toolCall(s, ev, r, ci, def, entry, ord))
					return true
				})
			case "function_call":
				if !jsonscan.IsNull(v) && !zeroValued(s, v) {
					kind.Raise(st.legacyCall(s, ev, r, ci, v, ord))
				}
			}
			return true
		})
		if !jsonscan.IsNull(finish) {
			kind.Raise(model.KindItemDone)
			reason := model.StringOf(finish)
			r.AddFinish(ci, ord, reason)
			for _, c := range st.all {
				if c.Choice == ci && c.Closed < 0 {
					c.Close(ord)
					c.Status.Set(ord, "completed")
				}
			}
			if m := st.messages[ci]; m != nil && m.Closed < 0 {
				m.Close(ord)
				m.Status.Set(ord, "completed")
			}
		}
		return true
	})
	if whole {
		kind = model.KindTerminal
		r.Terminal = ord
		r.Status.Set(ord, "completed")
	}
	if ev.Kind != model.KindError {
		ev.Kind = kind
	}
}

// text returns the choice's message or reasoning item, starting it.
func (st *chatState) text(s *model.Session, m map[int]*model.Item, ci int, role model.ItemRole, typ string, ev *model.Event, ord int) *model.Item {
	it := m[ci]
	if it == nil {
		it = s.NewItem(Protocol.ID(), role, typ, ord)
		it.Choice, it.Opened = ci, ord
		it.Status.Set(ord, "in_progress")
		m[ci] = it
	}
	it.Touch(ord)
	if ev.Item < 0 {
		ev.Item = int32(it.Index)
	}
	return it
}

// toolCall applies one delta.tool_calls[] entry. Fragments are keyed by
// (choice, index); a different id at an open index starts a new call (the
// "all calls at index 0" defect would otherwise merge them); an entry
// without an index continues the choice's latest call unless it names
// another id.
func (st *chatState) toolCall(s *model.Session, ev *model.Event, r *model.Response, ci, def int, entry []byte, ord int) model.Kind {
	var idxV, idV, nameV, argsV, typeV []byte
	hasID, hasName := false, false
	s.JSON().Members(entry, func(k, v []byte) bool {
		switch string(k) {
		case "index":
			idxV = v
		case "type":
			typeV = v
		case "id":
			idV, hasID = v, !jsonscan.IsNull(v)
		case "function":
			s.JSON().Members(v, func(k, v []byte) bool {
				switch string(k) {
				case "name":
					nameV, hasName = v, !jsonscan.IsNull(v)
				case "arguments":
					argsV = v
				}
				return true
			})
		}
		return true
	})
	id, name := model.StringOf(idV), model.StringOf(nameV)
	n, hasIdx := jsonscan.Int(idxV)
	idx := int(n)
	var it *model.Item
	if hasIdx {
		it = st.calls[[2]int{ci, idx}]
	} else {
		ev.Flags |= model.Matched
		if last := st.last[ci]; def < 0 && last != nil && (id == "" || id == last.CallID) {
			it, idx = last, last.Position
		} else if def >= 0 {
			idx = def
		} else {
			idx = st.count[ci]
		}
	}
	if it != nil && id != "" && it.CallID != "" && id != it.CallID {
		it = nil // a new call at an index already in use
	}
	opened := it == nil
	if opened {
		it = s.NewItem(Protocol.ID(), model.RoleCall, "function", ord)
		it.Response, it.Choice, it.Position, it.Opened = r.Index, ci, idx, ord
		it.CallID, it.Name = id, name
		it.Status.Set(ord, "in_progress")
		st.calls[[2]int{ci, idx}] = it
		st.all = append(st.all, it)
		st.count[ci]++
		if !hasIdx {
			it.RecordID(ord, "index", "", "missing")
		}
	} else {
		// Record every id and name on a continuation fragment, even equal or
		// empty ones: clients concatenate them.
		if hasID {
			it.RecordID(ord, "id", it.CallID, id)
		}
		if hasName {
			it.RecordID(ord, "name", it.Name, name)
		}
		if it.CallID == "" {
			it.CallID = id
		}
		if it.Name == "" {
			it.Name = name
		}
	}
	it.Touch(ord)
	st.last[ci] = it
	if ev.Item < 0 || opened {
		ev.Item = int32(it.Index)
	}
	// Members sent as null, which clients that concatenate turn into
	// "null": the arguments on any fragment, the identity on the fragments
	// after the first (on the first, a missing id or name is its own rule).
	if string(argsV) == "null" {
		s.AddNote(it.Index, NoteNullArguments)
	}
	if !opened {
		for _, m := range [...]struct {
			v    []byte
			what string
		}{{idV, NoteNullID}, {typeV, NoteNullType}, {nameV, NoteNullName}} {
			if string(m.v) == "null" {
				s.AddNote(it.Index, m.what)
			}
		}
	}
	if argsV != nil && !jsonscan.IsNull(argsV) {
		it.Deltas++
		if jsonscan.Kind(argsV) == '"' {
			it.Args.AddString(ord, argsV)
		} else {
			it.RecordID(ord, "arguments", "", "not a string")
			it.Args.Add(ord, []byte(model.CompactJSON(argsV)))
		}
	}
	if opened {
		return model.KindItemOpen
	}
	return model.KindArgsDelta
}

// zeroValued reports whether an object holds nothing but empty strings and
// nulls: a server that serialises a struct's zero value sends
// "function_call": {"name": "", "arguments": ""} on a message that calls
// nothing (Snowflake Cortex does), which is no call.
func zeroValued(s *model.Session, v []byte) bool {
	zero := true
	s.JSON().Members(v, func(_, m []byte) bool {
		zero = string(m) == `""` || jsonscan.IsNull(m)
		return zero
	})
	return zero && jsonscan.Kind(v) == '{'
}

// legacyCall applies a deprecated delta.function_call.
func (st *chatState) legacyCall(s *model.Session, ev *model.Event, r *model.Response, ci int, v []byte, ord int) model.Kind {
	key := [2]int{ci, -1}
	it := st.calls[key]
	kind := model.KindArgsDelta
	if it == nil {
		it = s.NewItem(Protocol.ID(), model.RoleCall, "function_call", ord)
		it.Response, it.Choice, it.Opened = r.Index, ci, ord
		it.Status.Set(ord, "in_progress")
		st.calls[key] = it
		st.all = append(st.all, it)
		kind = model.KindItemOpen
	}
	if name := model.StringOf(s.JSON().Get(v, "name")); name != "" && it.Name == "" {
		it.Name = name
	}
	if a := s.JSON().Get(v, "arguments"); jsonscan.Kind(a) == '"' {
		it.Deltas++
		it.Args.AddString(ord, a)
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	return kind
}
