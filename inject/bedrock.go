package inject

import (
	"strconv"

	"github.com/streamtap/streamtap/capture"
)

// converseDefects are the defects of Amazon Bedrock ConverseStream
// streams (AWS event streams).
var converseDefects = append(messageFraming(), []variant{
	{"utf8-split", "framing/invalid-utf8", utf8Split(converseTexts), nil},
	{"invalid-utf8", "framing/invalid-utf8", invalidUTF8(converseTexts), nil},
	{"midstream-error", "framing/eventstream-exception", converseError, nil},
	{"delta-unknown-block", "bedrock/delta-unknown-block", converseDeltaUnknown, nil},
	{"delta-wrong-type", "bedrock/delta-wrong-block", converseDeltaWrong, nil},
	{"empty-block-start", "bedrock/empty-block-start", converseEmptyStart, nil},
	{"args-truncated", "bedrock/tool-input-invalid-json", converseArgsTruncated, nil},
	{"cut-terminal", "bedrock/message-stop-missing", converseCut, nil},
	{"metadata-drop", "bedrock/metadata-missing", converseMetadataDrop, nil},
	{"unknown-event", "bedrock/unknown-event", converseUnknown, nil},
	// The checks read a second messageStart as a message of its own,
	// which then ends without messageStop.
	{"start-twice", "bedrock/message-start-repeated", converseStartTwice, nil},
}...)

// invokeDefects are the defects of Amazon Bedrock
// InvokeModelWithResponseStream streams: of the event stream, of its
// chunks, and of the Anthropic events inside them.
var invokeDefects = append(append(messageFraming("anthropic/message-stop-missing"), anthropicContent()...), []variant{
	{"midstream-error", "framing/eventstream-exception", invokeError, nil},
	{"chunk-invalid", "invoke/chunk-invalid", invokeChunkInvalid, nil},
}...)

// converseBlock is one content block of a ConverseStream message.
type converseBlock struct {
	index       int
	kind        string // toolUse, text, reasoningContent …
	start, stop int
	deltas      []int
}

// converseIndex is a ConverseStream stream's first message by its events.
type converseIndex struct {
	start, stop, metadata int
	blocks                []*converseBlock
	events                []int
}

func (e *edit) converse() *converseIndex {
	x := &converseIndex{start: -1, stop: -1, metadata: -1}
	byIndex := map[int]*converseBlock{}
	block := func(idx int) *converseBlock {
		b := byIndex[idx]
		if b == nil {
			b = &converseBlock{index: idx, start: -1, stop: -1}
			byIndex[idx] = b
			x.blocks = append(x.blocks, b)
		}
		return b
	}
	for i, ev := range e.st.Events {
		if ev.Dialect != dConverse || ev.Doc == nil || ev.Flags&capture.Exception != 0 {
			continue
		}
		x.events = append(x.events, i)
		idx, _ := getInt(ev.Doc, "contentBlockIndex")
		switch ev.Type {
		case "messageStart":
			if x.start < 0 {
				x.start = i
			}
		case "messageStop":
			if x.stop < 0 {
				x.stop = i
			}
		case "metadata":
			if x.metadata < 0 {
				x.metadata = i
			}
		case "contentBlockStart":
			b := block(idx)
			b.start = i
			for _, k := range []string{"toolUse", "toolResult"} {
				if get(ev.Doc, "start", k) != nil {
					b.kind = k
				}
			}
		case "contentBlockDelta":
			b := block(idx)
			b.deltas = append(b.deltas, i)
			if b.kind == "" {
				for _, k := range []string{"text", "reasoningContent", "toolUse"} {
					if get(ev.Doc, "delta", k) != nil {
						b.kind = k
					}
				}
			}
		case "contentBlockStop":
			block(idx).stop = i
		}
	}
	return x
}

// converseTexts lists the text deltas.
func converseTexts(e *edit) []textRef {
	var out []textRef
	for _, i := range e.converse().events {
		doc := e.st.Events[i].Doc
		if s, _ := getString(doc, "delta", "text"); s != "" && e.st.Events[i].Type == "contentBlockDelta" {
			idx, _ := getInt(doc, "contentBlockIndex")
			out = append(out, textRef{i: i, path: []any{"delta", "text"}, text: strconv.Itoa(idx)})
		}
	}
	return out
}

// exception returns an event stream exception message of type typ timed
// like event i.
func (e *edit) exception(i int, typ, message string) *Event {
	payload := []byte(`{"message":` + string(quote(message)) + `}`)
	own := capture.AppendEventStream(nil, []capture.Field{
		{Name: []byte(":exception-type"), Value: []byte(typ)},
		{Name: []byte(":content-type"), Value: []byte("application/json")},
		{Name: []byte(":message-type"), Value: []byte("exception")},
	}, payload)
	ev := e.raw(i, capture.FrameEvent, own)
	ev.Flags, ev.Type, ev.carry, ev.Doc = capture.EventStream|capture.Exception, typ, carryMessage, payload
	return ev
}

// streamError cuts the stream after the chosen event of cands and ends it
// with a modelStreamErrorException.
func (e *edit) streamError(cands []int) error {
	i, err := e.pick(cands)
	if err != nil {
		return err
	}
	e.cutWith(i, e.exception(i, "modelStreamErrorException", "The model stream failed: an error occurred while processing the response."))
	e.note = "cut after the chosen message; a modelStreamErrorException ends the stream"
	return nil
}

func converseError(e *edit) error {
	x := e.converse()
	if x.stop < 0 || len(x.events) < 2 {
		return errNoPlace
	}
	return e.streamError(e.outsideTools(x, e.midstreamCands(x.events[0], x.stop)))
}

// outsideTools drops the places inside a tool block, where a cut would
// leave the tool input short.
func (e *edit) outsideTools(x *converseIndex, cands []int) []int {
	var out []int
	for _, i := range cands {
		inside := false
		for _, b := range x.blocks {
			if b.kind == "toolUse" && b.start >= 0 && b.start <= i && (b.stop < 0 || i < b.stop) {
				inside = true
			}
		}
		if !inside {
			out = append(out, i)
		}
	}
	return out
}

// converseEvent returns a new ConverseStream event like event i.
func (e *edit) converseEvent(i int, typ, doc string) *Event {
	return e.like(i, []byte(doc), typ)
}

func (e *edit) pickConverseBlock(x *converseIndex, kind string) (*converseBlock, error) {
	var cands []int
	for k, b := range x.blocks {
		if b.stop >= 0 && (kind == "" || b.kind == kind) && (kind != "toolUse" || b.start >= 0) {
			cands = append(cands, k)
		}
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no closed " + kind + " block"
		return nil, err
	}
	return x.blocks[k], nil
}

func converseDeltaUnknown(e *edit) error {
	x := e.converse()
	b, err := e.pickConverseBlock(x, "")
	if err != nil {
		return err
	}
	unknown := len(x.blocks) + 5
	e.insertAfter(b.stop, e.converseEvent(b.stop, "contentBlockDelta",
		`{"contentBlockIndex":`+strconv.Itoa(unknown)+`,"delta":{"toolUse":{"input":""}}}`))
	e.note = "a toolUse delta for block " + strconv.Itoa(unknown) + ", never started"
	return nil
}

func converseDeltaWrong(e *edit) error {
	x := e.converse()
	b, err := e.pickConverseBlock(x, "toolUse")
	if err != nil {
		return err
	}
	e.insertAfter(b.start, e.converseEvent(b.start, "contentBlockDelta",
		`{"contentBlockIndex":`+strconv.Itoa(b.index)+`,"delta":{"text":""}}`))
	e.note = "a text delta on the toolUse block " + strconv.Itoa(b.index)
	return nil
}

func converseEmptyStart(e *edit) error {
	x := e.converse()
	// A text block takes no start; a gateway that writes one anyway
	// writes it empty.
	var cands []int
	for k, b := range x.blocks {
		if b.kind == "text" && b.start < 0 && len(b.deltas) > 0 {
			cands = append(cands, k)
		}
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no text block"
		return err
	}
	b := x.blocks[k]
	e.insertBefore(b.deltas[0], e.converseEvent(b.deltas[0], "contentBlockStart",
		`{"contentBlockIndex":`+strconv.Itoa(b.index)+`,"start":{}}`))
	e.note = "contentBlockStart with start {} before the text block " + strconv.Itoa(b.index)
	return nil
}

func converseArgsTruncated(e *edit) error {
	x := e.converse()
	var cands []int
	for k, b := range x.blocks {
		if b.kind == "toolUse" && b.stop >= 0 && lastInput(e, b) >= 0 {
			cands = append(cands, k)
		}
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no toolUse block with input"
		return err
	}
	d := lastInput(e, x.blocks[k])
	s, _ := getString(e.st.Events[d].Doc, "delta", "toolUse", "input")
	e.change(d, func(doc []byte) ([]byte, bool) { return setString(doc, s[:len(s)-1], "delta", "toolUse", "input") })
	e.note = "the tool input loses its last character"
	return nil
}

// lastInput returns the block's last delta with non-empty toolUse input,
// or -1.
func lastInput(e *edit, b *converseBlock) int {
	for k := len(b.deltas) - 1; k >= 0; k-- {
		if s, _ := getString(e.st.Events[b.deltas[k]].Doc, "delta", "toolUse", "input"); s != "" {
			return b.deltas[k]
		}
	}
	return -1
}

func converseCut(e *edit) error {
	x := e.converse()
	if x.stop < 0 {
		return errNoPlace
	}
	e.removeFrom(x.stop)
	e.note = "messageStop (and what follows) cut"
	return nil
}

func converseMetadataDrop(e *edit) error {
	x := e.converse()
	if x.metadata < 0 || x.stop < 0 || x.metadata < x.stop {
		return errNoPlace
	}
	e.remove(x.metadata)
	e.note = "metadata cut"
	return nil
}

func converseUnknown(e *edit) error {
	x := e.converse()
	if len(x.events) < 2 {
		return errNoPlace
	}
	i, err := e.pick(x.events[1:])
	if err != nil {
		return err
	}
	e.insertBefore(i, e.converseEvent(i, "citationsContent", `{"contentBlockIndex":0}`))
	e.note = "an event of :event-type citationsContent"
	return nil
}

func converseStartTwice(e *edit) error {
	x := e.converse()
	if x.start < 0 {
		return errNoPlace
	}
	e.insertAfter(x.start, e.like(x.start, e.st.Events[x.start].Doc, "messageStart"))
	e.note = "messageStart sent twice"
	return nil
}

// invokeChunks lists the InvokeModel chunks.
func (e *edit) invokeChunks() []int {
	return e.where(func(_ int, ev *Event) bool { return ev.carry == carryChunk })
}

func invokeError(e *edit) error {
	chunks := e.invokeChunks()
	if len(chunks) < 2 {
		return errNoPlace
	}
	cands := e.midstreamCands(chunks[0], chunks[len(chunks)-1])
	if x := e.anthropic(); x.start >= 0 && x.stop >= 0 {
		cands = e.anthCuts(x)
	}
	return e.streamError(cands)
}

func invokeChunkInvalid(e *edit) error {
	chunks := e.invokeChunks()
	if len(chunks) < 2 {
		return errNoPlace
	}
	i, err := e.pick(chunks[1:])
	if err != nil {
		return err
	}
	tpl := e.st.Events[i]
	ev := e.like(i, []byte(`{}`), typeInvokeChunk)
	ev.own = capture.AppendEventStream(nil, messageHeaders(tpl, typeInvokeChunk), []byte(`{"bytes":"not base64!"}`))
	ev.carry, ev.Doc = carryMessage, nil
	e.insertBefore(i, ev)
	e.note = `a chunk whose bytes is "not base64!"`
	return nil
}
