package inject

import (
	"encoding/base64"
	"errors"
	"math/rand/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// errNoPlace is what a defect returns when the stream has no place it
// fits (no call to corrupt, no terminal event to cut).
var errNoPlace = errors.New("no place for it in this stream")

// edit is one defect being applied to a stream: it picks where, and
// records what it changes, adds and drops. Indices stay those of the
// stream as parsed until the edit is done, so a defect may add and drop
// events without shifting the ones it still means to touch.
type edit struct {
	st      *Stream
	seed    uint64
	rng     *rand.Rand
	before  map[int][]*Event // events to add before index i (len(Events): at the end)
	removed map[int]bool
	note    string
	// afterCut says an event was added right after one the input cut
	// short (no blank line, no newline): the two would read as one.
	afterCut bool
}

func newEdit(st *Stream, seed uint64, name string) *edit {
	var h uint64 = 14695981039346656037 // FNV-1a of the defect's name: each defect chooses on its own
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	return &edit{st: st, seed: seed, rng: rand.New(rand.NewPCG(seed, h)), before: map[int][]*Event{}, removed: map[int]bool{}}
}

// pick chooses one of the candidates: the first with seed 0, else one
// drawn with the seed, the same one every time.
func (e *edit) pick(cands []int) (int, error) {
	if len(cands) == 0 {
		return -1, errNoPlace
	}
	if e.seed == 0 {
		return cands[0], nil
	}
	return cands[e.rng.IntN(len(cands))], nil
}

// where lists the indices of the events that match.
func (e *edit) where(match func(i int, ev *Event) bool) []int {
	var out []int
	for i, ev := range e.st.Events {
		if match(i, ev) {
			out = append(out, i)
		}
	}
	return out
}

// first returns the first of the events that match, or -1.
func (e *edit) first(match func(i int, ev *Event) bool) int {
	for i, ev := range e.st.Events {
		if match(i, ev) {
			return i
		}
	}
	return -1
}

// last returns the last of the events that match, or -1.
func (e *edit) last(match func(i int, ev *Event) bool) int {
	for i := len(e.st.Events) - 1; i >= 0; i-- {
		if match(i, e.st.Events[i]) {
			return i
		}
	}
	return -1
}

// lastData is the index of the stream's last data event (a JSON document
// or [DONE]), or -1.
func (e *edit) lastData() int {
	return e.last(func(_ int, ev *Event) bool { return ev.Kind == capture.FrameEvent })
}

// remove drops event i.
func (e *edit) remove(i int) { e.removed[i] = true }

// removeFrom drops event i and every event after it.
func (e *edit) removeFrom(i int) {
	for j := i; j < len(e.st.Events); j++ {
		e.removed[j] = true
	}
}

// insertBefore adds events before event i (i = len(Events) adds them at
// the end).
func (e *edit) insertBefore(i int, evs ...*Event) {
	at := capture.NoTime
	if i < len(e.st.Events) {
		at = e.st.Events[i].at
	} else if n := len(e.st.Events); n > 0 {
		at = e.st.Events[n-1].at
	}
	if i > 0 && e.st.Events[i-1].Flags&(capture.Truncated|capture.NoNewline) != 0 && !e.removed[i-1] {
		e.afterCut = true
	}
	for _, ev := range evs {
		ev.from, ev.changed = -1, true
		if ev.at == capture.NoTime {
			ev.at = at
		}
	}
	e.before[i] = append(e.before[i], evs...)
}

// insertAfter adds events after event i, timed like it.
func (e *edit) insertAfter(i int, evs ...*Event) {
	for _, ev := range evs {
		ev.at = e.st.Events[i].at
	}
	e.insertBefore(i+1, evs...)
}

// setOwn replaces event i's bytes.
func (e *edit) setOwn(i int, own []byte) {
	ev := e.st.Events[i]
	ev.own, ev.changed = own, true
}

// setDoc replaces event i's JSON document and writes it back the way the
// event carries it. It reports false when the event carries none.
func (e *edit) setDoc(i int, doc []byte) bool {
	ev := e.st.Events[i]
	own, ok := encodeDoc(ev, doc)
	if !ok {
		return false
	}
	// A document spliced in starts where the old one did, so dataAt
	// holds; one written as a new data: line is found by its line again.
	ev.Doc, ev.own, ev.changed = doc, own, true
	return true
}

// change applies f to event i's document and writes the result back.
// It reports false when f does (the document lacks what f changes).
func (e *edit) change(i int, f func(doc []byte) ([]byte, bool)) bool {
	doc, ok := f(e.st.Events[i].Doc)
	return ok && e.setDoc(i, doc)
}

// encodeDoc writes doc back into ev's bytes.
func encodeDoc(ev *Event, doc []byte) ([]byte, bool) {
	switch ev.carry {
	case carrySSE:
		if ev.dataAt >= 0 {
			return splice(ev.own, ev.dataAt, ev.dataAt+len(ev.Doc), doc), true
		}
		return sseWithData(ev.own, doc), true
	case carryLine, carryCoded:
		if ev.dataAt < 0 {
			return nil, false
		}
		return splice(ev.own, ev.dataAt, ev.dataAt+len(ev.Doc), doc), true
	case carryMessage:
		m, err := capture.ParseEventStream(ev.own)
		if err != nil || m.Problem != 0 {
			return nil, false
		}
		return capture.AppendEventStreamMessage(nil, ev.own[capture.EventStreamPrelude:capture.EventStreamPrelude+int(m.HeadersLen)], doc), true
	case carryChunk:
		m, err := capture.ParseEventStream(ev.own)
		if err != nil || m.Problem != 0 {
			return nil, false
		}
		payload, ok := setString(m.Payload, base64.StdEncoding.EncodeToString(doc), "bytes")
		if !ok {
			return nil, false
		}
		return capture.AppendEventStreamMessage(nil, ev.own[capture.EventStreamPrelude:capture.EventStreamPrelude+int(m.HeadersLen)], payload), true
	}
	return nil, false
}

// done materializes the edit: the stream's events with the additions and
// without the drops, and the report of where the defect acted.
func (e *edit) done() (events []*Event, changed, inserted, removed []int) {
	n := len(e.st.Events)
	for i := 0; i <= n; i++ {
		for _, ev := range e.before[i] {
			inserted = append(inserted, len(events))
			events = append(events, ev)
		}
		if i == n {
			break
		}
		if e.removed[i] {
			removed = append(removed, i)
			continue
		}
		ev := e.st.Events[i]
		if ev.changed {
			changed = append(changed, len(events))
		}
		events = append(events, ev)
	}
	return events, changed, inserted, removed
}

// ending returns the line ending event ev's bytes use: CRLF, CR or LF.
func ending(ev *Event) string {
	switch {
	case ev.Flags&capture.EndsCRLF != 0:
		return "\r\n"
	case ev.Flags&capture.EndsCR != 0:
		return "\r"
	}
	return "\n"
}

// like returns a new event carried as event i is (an SSE event with an
// event: line when i has one, a JSON line, an event stream message, an
// InvokeModel chunk, a data stream line) holding doc, of type typ (the
// event: name, the :event-type, the data stream part's code).
func (e *edit) like(i int, doc []byte, typ string) *Event {
	tpl := e.st.Events[i]
	ev := &Event{Kind: capture.FrameEvent, Dialect: tpl.Dialect, Wrapper: tpl.Wrapper, Type: typ, Doc: doc,
		carry: tpl.carry, at: capture.NoTime, dataAt: -1}
	nl := ending(tpl)
	switch tpl.carry {
	case carrySSE:
		var b []byte
		if tpl.HasName {
			b = append(b, "event: "+typ+nl...)
			ev.Name, ev.HasName = typ, true
		}
		b = append(b, "data: "...)
		ev.dataAt = len(b)
		b = append(b, doc...)
		ev.own = append(b, nl+nl...)
		ev.Flags = tpl.Flags & (capture.EndsLF | capture.EndsCRLF | capture.EndsCR)
	case carryLine:
		ev.dataAt = 0
		ev.own = append(append([]byte(nil), doc...), nl...)
		ev.Flags = tpl.Flags & (capture.EndsLF | capture.EndsCRLF)
	case carryCoded:
		// typ is the part's code: 0 text, 9 a tool call, d the finish.
		ev.Name, ev.HasName = typ, true
		ev.dataAt = len(typ) + 1
		ev.own = append(append([]byte(typ+":"), doc...), nl...)
		ev.Flags = tpl.Flags & (capture.EndsLF | capture.EndsCRLF | capture.Coded)
	case carryMessage:
		ev.Flags = capture.EventStream
		ev.own = capture.AppendEventStream(nil, messageHeaders(tpl, typ), doc)
	case carryChunk:
		ev.Flags = capture.EventStream
		payload := append(append([]byte(`{"bytes":`), quote(base64.StdEncoding.EncodeToString(doc))...), '}')
		ev.own = capture.AppendEventStream(nil, messageHeaders(tpl, typeInvokeChunk), payload)
	default:
		ev.carry, ev.own = carrySSE, append(append([]byte("data: "), doc...), nl+nl...)
		ev.dataAt = len("data: ")
	}
	return ev
}

// messageHeaders returns event i's event stream headers as strings, with
// :event-type set to typ.
func messageHeaders(tpl *Event, typ string) []capture.Field {
	m, _ := capture.ParseEventStream(tpl.own)
	var out []capture.Field
	seen := false
	for _, h := range m.Headers {
		v := h.AppendText(nil)
		if string(h.Name) == ":event-type" {
			v, seen = []byte(typ), true
		}
		out = append(out, capture.Field{Name: h.Name, Value: v})
	}
	if !seen {
		out = append([]capture.Field{{Name: []byte(":event-type"), Value: []byte(typ)}}, out...)
	}
	return out
}

// raw returns a new event of bytes b (a comment, a [DONE], a line that is
// no JSON), timed and flagged like event i.
func (e *edit) raw(i int, kind capture.FrameKind, b []byte) *Event {
	tpl := e.st.Events[i]
	return &Event{Kind: kind, own: b, at: capture.NoTime, dataAt: -1, Flags: tpl.Flags & (capture.EndsLF | capture.EndsCRLF | capture.EndsCR)}
}

// doneEvent returns a data: [DONE] event ended as event i is.
func (e *edit) doneEvent(i int) *Event {
	nl := ending(e.st.Events[i])
	ev := e.raw(i, capture.FrameEvent, []byte("data: [DONE]"+nl+nl))
	ev.Type, ev.carry = model.TypeDone, carrySSE
	return ev
}
