package inject

import (
	"slices"
	"strconv"
)

// anthropicDefects are the defects of Anthropic Messages streams.
var anthropicDefects = append(append(sseFraming(), anthropicContent()...), []variant{
	{"event-name-mismatch", "anthropic/event-name-mismatch", nameMismatch(&dAnthropic), nil},
	{"event-name-drop", "anthropic/event-name-missing", anthNameDrop, nil},
	{"utf8-split", "framing/invalid-utf8", utf8Split(anthTexts), nil},
	{"invalid-utf8", "framing/invalid-utf8", invalidUTF8(anthTexts), nil},
	{"keepalive-flood", "", anthPingFlood, nil},
	{"midstream-error", "framing/error-payload", anthError, nil},
}...)

// anthropicContent is the defects of Anthropic events whatever carries
// them: SSE, or the chunks of a Bedrock InvokeModel stream.
func anthropicContent() []variant {
	return []variant{
		{"start-drop", "anthropic/first-not-message-start", anthStartDrop, nil},
		{"cut-terminal", "anthropic/message-stop-missing", anthCut, nil},
		{"after-terminal", "anthropic/events-after-stop", anthAfterStop, nil},
		{"unknown-event", "anthropic/unknown-event", anthUnknown, nil},
		{"finish-missing", "anthropic/stop-reason-missing", anthStopReason(func(string) string { return "null" }), nil},
		{"stop-not-tool", "anthropic/stop-reason-tool-mismatch", anthStopNotTool, nil},
		{"delta-unknown-block", "anthropic/delta-unknown-block", anthDeltaUnknown, nil},
		{"delta-wrong-type", "anthropic/delta-type-mismatch", anthDeltaWrong, nil},
		{"blocks-overlap", "anthropic/blocks-overlap", anthOverlap, nil},
		{"block-stop-drop", "anthropic/block-not-stopped", anthStopDrop, nil},
		{"index-gap", "anthropic/index-not-dense", anthIndexGap, nil},
		{"signature-drop", "anthropic/thinking-signature-missing", anthSignatureDrop, nil},
		{"args-truncated", "anthropic/tool-input-invalid-json", anthArgsTruncated, nil},
	}
}

// anthBlock is one content block, by its events.
type anthBlock struct {
	index       int
	typ         string
	start, stop int
	deltas      []int
}

// anthIndex is an Anthropic stream's first message, by its events.
type anthIndex struct {
	start, delta, stop int // message_start, message_delta, message_stop
	blocks             []*anthBlock
	events             []int
}

func (e *edit) anthropic() *anthIndex {
	x := &anthIndex{start: -1, delta: -1, stop: -1}
	open := map[int]*anthBlock{}
	for i, ev := range e.st.Events {
		if ev.Dialect != dAnthropic || ev.Doc == nil || x.stop >= 0 {
			continue
		}
		x.events = append(x.events, i)
		idx, hasIndex := getInt(ev.Doc, "index")
		switch ev.Type {
		case "message_start":
			if x.start < 0 {
				x.start = i
			}
		case "message_delta":
			x.delta = i
		case "message_stop":
			x.stop = i
		case "content_block_start":
			b := &anthBlock{index: idx, start: i, stop: -1}
			b.typ, _ = getString(ev.Doc, "content_block", "type")
			x.blocks = append(x.blocks, b)
			open[idx] = b
		case "content_block_delta":
			if b := open[idx]; b != nil && hasIndex {
				b.deltas = append(b.deltas, i)
			}
		case "content_block_stop":
			if b := open[idx]; b != nil && hasIndex {
				b.stop = i
			}
		}
	}
	return x
}

// pickBlock chooses a started and stopped block of one of the types (any
// type when none is given).
func (e *edit) pickBlock(x *anthIndex, types ...string) (*anthBlock, error) {
	var cands []int
	for k, b := range x.blocks {
		if b.stop >= 0 && (len(types) == 0 || slices.Contains(types, b.typ)) {
			cands = append(cands, k)
		}
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no block"
		if len(types) > 0 {
			e.note = "no " + types[0] + " block"
		}
		return nil, err
	}
	return x.blocks[k], nil
}

// anthTexts lists the text deltas.
func anthTexts(e *edit) []textRef {
	var out []textRef
	for i, ev := range e.st.Events {
		if ev.Dialect != dAnthropic || ev.Type != "content_block_delta" {
			continue
		}
		if typ, _ := getString(ev.Doc, "delta", "type"); typ != "text_delta" {
			continue
		}
		if s, _ := getString(ev.Doc, "delta", "text"); s != "" {
			idx, _ := getInt(ev.Doc, "index")
			out = append(out, textRef{i: i, path: []any{"delta", "text"}, text: strconv.Itoa(idx)})
		}
	}
	return out
}

// anthEvent returns a new Anthropic event of type typ like event i.
func (e *edit) anthEvent(i int, typ, rest string) *Event {
	doc := `{"type":` + string(quote(typ))
	if rest != "" {
		doc += "," + rest
	}
	return e.like(i, []byte(doc+"}"), typ)
}

func anthNameDrop(e *edit) error {
	cands := e.where(func(_ int, ev *Event) bool {
		return ev.Dialect == dAnthropic && ev.carry == carrySSE && ev.HasName && ev.Type != "ping"
	})
	i, err := e.pick(cands)
	if err != nil {
		return err
	}
	e.setOwn(i, sseWithoutName(e.st.Events[i].own))
	e.note = "event " + e.st.Events[i].Type + " without its event: line"
	return nil
}

func anthPingFlood(e *edit) error {
	x := e.anthropic()
	if x.start < 0 {
		return errNoPlace
	}
	i, err := e.pick(e.midstreamCands(x.start+1, len(e.st.Events)))
	if err != nil {
		return err
	}
	e.insertBefore(i, flood(floodSize, func() *Event {
		return e.like(i, []byte(`{"type": "ping"}`), "ping")
	})...)
	e.note = strconv.Itoa(floodSize) + " pings"
	return nil
}

// anthCuts lists the events after which a stream may be cut without
// cutting a tool input short: outside every tool block's deltas.
func (e *edit) anthCuts(x *anthIndex) []int {
	first := x.start + 1
	for _, b := range x.blocks {
		if len(b.deltas) > 0 {
			first = b.deltas[0]
			break
		}
	}
	end := x.stop
	if x.delta >= 0 {
		end = x.delta
	}
	return slices.DeleteFunc(e.midstreamCands(first, end), func(i int) bool {
		for _, b := range x.blocks {
			if b.typ != "text" && b.typ != "thinking" && b.start <= i && (b.stop < 0 || i < b.stop) {
				return true
			}
		}
		return false
	})
}

func anthError(e *edit) error {
	x := e.anthropic()
	if x.start < 0 || x.stop < 0 {
		return errNoPlace
	}
	i, err := e.pick(e.anthCuts(x))
	if err != nil {
		return err
	}
	e.cutWith(i, e.anthEvent(i, "error", `"error":{"type":"overloaded_error","message":"Overloaded"}`))
	e.note = "cut after the chosen event; event: error (overloaded_error) ends the stream"
	return nil
}

func anthStartDrop(e *edit) error {
	x := e.anthropic()
	if x.start < 0 || len(x.blocks) == 0 {
		return errNoPlace
	}
	e.remove(x.start)
	e.note = "message_start cut: the stream starts with " + e.st.Events[x.blocks[0].start].Type
	return nil
}

func anthCut(e *edit) error {
	x := e.anthropic()
	if x.stop < 0 {
		return errNoPlace
	}
	e.removeFrom(x.stop)
	e.note = "message_stop cut"
	return nil
}

func anthAfterStop(e *edit) error {
	x := e.anthropic()
	if x.stop < 0 {
		return errNoPlace
	}
	e.insertAfter(x.stop, e.like(x.stop, []byte(`{"type": "ping"}`), "ping"))
	e.note = "a ping after message_stop"
	return nil
}

func anthUnknown(e *edit) error {
	x := e.anthropic()
	if x.start < 0 || x.stop < 0 {
		return errNoPlace
	}
	i, err := e.pick(e.midstreamCands(x.start+1, x.stop+1))
	if err != nil {
		return err
	}
	e.insertBefore(i, e.anthEvent(i, "message_annotation", ""))
	e.note = "an event of type message_annotation"
	return nil
}

// anthStopReason sets message_delta's stop_reason to what f makes of it
// (raw JSON).
func anthStopReason(f func(old string) string) func(e *edit) error {
	return func(e *edit) error {
		x := e.anthropic()
		if x.delta < 0 {
			return errNoPlace
		}
		old, _ := getString(e.st.Events[x.delta].Doc, "delta", "stop_reason")
		v := f(old)
		if !e.change(x.delta, func(doc []byte) ([]byte, bool) { return set(doc, []byte(v), "delta", "stop_reason") }) {
			return errNoPlace
		}
		e.note = "stop_reason " + old + " → " + v
		return nil
	}
}

func anthStopNotTool(e *edit) error {
	x := e.anthropic()
	if x.delta < 0 {
		return errNoPlace
	}
	if s, _ := getString(e.st.Events[x.delta].Doc, "delta", "stop_reason"); s != "tool_use" {
		e.note = `no stop_reason "tool_use"`
		return errNoPlace
	}
	return anthStopReason(func(string) string { return `"end_turn"` })(e)
}

func anthDeltaUnknown(e *edit) error {
	x := e.anthropic()
	b, err := e.pickBlock(x)
	if err != nil {
		return err
	}
	unknown := len(x.blocks) + 5
	e.insertAfter(b.stop, e.anthEvent(b.stop, "content_block_delta",
		`"index":`+strconv.Itoa(unknown)+`,"delta":{"type":"text_delta","text":""}`))
	e.note = "a text delta for block " + strconv.Itoa(unknown) + ", never started"
	return nil
}

func anthDeltaWrong(e *edit) error {
	x := e.anthropic()
	b, err := e.pickBlock(x, "tool_use")
	delta := `{"type":"text_delta","text":""}`
	if err != nil {
		b, err = e.pickBlock(x, "text")
		delta = `{"type":"input_json_delta","partial_json":""}`
	}
	if err != nil {
		return err
	}
	e.insertAfter(b.start, e.anthEvent(b.start, "content_block_delta", `"index":`+strconv.Itoa(b.index)+`,"delta":`+delta))
	e.note = "a delta " + delta + " on the " + b.typ + " block " + strconv.Itoa(b.index)
	return nil
}

func anthOverlap(e *edit) error {
	x := e.anthropic()
	var cands []int
	for k := 0; k+1 < len(x.blocks); k++ {
		if x.blocks[k].stop >= 0 && x.blocks[k].stop < x.blocks[k+1].start {
			cands = append(cands, k)
		}
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no two blocks"
		return err
	}
	a, b := x.blocks[k], x.blocks[k+1]
	e.remove(a.stop)
	e.insertAfter(b.start, e.like(a.stop, e.st.Events[a.stop].Doc, "content_block_stop"))
	e.note = "block " + strconv.Itoa(a.index) + " stops after block " + strconv.Itoa(b.index) + " started"
	return nil
}

func anthStopDrop(e *edit) error {
	x := e.anthropic()
	if len(x.blocks) == 0 || x.blocks[len(x.blocks)-1].stop < 0 {
		return errNoPlace
	}
	b := x.blocks[len(x.blocks)-1]
	e.remove(b.stop)
	e.note = "content_block_stop of block " + strconv.Itoa(b.index) + " cut"
	return nil
}

func anthIndexGap(e *edit) error {
	x := e.anthropic()
	n := 0
	for _, b := range x.blocks {
		for _, i := range append(append([]int{b.start}, b.deltas...), b.stop) {
			if i >= 0 && e.change(i, func(doc []byte) ([]byte, bool) { return setInt(doc, b.index+1, "index") }) {
				n++
			}
		}
	}
	if n == 0 {
		return errNoPlace
	}
	e.note = "every block index one higher: they start at 1"
	return nil
}

func anthSignatureDrop(e *edit) error {
	x := e.anthropic()
	var cands []int
	for _, b := range x.blocks {
		for _, d := range b.deltas {
			if typ, _ := getString(e.st.Events[d].Doc, "delta", "type"); typ == "signature_delta" {
				cands = append(cands, d)
			}
		}
	}
	i, err := e.pick(cands)
	if err != nil {
		e.note = "no signature_delta"
		return err
	}
	e.remove(i)
	e.note = "signature_delta cut"
	return nil
}

func anthArgsTruncated(e *edit) error {
	x := e.anthropic()
	var cands []int
	for k, b := range x.blocks {
		if b.typ == "tool_use" && b.stop >= 0 && lastPartial(e, b) >= 0 {
			cands = append(cands, k)
		}
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no tool_use block with input"
		return err
	}
	d := lastPartial(e, x.blocks[k])
	s, _ := getString(e.st.Events[d].Doc, "delta", "partial_json")
	e.change(d, func(doc []byte) ([]byte, bool) { return setString(doc, s[:len(s)-1], "delta", "partial_json") })
	e.note = "the tool input loses its last character"
	return nil
}

// lastPartial returns the block's last delta with a non-empty
// partial_json, or -1.
func lastPartial(e *edit, b *anthBlock) int {
	for k := len(b.deltas) - 1; k >= 0; k-- {
		if s, _ := getString(e.st.Events[b.deltas[k]].Doc, "delta", "partial_json"); s != "" {
			return b.deltas[k]
		}
	}
	return -1
}
