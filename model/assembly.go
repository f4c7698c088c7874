package model

import (
	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// This file holds what a dialect's claims and assembly read of the event
// being added, beside Member, Field, JSON and Focus: the session's
// internals they need, as methods, so that a dialect is a package of its
// own. Like Member they answer only while the event is added.

// Current is the event being added, as far as the core and the dialect
// have made it: its framing (Frame, Source), name, type and dialect.
func (s *Session) Current() *Event { return &s.last }

// Frame is the frame of the event being added, as framed (its SSE id,
// event name and flags), nil outside Add: a dialect whose protocol reads
// SSE fields (MCP resumes a stream from its events' ids) reads them here.
// Like the frame, it is valid only while the event is added.
func (s *Session) Frame() *capture.Frame { return s.frame }

// LastDialect is the dialect of the latest event before the one being
// added that had one, or DialectUnknown: an exception on an AWS event
// stream belongs to the stream of chunks or messages it ends.
func (s *Session) LastDialect() Dialect { return s.lastDial }

// Status is the HTTP status of the latest response head, 0 when none.
func (s *Session) Status() int { return s.status }

// Data is the JSON object of the event being added (or the document
// Focus made the event), nil when it is not a JSON object.
func (s *Session) Data() []byte { return s.cur }

// Intern returns the id of a type or event name (Event.Type, Event.Name):
// TypeName returns it back. The bytes are copied on first sight.
func (s *Session) Intern(name []byte) uint16 { return s.types.id(name) }

// InternString is Intern for the JSON string v, unquoted (a type member).
func (s *Session) InternString(v []byte) uint16 {
	s.scratch = jsonscan.Unquote(s.scratch[:0], v)
	return s.types.id(s.scratch)
}
