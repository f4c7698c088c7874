package model

import (
	"bytes"

	"github.com/streamtap/streamtap/capture"
)

// This file holds what a session knows of the request its stream answers,
// and how a dialect that cannot read its stream without that request gets
// it. Most dialects say everything in the response: a call's name and
// arguments stream in it. MCP's do not: a tools/call request's name and
// arguments are the call, and its stream carries only the progress and
// the result. Where the request is known differs by input (a timed
// recording's header, an archive's entry, the proxy, --request), so the
// session takes it once, in one form (a capture.Exchange), and hands it to
// the dialect that claims it.

// RequestClaimer is the optional hook of a Protocol whose streams answer
// requests that say what the stream does not (MCP: a JSON-RPC request
// holds the call, its stream the result): ClaimRequest reports whether the
// exchange's request is the dialect's, by its method, headers and body.
// The first dialect in detection order that claims it reads it (its
// Assembly implements RequestAssembly), and names the session
// (Session.Dialect) when none of its events has a dialect: a POST answered
// 202 with no body is still the dialect's.
type RequestClaimer interface {
	ClaimRequest(x *capture.Exchange) bool
}

// RequestAssembly is the optional method of the Assembly of a dialect that
// claims requests (RequestClaimer): Request applies the request its stream
// answers, once, as event ord is added. That is the stream's first event:
// after it when it is the response head or a recording's header (so the
// status is known), before it when the stream has no head (its first event
// is already an answer to the request). x and what it holds stay the
// caller's: copy what is kept.
type RequestAssembly interface {
	Request(s *Session, x *capture.Exchange, ord int)
}

// EmptyClaimer is the optional hook of a Protocol whose streams carry
// events with empty data on purpose (MCP's priming event: an id and an
// empty data line, which tells the client where to resume), which would
// otherwise be data that is not JSON: ClaimEmpty reports whether such an
// event, frame f, is the dialect's in the session as it stands. Its
// Assembly then gets it with data nil and typ "".
type EmptyClaimer interface {
	ClaimEmpty(s *Session, f *capture.Frame) bool
}

// SetExchange tells the session the HTTP exchange whose response its
// stream is, the request included (method, URL, headers, body): the
// proxy's, an archive entry's, --request's. Call it before the first frame
// is added; a nil x forgets it. A timed recording carries its own in its
// header, which the session reads from its first frame when SetExchange
// gave none. x is kept: do not modify it afterwards.
func (s *Session) SetExchange(x *capture.Exchange) {
	s.exchange = x
	s.reqDial = DialectUnknown
	if x != nil {
		s.reqDial = claimRequest(x)
	}
}

// Exchange returns the exchange the stream answers, or nil when it is not
// known (SetExchange, or a recording's header).
func (s *Session) Exchange() *capture.Exchange { return s.exchange }

// RequestDialect is the dialect that claimed the stream's request
// (RequestClaimer), or DialectUnknown.
func (s *Session) RequestDialect() Dialect { return s.reqDial }

// claimRequest returns the first dialect in detection order that claims
// the request of x.
func claimRequest(x *capture.Exchange) Dialect {
	for _, r := range detection {
		if rc, ok := r.p.(RequestClaimer); ok && rc.ClaimRequest(x) {
			return r.id
		}
	}
	return DialectUnknown
}

// learnExchange reads the exchange a timed recording's header states, the
// first frame of a recording, unless SetExchange gave one.
func (s *Session) learnExchange(f *capture.Frame) {
	if s.exchange != nil || (f.Kind != capture.FrameHead && f.Kind != capture.FrameComment) ||
		!bytes.HasPrefix(f.Raw, []byte(capture.RecordingMagic)) {
		return
	}
	if rec, err := capture.ParseRecording(f.Raw); err == nil {
		x := rec.Exchange
		s.SetExchange(&x)
	}
}

// applyRequest hands the request to the dialect that claimed it, once.
func (s *Session) applyRequest(ord int) {
	if s.reqApplied {
		return
	}
	s.reqApplied = true
	if s.reqDial == DialectUnknown {
		return
	}
	if ra, ok := s.Assembly(s.reqDial).(RequestAssembly); ok {
		ra.Request(s, s.exchange, ord)
	}
}

// emptyOwner returns the dialect that claims frame f, an event with empty
// data (EmptyClaimer), or DialectUnknown.
func (s *Session) emptyOwner(f *capture.Frame) Dialect {
	for _, d := range emptyClaimers {
		if byDialect[d].(EmptyClaimer).ClaimEmpty(s, f) {
			return d
		}
	}
	return DialectUnknown
}
