package model

import "github.com/streamtap/streamtap/capture"

// This file links exchanges that continue earlier ones by what their
// requests carry beside their bodies' tool outputs (which Turns.Link
// reads): MCP resumes a stream on a GET with Last-Event-ID, cancels a
// request with a notification, answers a request the server made on an
// earlier stream with a POST of its own. The keys are the dialect's; Turns
// keeps them, so that the proxy and an imported archive link such
// exchanges as they link turns.

// Linker is the optional hook of a Protocol whose exchanges continue
// earlier ones of the same session by what their requests say (MCP:
// Last-Event-ID, a notifications/cancelled's requestId, a response's id).
type Linker interface {
	// Marks lists what a finished exchange, session s, offers later ones
	// to continue: keys in the dialect's own words, unique within the
	// conversation (MCP: its stream's last event ids, its requests' ids
	// and the ids of the requests the server made on its stream, each
	// with the MCP session it belongs to). It is asked once, when the
	// exchange is added to Turns; keep it short.
	Marks(s *Session) []string
	// Wants lists the keys the request of exchange x continues, each with
	// what it does to the exchange that offered it.
	Wants(x *capture.Exchange) []Want
	// Carry returns what a finished exchange, session s, hands the
	// exchange that continues it, in the dialect's own form (MCP: the
	// requests its stream left unanswered, which a GET that resumes it
	// answers; a resumed stream carries its own on, so a stream resumed
	// twice still knows them); nil for nothing. It is asked with Marks.
	Carry(s *Session) []byte
}

// Want is a key an exchange's request continues (see Linker), and what it
// does to the exchange that offered it, in a word a sessions list and a
// header line show: "resumes", "cancels", "answers".
type Want struct {
	Key, Verb string
}

// ExchangeLink is how a request continues an earlier exchange by what its
// request carries (Turns.LinkExchange): the exchange (0 for none), what it
// does to it, and the earlier exchange's request and marks, which its
// session reads (Session.SetEarlier).
type ExchangeLink struct {
	Prev    int
	Verb    string
	Earlier Earlier
}

// Earlier is the exchange a stream continues, as its session reads it:
// its exchange, what it offered (Linker.Marks: the ids of the events it
// delivered already) and what it carries on (Linker.Carry: an MCP
// stream's unanswered requests, whose responses a GET that resumes it
// carries).
type Earlier struct {
	Exchange *capture.Exchange
	Marks    []string
	Carry    []byte
}

// SetEarlier tells the session the exchange its stream continues (see
// Turns.LinkExchange). Call it before the first frame is added; the values
// are kept and must not be modified afterwards.
func (s *Session) SetEarlier(e Earlier) { s.earlier = e }

// Earlier returns the exchange the stream continues, the zero Earlier
// when none (SetEarlier).
func (s *Session) Earlier() Earlier { return s.earlier }

// linkerOf returns the Linker of the dialect that claims x's request, or
// nil.
func linkerOf(x *capture.Exchange) Linker {
	if x == nil {
		return nil
	}
	l, _ := claimRequest(x).Protocol().(Linker)
	return l
}

// Wants reports whether the request of x continues an earlier exchange by
// what it carries (Linker), so that a caller linking an archive's
// exchanges knows to model the ones before it.
func Wants(x *capture.Exchange) bool {
	l := linkerOf(x)
	return l != nil && len(l.Wants(x)) > 0
}

// LinkExchange finds the exchange the request of x continues by what it
// carries (Linker.Wants), the latest when several: see ExchangeLink. It
// complements Link, which reads the request's body: a request may do both.
func (t *Turns) LinkExchange(x *capture.Exchange) ExchangeLink {
	l := linkerOf(x)
	if l == nil {
		return ExchangeLink{}
	}
	wants := l.Wants(x)
	t.mu.Lock()
	defer t.mu.Unlock()
	var link ExchangeLink
	for _, w := range wants {
		if id := t.marks[w.Key]; id > link.Prev {
			link.Prev, link.Verb = id, w.Verb
		}
	}
	if link.Prev > 0 {
		link.Earlier = t.earlier[link.Prev]
	}
	return link
}

// addMarks records what exchange id, session s, offers later exchanges;
// t.mu is held. It reports whether it recorded anything.
func (t *Turns) addMarks(id int, s *Session) bool {
	l, ok := s.Dialect().Protocol().(Linker)
	if !ok {
		return false
	}
	marks := l.Marks(s)
	if len(marks) == 0 {
		return false
	}
	if t.marks == nil {
		t.marks, t.earlier = map[string]int{}, map[int]Earlier{}
	}
	for _, k := range marks {
		t.marks[k] = id
	}
	t.earlier[id] = Earlier{Exchange: s.Exchange(), Marks: marks, Carry: l.Carry(s)}
	return true
}

// forgetMarks drops what exchange id offered, leaving keys a later
// exchange has taken over; t.mu is held.
func (t *Turns) forgetMarks(id int) {
	for _, k := range t.earlier[id].Marks {
		if t.marks[k] == id {
			delete(t.marks, k)
		}
	}
	delete(t.earlier, id)
}
