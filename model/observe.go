package model

import (
	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Observer watches a session's events as they are added, for analyses that
// need facts the assembly does not keep (package model/checks is one).
// Observing costs a nil check per event when no observer is set.
type Observer interface {
	// Observe is called at the end of Session.Add, once the assembly has
	// applied event ord. ev and f are valid only during the call; so are
	// the slices Session.Field returns. Observe must not call Add.
	Observe(s *Session, ord int, ev *Event, f *capture.Frame)
}

// Observer returns the observer the session was created with, or nil.
func (s *Session) Observer() Observer { return s.opts.Observer }

// Observers is an Observer that passes each event to the observers it
// lists, in order. A session has one observer, and a stream that is both
// checked and compared (the inspector's --diff) needs two.
type Observers []Observer

// Observe implements Observer.
func (os Observers) Observe(s *Session, ord int, ev *Event, f *capture.Frame) {
	for _, o := range os {
		o.Observe(s, ord, ev, f)
	}
}

// WithObserver returns o with obs watching its events too: after the
// observer o already has, if any, or alone.
func (o Options) WithObserver(obs Observer) Options {
	switch prev := o.Observer; {
	case obs == nil:
	case prev == nil:
		o.Observer = obs
	default:
		list, _ := prev.(Observers)
		if list == nil {
			list = Observers{prev}
		}
		o.Observer = append(list[:len(list):len(list)], obs)
	}
	return o
}

// FindObserver returns the observer of type T that watches session s (its
// observer, or one an Observers lists), and whether there is one: how an
// analysis finds its own state on a session that others observe too.
func FindObserver[T Observer](s *Session) (T, bool) {
	return findObserver[T](s.opts.Observer)
}

func findObserver[T Observer](o Observer) (T, bool) {
	if t, ok := o.(T); ok {
		return t, true
	}
	if list, ok := o.(Observers); ok {
		for _, x := range list {
			if t, ok := findObserver[T](x); ok {
				return t, true
			}
		}
	}
	var zero T
	return zero, false
}

// Field returns the raw JSON of a top-level member of the event being
// added, or nil when the member is absent or the event's data is not a
// JSON object. It answers only while the event is added: to the dialect
// that claims and assembles it, and during Observer.Observe (elsewhere it
// returns nil), because the event's bytes belong to the framer. The members
// the assembly reads are already at hand; others cost one walk over the
// event's top level.
func (s *Session) Field(key string) []byte {
	if s.cur == nil {
		return nil
	}
	t := &s.top
	switch key {
	case "type":
		return t.typ
	case "sequence_number":
		return t.seq
	case "item_id":
		return t.itemID
	case "output_index":
		return t.outputIndex
	case "content_index":
		return t.contentIndex
	case "summary_index":
		return t.summaryIndex
	case "delta":
		return t.delta
	case "arguments":
		return t.arguments
	case "item":
		return t.item
	case "response":
		return t.response
	case "error":
		return t.err
	case "index":
		return t.index
	case "content_block":
		return t.contentBlock
	case "object":
		return t.object
	case "id":
		return t.id
	case "choices":
		return t.choices
	case "message":
		return t.message
	case "name":
		return t.name
	case "code":
		return t.code
	case "usage":
		return t.usage
	case "content":
		return t.content
	case "model":
		return t.model
	case "created":
		return t.created
	case "stop_reason":
		return t.stopReason
	case "contentBlockIndex":
		return t.blockIndex
	case "start":
		return t.start
	case "stopReason":
		return t.converseStop
	}
	return s.idx.Get(s.cur, key)
}

// DeltaType returns the "type" member of the delta of the Anthropic
// content_block_delta being added (the first one, as Index.Get finds it),
// or nil when the delta has none, and true; false when the assembly did
// not walk this event's delta, and then the caller reads it itself. It
// answers as Field does, only while the event is added and observed: the
// rules read the type of every delta, and the assembly's walk over it has
// found it already.
func (s *Session) DeltaType() ([]byte, bool) {
	if s.cur == nil || !s.top.deltaWalked {
		return nil, false
	}
	return s.top.deltaType, true
}

// Note is what the assembly saw of the event being added and does not
// keep: a quirk of its members that a rule judges (package model/checks),
// found in the walk the assembly makes anyway, so that no observer walks
// the event again.
type Note struct {
	// Item is the index in Session.Items of the item it concerns, or -1.
	Item int
	// What says what: NoteMessageInChunk, NoteNullArguments, NoteNullID,
	// NoteNullType, NoteNullName.
	What string
}

// The notes a Chat chunk may bring.
const (
	// NoteMessageInChunk: a chunk's choice carries a whole message next to
	// its delta.
	NoteMessageInChunk = "message in chunk"
	// NoteNullArguments: a tool-call fragment sends "arguments": null.
	NoteNullArguments = "arguments"
	// NoteNullID, NoteNullType, NoteNullName: a fragment that continues a
	// call sends "id", "type" or "name": null.
	NoteNullID   = "id"
	NoteNullType = "type"
	NoteNullName = "name"
)

// Notes returns what the assembly noted of the event being added. Like
// Field, it answers during Observer.Observe; the slice is reused.
func (s *Session) Notes() []Note { return s.notes }

func (s *Session) AddNote(item int, what string) {
	s.notes = append(s.notes, Note{Item: item, What: what})
}

// JSON is the structure of the event being observed, for reading nested
// fields of Field's values without scanning them again. Like Field, it is
// valid only during Observer.Observe.
func (s *Session) JSON() *jsonscan.Index { return s.idx }
