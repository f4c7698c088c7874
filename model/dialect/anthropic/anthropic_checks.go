package anthropic

import (
	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// anthChecks holds what the Anthropic Messages rules need across events.
type anthChecks struct {
	events  int // Anthropic events with data
	noName  []int
	noNameN int
	started bool // the first non-ping event was seen
	msgs    []*anthMsg
	after   []int
	afterN  int
	stopAt  int // ordinal + 1 of the message_stop the "after" events follow
	unknown checks.EventGroups
	checks.Base
}

// anthMsg is one message's block bookkeeping.
type anthMsg struct {
	start      int
	last       int
	blocks     map[int]*anthBlock
	next       int // the index the next block should take
	open       *anthBlock
	stopReason string
	deltaOrd   int // ordinal + 1 of the message_delta with a stop_reason
	stop       int // ordinal + 1 of message_stop
	toolUse    []int
	invalid    []anthInvalid
	whole      bool // a non-streaming message body
}

type anthBlock struct {
	index   int
	typ     string
	start   int
	stopped int    // ordinal + 1 of its content_block_stop
	fitting string // the last delta type found to fit the block
}

// anthInvalid is tool input that did not parse at its block's stop; its
// grade waits for the stop_reason.
type anthInvalid struct {
	block *anthBlock
	stop  int
	id    string
	args  string
	state model.JSONState
}

// deltaFits says which delta types each block type takes. Block and delta
// types not listed are not judged: new ones may come.
var deltaFits = map[string]map[string]bool{
	"text":              {"text_delta": true, "citations_delta": true},
	"tool_use":          {"input_json_delta": true},
	"server_tool_use":   {"input_json_delta": true},
	"mcp_tool_use":      {"input_json_delta": true},
	"thinking":          {"thinking_delta": true, "signature_delta": true},
	"redacted_thinking": {},
}

var knownDeltas = map[string]bool{
	"text_delta": true, "citations_delta": true, "input_json_delta": true, "thinking_delta": true, "signature_delta": true,
}

func (ac *anthChecks) Observe(c *checks.Checker, s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	typ := s.TypeName(ev.Type)
	if f.HasData {
		ac.events++
		if ev.Name == 0 && c.SSE() && checks.IsSSE(f) {
			ac.noNameN++
			if len(ac.noName) < checks.MaxEvents {
				ac.noName = append(ac.noName, ord)
			}
		}
	}
	if ev.Flags&model.NameMismatch != 0 {
		c.Add(aNameMismatch, []int{ord}, "event %d: event: %s but data.type %s; the SDK routes it by the name",
			ord, checks.Quote(s.TypeName(ev.Name)), checks.Quote(typ))
	}
	if ev.Flags&model.NonStandard != 0 {
		ac.unknown.Add(typ, ord)
	}
	if ac.stopAt > 0 {
		ac.afterN++
		if len(ac.after) < checks.MaxEvents {
			ac.after = append(ac.after, ord)
		}
	}
	if !ac.started && typ != "ping" && ev.Kind != model.KindError {
		ac.started = true
		if typ != "message_start" && typ != "message" {
			c.Add(aFirst, []int{ord}, "the stream starts with %s (event %d), not message_start", typ, ord)
		}
	}
	switch typ {
	case "message_start":
		ac.msgs = append(ac.msgs, ac.startSnapshot(s, ord))
	case "message":
		m := &anthMsg{start: ord, last: ord, blocks: map[int]*anthBlock{}, whole: true, stop: ord + 1, deltaOrd: ord + 1}
		m.stopReason = model.StringOf(s.Member(mStopReason))
		s.JSON().Elements(s.Member(mContent), func(_ int, b []byte) bool {
			if jsonscan.Equal(s.JSON().Get(b, "type"), "tool_use") {
				m.toolUse = append(m.toolUse, ord)
			}
			return true
		})
		ac.msgs = append(ac.msgs, m)
		return
	}
	if len(ac.msgs) == 0 {
		if typ == "ping" || ev.Kind == model.KindError {
			return
		}
		ac.msgs = append(ac.msgs, &anthMsg{start: ord, blocks: map[int]*anthBlock{}})
	}
	m := ac.msgs[len(ac.msgs)-1]
	m.last = ord
	idx64, hasIdx := jsonscan.Int(s.Member(mIndex))
	idx := int(idx64)
	switch typ {
	case "content_block_start":
		btype := model.StringOf(s.JSON().Get(s.Member(mContentBlock), "type"))
		if o := m.open; o != nil {
			c.Add(aOverlap, []int{o.start, ord}, "block %d (%s) starts at event %d while block %d (%s, event %d) is still open",
				idx, btype, ord, o.index, o.typ, o.start)
		}
		b := &anthBlock{index: idx, typ: btype, start: ord}
		switch old := m.blocks[idx]; {
		case !hasIdx:
			c.Add(aIndex, []int{ord}, "content_block_start at event %d has no index", ord)
		case old != nil:
			c.Add(aIndex, []int{old.start, ord}, "block index %d is reused at event %d (first started at event %d)", idx, ord, old.start)
		case idx != m.next:
			c.Add(aIndex, []int{ord}, "block index %d at event %d; the next index is %d", idx, ord, m.next)
		}
		m.blocks[idx] = b
		m.next = max(m.next, idx+1)
		m.open = b
		if btype == "tool_use" {
			m.toolUse = append(m.toolUse, ord)
		}
	case "content_block_delta":
		// The open block is nearly always the delta's, and saves a map
		// lookup: content_block_start sets it and m.blocks[its index]
		// together.
		b := m.open
		if b == nil || b.index != idx {
			b = m.blocks[idx]
		}
		// The delta's type as raw bytes, not a string, and as the
		// assembly's walk found it: this runs for every delta.
		dtv, ok := s.Memo()
		if !ok {
			dtv = s.JSON().Get(s.Member(mDelta), "type")
		}
		var dt []byte // the bytes between the quotes, escaped or not
		if len(dtv) >= 2 && dtv[0] == '"' {
			dt = dtv[1 : len(dtv)-1]
		}
		switch {
		case b == nil:
			c.Add(aUnknownBlock, []int{ord}, "%s at event %d is for block %d, never started", dt, ord, idx)
		case b.stopped > 0:
			c.Add(aUnknownBlock, []int{b.stopped - 1, ord}, "%s at event %d is for block %d, already stopped at event %d",
				dt, ord, idx, b.stopped-1)
		case string(dt) == b.fitting:
			// A block's deltas are almost always of one type: judged once.
		default:
			if fits, known := deltaFits[b.typ]; known && knownDeltas[string(dt)] && !fits[string(dt)] {
				c.Add(aDeltaType, []int{b.start, ord}, "%s at event %d on block %d, a %s block (event %d)", dt, ord, idx, b.typ, b.start)
			} else {
				b.fitting = string(dt)
			}
		}
	case "content_block_stop":
		b := m.blocks[idx]
		switch {
		case b == nil:
			c.Add(aUnknownBlock, []int{ord}, "content_block_stop at event %d is for block %d, never started", ord, idx)
			return
		case b.stopped > 0:
			c.Add(aUnknownBlock, []int{b.stopped - 1, ord}, "content_block_stop at event %d is for block %d, already stopped at event %d",
				ord, idx, b.stopped-1)
			return
		}
		b.stopped = ord + 1
		if m.open == b {
			m.open = nil
		}
		if ev.Item < 0 || int(ev.Item) >= len(s.Items) {
			return
		}
		it := s.Items[ev.Item]
		switch b.typ {
		case "tool_use", "server_tool_use", "mcp_tool_use":
			st := model.ArgsState(it.Args.Bytes(), true)
			if !st.Complete && !st.Empty {
				m.invalid = append(m.invalid, anthInvalid{block: b, stop: ord, id: it.CallID, args: it.Args.String(), state: st})
			}
		case "thinking":
			if it.Sign.Len() == 0 {
				c.Add(aSignature, []int{b.start, ord}, "thinking block %d (events %d–%d) closes without a signature_delta; the next turn is rejected",
					idx, b.start, ord)
			}
		}
	case "message_delta":
		if o := m.open; o != nil {
			c.Add(aNotStopped, []int{o.start, ord}, "message_delta at event %d while block %d (%s, event %d) is open", ord, o.index, o.typ, o.start)
			m.open = nil
		}
		if sr := s.JSON().Get(s.Member(mDelta), "stop_reason"); !jsonscan.IsNull(sr) {
			m.stopReason, m.deltaOrd = model.StringOf(sr), ord+1
		}
	case "message_stop":
		if o := m.open; o != nil {
			c.Add(aNotStopped, []int{o.start, ord}, "message_stop at event %d while block %d (%s, event %d) is open", ord, o.index, o.typ, o.start)
			m.open = nil
		}
		if m.stop == 0 {
			m.stop = ord + 1
			ac.stopAt = ord + 1
		}
	}
}

// startSnapshot reads message_start: its message may already hold
// finished blocks (programmatic tool calling) and a stop_reason. Those
// blocks take indexes 0…n-1, as in the SDKs' accumulated snapshot, so the
// next content_block_start takes index n.
func (ac *anthChecks) startSnapshot(s *model.Session, ord int) *anthMsg {
	m := &anthMsg{start: ord, blocks: map[int]*anthBlock{}}
	msg := s.Member(mMessage)
	s.JSON().Elements(s.JSON().Get(msg, "content"), func(i int, b []byte) bool {
		typ := model.StringOf(s.JSON().Get(b, "type"))
		m.blocks[i] = &anthBlock{index: i, typ: typ, start: ord, stopped: ord + 1}
		m.next = i + 1
		if typ == "tool_use" {
			m.toolUse = append(m.toolUse, ord)
		}
		return true
	})
	if sr := s.JSON().Get(msg, "stop_reason"); !jsonscan.IsNull(sr) {
		m.stopReason, m.deltaOrd = model.StringOf(sr), ord+1
	}
	return m
}

// unplaced takes a typed event the model could not place, in an Anthropic
// stream: an event type yet to be documented.
func (ac *anthChecks) Unplaced(_ *checks.Checker, s *model.Session, ord int, ev *model.Event) {
	if s.Member(mType) != nil {
		ac.unknown.Add(s.TypeName(ev.Type), ord)
	}
}

func (ac *anthChecks) Finish(out *checks.Checker, s *model.Session, _ bool) {
	if ac.events == 0 && len(ac.msgs) == 0 {
		return
	}
	ended, _ := s.Ended()
	if ac.noNameN > 0 {
		out.Add(aNameMissing, ac.noName, "%d of %d Anthropic events have no event: line (first: event %d); the official SDKs drop them",
			ac.noNameN, ac.events, ac.noName[0])
	}
	for _, k := range ac.unknown.Keys {
		l := ac.unknown.By[k]
		out.Add(aUnknownEvent, l.Events, "%s: %s of a type outside the documented Messages stream", checks.Quote(k), checks.Plural(l.N, "event"))
	}
	if ac.afterN > 0 {
		out.Add(aAfterStop, append([]int{ac.stopAt - 1}, ac.after...), "%s after message_stop (event %d); clients that wait for EOF stall",
			checks.Plural(ac.afterN, "event"), ac.stopAt-1)
	}
	for _, m := range ac.msgs {
		for _, inv := range m.invalid {
			sev := checks.Error
			why := ""
			if m.stopReason == "max_tokens" {
				sev, why = checks.Warning, ` (stop_reason "max_tokens": the input was cut off)`
			}
			out.AddAt(aInputInvalid, sev, []int{inv.block.start, inv.stop}, "tool_use %s (block %d): input %s does not parse at content_block_stop (event %d, %s)%s",
				checks.Quote(inv.id), inv.block.index, checks.Quote(inv.args), inv.stop, inv.state, why)
		}
		over := m.stop > 0 || ended
		if m.stopReason == "" && over && !checks.Errored(s) {
			out.Add(aStopMissing, []int{m.start, m.last}, "message (events %d–%d) has no message_delta with a stop_reason", m.start, m.last)
		}
		switch {
		case len(m.toolUse) > 0 && (m.stopReason == "end_turn" || m.stopReason == "stop_sequence"):
			out.Add(aStopTool, append(append([]int{}, m.toolUse...), m.deltaOrd-1), "stop_reason %s (event %d) after %s; expected \"tool_use\"",
				checks.Quote(m.stopReason), m.deltaOrd-1, checks.Plural(len(m.toolUse), "tool_use block"))
		case len(m.toolUse) == 0 && m.stopReason == "tool_use":
			out.Add(aStopTool, []int{m.deltaOrd - 1}, "stop_reason \"tool_use\" (event %d) but no tool_use block was sent", m.deltaOrd-1)
		}
		if m.stop == 0 && ended && !checks.Errored(s) {
			out.Add(aNoStop, []int{m.last}, "the message ends (event %d) without message_stop", m.last)
		}
	}
}
