package model

import (
	"github.com/streamtap/streamtap/model/jsonscan"
)

// TypeChunk is the type of a Chat Completions chunk: its object member.
const TypeChunk = "chat.completion.chunk"

// chatDialect is OpenAI Chat Completions: chat.completion.chunk events
// keyed by choice and tool-call index, and whole chat.completion bodies.
type chatDialect struct{ noHooks }

func (*chatDialect) info() DialectInfo {
	return DialectInfo{Name: "openai-chat", Short: "chat", Abbrev: []string{TypeChunk, "chat.chunk"}} // not "chunk": Bedrock's InvokeModel event type
}

// claimShape takes a chunk or a whole completion by its object or its
// choices. Chat names no type of its own.
func (*chatDialect) claimShape(s *Session, _ string) bool {
	t := &s.top
	return jsonscan.Equal(t.object, TypeChunk) || jsonscan.Equal(t.object, "chat.completion") || t.choices != nil
}

func (*chatDialect) newState() dialectState { return new(chatState) }

// finishOutcome reads a finish_reason: "length" is the max_tokens limit,
// "content_filter" a filter that withheld the rest of the answer.
func (*chatDialect) finishOutcome(reason string) string {
	switch reason {
	case "length":
		return OutcomeIncomplete
	case "content_filter":
		return OutcomeBlocked
	}
	return ""
}

// finishedWithout reports whether a completion that never got its data:
// [DONE] (Writer never sends one; a JSON-lines or whole body has none)
// was complete anyway: every choice it streamed has its finish_reason.
// The event that completed it is the last finish_reason.
func (*chatDialect) finishedWithout(s *Session, r *Response) (int, bool) {
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
	resp      *Response
	calls     map[[2]int]*Item
	all       []*Item       // every call of the response, including ones displaced at their index
	last      map[int]*Item // per choice, the call the latest fragment went to
	count     map[int]int   // per choice, calls started
	messages  map[int]*Item
	reasoning map[int]*Item
}

// sentinel ends the completion at data: [DONE] when no whole
// chat.completion or terminal chunk did.
func (st *chatState) sentinel(_ *Session, ord int) {
	if r := st.resp; r != nil && r.Terminal < 0 {
		r.Terminal = ord
		r.Status.Set(ord, "completed")
	}
}

// rank orders kinds when one chunk does several things: the timeline shows
// the most telling one.
func rank(k Kind) int {
	switch k {
	case KindError:
		return 6
	case KindTerminal:
		return 5
	case KindItemOpen:
		return 4
	case KindArgsDelta:
		return 3
	case KindItemDone:
		return 2
	case KindTextDelta:
		return 1
	}
	return 0
}

func raise(k *Kind, to Kind) {
	if rank(to) > rank(*k) {
		*k = to
	}
}

func (st *chatState) response(s *Session, ord int) *Response {
	idRaw, _ := jsonscan.Raw(s.top.id) // no allocation: this runs for every chunk
	if st.resp == nil || (st.resp.Terminal >= 0 && len(idRaw) > 0 && string(idRaw) != st.resp.ID) {
		st.resp = s.NewResponse(DialectChat, ord)
		st.resp.ID = StringOf(s.top.id)
		st.calls, st.last, st.count = map[[2]int]*Item{}, map[int]*Item{}, map[int]int{}
		st.all = nil
		st.messages, st.reasoning = map[int]*Item{}, map[int]*Item{}
	}
	r := st.resp
	if r.ID == "" && len(idRaw) > 0 {
		r.ID = StringOf(s.top.id)
	}
	if r.Model == "" && len(s.top.model) > 2 {
		r.Model = StringOf(s.top.model)
	}
	return r
}

// event applies a chunk, or a whole chat.completion body.
func (st *chatState) event(s *Session, ev *Event, _ string, _ []byte, ord int) {
	t := &s.top
	r := st.response(s, ord)
	r.Status.Set(ord, "in_progress")
	whole := jsonscan.Equal(t.object, "chat.completion")
	kind := KindLifecycle
	if t.err != nil && !jsonscan.IsNull(t.err) {
		s.ErrorEvent(ev, t.err, ord)
		r.Status.Set(ord, "error")
	}
	s.idx.Elements(t.choices, func(pos int, ch []byte) bool {
		var index, delta, finish []byte
		s.idx.Members(ch, func(k, v []byte) bool {
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
		ci := IntOr(index, pos)
		s.idx.Members(delta, func(k, v []byte) bool {
			switch string(k) {
			case "content":
				if jsonscan.Kind(v) == '"' {
					raise(&kind, KindTextDelta)
					it := st.text(s, st.messages, ci, RoleMessage, "message", ev, ord)
					it.Text.AddString(ord, v)
				}
			case "refusal":
				if jsonscan.Kind(v) == '"' {
					raise(&kind, KindTextDelta)
					it := st.text(s, st.messages, ci, RoleMessage, "message", ev, ord)
					it.RefusalBuffer().AddString(ord, v)
				}
			case "reasoning_content", "reasoning":
				if jsonscan.Kind(v) == '"' {
					raise(&kind, KindTextDelta)
					it := st.text(s, st.reasoning, ci, RoleReasoning, "reasoning", ev, ord)
					it.Text.AddString(ord, v)
				}
			case "tool_calls":
				s.idx.Elements(v, func(i int, entry []byte) bool {
					def := -1
					if whole {
						def = i
					}
					raise(&kind, st.toolCall(s, ev, r, ci, def, entry, ord))
					return true
				})
			case "function_call":
				if !jsonscan.IsNull(v) && !zeroValued(s, v) {
					raise(&kind, st.legacyCall(s, ev, r, ci, v, ord))
				}
			}
			return true
		})
		if !jsonscan.IsNull(finish) {
			raise(&kind, KindItemDone)
			reason := StringOf(finish)
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
		kind = KindTerminal
		r.Terminal = ord
		r.Status.Set(ord, "completed")
	}
	if ev.Kind != KindError {
		ev.Kind = kind
	}
}

// text returns the choice's message or reasoning item, starting it.
func (st *chatState) text(s *Session, m map[int]*Item, ci int, role ItemRole, typ string, ev *Event, ord int) *Item {
	it := m[ci]
	if it == nil {
		it = s.NewItem(DialectChat, role, typ, ord)
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
func (st *chatState) toolCall(s *Session, ev *Event, r *Response, ci, def int, entry []byte, ord int) Kind {
	var idxV, idV, nameV, argsV, typeV []byte
	hasID, hasName := false, false
	s.idx.Members(entry, func(k, v []byte) bool {
		switch string(k) {
		case "index":
			idxV = v
		case "type":
			typeV = v
		case "id":
			idV, hasID = v, !jsonscan.IsNull(v)
		case "function":
			s.idx.Members(v, func(k, v []byte) bool {
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
	id, name := StringOf(idV), StringOf(nameV)
	n, hasIdx := jsonscan.Int(idxV)
	idx := int(n)
	var it *Item
	if hasIdx {
		it = st.calls[[2]int{ci, idx}]
	} else {
		ev.Flags |= Matched
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
		it = s.NewItem(DialectChat, RoleCall, "function", ord)
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
			it.Args.Add(ord, []byte(CompactJSON(argsV)))
		}
	}
	if opened {
		return KindItemOpen
	}
	return KindArgsDelta
}

// zeroValued reports whether an object holds nothing but empty strings and
// nulls: a server that serialises a struct's zero value sends
// "function_call": {"name": "", "arguments": ""} on a message that calls
// nothing (Snowflake Cortex does), which is no call.
func zeroValued(s *Session, v []byte) bool {
	zero := true
	s.idx.Members(v, func(_, m []byte) bool {
		zero = string(m) == `""` || jsonscan.IsNull(m)
		return zero
	})
	return zero && jsonscan.Kind(v) == '{'
}

// legacyCall applies a deprecated delta.function_call.
func (st *chatState) legacyCall(s *Session, ev *Event, r *Response, ci int, v []byte, ord int) Kind {
	key := [2]int{ci, -1}
	it := st.calls[key]
	kind := KindArgsDelta
	if it == nil {
		it = s.NewItem(DialectChat, RoleCall, "function_call", ord)
		it.Response, it.Choice, it.Opened = r.Index, ci, ord
		it.Status.Set(ord, "in_progress")
		st.calls[key] = it
		st.all = append(st.all, it)
		kind = KindItemOpen
	}
	if name := StringOf(s.idx.Get(v, "name")); name != "" && it.Name == "" {
		it.Name = name
	}
	if a := s.idx.Get(v, "arguments"); jsonscan.Kind(a) == '"' {
		it.Deltas++
		it.Args.AddString(ord, a)
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	return kind
}
