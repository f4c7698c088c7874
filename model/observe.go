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

// Fingerprinter is an Observer that reads each event's fingerprint
// (Session.Fingerprint), such as the recorder of a comparison: the scan
// of each event then computes it as it passes the bytes (jsonscan
// Fingerprint), leaving out the members FingerprintSkip names, rather
// than the observer walking every event again.
type Fingerprinter interface {
	Observer
	FingerprintSkip() *jsonscan.KeySet
}

// Fingerprint returns the fingerprint of the event being added (see
// jsonscan.Fingerprint), and whether its scan computed one: only for a
// session whose observer is a Fingerprinter, and only for an event whose
// data the scan read (not an event stream chunk validated by decoding).
// Like Field, it answers while the event is added and observed.
func (s *Session) Fingerprint() (uint64, bool) { return s.fp, s.fpOK }

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
// returns nil), because the event's bytes belong to the framer. A member
// some dialect declared (MemberOf) is at hand, as Member returns it;
// others cost one walk over the event's top level.
func (s *Session) Field(key string) []byte {
	if s.cur == nil {
		return nil
	}
	if sl, ok := lookupMember(key); ok {
		return s.top.vals[sl.m]
	}
	return s.idx.Get(s.cur, key)
}

// SetMemo leaves v, something the assembly found in the event being added
// and does not keep, for the dialect's rules to read (Memo) as they
// observe the event, so that they need not walk it again: Anthropic's
// assembly leaves the type of a content_block_delta's delta. A dialect
// has one memo per event, cleared before the next.
func (s *Session) SetMemo(v []byte) { s.top.memo, s.top.memoSet = v, true }

// Memo returns what the assembly left with SetMemo for the event being
// added, and whether it left anything. It answers as Field does, only
// while the event is added and observed.
func (s *Session) Memo() ([]byte, bool) {
	if s.cur == nil || !s.top.memoSet {
		return nil, false
	}
	return s.top.memo, true
}

// Note is what the assembly saw of the event being added and does not
// keep: a quirk of its members that a rule judges (package model/checks),
// found in the walk the assembly makes anyway, so that no observer walks
// the event again.
type Note struct {
	// Item is the index in Session.Items of the item it concerns, or -1.
	Item int
	// What says what, in the dialect's words (package chat's
	// NoteMessageInChunk, …).
	What string
}

// Notes returns what the assembly noted of the event being added. Like
// Field, it answers during Observer.Observe; the slice is reused.
func (s *Session) Notes() []Note { return s.notes }

// AddNote notes, for the event being added, a quirk the rules judge (see
// Note): item is the index of the item it concerns, or -1.
func (s *Session) AddNote(item int, what string) {
	s.notes = append(s.notes, Note{Item: item, What: what})
}

// JSON is the structure of the event being observed, for reading nested
// fields of Field's values without scanning them again. Like Field, it is
// valid only during Observer.Observe.
func (s *Session) JSON() *jsonscan.Index { return s.idx }
