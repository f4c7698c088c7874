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
// stream's error (its payload, if any, is not applied). A message the
// input cut short is no event either, and leaves the outcome to the
// missing end. An error message with no payload (:message-type error)
// says what went wrong in its :error-message header.
func (s *Session) eventStream(ev *Event, f *capture.Frame, ord int) bool {
	switch {
	case f.Flags&eventStreamDamage != 0:
		ev.Type = s.types.id([]byte(TypeBadFrame))
		what := ""
		switch {
		case f.Flags&capture.PreludeCRC != 0:
			what = "prelude-crc"
		case f.Flags&capture.BadLength != 0:
			what = "bad-length"
		case f.Flags&capture.MessageCRC != 0:
			what = "message-crc"
		default:
			return true // Truncated alone
		}
		ev.Kind = KindError
		s.Errors = append(s.Errors, ErrorInfo{Ordinal: ord, Status: s.status, Code: what,
			Message: "the event stream message at byte " + strconv.FormatInt(f.Start, 10) + " fails its " + damageName(f.Flags) +
				": clients raise a checksum error and stop reading"})
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

// damageName says which check a damaged message fails, for messages.
func damageName(fl capture.Flags) string {
	switch {
	case fl&capture.PreludeCRC != 0:
		return "prelude CRC"
	case fl&capture.BadLength != 0:
		return "length check (a length no message can have)"
	}
	return "message CRC"
}
