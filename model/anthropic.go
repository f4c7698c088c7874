package model

import (
	"github.com/streamtap/streamtap/model/jsonscan"
)

// anthropicDialect is Anthropic Messages: message_start, content blocks
// by index, message_delta and message_stop; and whole message bodies.
type anthropicDialect struct{ noHooks }

func (*anthropicDialect) info() DialectInfo {
	return DialectInfo{Name: "anthropic", Short: "anthropic", Abbrev: []string{"content_block_", "block_"}}
}

// claimType takes the Messages event types.
func (*anthropicDialect) claimType(typ string) bool { return anthropicType(typ) }

// claimShape takes a whole message body: typed "message", with content.
func (*anthropicDialect) claimShape(s *Session, typ string) bool {
	return typ == "message" && s.top.content != nil
}

// claimError takes an error event without a sequence_number (Responses
// numbers its own).
func (*anthropicDialect) claimError(s *Session, typ string) bool {
	return typ == "error" && s.top.seq == nil
}

// keepalive takes an "event: ping" that carries no data.
func (*anthropicDialect) keepalive(name []byte) bool { return string(name) == "ping" }

func (*anthropicDialect) newState() dialectState { return new(anthState) }

// finishOutcome reads a stop_reason: "max_tokens" and
// "model_context_window_exceeded" are limits, "refusal" the safety
// classifiers declining (https://docs.anthropic.com/en/api/handling-stop-reasons).
func (*anthropicDialect) finishOutcome(reason string) string {
	switch reason {
	case "max_tokens", "model_context_window_exceeded":
		return OutcomeIncomplete
	case "refusal":
		return OutcomeBlocked
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
	resp   *Response
	blocks map[int]*Item
	open   *Item // the latest started block not yet stopped
	noHooks
}

func anthropicRole(typ string) ItemRole {
	switch typ {
	case "tool_use", "server_tool_use", "mcp_tool_use":
		return RoleCall
	case "text":
		return RoleMessage
	case "thinking", "redacted_thinking":
		return RoleReasoning
	}
	return RoleOther
}

func (st *anthState) response(s *Session, ord int, fresh bool) *Response {
	if st.resp == nil || fresh {
		st.resp = s.NewResponse(DialectAnthropic, ord)
		st.blocks, st.open = map[int]*Item{}, nil
	}
	return st.resp
}

func (st *anthState) event(s *Session, ev *Event, typ string, _ []byte, ord int) {
	t := &s.top
	switch typ {
	case "message_start":
		ev.Kind = KindLifecycle
		r := st.response(s, ord, true)
		r.ID = StringOf(s.idx.Get(t.message, "id"))
		r.Model = StringOf(s.idx.Get(t.message, "model"))
		r.Status.Set(ord, "in_progress")
		r.Created = ord
		// With programmatic tool calling the snapshot may already hold
		// finished blocks (a tool_use among them) and a stop_reason, with
		// no content_block event to repeat them: the SDKs start from the
		// snapshot, and so does the assembly. Later blocks take the
		// indexes after these.
		if sr := s.idx.Get(t.message, "stop_reason"); !jsonscan.IsNull(sr) {
			r.AddFinish(0, ord, StringOf(sr))
		}
		st.wholeBlocks(s, r, s.idx.Get(t.message, "content"), ord)
	case "message":
		// A whole non-streaming message.
		ev.Kind = KindTerminal
		r := st.response(s, ord, true)
		r.ID, r.Model = StringOf(t.id), StringOf(t.model)
		r.Created, r.Terminal, r.Final = ord, ord, ord
		r.Status.Set(ord, "completed")
		if sr := t.stopReason; !jsonscan.IsNull(sr) {
			r.AddFinish(0, ord, StringOf(sr))
		}
		st.wholeBlocks(s, r, t.content, ord)
	case "content_block_start":
		ev.Kind = KindItemOpen
		r := st.response(s, ord, false)
		idx := IntOr(t.index, -1)
		if old := st.blocks[idx]; old != nil {
			old.SawID(ord, "index", "", "reused")
		}
		it := st.block(s, r, idx, t.contentBlock, ord)
		it.Opened = ord
		if in := s.idx.Get(t.contentBlock, "input"); it.IsCall() && in != nil {
			it.SetSource(SourceAdded, Stated{Present: true, Ordinal: ord, Value: CompactJSON(in)})
		}
		st.blocks[idx] = it
		st.open = it
		ev.Item = int32(it.Index)
	case "content_block_delta":
		it := st.target(s, ev, ord)
		// One walk over the delta: its type and whichever value it carries.
		var dt, value []byte
		t.deltaWalked = true
		s.idx.Members(t.delta, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				if dt == nil {
					t.deltaType = v // the first, as Get finds it (Session.DeltaType)
				}
				dt = v
			case "partial_json", "text", "thinking", "signature":
				value = v
			}
			return true
		})
		dt, _ = jsonscan.Raw(dt)
		switch string(dt) {
		case "input_json_delta":
			ev.Kind = KindArgsDelta
			it.Args.AddString(ord, value)
			it.Deltas++
		case "text_delta", "thinking_delta":
			ev.Kind = KindTextDelta
			it.Text.AddString(ord, value)
		case "signature_delta":
			ev.Kind = KindTextDelta
			it.SignatureBuffer().AddString(ord, value)
		default: // citations_delta and deltas yet to come
			ev.Kind = KindTextDelta
		}
	case "content_block_stop":
		ev.Kind = KindItemDone
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
		ev.Kind = KindLifecycle
		r := st.response(s, ord, false)
		if sr := s.idx.Get(t.delta, "stop_reason"); !jsonscan.IsNull(sr) {
			r.AddFinish(0, ord, StringOf(sr))
		}
	case "message_stop":
		ev.Kind = KindTerminal
		r := st.response(s, ord, false)
		r.Terminal, r.Final = ord, ord
		r.Status.Set(ord, "completed")
	case "ping":
		ev.Kind = KindKeepalive
	case "error":
		s.ErrorEvent(ev, t.err, ord)
		if st.resp != nil {
			st.resp.Status.Set(ord, "error")
		}
	default:
		ev.Kind = KindUnknown
		ev.Flags |= NonStandard
	}
}

// wholeBlocks adds the finished content blocks of a message snapshot
// (a whole message, or the content message_start already holds).
func (st *anthState) wholeBlocks(s *Session, r *Response, content []byte, ord int) {
	s.idx.Elements(content, func(i int, block []byte) bool {
		it := st.block(s, r, i, block, ord)
		if in := s.idx.Get(block, "input"); it.IsCall() && in != nil {
			it.Args.Add(ord, []byte(CompactJSON(in)))
		}
		it.Close(ord)
		it.Status.Set(ord, "completed")
		st.blocks[i] = it
		return true
	})
}

// block starts an item for a content block.
func (st *anthState) block(s *Session, r *Response, idx int, block []byte, ord int) *Item {
	typ := StringOf(s.idx.Get(block, "type"))
	it := s.NewItem(DialectAnthropic, anthropicRole(typ), typ, ord)
	it.Response, it.Position = r.Index, idx
	it.CallID, it.Name = StringOf(s.idx.Get(block, "id")), StringOf(s.idx.Get(block, "name"))
	it.Status.Set(ord, "in_progress")
	var initial []byte
	switch typ {
	case "text":
		initial = s.idx.Get(block, "text")
	case "thinking":
		initial = s.idx.Get(block, "thinking")
		if sig := s.idx.Get(block, "signature"); jsonscan.Kind(sig) == '"' && len(sig) > 2 {
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
func (st *anthState) target(s *Session, ev *Event, ord int) *Item {
	r := st.response(s, ord, false)
	idx := IntOr(s.top.index, -1)
	it := st.blocks[idx]
	if it == nil {
		if st.open != nil {
			it = st.open
			ev.Flags |= Matched
		} else {
			ev.Flags |= Orphan
			typ := "text"
			if jsonscan.Equal(s.idx.Get(s.top.delta, "type"), "input_json_delta") {
				typ = "tool_use"
			}
			it = s.NewItem(DialectAnthropic, anthropicRole(typ), typ, ord)
			it.Response, it.Position = r.Index, idx
			st.blocks[idx] = it
		}
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	return it
}
