package bedrock

import (
	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// converseChecks holds what the ConverseStream rules need across events.
type converseChecks struct {
	msgs    []*converseMsg
	started int // ordinal + 1 of the stream's first messageStart
	unknown checks.EventGroups
	checks.Base
}

// converseMsg is one message's block bookkeeping: from messageStart (or
// the first event) to the next messageStart.
type converseMsg struct {
	start, last int
	blocks      map[int]*converseBlock
	stop        int // ordinal + 1 of messageStop
	stopReason  string
	metadata    int // ordinal + 1 of metadata
	invalid     []converseInvalid
}

// converseBlock is a block as the rules saw it open: by contentBlockStart
// (a tool's call or result) or by its first delta (text, reasoning).
type converseBlock struct {
	index   int
	kind    string // the start's or first delta's member: toolUse, toolResult, text, reasoningContent …
	start   int
	stopped int // ordinal + 1 of its contentBlockStop
}

// converseInvalid is tool input that did not parse at its block's stop;
// its grade waits for the stopReason.
type converseInvalid struct {
	block *converseBlock
	stop  int
	id    string
	args  string
	state model.JSONState
}

// converseFits says which delta members each block kind takes; kinds and
// deltas not listed are not judged: new ones may come.
var converseFits = map[string]map[string]bool{
	"text":             {"text": true, "citation": true},
	"toolUse":          {"toolUse": true},
	"toolResult":       {"toolResult": true},
	"reasoningContent": {"reasoningContent": true},
}

func (cc *converseChecks) Observe(c *checks.Checker, s *model.Session, ord int, ev *model.Event, _ *capture.Frame) {
	if ev.Kind == model.KindError {
		return // an exception: the framing rule and the outcome report it
	}
	typ := s.TypeName(ev.Type)
	if ev.Flags&model.NonStandard != 0 {
		cc.unknown.Add(typ, ord)
		return
	}
	if typ == TypeConverseResponse {
		return // a whole response: no stream of blocks, stops and metadata to judge
	}
	if typ == "messageStart" {
		cc.startAgain(c, ord)
	}
	if typ == "messageStart" || len(cc.msgs) == 0 {
		cc.msgs = append(cc.msgs, &converseMsg{start: ord, blocks: map[int]*converseBlock{}})
	}
	m := cc.msgs[len(cc.msgs)-1]
	m.last = ord
	idx := -1
	if n, ok := jsonscan.Int(s.Member(mBlockIndex)); ok {
		idx = int(n)
	}
	switch typ {
	case "contentBlockStart":
		kind := firstKey(s, s.Member(mStart))
		if len(kind) == 0 {
			c.Add(bEmptyStart, []int{ord}, "contentBlockStart at event %d (block %d) has an empty start union; boto3 fails on it, and text and reasoning blocks take no start",
				ord, idx)
			return
		}
		m.blocks[idx] = &converseBlock{index: idx, kind: string(kind), start: ord}
	case "contentBlockDelta":
		kind := firstKey(s, s.Member(mDelta)) // bytes: this runs for every delta
		b := m.blocks[idx]
		switch {
		case b == nil && string(kind) == "toolUse":
			c.Add(bUnknownBlock, []int{ord}, "a toolUse delta at event %d is for block %d, which no contentBlockStart opened", ord, idx)
		case b == nil:
			m.blocks[idx] = &converseBlock{index: idx, kind: string(kind), start: ord} // text and reasoning open with their first delta
		case b.stopped > 0:
			c.Add(bUnknownBlock, []int{b.stopped - 1, ord}, "a %s delta at event %d is for block %d, already stopped at event %d",
				kind, ord, idx, b.stopped-1)
		case string(kind) == b.kind:
			// A block's deltas are almost always of its own kind.
		default:
			if fits, known := converseFits[b.kind]; known && converseFits[string(kind)] != nil && !fits[string(kind)] {
				c.Add(bWrongBlock, []int{b.start, ord}, "a %s delta at event %d is routed to block %d, a %s block (event %d)",
					kind, ord, idx, b.kind, b.start)
			}
		}
	case "contentBlockStop":
		b := m.blocks[idx]
		switch {
		case b == nil:
			c.Add(bUnknownBlock, []int{ord}, "contentBlockStop at event %d is for block %d, never started", ord, idx)
			return
		case b.stopped > 0:
			c.Add(bUnknownBlock, []int{b.stopped - 1, ord}, "contentBlockStop at event %d is for block %d, already stopped at event %d",
				ord, idx, b.stopped-1)
			return
		}
		b.stopped = ord + 1
		if b.kind != "toolUse" || ev.Item < 0 || int(ev.Item) >= len(s.Items) {
			return
		}
		it := s.Items[ev.Item]
		if st := model.ArgsState(it.Args.Bytes(), true); !st.Complete && !st.Empty {
			m.invalid = append(m.invalid, converseInvalid{block: b, stop: ord, id: it.CallID, args: it.Args.String(), state: st})
		}
	case "messageStop":
		if m.stop == 0 {
			m.stop, m.stopReason = ord+1, model.StringOf(s.Member(mConverseStop))
		}
	case "metadata":
		if m.metadata == 0 {
			m.metadata = ord + 1
		}
	}
}

// startAgain flags a messageStart after the stream's first. A
// ConverseStream response carries one message; a client builds that
// message from the blocks by contentBlockIndex, so a second message's
// blocks (numbered from 0 again) land on the first's, and its stopReason
// and usage replace the first's or add to them.
func (cc *converseChecks) startAgain(c *checks.Checker, ord int) {
	if cc.started == 0 {
		cc.started = ord + 1
		return
	}
	first := cc.started - 1
	prev := cc.msgs[len(cc.msgs)-1]
	if prev.stop == 0 {
		c.Add(bStartAgain, []int{first, ord}, "messageStart at event %d starts a second message before the one of event %d stopped (no messageStop): its blocks, numbered from 0 again, land on that message's",
			ord, prev.start)
		return
	}
	c.Add(bStartAgain, []int{first, ord}, "messageStart at event %d starts a second message in the stream, after messageStop (event %d); the stream began its message at event %d",
		ord, prev.stop-1, first)
}

// firstKey is the name of the first member of an object (a Converse
// union: start, delta), or nil; it points into the event.
func firstKey(s *model.Session, obj []byte) []byte {
	var key []byte
	s.JSON().Members(obj, func(k, _ []byte) bool {
		key = k
		return false
	})
	return key
}

func (cc *converseChecks) Finish(out *checks.Checker, s *model.Session, _ bool) {
	ended, _ := s.Ended()
	for _, k := range cc.unknown.Keys {
		l := cc.unknown.By[k]
		out.Add(bUnknownEvent, l.Events, "%s: %s of a type outside the documented ConverseStream", checks.Quote(k), checks.Plural(l.N, "event"))
	}
	for i, m := range cc.msgs {
		for _, inv := range m.invalid {
			sev, why := checks.Error, ""
			if m.stopReason == "max_tokens" {
				sev, why = checks.Warning, ` (stopReason "max_tokens": the input was cut off)`
			}
			out.AddAt(bInputInvalid, sev, []int{inv.block.start, inv.stop}, "toolUse %s (block %d): input %s does not parse at contentBlockStop (event %d, %s)%s",
				checks.Quote(inv.id), inv.block.index, checks.Quote(inv.args), inv.stop, inv.state, why)
		}
		// A client builds one message of the stream, a second
		// messageStart's blocks and stop merged into the first's
		// (message-start-repeated reports it): whether it ends with its
		// messageStop and metadata is told by the stream's last message.
		if !ended || checks.Errored(s) || i < len(cc.msgs)-1 {
			continue
		}
		switch {
		case m.stop == 0:
			out.Add(bNoStop, []int{m.last}, "the message (events %d–%d) ends without messageStop: no stopReason", m.start, m.last)
		case m.metadata == 0:
			out.Add(bNoMetadata, []int{m.stop - 1}, "messageStop (event %d) is not followed by metadata: the usage and latency are lost", m.stop-1)
		}
	}
}

// invokeChecks judges an InvokeModel stream: each chunk's bytes, then
// what they wrap, by the rules of the dialect that owns it.
type invokeChecks struct {
	last    model.Dialect // the dialect of the latest chunk's inner event
	unknown checks.EventGroups
	checks.Base
}

func (ic *invokeChecks) Observe(c *checks.Checker, s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	chunk := ChunkOf(s)
	var inner model.Dialect
	switch {
	case chunk.Problem != "":
		c.Add(iChunkInvalid, []int{ord}, "chunk at event %d: %s", ord, chunk.Problem)
		return
	case chunk.Family == FamilyAnthropic:
		inner, _ = model.Lookup(anthropicName)
	case chunk.Family == FamilyNova:
		inner = Converse.ID()
	case chunk.Family == FamilyUnknown:
		ic.unknown.Add(chunk.Members, ord)
		return
	case ev.Kind == model.KindError:
		inner = ic.last // an exception: the inner stream it ends learns of it
	}
	if inner == model.DialectUnknown {
		return // a text family: the outcome says all
	}
	ic.last = inner
	c.ObserveAs(inner, s, ord, ev, f)
}

func (ic *invokeChecks) Finish(out *checks.Checker, _ *model.Session, _ bool) {
	for _, k := range ic.unknown.Keys {
		l := ic.unknown.By[k]
		out.Add(iUnknownModel, l.Events, "%s that no model family explains (members %s); its text is not assembled",
			checks.Plural(l.N, "chunk"), k)
	}
}
