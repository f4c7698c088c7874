// Package model turns frames into meaning: events with a kind and a
// dialect, and the assembly of every tool call, message and reasoning item
// they carry, queryable as of any event. It is plain data and functions: it
// knows nothing about terminals or Bubble Tea, and it never starts I/O (raw
// bytes are read back through an io.ReaderAt handed to it).
package model

import (
	"time"

	"github.com/streamtap/streamtap/capture"
)

// Kind is what an event does in the protocol, the same vocabulary for every
// dialect so that the timeline and the checks can speak of all of them.
type Kind uint8

const (
	KindUnknown   Kind = iota
	KindLifecycle      // response/message created, in progress, parts, usage
	KindItemOpen       // an output item, content block or tool call starts
	KindArgsDelta      // a fragment of a call's arguments
	KindArgsDone       // a call's final arguments
	KindItemDone       // an item, block or choice ends
	KindTextDelta      // a fragment of text, reasoning or refusal
	KindTextDone       // a final text
	KindTerminal       // the response or message ends
	KindKeepalive      // comments, pings, keepalive events
	KindSentinel       // data: [DONE]
	KindError          // an error payload or HTTP error status
)

var kindNames = [...]string{
	KindUnknown: "unknown", KindLifecycle: "lifecycle", KindItemOpen: "item-open",
	KindArgsDelta: "args-delta", KindArgsDone: "args-done", KindItemDone: "item-done",
	KindTextDelta: "text-delta", KindTextDone: "text-done", KindTerminal: "terminal",
	KindKeepalive: "keepalive", KindSentinel: "sentinel", KindError: "error",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Kinds lists every kind, for filters and help.
func Kinds() []Kind {
	out := make([]Kind, len(kindNames))
	for i := range out {
		out[i] = Kind(i)
	}
	return out
}

// Flags are the model's observations about one event, beside the framing
// flags the capture layer recorded.
type Flags uint16

const (
	// DecodeError: the data is not valid JSON (and not [DONE]).
	DecodeError Flags = 1 << iota
	// NotObject: valid JSON, but not an object.
	NotObject
	// NameMismatch: the SSE event: name differs from data.type.
	NameMismatch
	// NonStandard: a type outside the dialect's documented stream, such as
	// response.required_action.
	NonStandard
	// Orphan: the event names an item, block or call that was never opened;
	// it was attached by fallback or to a new item.
	Orphan
	// Matched: the event named no item and was attached by fallback (output
	// index, or the single open call).
	Matched
)

// Event is one frame of the stream, kept small: offsets into the raw bytes
// rather than copies, and interned type names. Read the bytes back with
// Session.Raw.
type Event struct {
	Offset  int64
	At      time.Duration // arrival time, or capture.NoTime
	Seq     int64         // sequence_number, or -1
	Len     int32
	Item    int32  // index in Session.Items of the item it touched, or -1
	Type    uint16 // interned: data.type, or the event name, or a (pseudo) type
	Name    uint16 // interned SSE event: name, 0 when absent
	Frame   capture.Flags
	Flags   Flags
	Kind    Kind
	Dialect Dialect
	Source  capture.FrameKind
}

// HasTime reports whether the event's arrival was observed.
func (e *Event) HasTime() bool { return e.At != capture.NoTime }

// Pseudo types for events that carry no JSON type.
const (
	TypeComment   = "(comment)"
	TypeRemainder = "(remainder)"
	TypeHTTP      = "(http)"
	TypeDone      = "[DONE]"
	TypeInvalid   = "(invalid json)"
	TypeNoData    = "(no data)"
)

// interner maps type names to small integers so events stay small.
type interner struct {
	ids   map[string]uint16
	names []string
	last  uint16 // the latest id returned: streams repeat one type in runs
}

func newInterner() *interner {
	return &interner{ids: map[string]uint16{"": 0}, names: []string{""}}
}

func (in *interner) id(b []byte) uint16 {
	if string(b) == in.names[in.last] {
		return in.last
	}
	if id, ok := in.ids[string(b)]; ok {
		in.last = id
		return id
	}
	if len(in.names) == 1<<16-1 {
		return 0 // a hostile stream with 65k distinct types: stop interning
	}
	s := string(b)
	id := uint16(len(in.names))
	in.ids[s] = id
	in.names = append(in.names, s)
	return id
}

// rank orders kinds when one event does several things (a Chat chunk that
// adds text and opens a call): the timeline shows the most telling one.
// Every kind an assembly may raise to has a rank above lifecycle's: a
// Gemini end marker (args-done) once ranked with lifecycle, so its chunk
// kept the lifecycle it started as.
func (k Kind) rank() int {
	switch k {
	case KindError:
		return 8
	case KindTerminal:
		return 7
	case KindItemOpen:
		return 6
	case KindArgsDelta:
		return 5
	case KindArgsDone:
		return 4
	case KindItemDone:
		return 3
	case KindTextDone:
		return 2
	case KindTextDelta:
		return 1
	}
	return 0
}

// Raise sets k to to when to is the more telling of the two, for an event
// that does several things (see rank).
func (k *Kind) Raise(to Kind) {
	if to.rank() > k.rank() {
		*k = to
	}
}
