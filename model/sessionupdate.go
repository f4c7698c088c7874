package model

// SessionUpdate is one exchange's news for a sessions list, in a batch:
// its latest Exchange, and whether it ended. The proxy sends them as it
// carries exchanges, and an archive's reader once per session; the
// inspector's sessions list reads them. Its session is Live: the sender
// models it, and the list reads it under its lock.
type SessionUpdate struct {
	Info Exchange
	// Live is the exchange's session. Only the first update of an
	// exchange is read for it.
	Live *Live
	// Relink says the update only changes the exchange's links to the
	// other leg of its turn (Info's LegOf, Step, Legs, LegsBy), found when
	// another exchange ended after it: the list keeps the rest of what it
	// knows of the exchange.
	Relink bool
	Ended  bool
	EndErr error
	// Stored, set on an ended exchange's update, is where its bytes are
	// kept off the heap: the list then keeps only the session's row and
	// loads the session again when it is opened. Without it the list
	// keeps the session.
	Stored StoredSession
	// NotKept, set on an ended exchange's update in place of Stored, says
	// why its bytes could not be kept off the heap ("disk full": the
	// spill directory's disk is). The list keeps its row, marked with it,
	// and lets the session go all the same: memory stays bounded, and the
	// session can no longer be opened.
	NotKept string
}

// StoredSession is an ended session's copy kept off the heap, such as
// the proxy's spill file. Its methods do the I/O (model never calls
// them; the sessions list does, off its event loop). They are safe for
// concurrent use.
type StoredSession interface {
	// Load models the session again from its copy: ended, with the same
	// events and findings as when it was live.
	Load() (LoadedSession, error)
	// Remove deletes the copy: the list let the session go.
	Remove() error
}

// LoadedSession is a session modelled again from its stored copy, and
// the request its request pane shows (the list's row keeps none: a
// request can be large, it repeats the whole conversation).
type LoadedSession struct {
	Session *Session
	Request *Request
}
