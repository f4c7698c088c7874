package inject

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"slices"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// This file holds the defects of how events are cut and encoded, which
// every dialect of one wire format shares: SSE (sseFraming), JSON lines
// (lineFraming) and AWS event streams (messageFraming).

// sseFraming is the framing defects of a dialect streamed as SSE.
func sseFraming() []variant {
	return []variant{
		{"crlf", "framing/mixed-line-endings", mixEndings("\r\n"), nil},
		{"cr", "framing/mixed-line-endings", mixEndings("\r"), nil},
		{"unterminated", "framing/unterminated-event", unterminated, nil},
		{"comment-as-data", "framing/invalid-json", insertRaw("data: : OPENROUTER PROCESSING"), nil},
		{"not-object", "framing/not-object", insertRaw(`data: "keepalive"`), nil},
		{"empty-data", "framing/empty-data", insertRaw("data:"), nil},
		{"leading-space", "framing/leading-space-field", leadingSpace, nil},
	}
}

// lineFraming is the framing defects of a dialect streamed as JSON
// lines.
func lineFraming() []variant {
	return []variant{
		{"crlf", "framing/mixed-line-endings", mixEndings("\r\n"), nil},
		{"unterminated", "framing/unterminated-event", unterminated, nil},
		{"comment-as-data", "framing/invalid-json", insertRaw(": OPENROUTER PROCESSING"), nil},
		{"not-object", "framing/not-object", insertRaw(`"keepalive"`), nil},
	}
}

// messageFraming is the framing defects of a dialect streamed as AWS
// event stream messages. lastAlso names the rules check raises beside
// framing/unterminated-event when the last message, which the stream is
// cut inside, is lost.
func messageFraming(lastAlso ...string) []variant {
	return []variant{
		{"unterminated", "framing/unterminated-event", unterminated, lastAlso},
		{"crc", "framing/eventstream-message-crc", damage(crcDamage), nil},
		{"prelude-crc", "framing/eventstream-prelude-crc", damage(preludeDamage), nil},
		{"bad-length", "framing/eventstream-length", damage(lengthDamage), nil},
	}
}

// dataEvents lists the stream's data events after its first: the places
// a defect that needs the stream started (its dialect told) may act.
func (e *edit) dataEvents() []int {
	firstSeen := false
	return e.where(func(_ int, ev *Event) bool {
		if ev.Kind != capture.FrameEvent {
			return false
		}
		if !firstSeen {
			firstSeen = true
			return false
		}
		return true
	})
}

// mixEndings switches the line endings to nl from the chosen event on
// (to LF when the stream already ends its lines with nl).
func mixEndings(nl string) func(e *edit) error {
	return func(e *edit) error {
		first := e.first(func(_ int, ev *Event) bool { return ev.Kind == capture.FrameEvent })
		if first < 0 {
			return errNoPlace
		}
		if ending(e.st.Events[first]) == nl {
			nl = "\n"
		}
		i, err := e.pick(e.dataEvents())
		if err != nil {
			return err
		}
		for j := i; j < len(e.st.Events); j++ {
			ev := e.st.Events[j]
			if ev.Kind == capture.FrameHead {
				continue
			}
			if b := withEndings(ev.own, nl); !bytes.Equal(b, ev.own) {
				e.setOwn(j, b)
			}
		}
		e.note = "line endings " + endingName(nl) + " from the chosen event on"
		return nil
	}
}

func endingName(nl string) string {
	switch nl {
	case "\r\n":
		return "CRLF"
	case "\r":
		return "CR"
	}
	return "LF"
}

// unterminated makes the last data event the stream's last bytes and cuts
// what ends it: an SSE event's blank line, a JSON line's newline, the
// last bytes (its CRC) of an event stream message.
func unterminated(e *edit) error {
	i := e.lastData()
	if i < 0 {
		return errNoPlace
	}
	ev := e.st.Events[i]
	own := ev.own
	switch {
	case ev.Flags&capture.EventStream != 0:
		if len(own) <= capture.EventStreamPrelude+4 || len(e.dataEvents()) == 0 {
			return errNoPlace // the only message: nothing would be left
		}
		own = own[:len(own)-4]
		e.note = "the last message loses its CRC: the stream ends inside it"
	case lineCarried(ev):
		own = bytes.TrimRight(own, "\r\n")
		e.note = "the last line loses its newline"
	default:
		ls := splitLines(own)
		if len(ls) < 2 || len(ls[len(ls)-1].text) > 0 {
			return errNoPlace // already unterminated
		}
		own = joinLines(ls[:len(ls)-1])
		e.note = "the last event loses its blank line"
	}
	e.setOwn(i, own)
	for j := i + 1; j < len(e.st.Events); j++ {
		e.remove(j)
	}
	return nil
}

// lineCarried reports whether ev is a line (a JSON line, a data stream
// part) that one newline ends, not an SSE event a blank line ends.
func lineCarried(ev *Event) bool { return ev.carry == carryLine || ev.carry == carryCoded }

// insertRaw inserts an event of the bytes text (ended as the stream ends
// its events) before the chosen data event.
func insertRaw(text string) func(e *edit) error {
	return func(e *edit) error {
		i, err := e.pick(e.dataEvents())
		if err != nil {
			return err
		}
		tpl := e.st.Events[i]
		nl := ending(tpl)
		b := []byte(text + nl)
		if !lineCarried(tpl) {
			b = append(b, nl...)
		}
		e.insertBefore(i, e.raw(i, capture.FrameEvent, b))
		e.note = "inserted " + text
		return nil
	}
}

// leadingSpace sends the chosen event again with a space before its data
// field name: spec parsers ignore the line, so the copy carries nothing.
func leadingSpace(e *edit) error {
	cands := e.where(func(i int, ev *Event) bool { return ev.carry == carrySSE && ev.Doc != nil && i > 0 })
	i, err := e.pick(cands)
	if err != nil {
		return err
	}
	ev := e.st.Events[i]
	nl := ending(ev)
	b := append(append([]byte(" data: "), ev.Doc...), nl+nl...)
	e.insertAfter(i, e.raw(i, capture.FrameEvent, b))
	e.note = "the event sent again as \" data: …\""
	return nil
}

// damage breaks the chosen event stream message (not the first) with f.
func damage(f func(msg []byte) []byte) func(e *edit) error {
	return func(e *edit) error {
		sound := func(i int, ev *Event) bool {
			return i > 0 && ev.Flags&capture.EventStream != 0 && ev.Flags&(capture.PreludeCRC|capture.MessageCRC|capture.BadLength|capture.Truncated) == 0
		}
		// A damaged message is lost to the reader: pick one whose loss
		// costs only a piece of text, or the usage.
		cands := slices.DeleteFunc(e.harmless(), func(i int) bool { return !sound(i, e.st.Events[i]) })
		i, err := e.pick(cands)
		if err != nil {
			e.note = "no message whose loss costs only text (a text delta that does not open its block, metadata)"
			return err
		}
		e.setOwn(i, f(bytes.Clone(e.st.Events[i].own)))
		e.note = "message " + e.st.Events[i].Type + " damaged"
		return nil
	}
}

// crcDamage flips every bit of a message's CRC.
func crcDamage(msg []byte) []byte {
	n := len(msg)
	binary.BigEndian.PutUint32(msg[n-4:], ^binary.BigEndian.Uint32(msg[n-4:]))
	return msg
}

// preludeDamage flips every bit of a message's prelude CRC.
func preludeDamage(msg []byte) []byte {
	binary.BigEndian.PutUint32(msg[8:], ^binary.BigEndian.Uint32(msg[8:]))
	return msg
}

// lengthDamage gives a message a headers length that runs past it, with
// a prelude CRC that holds for it (and a message CRC that does too).
func lengthDamage(msg []byte) []byte {
	total := binary.BigEndian.Uint32(msg)
	binary.BigEndian.PutUint32(msg[4:], total)
	binary.BigEndian.PutUint32(msg[8:], crc32.ChecksumIEEE(msg[:8]))
	n := len(msg)
	binary.BigEndian.PutUint32(msg[n-4:], crc32.ChecksumIEEE(msg[:n-4]))
	return msg
}

// harmless lists the messages whose loss costs a reader only a piece of
// text or the usage: a text or thinking delta that does not open its
// block, Converse's metadata.
func (e *edit) harmless() []int {
	var out []int
	for _, b := range e.converse().blocks {
		if b.kind == "text" && len(b.deltas) > 1 {
			out = append(out, b.deltas[1:]...)
		}
	}
	if x := e.converse(); x.metadata >= 0 {
		out = append(out, x.metadata)
	}
	for _, b := range e.anthropic().blocks {
		for _, d := range b.deltas {
			if typ, _ := getString(e.st.Events[d].Doc, "delta", "type"); typ == "text_delta" || typ == "thinking_delta" {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return out
}

// nameMismatch gives the chosen event of dialect *dl an event: name of
// another type.
func nameMismatch(dl *model.Dialect) func(e *edit) error {
	return func(e *edit) error {
		d := *dl // looked up when the defect runs: see lookupDialects
		cands := e.where(func(_ int, ev *Event) bool { return ev.Dialect == d && ev.carry == carrySSE && ev.Doc != nil })
		i, err := e.pick(cands)
		if err != nil {
			return err
		}
		ev := e.st.Events[i]
		other := "response.output_text.delta"
		if d == dAnthropic {
			other = "content_block_delta"
			if ev.Type == other {
				other = "ping"
			}
		} else if ev.Type == other {
			other = "response.in_progress"
		}
		e.setOwn(i, sseWithName(ev.own, other))
		e.note = "event: " + other + " over data of type " + ev.Type
		return nil
	}
}
