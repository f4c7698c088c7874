package model

import (
	"strconv"

	"github.com/streamtap/streamtap/capture"
)

// TypeBadFrame is the pseudo type of an event stream message that fails a
// check of its framing (capture's PreludeCRC, MessageCRC, BadLength) or
// that the input cut short (Truncated).
const TypeBadFrame = "(bad frame)"

// eventStreamDamage are the framing flags of an event stream message
// clients do not receive.
const eventStreamDamage = capture.PreludeCRC | capture.MessageCRC | capture.BadLength | capture.Truncated

// eventStream applies what an event stream message's framing decides
// before any dialect, and reports whether that was all. A message that
// fails a CRC or has impossible lengths is no event a client receives: the
// AWS SDKs raise a checksum error and the stream ends there, so it is the
// stream's error, "eventstream: message CRC mismatch at byte N" (its
// payload, if any, is not applied). A message the
// input cut short is no event either, and leaves the outcome to the
// missing end. An error message with no payload (:message-type error)
// says what went wrong in its :error-message header.
func (s *Session) eventStream(ev *Event, f *capture.Frame, ord int) bool {
	switch {
	case f.Flags&eventStreamDamage != 0:
		ev.Type = s.types.id([]byte(TypeBadFrame))
		what := damageName(f.Flags)
		if what == "" {
			return true // Truncated alone: the missing end tells the outcome
		}
		ev.Kind = KindError
		s.Errors = append(s.Errors, ErrorInfo{Ordinal: ord, Status: s.status, Code: "eventstream",
			Message: what + " at byte " + strconv.FormatInt(f.Start, 10)})
		return true
	case f.Flags&capture.Exception != 0 && !f.HasData:
		ev.Type, ev.Kind, ev.Dialect = ev.Name, KindError, s.lastDial
		if ev.Type == 0 {
			ev.Type = s.types.id([]byte(TypeNoData))
		}
		msg := ""
		for _, h := range f.Header {
			if string(h.Name) == ":error-message" {
				msg = string(h.Value)
			}
		}
		s.Errors = append(s.Errors, ErrorInfo{Ordinal: ord, Status: s.status, Code: string(f.Event), Message: msg})
		return true
	}
	return false
}

// damageName says which check a damaged message fails, for the error
// that reports it; "" for none.
func damageName(fl capture.Flags) string {
	switch {
	case fl&capture.PreludeCRC != 0:
		return "prelude CRC mismatch"
	case fl&capture.BadLength != 0:
		return "impossible lengths"
	case fl&capture.MessageCRC != 0:
		return "message CRC mismatch"
	}
	return ""
}
