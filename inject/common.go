package inject

import (
	"strconv"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// This file holds what the defects of several dialects share: where the
// text deltas are, how a value is changed so that it differs, how a
// stream is cut for an error.

// textRef is a string of text a delta event carries: the event, the path
// of the string in its document, and the text it belongs to (a choice, a
// block), so that two deltas of one text can be told.
type textRef struct {
	i    int
	path []any
	text string
}

// textDeltas lists a stream's text deltas in stream order.
type textDeltas func(e *edit) []textRef

// spliceString inserts raw bytes into the string at path of event i's
// document: at its start, or at its end. The bytes go in as they are,
// unescaped, which is how an invalid byte reaches the wire.
func (e *edit) spliceString(i int, path []any, raw []byte, atEnd bool) bool {
	doc := e.st.Events[i].Doc
	s, end, ok := spanOf(doc, path...)
	if !ok || jsonscan.Kind(doc[s:end]) != '"' {
		return false
	}
	at := s + 1
	if atEnd {
		at = end - 1
	}
	return e.setDoc(i, splice(doc, at, at, raw))
}

// utf8Split splits a two-byte character (é, 0xC3 0xA9) across two
// deltas of one text: the first ends with its first byte, the next
// starts with its second. Each event is invalid UTF-8; the text, joined
// byte by byte, gains a whole é.
func utf8Split(texts textDeltas) func(e *edit) error {
	return func(e *edit) error {
		refs := texts(e)
		var cands []int
		next := map[int]textRef{}
		for k, r := range refs {
			for _, n := range refs[k+1:] {
				if n.text == r.text {
					if n.i != r.i {
						cands = append(cands, k)
						next[k] = n
					}
					break
				}
			}
		}
		k, err := e.pick(cands)
		if err != nil {
			e.note = "no two text deltas of one text"
			return err
		}
		a, b := refs[k], next[k]
		if !e.spliceString(a.i, a.path, []byte{0xC3}, true) || !e.spliceString(b.i, b.path, []byte{0xA9}, false) {
			return errNoPlace
		}
		e.note = "é split as 0xC3 | 0xA9 across two deltas"
		return nil
	}
}

// invalidUTF8 puts a Latin-1 é (0xE9) at the end of the chosen text delta.
func invalidUTF8(texts textDeltas) func(e *edit) error {
	return func(e *edit) error {
		refs := texts(e)
		cands := make([]int, len(refs))
		for k := range refs {
			cands[k] = k
		}
		k, err := e.pick(cands)
		if err != nil {
			e.note = "no text delta"
			return err
		}
		if !e.spliceString(refs[k].i, refs[k].path, []byte{0xE9}, true) {
			return errNoPlace
		}
		e.note = "a Latin-1 é (0xE9) at the end of a text delta"
		return nil
	}
}

// changedValue returns a JSON value (raw) that differs from v and has its
// type: a string gains " (changed)", a number grows by one, a boolean
// flips; an object or array changes its first such value inside, and
// one that holds none gains a member or an element.
func changedValue(v []byte) []byte {
	switch jsonscan.Kind(v) {
	case '"':
		s, _ := jsonscan.String(v)
		return quote(s + " (changed)")
	case 't':
		return []byte("false")
	case 'f':
		return []byte("true")
	case '{', '[':
		var inner []byte
		each := func(x []byte) bool {
			if jsonscan.IsNull(x) {
				return true
			}
			inner = x
			return false
		}
		if jsonscan.Kind(v) == '{' {
			jsonscan.Members(v, func(_, x []byte) bool { return each(x) })
		} else {
			jsonscan.Elements(v, func(_ int, x []byte) bool { return each(x) })
		}
		if inner != nil {
			off, _ := within(v, inner)
			return splice(v, off, off+len(inner), changedValue(inner))
		}
		if jsonscan.Kind(v) == '{' {
			out, _ := add(v, "changed", []byte("true"))
			return out
		}
		out, _ := appendElem(v, []byte("true"))
		return out
	case 'n':
		return []byte(`"changed"`)
	}
	if n, err := strconv.ParseFloat(string(v), 64); err == nil {
		return strconv.AppendFloat(nil, n+1, 'f', -1, 64)
	}
	return v
}

// changedArgs returns arguments (a JSON text) that parse to other
// arguments: the first value inside changed (changedValue), or an object
// when they are not JSON.
func changedArgs(args string) string {
	if jsonscan.Validate([]byte(args)) != nil || args == "" {
		return `{"changed":true}`
	}
	return string(changedValue([]byte(args)))
}

// midstreamCands lists where a stream may be cut for a mid-stream error:
// after each data event from the first content (start) up to the event
// before last (end, excluded).
func (e *edit) midstreamCands(start, end int) []int {
	return e.where(func(i int, ev *Event) bool {
		return i >= start && i < end && ev.Kind == capture.FrameEvent
	})
}

// cutWith drops everything after event i and ends the stream with evs.
func (e *edit) cutWith(i int, evs ...*Event) {
	for j := i + 1; j < len(e.st.Events); j++ {
		e.remove(j)
	}
	e.insertBefore(len(e.st.Events), evs...)
}

// flood returns n keep-alive events made by one.
func flood(n int, one func() *Event) []*Event {
	out := make([]*Event, n)
	for k := range out {
		out[k] = one()
	}
	return out
}

// floodSize is how many keep-alives keepalive-flood sends.
const floodSize = 100

// commentFlood inserts floodSize SSE comments before the chosen event.
func commentFlood(text string) func(e *edit) error {
	return func(e *edit) error {
		i, err := e.pick(e.dataEvents())
		if err != nil {
			return err
		}
		nl := ending(e.st.Events[i])
		e.insertBefore(i, flood(floodSize, func() *Event {
			return e.raw(i, capture.FrameComment, []byte(text+nl+nl))
		})...)
		e.note = strconv.Itoa(floodSize) + " comments " + text
		return nil
	}
}
