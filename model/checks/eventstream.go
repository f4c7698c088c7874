package checks

import (
	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// observeEventStream applies the transport rules to a message of an AWS
// event stream: its CRCs and lengths, an exception, a message cut off by
// EOF, and a payload that is not a JSON object. An empty payload is legal
// there, unlike an SSE event without data.
func (c *Checker) observeEventStream(s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	name := s.TypeName(ev.Type)
	if f.HasEvent {
		name = string(f.Event)
	}
	switch {
	case f.Flags&capture.PreludeCRC != 0:
		c.Add(fESPreludeCRC, []int{ord}, "event %d (bytes %d–%d): the prelude CRC fails; nothing of it can be trusted, and reading resumes at the next valid prelude",
			ord, f.Start, f.End)
		return
	case f.Flags&capture.BadLength != 0:
		c.Add(fESLength, []int{ord}, "event %d (bytes %d–%d) has lengths no message can have (its prelude's, or its headers')",
			ord, f.Start, f.End)
		return
	case f.Flags&capture.MessageCRC != 0:
		c.Add(fESMessageCRC, []int{ord}, "event %d (%s, bytes %d–%d): the message CRC fails: its headers or payload were damaged",
			ord, Quote(name), f.Start, f.End)
		return
	case f.Flags&capture.Truncated != 0:
		c.Add(fUnterminated, []int{ord}, "event %d: the input ends %d bytes into an event stream message; clients discard it", ord, f.End-f.Start)
		return
	}
	if f.HasData {
		c.frames.data++
	}
	if ev.Kind == model.KindError && f.Flags&capture.Exception != 0 {
		for i := len(s.Errors) - 1; i >= 0 && s.Errors[i].Ordinal == ord; i-- {
			e := s.Errors[i]
			c.Add(fESException, []int{ord}, "event %d is an exception %s: %s", ord, Quote(e.Code), Quote(e.Message))
			break
		}
		return
	}
	switch {
	case ev.Flags&model.DecodeError != 0:
		c.Add(fInvalidJSON, []int{ord}, "event %d (%s): payload %s is not JSON", ord, Quote(name), QuoteBytes(f.Data))
	case ev.Flags&model.NotObject != 0:
		c.Add(fNotObject, []int{ord}, "event %d (%s): payload %s is JSON but not an object", ord, Quote(name), QuoteBytes(f.Data))
	case ev.Kind == model.KindError:
		for i := len(s.Errors) - 1; i >= 0 && s.Errors[i].Ordinal == ord; i-- {
			e := s.Errors[i]
			c.Add(fErrorPayload, []int{ord}, "event %d (%s) is an error payload %s: %s", ord, name, e.Code, Quote(e.Message))
			break
		}
	}
	if f.Flags&capture.InvalidUTF8 != 0 {
		c.Add(fInvalidUTF8, []int{ord}, "event %d (%s): the payload contains bytes that are not valid UTF-8", ord, Quote(name))
	}
}
