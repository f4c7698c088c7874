// Package anthropic is the Anthropic Messages dialect: message_start,
// content blocks by index, message_delta and message_stop; and whole
// message bodies. It holds the dialect's detection and assembly, its
// explanations and its rules (the anthropic/ rule ids). It imports no
// other dialect; model/dialects registers it.
package anthropic

import (
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Protocol is the Anthropic Messages dialect, for model.Register.
var Protocol = new(anthropicDialect)

var _ model.FinishOutcomer = Protocol   // its finish reasons tell the outcome
var _ model.Carried = (*anthState)(nil) // Bedrock InvokeModel carries its events

// Name is the dialect's name (model.DialectInfo.Name), by which a dialect
// that carries Anthropic events (Bedrock InvokeModel) finds it with
// model.Lookup.
const Name = "anthropic"

type anthropicDialect struct{ model.Base }

func (*anthropicDialect) Info() model.DialectInfo {
	return model.DialectInfo{Name: Name, Short: "anthropic", Abbrev: []string{"content_block_", "block_"}}
}

// ClaimType takes the Messages event types.
func (*anthropicDialect) ClaimType(typ string) bool { return anthropicType(typ) }

// ClaimShape takes a whole message body: typed "message", with content.
func (*anthropicDialect) ClaimShape(s *model.Session, typ string) bool {
	return typ == "message" && s.Member(mContent) != nil
}

// ClaimError takes an error event without a sequence_number (Responses
// numbers its own).
func (*anthropicDialect) ClaimError(s *model.Session, typ string) bool {
	return typ == "error" && s.Member(mSeq) == nil
}

// Keepalive takes an "event: ping" that carries no data.
func (*anthropicDialect) Keepalive(name []byte) bool { return string(name) == "ping" }

func (*anthropicDialect) NewAssembly() model.Assembly { return new(anthState) }

// FinishOutcome reads a stop_reason: "max_tokens" and
// "model_context_window_exceeded" are limits, "refusal" the safety
// classifiers declining (https://docs.anthropic.com/en/api/handling-stop-reasons).
func (*anthropicDialect) FinishOutcome(reason string) string {
	switch reason {
	case "max_tokens", "model_context_window_exceeded":
		return model.OutcomeIncomplete
	case "refusal":
		return model.OutcomeBlocked
	}
	return ""
}

// anthropicType reports the Anthropic Messages event types. A switch, not a
// map: it runs for every event, and the compiler turns it into length and
// byte comparisons without hashing.
func anthropicType(typ string) bool {
	switch typ {
	case "message_start", "message_delta", "message_stop", "content_block_start",
		"content_block_delta", "content_block_stop", "ping":
		return true
	}
	return false
}

// anthState tracks an Anthropic Messages stream: content blocks by index.
type anthState struct {
	resp   *model.Response
	blocks map[int]*model.Item
	open   *model.Item // the latest started block not yet stopped
	model.NoSentinel
}

// Response returns the message being assembled, or nil: a carrier's
// exception ends it (see model.Carried).
func (st *anthState) Response() *model.Response { return st.resp }

func anthropicRole(typ string) model.ItemRole {
	switch typ {
	case "tool_use", "server_tool_use", "mcp_tool_use":
		return model.RoleCall
	case "text":
		return model.RoleMessage
	case "thinking", "redacted_thinking":
		return model.RoleReasoning
	}
	return model.RoleOther
}

func (st *anthState) response(s *model.Session, ord int, fresh bool) *model.Response {
	if st.resp == nil || fresh {
		st.resp = s.NewResponse(Protocol.ID(), ord)
		st.blocks, st.open = map[int]*model.Item{}, nil
	}
	return st.resp
}

func (st *anthState) Event(s *model.Session, ev *model.Event, typ string, _ []byte, ord int) {
	switch typ {
	case "message_start":
		ev.Kind = model.KindLifecycle
		r := st.response(s, ord, true)
		r.ID = model.StringOf(s.JSON().Get(s.Member(mMessage), "id"))
		r.Model = model.StringOf(s.JSON().Get(s.Member(mMessage), "model"))
		r.Status.Set(ord, "in_progress")
		r.Created = ord
		// With programmatic tool calling the snapshot may already hold
		// finished blocks (a tool_use among them) and a stop_reason, with
		// no content_block event to repeat them: the SDKs start from the
		// snapshot, and so does the assembly. Later blocks take the
		// indexes after these.
		if sr := s.JSON().Get(s.Member(mMessage), "stop_reason"); !jsonscan.IsNull(sr) {
			r.AddFinish(0, ord, model.StringOf(sr))
		}
		st.wholeBlocks(s, r, s.JSON().Get(s.Member(mMessage), "content"), ord)
	case "message":
		// A whole non-streaming message.
		ev.Kind = model.KindTerminal
		r := st.response(s, ord, true)
		r.ID, r.Model = model.StringOf(s.Member(mID)), model.StringOf(s.Member(mModel))
		r.Created, r.Terminal, r.Final = ord, ord, ord
		r.Status.Set(ord, "completed")
		if sr := s.Member(mStopReason); !jsonscan.IsNull(sr) {
			r.AddFinish(0, ord, model.StringOf(sr))
		}
		st.wholeBlocks(s, r, s.Member(mContent), ord)
	case "content_block_start":
		ev.Kind = model.KindItemOpen
		r := st.response(s, ord, false)
		idx := model.IntOr(s.Member(mIndex), -1)
		if old := st.blocks[idx]; old != nil {
			old.SawID(ord, "index", "", "reused")
		}
		it := st.block(s, r, idx, s.Member(mContentBlock), ord)
		it.Opened = ord
		if in := s.JSON().Get(s.Member(mContentBlock), "input"); it.IsCall() && in != nil {
			it.SetSource(model.SourceAdded, model.Stated{Present: true, Ordinal: ord, Value: model.CompactJSON(in)})
		}
		st.blocks[idx] = it
		st.open = it
		ev.Item = int32(it.Index)
	case "content_block_delta":
		it := st.target(s, ev, ord)
		// One walk over the delta: its type and whichever value it carries.
		var dt, first, value []byte
		s.JSON().Members(s.Member(mDelta), func(k, v []byte) bool {
			switch string(k) {
			case "type":
				if dt == nil {
					first = v // the first, as Get finds it (see deltaType)
				}
				dt = v
			case "partial_json", "text", "thinking", "signature":
				value = v
			}
			return true
		})
		s.SetMemo(first)
		dt, _ = jsonscan.Raw(dt)
		switch string(dt) {
		case "input_json_delta":
			ev.Kind = model.KindArgsDelta
			it.Args.AddString(ord, value)
			it.Deltas++
		case "text_delta", "thinking_delta":
			ev.Kind = model.KindTextDelta
			it.Text.AddString(ord, value)
		case "signature_delta":
			ev.Kind = model.KindTextDelta
			it.SignatureBuffer().AddString(ord, value)
		default: // citations_delta and deltas yet to come
			ev.Kind = model.KindTextDelta
		}
	case "content_block_stop":
		ev.Kind = model.KindItemDone
		it := st.target(s, ev, ord)
		if it.Closed >= 0 {
			it.SawID(ord, "content_block_stop", "", "again")
		} else {
			it.Close(ord)
		}
		it.Status.Set(ord, "completed")
		if st.open == it {
			st.open = nil
		}
	case "message_delta":
		ev.Kind = model.KindLifecycle
		r := st.response(s, ord, false)
		if sr := s.JSON().Get(s.Member(mDelta), "stop_reason"); !jsonscan.IsNull(sr) {
			r.AddFinish(0, ord, model.StringOf(sr))
		}
	case "message_stop":
		ev.Kind = model.KindTerminal
		r := st.response(s, ord, false)
		r.Terminal, r.Final = ord, ord
		r.Status.Set(ord, "completed")
	case "ping":
		ev.Kind = model.KindKeepalive
	case "error":
		s.ErrorEvent(ev, s.Member(mError), ord)
		if st.resp != nil {
			st.resp.Status.Set(ord, "error")
		}
	default:
		ev.Kind = model.KindUnknown
		ev.Flags |= model.NonStandard
	}
}

// wholeBlocks adds the finished content blocks of a message snapshot
// (a whole message, or the content message_start already holds).
func (st *anthState) wholeBlocks(s *model.Session, r *model.Response, content []byte, ord int) {
	s.JSON().Elements(content, func(i int, block []byte) bool {
		it := st.block(s, r, i, block, ord)
		if in := s.JSON().Get(block, "input"); it.IsCall() && in != nil {
			it.Args.Add(ord, []byte(model.CompactJSON(in)))
		}
		it.Close(ord)
		it.Status.Set(ord, "completed")
		st.blocks[i] = it
		return true
	})
}

// block starts an item for a content block.
func (st *anthState) block(s *model.Session, r *model.Response, idx int, block []byte, ord int) *model.Item {
	typ := model.StringOf(s.JSON().Get(block, "type"))
	it := s.NewItem(Protocol.ID(), anthropicRole(typ), typ, ord)
	it.Response, it.Position = r.Index, idx
	it.CallID, it.Name = model.StringOf(s.JSON().Get(block, "id")), model.StringOf(s.JSON().Get(block, "name"))
	it.Status.Set(ord, "in_progress")
	var initial []byte
	switch typ {
	case "text":
		initial = s.JSON().Get(block, "text")
	case "thinking":
		initial = s.JSON().Get(block, "thinking")
		if sig := s.JSON().Get(block, "signature"); jsonscan.Kind(sig) == '"' && len(sig) > 2 {
			it.SignatureBuffer().AddString(ord, sig)
		}
	}
	if len(initial) > 2 {
		it.Text.AddString(ord, initial)
	}
	return it
}

// target finds the block a delta or stop names; a delta for a block
// never started goes to the open block, or to a new orphan item.
func (st *anthState) target(s *model.Session, ev *model.Event, ord int) *model.Item {
	r := st.response(s, ord, false)
	idx := model.IntOr(s.Member(mIndex), -1)
	it := st.blocks[idx]
	if it == nil {
		if st.open != nil {
			it = st.open
			ev.Flags |= model.Matched
		} else {
			ev.Flags |= model.Orphan
			typ := "text"
			if jsonscan.Equal(s.JSON().Get(s.Member(mDelta), "type"), "input_json_delta") {
				typ = "tool_use"
			}
			it = s.NewItem(Protocol.ID(), anthropicRole(typ), typ, ord)
			it.Response, it.Position = r.Index, idx
			st.blocks[idx] = it
		}
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	return it
}
