// Package inject breaks a good recording on purpose: it applies named
// protocol defects (a `.done` whose arguments differ from the deltas, a
// missing [DONE], a Bedrock message whose CRC fails …) to a recorded
// stream of any dialect streamtap reads, so that a client's author can see
// whether the client survives a defect before a gateway commits it in
// production. Each defect names the rule of model/checks that detects it,
// and the test of this package holds every defect to that rule.
//
// It works from the stream's bytes: capture's framers cut them into
// frames, model's session says which dialect and type each event is, and a
// defect rewrites, adds or drops whole events. Events a defect does not
// touch keep their bytes; the defects that change how every event is
// framed (line endings) say so (Defect.Rewrites).
//
// It neither reads files nor serves anything: the commands read and write,
// and the transport faults of a served stream live in inject/fault.
package inject

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// carrier says how an event's JSON document travels, which says how a
// changed document is written back.
type carrier uint8

const (
	carryNone    carrier = iota // a comment, a head, a remainder, [DONE], bytes that hold no JSON
	carrySSE                    // the data of an SSE event
	carryLine                   // a JSON line (NDJSON), or a whole JSON body
	carryMessage                // the payload of an AWS event stream message
	carryChunk                  // the base64 bytes of an InvokeModel chunk's payload
	carryCoded                  // the value of an AI SDK data stream line, CODE:JSON
)

// Event is one frame of a stream as a defect sees it: what the model said
// it is and its JSON document, with the bytes it is written back as.
type Event struct {
	// Kind is the frame's kind: an event, a comment, an HTTP head, a
	// remainder.
	Kind capture.FrameKind
	// Flags are the frame's framing flags.
	Flags capture.Flags
	// Dialect is the dialect the model detected; for an InvokeModel chunk
	// that wraps an Anthropic event, dAnthropic (the chunk's
	// own dialect is in Wrapper).
	Dialect model.Dialect
	// Wrapper is dInvoke for an event carried in an
	// InvokeModel chunk, else model.DialectUnknown.
	Wrapper model.Dialect
	// Type is the event's type: data.type, an event stream message's
	// :event-type, the pseudo types of model ("[DONE]", "(comment)").
	Type string
	// Name is the SSE event: name; HasName tells an absent one from "".
	Name    string
	HasName bool
	// Doc is the event's JSON document (the SSE data, the line, the
	// message payload, the chunk's decoded bytes), or nil.
	Doc []byte

	carry carrier
	// own is the frame's bytes as the stream carries them; wire is the
	// same bytes as the input holds them: in a recording, with the line
	// that times them.
	own, wire []byte
	at        time.Duration
	// dataAt is where Doc's bytes start in own, or -1 when they are not
	// one span of it (several data: lines, a decoded chunk).
	dataAt int
	// from is the event's index in the stream it was parsed from, or -1
	// for an event a defect added.
	from    int
	changed bool
}

// Stream is a recorded stream cut into events, ready for defects. The
// events of a timed recording are its body's frames, after its header
// (Events[0]).
type Stream struct {
	Events []*Event
	// Format is the format of the body: SSE, JSON lines, an event stream.
	Format capture.Format
	// rec is the recording the stream came from, or nil for a plain
	// stream; headLen is the length of its header block as a Recorder
	// writes it (see timed).
	rec     *capture.Recording
	headLen int
}

// ErrEmpty is returned by Parse for input that holds no event.
var ErrEmpty = errors.New("the input holds no event")

// Parse cuts data (a stream in any format streamtap reads, or a timed
// recording) into events, each with its dialect and type as the model
// detects them. The events' bytes are slices of data, not copies: data
// must not change while the stream is in use.
func Parse(data []byte) (*Stream, error) {
	lookupDialects()
	st := &Stream{}
	if bytes.HasPrefix(data, []byte(capture.RecordingMagic)) {
		rec, err := capture.ParseRecording(data)
		if err != nil {
			return nil, err
		}
		st.rec = rec
		st.headLen = len(st.timedHead())
	}
	o := &observer{}
	s := model.NewSession(model.Options{Observer: o})
	fr := capture.NewFramer(capture.FormatAuto)
	var bad error
	keep := func(f *capture.Frame) {
		i := len(st.Events)
		o.last = evInfo{}
		s.Add(f)
		// A frame's slices are the framer's; its offsets say where its
		// bytes lie in data, which the events keep instead of a copy.
		var raw []byte
		if f.Start >= 0 && f.End <= int64(len(data)) && f.End-f.Start == int64(len(f.Raw)) && bytes.Equal(data[f.Start:f.End], f.Raw) {
			raw = data[f.Start:f.End:f.End]
		} else {
			raw = bytes.Clone(f.Raw)
		}
		ev := &Event{Kind: f.Kind, Flags: f.Flags, own: raw, wire: raw, at: capture.NoTime, from: i, dataAt: -1}
		if st.rec != nil && i > 0 {
			if i-1 >= len(st.rec.Body) {
				bad = fmt.Errorf("the recording's body has more frames than parts (%d)", len(st.rec.Body))
			} else {
				ev.own, ev.at = st.rec.Body[i-1].Data, st.rec.Body[i-1].At
			}
		}
		info := o.last
		ev.Dialect, ev.Type = info.dialect, info.typ
		ev.Name, ev.HasName = string(f.Event), f.HasEvent
		st.describe(ev, f, raw)
		if info.invalid && ev.carry != carryChunk && ev.carry != carryCoded {
			ev.Doc = nil // no JSON object a defect could edit
		}
		st.Events = append(st.Events, ev)
	}
	fr.Feed(data, capture.NoTime, keep)
	fr.Finish(capture.NoTime, keep)
	s.End(nil)
	switch format := fr.Format(); {
	case format.IsArchive():
		return nil, fmt.Errorf("an archive of several exchanges: inject takes one stream (export one with streamtap proxy --record, or cut it out)")
	case bad != nil:
		return nil, bad
	case st.rec != nil:
		st.Format = st.rec.Format
		if len(st.rec.Body) != len(st.Events)-1 {
			return nil, fmt.Errorf("the recording's body is %d frames, its parts %d", len(st.Events)-1, len(st.rec.Body))
		}
	default:
		st.Format = format
	}
	if !st.hasEvent() {
		return nil, ErrEmpty
	}
	return st, nil
}

// hasEvent reports whether the stream holds a data event.
func (st *Stream) hasEvent() bool {
	for _, ev := range st.Events {
		if ev.Kind == capture.FrameEvent {
			return true
		}
	}
	return false
}

// describe sets how ev's document travels, and the document: a slice of
// raw (the frame's bytes) where the frame's data lies in them.
func (st *Stream) describe(ev *Event, f *capture.Frame, raw []byte) {
	if f.Kind != capture.FrameEvent || !f.HasData {
		return
	}
	switch {
	case f.Flags&capture.EventStream != 0:
		if f.Flags&(capture.PreludeCRC|capture.BadLength|capture.Truncated) != 0 {
			return
		}
		ev.carry, ev.Doc = carryMessage, f.Data
		if ev.Dialect == dInvoke && string(f.Event) == typeInvokeChunk {
			if inner, ok := chunkInner(f.Data); ok {
				ev.carry, ev.Doc, ev.Wrapper = carryChunk, inner, dInvoke
				if typ, ok := jsonscan.String(jsonscan.Get(inner, "type")); ok && ev.Type == typeInvokeChunk {
					ev.Type = typ
				}
				if jsonscan.Get(inner, "type") != nil {
					ev.Dialect = dAnthropic
				}
			}
		}
	case f.Flags&capture.Coded != 0:
		ev.carry, ev.Doc = carryCoded, f.Data
	case sseFrame(f):
		ev.carry, ev.Doc = carrySSE, f.Data
	default:
		ev.carry, ev.Doc = carryLine, f.Data
	}
	if ev.carry != carryChunk {
		if off, ok := within(f.Raw, f.Data); ok {
			ev.dataAt = off
			ev.Doc = raw[off : off+len(f.Data) : off+len(f.Data)]
		} else if ev.Doc != nil {
			ev.Doc = bytes.Clone(ev.Doc) // several data: lines, joined by the framer
		}
	}
	switch {
	case ev.carry == carryCoded:
		// A data stream part's value is any JSON value (0:"text").
		if jsonscan.Validate(ev.Doc) != nil {
			ev.Doc = nil
		}
	case string(ev.Doc) == "[DONE]":
		ev.Doc = nil
		if ev.carry != carrySSE {
			ev.carry = carryNone
		}
	case jsonscan.Kind(ev.Doc) != '{':
		ev.Doc = nil // not an object: nothing a defect edits
	}
}

// chunkInner decodes the bytes of an InvokeModel chunk's payload.
func chunkInner(payload []byte) ([]byte, bool) {
	s, ok := jsonscan.String(jsonscan.Get(payload, "bytes"))
	if !ok {
		return nil, false
	}
	inner, err := base64.StdEncoding.DecodeString(s)
	if err != nil || jsonscan.Kind(inner) != '{' {
		return nil, false
	}
	return inner, true
}

// sseFrame tells an SSE event from a JSON line or body, as the checks do:
// its first byte starts a field or a comment, not a JSON value.
func sseFrame(f *capture.Frame) bool {
	for _, b := range f.Raw {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return false
		}
		return true
	}
	return false
}

// within reports where b lies in outer, when b is a slice of it.
func within(outer, b []byte) (int, bool) {
	if len(b) == 0 || len(outer) == 0 {
		return 0, false
	}
	off := cap(outer) - cap(b)
	if off < 0 || off+len(b) > len(outer) || &outer[off] != &b[0] {
		return 0, false
	}
	return off, true
}

// evInfo is what the model said of one event.
type evInfo struct {
	dialect model.Dialect
	typ     string
	invalid bool // its data is no JSON object (cut short, or not JSON)
}

// observer keeps what the model said of the event it last added.
type observer struct{ last evInfo }

func (o *observer) Observe(s *model.Session, _ int, ev *model.Event, _ *capture.Frame) {
	o.last = evInfo{dialect: ev.Dialect, typ: s.TypeName(ev.Type), invalid: ev.Flags&(model.DecodeError|model.NotObject) != 0}
}

// Bytes writes the stream back: each event as the input held it unless a
// defect changed it; a changed or added event of a recording gets its
// timing line, as streamtap's recorder writes it.
func (st *Stream) Bytes() []byte {
	var b bytes.Buffer
	n := 0
	for _, ev := range st.Events {
		n += len(ev.wire) + 64 // a changed event in a recording gains a timing line
	}
	b.Grow(n)
	for _, ev := range st.Events {
		switch {
		case !ev.changed:
			b.Write(ev.wire)
		case st.rec != nil && ev.Kind != capture.FrameHead:
			b.Write(st.timed(ev.own, ev.at))
		default:
			b.Write(ev.own)
		}
	}
	return b.Bytes()
}

// timedHead is the header block a Recorder writes for the stream's
// recording.
func (st *Stream) timedHead() []byte {
	var b bytes.Buffer
	x := st.rec.Exchange
	r := capture.NewRecorder(&b, &x, capture.RecordOptions{Format: capture.RecordFormat(st.rec.Format), KeepSecrets: true})
	_ = r.Close(capture.NoTime)
	return b.Bytes()
}

// timed writes one frame's bytes as a recording's body holds them: with
// the line that times it, written by capture's own recorder (whose header
// block, the same for every frame, is cut off).
func (st *Stream) timed(own []byte, at time.Duration) []byte {
	var b bytes.Buffer
	x := st.rec.Exchange
	r := capture.NewRecorder(&b, &x, capture.RecordOptions{Format: capture.RecordFormat(st.rec.Format), KeepSecrets: true})
	_ = r.Write(own, at)
	_ = r.Close(at)
	return b.Bytes()[st.headLen:]
}

// Dialect names the dialect of data, a stream or a recording (its first
// part is enough): the one most of its events have, or
// dInvoke for an InvokeModel stream.
func Dialect(data []byte) model.Dialect {
	st, err := Parse(data)
	if err != nil {
		return model.DialectUnknown
	}
	return st.dialect()
}
