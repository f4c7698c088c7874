// Package bedrock is Amazon Bedrock's two streaming dialects, ConverseStream
// and InvokeModelWithResponseStream, and their whole bodies. They share a
// package because Amazon Nova's InvokeModel chunks are Converse events,
// assembled by the Converse assembly; the Anthropic events other chunks
// carry are handed to the Anthropic dialect through the core (model.Lookup
// and model.NewAssembly), so the package imports no other dialect. It
// holds both dialects' detection and assembly, their explanations and
// their rules (the bedrock/ and invoke/ rule ids); model/dialects
// registers them.
package bedrock

import (
	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Converse is Bedrock's ConverseStream dialect, and Invoke its
// InvokeModelWithResponseStream, for model.Register.
var (
	Converse = new(converseDialect)
	Invoke   = new(invokeDialect)

	_ model.Wrapper = Invoke // its chunks carry another dialect's events
)

// converseDialect is Amazon Bedrock's ConverseStream: AWS event stream
// messages (capture's EventStream frames) typed by their :event-type
// header, each payload the bare event body: messageStart, content blocks
// by contentBlockIndex (contentBlockStart only for tool use and tool
// results: a text or reasoning block begins with its first delta),
// contentBlockDelta, contentBlockStop, messageStop with the stopReason,
// then metadata with usage and latency. Every payload carries a "p"
// member of random length (padding against length analysis), which
// nothing reads.
type converseDialect struct{ model.Base }

func (*converseDialect) Info() model.DialectInfo {
	return model.DialectInfo{Name: "bedrock-converse", Short: "bedrock", Abbrev: []string{"contentBlock", "block"}}
}

// ClaimShape takes an event stream message of a Converse type, an
// exception unless the stream is an InvokeModel one, and any other event
// of a stream already Converse (flagged non-standard). Its types are
// claimed only on event stream frames: an SSE event named "metadata" is
// no Converse event. Outside an event stream it takes a whole Converse
// response (see wholeConverse).
func (*converseDialect) ClaimShape(s *model.Session, typ string) bool {
	if s.Current().Frame&capture.EventStream == 0 {
		return wholeConverse(s)
	}
	return converseType(typ) || s.Current().Frame&capture.Exception != 0 && s.LastDialect() != Invoke.ID() ||
		s.LastDialect() == Converse.ID()
}

func (*converseDialect) NewAssembly() model.Assembly { return new(converseState) }

// TypeConverseResponse is the type given to a whole, non-streaming
// Converse response, which names none.
const TypeConverseResponse = "(converse response)"

// wholeConverse reports whether the event being added, outside an event
// stream, is the body the Converse API answers with (and InvokeModel with
// Amazon Nova, whose body is the same): a top-level stopReason string
// beside output.message. No other dialect's body has a camelCase stopReason at
// its top (a ConverseStream messageStop payload has one, but comes in an
// event stream message), so output is looked up only then.
func wholeConverse(s *model.Session) bool {
	if jsonscan.Kind(s.Member(mConverseStop)) != '"' || s.Member(mType) != nil {
		return false
	}
	out := s.JSON().Get(s.Data(), "output")
	return jsonscan.Kind(out) == '{' && jsonscan.Kind(s.JSON().Get(out, "message")) == '{'
}

// converseType reports the ConverseStream event types.
func converseType(typ string) bool {
	switch typ {
	case "messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata":
		return true
	}
	return false
}

// converseState tracks a ConverseStream: content blocks by index. It also
// assembles the Converse-shaped events of Amazon Nova inside InvokeModel
// chunks (see invokeState).
type converseState struct {
	model.NoSentinel
	resp   *model.Response
	blocks map[int]*model.Item
}

func (st *converseState) response(s *model.Session, ord int, fresh bool) *model.Response {
	if st.resp == nil || fresh {
		st.resp = s.NewResponse(Converse.ID(), ord)
		st.resp.Status.Set(ord, "in_progress")
		st.blocks = map[int]*model.Item{}
	}
	return st.resp
}

// converseMembers are the members of a Converse event body the assembly
// reads: collected with the event's top members (Session.top), for a Nova
// event by Session.FocusValue.
type converseMembers struct {
	index              int
	start, delta, stop []byte
}

func readConverse(s *model.Session) converseMembers {
	return converseMembers{index: model.IntOr(s.Member(mBlockIndex), -1), start: s.Member(mStart), delta: s.Member(mDelta), stop: s.Member(mConverseStop)}
}

// Event applies a Converse event whose body is data (for Nova, the value
// of the chunk's one member), its members at hand in s.top.
func (st *converseState) Event(s *model.Session, ev *model.Event, typ string, _ []byte, ord int) {
	if ev.Frame&capture.Exception != 0 {
		exceptionEvent(s, ev, typ, ord)
		if st.resp != nil {
			st.resp.Status.Set(ord, model.OutcomeError)
		}
		return
	}
	if ev.Frame&capture.EventStream == 0 {
		st.whole(s, ev, ord) // the only event claimed outside an event stream
		return
	}
	m := readConverse(s)
	switch typ {
	case "messageStart":
		ev.Kind = model.KindLifecycle
		st.response(s, ord, true)
	case "contentBlockStart":
		ev.Kind = model.KindItemOpen
		r := st.response(s, ord, false)
		typ, role := "", model.RoleOther
		var block []byte
		s.JSON().Members(m.start, func(k, v []byte) bool {
			switch string(k) {
			case "toolUse":
				typ, role, block = "tool_use", model.RoleCall, v
				if t, ok := jsonscan.String(s.JSON().Get(v, "type")); ok && t != "" {
					typ = t // tool_use, or server_tool_use for a tool Bedrock runs
				}
			case "toolResult":
				typ, block = "tool_result", v
			default:
				typ = string(k) // image and the start unions to come
			}
			return false
		})
		if typ == "" {
			return // an empty start union: the block is known by its deltas
		}
		it := st.newBlock(s, r, m.index, typ, role, ord)
		it.Opened = ord
		if block != nil {
			it.CallID = model.StringOf(s.JSON().Get(block, "toolUseId"))
			if role == model.RoleCall {
				it.Name = model.StringOf(s.JSON().Get(block, "name"))
			}
		}
		ev.Item = int32(it.Index)
	case "contentBlockDelta":
		st.delta(s, ev, m, ord)
	case "contentBlockStop":
		ev.Kind = model.KindItemDone
		st.response(s, ord, false)
		it := st.blocks[m.index]
		if it == nil {
			ev.Flags |= model.Orphan
			return
		}
		it.Touch(ord)
		ev.Item = int32(it.Index)
		if it.Closed >= 0 {
			it.SawID(ord, "contentBlockStop", "", "again")
			return
		}
		it.Close(ord)
		it.Status.Set(ord, "completed")
	case "messageStop":
		ev.Kind = model.KindTerminal
		r := st.response(s, ord, false)
		reason := model.StringOf(m.stop)
		if reason != "" {
			r.AddFinish(0, ord, reason)
		}
		r.Terminal, r.Final = ord, ord
		r.Status.Set(ord, stopStatus(reason))
	case "metadata":
		ev.Kind = model.KindLifecycle
	default:
		ev.Kind = model.KindUnknown
		ev.Flags |= model.NonStandard
	}
}

// delta applies a contentBlockDelta: to the block its index names, which a
// text or reasoning delta opens when none did.
func (st *converseState) delta(s *model.Session, ev *model.Event, m converseMembers, ord int) {
	r := st.response(s, ord, false)
	ev.Kind = model.KindTextDelta
	var key, v []byte
	s.JSON().Members(m.delta, func(k, val []byte) bool {
		key, v = k, val
		return false
	})
	it := st.blocks[m.index]
	open := func(typ string, role model.ItemRole) *model.Item {
		if it == nil {
			it = st.newBlock(s, r, m.index, typ, role, ord)
			it.Opened = ord // a text or reasoning block starts with its first delta
		}
		return it
	}
	switch string(key) {
	case "text":
		open("text", model.RoleMessage).Text.AddString(ord, v)
	case "toolUse":
		ev.Kind = model.KindArgsDelta
		if it == nil {
			ev.Flags |= model.Orphan // a call's block starts with contentBlockStart
			it = st.newBlock(s, r, m.index, "tool_use", model.RoleCall, ord)
		}
		in := s.JSON().Get(v, "input")
		if jsonscan.Kind(in) == '"' {
			it.Args.AddString(ord, in)
		} else if in != nil {
			it.Args.Add(ord, []byte(model.CompactJSON(in)))
		}
		it.Deltas++
	case "reasoningContent":
		var rk, rv []byte
		s.JSON().Members(v, func(k, val []byte) bool {
			rk, rv = k, val
			return false
		})
		switch string(rk) {
		case "signature":
			open("reasoning", model.RoleReasoning).SignatureBuffer().AddString(ord, rv)
		case "redactedContent":
			open("redacted_reasoning", model.RoleReasoning)
		default:
			open("reasoning", model.RoleReasoning).Text.AddString(ord, rv)
		}
	case "toolResult":
		open("tool_result", model.RoleOther).Text.Add(ord, []byte(model.CompactJSON(v)))
	default: // citation, image and the deltas to come
		open("text", model.RoleMessage)
	}
	if it != nil {
		it.Touch(ord)
		ev.Item = int32(it.Index)
	}
}

// whole applies a whole Converse response: output.message.content[]
// holds every block finished (a toolUse's input a JSON object, not
// strings to join), stopReason ends it, usage and metrics follow. It is
// one event that opens and ends its response, as a whole Anthropic
// message or chat.completion is; its stop reason gives the outcome in the
// stream's words (stopStatus).
func (st *converseState) whole(s *model.Session, ev *model.Event, ord int) {
	ev.Type, ev.Kind = s.Intern([]byte(TypeConverseResponse)), model.KindTerminal
	r := st.response(s, ord, true)
	r.Created, r.Terminal, r.Final = ord, ord, ord
	reason := model.StringOf(s.Member(mConverseStop))
	if reason != "" {
		r.AddFinish(0, ord, reason)
	}
	r.Status.Set(ord, stopStatus(reason))
	content := s.JSON().Get(s.JSON().Get(s.JSON().Get(s.Data(), "output"), "message"), "content")
	first, firstCall := -1, -1
	s.JSON().Elements(content, func(i int, block []byte) bool {
		it := st.wholeBlock(s, r, i, block, ord)
		it.Opened = ord
		it.Close(ord)
		it.Status.Set(ord, "completed")
		if first < 0 {
			first = it.Index
		}
		if firstCall < 0 && it.IsCall() {
			firstCall = it.Index
		}
		return true
	})
	if firstCall >= 0 {
		first = firstCall // the event's item is its call, as a Gemini chunk's is
	}
	ev.Item = int32(first)
}

// wholeBlock makes the item of one finished content block: a union whose
// one member names its kind (text, toolUse, reasoningContent, toolResult,
// image, document and the kinds to come).
func (st *converseState) wholeBlock(s *model.Session, r *model.Response, index int, block []byte, ord int) *model.Item {
	var key, v []byte
	s.JSON().Members(block, func(k, val []byte) bool {
		key, v = k, val
		return false
	})
	switch string(key) {
	case "text":
		it := st.newBlock(s, r, index, "text", model.RoleMessage, ord)
		it.Text.AddString(ord, v)
		return it
	case "toolUse":
		typ := "tool_use"
		if t, ok := jsonscan.String(s.JSON().Get(v, "type")); ok && t != "" {
			typ = t // server_tool_use for a tool Bedrock runs
		}
		it := st.newBlock(s, r, index, typ, model.RoleCall, ord)
		it.CallID, it.Name = model.StringOf(s.JSON().Get(v, "toolUseId")), model.StringOf(s.JSON().Get(v, "name"))
		in := s.JSON().Get(v, "input")
		if jsonscan.Kind(in) == '"' {
			it.Args.AddString(ord, in)
		} else if in != nil {
			it.Args.Add(ord, []byte(model.CompactJSON(in)))
		}
		return it
	case "reasoningContent":
		if red := s.JSON().Get(v, "redactedContent"); red != nil {
			return st.newBlock(s, r, index, "redacted_reasoning", model.RoleReasoning, ord)
		}
		it := st.newBlock(s, r, index, "reasoning", model.RoleReasoning, ord)
		rt := s.JSON().Get(v, "reasoningText")
		if t := s.JSON().Get(rt, "text"); jsonscan.Kind(t) == '"' {
			it.Text.AddString(ord, t)
		}
		if sig := s.JSON().Get(rt, "signature"); jsonscan.Kind(sig) == '"' {
			it.SignatureBuffer().AddString(ord, sig)
		}
		return it
	case "toolResult":
		it := st.newBlock(s, r, index, "tool_result", model.RoleOther, ord)
		it.CallID = model.StringOf(s.JSON().Get(v, "toolUseId"))
		if c := s.JSON().Get(v, "content"); c != nil {
			it.Text.Add(ord, []byte(model.CompactJSON(c)))
		}
		return it
	}
	return st.newBlock(s, r, index, string(key), model.RoleOther, ord)
}

// newBlock starts the item of block index.
func (st *converseState) newBlock(s *model.Session, r *model.Response, index int, typ string, role model.ItemRole, ord int) *model.Item {
	it := s.NewItem(Converse.ID(), role, typ, ord)
	it.Response, it.Position = r.Index, index
	it.Status.Set(ord, "in_progress")
	st.blocks[index] = it
	return it
}

// stopStatus is the status a stop reason leaves a Bedrock response in: a
// length limit is incomplete, a guardrail or content filter blocked, any
// other reason (end_turn, tool_use, stop_sequence) completed.
func stopStatus(reason string) string {
	switch reason {
	case "max_tokens", "model_context_window_exceeded", "length", "LENGTH", "MAX_TOKENS":
		return model.OutcomeIncomplete
	case "guardrail_intervened", "content_filtered", "CONTENT_FILTERED", "ERROR_TOXIC":
		return model.OutcomeBlocked
	}
	return model.OutcomeCompleted
}

// exceptionEvent records an event stream exception (:message-type
// exception, named by its :exception-type) as the stream's error: its
// payload's message says what went wrong.
func exceptionEvent(s *model.Session, ev *model.Event, typ string, ord int) {
	ev.Kind = model.KindError
	s.Errors = append(s.Errors, model.ErrorInfo{Ordinal: ord, Status: s.Status(), Code: typ, Message: model.StringOf(s.Member(mMessage))})
}
