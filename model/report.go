package model

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"unicode/utf8"
)

// CallsReport is the `streamtap calls --json` document. Scripts rely on its
// shape: fields may be added, never renamed or removed.
type CallsReport struct {
	Dialect  string        `json:"dialect"`
	Dialects []string      `json:"dialects,omitempty"` // when the stream mixes several
	Calls    []CallReport  `json:"calls"`
	Text     any           `json:"text"` // a string, or one string per choice
	Outcome  OutcomeReport `json:"outcome"`
}

// CallReport is one assembled call.
type CallReport struct {
	// ID is the id a client answers with: Responses call_id, Chat tool-call
	// id, Anthropic tool_use id, Gemini functionCall id; null when absent.
	ID        *string `json:"id"`
	Name      string  `json:"name"`
	Arguments string  `json:"arguments"`
	Kind      string  `json:"kind"`
	Status    string  `json:"status"`
	ItemID    string  `json:"item_id,omitempty"`
	Choice    int     `json:"choice"`
	Index     int     `json:"index"`
	// Sources lists every statement of the final arguments, only when they
	// disagree: item_done, arguments_done, terminal, deltas.
	Sources map[string]string `json:"sources,omitempty"`
	// ArgumentsJSON is "complete", "empty", or "invalid at offset N".
	ArgumentsJSON string `json:"arguments_json"`
}

// OutcomeReport is how the stream ended.
type OutcomeReport struct {
	State  string `json:"state"`
	Detail string `json:"detail,omitempty"`
}

// Report builds the calls report of the session as it stands.
func (s *Session) Report() CallsReport {
	rep := s.reportHead()
	calls := s.Calls()
	rep.Calls = make([]CallReport, 0, len(calls))
	for _, it := range calls {
		rep.Calls = append(rep.Calls, s.callReport(it))
	}
	return s.reportTail(rep)
}

// WriteReportJSON writes what Report().WriteJSON writes, building one call's
// report at a time: a capture with tens of thousands of calls then never
// holds a second copy of every call's arguments beside the items.
func (s *Session) WriteReportJSON(w io.Writer) error {
	rep := s.reportTail(s.reportHead())
	pw := newPieceWriter(w)
	pw.head(rep)
	pw.raw("[")
	for i, it := range s.Calls() {
		if i > 0 {
			pw.raw(",")
		}
		c, args := s.callReportArgs(it)
		pw.holdBytes(&c.Arguments, args)
		pw.call(c)
	}
	pw.raw("]")
	pw.tail(rep)
	return pw.err
}

func (s *Session) reportHead() CallsReport {
	rep := CallsReport{Dialect: s.Dialect().String(), Calls: []CallReport{}}
	if ds := s.Dialects(); len(ds) > 1 {
		for _, d := range ds {
			rep.Dialects = append(rep.Dialects, d.String())
		}
	}
	return rep
}

func (s *Session) reportTail(rep CallsReport) CallsReport {
	texts := s.Texts()
	if len(texts) == 1 {
		rep.Text = texts[0]
	} else {
		rep.Text = texts
	}
	o := s.Outcome()
	rep.Outcome = OutcomeReport{State: o.State, Detail: o.Detail}
	return rep
}

func (s *Session) callReport(it *Item) CallReport {
	c, args := s.callReportArgs(it)
	c.Arguments = string(args)
	return c
}

// callReportArgs is a call's report with its final arguments beside it as
// bytes, often the item's own, so that a writer can stream them uncopied.
func (s *Session) callReportArgs(it *Item) (CallReport, []byte) {
	c := CallReport{Name: it.Name, Kind: it.Type, Status: s.CallStatus(it), ItemID: it.ItemID, Choice: it.Choice, Index: it.Position}
	if it.CallID != "" {
		id := it.CallID
		c.ID = &id
	}
	if src, differ := it.SourcesDisagree(); differ {
		c.Sources = src
	}
	args, v := it.finalArgsView()
	if args == nil {
		args = []byte(v)
	}
	c.ArgumentsJSON = ArgsState(args, true).String()
	return c, args
}

// bigString is the length above which WriteJSON streams a string instead of
// encoding it in one buffer.
const bigString = 64 << 10

// WriteJSON writes the report as one line of JSON, byte for byte what
// encoding/json writes with HTML escaping off. It writes one call at a
// time, so a report of tens of thousands of calls is never encoded whole
// in memory; and arguments, sources and texts longer than 64 KiB are
// escaped and written in pieces, so a 50 MB call costs a few small buffers
// rather than an encoded copy of itself grown by doubling.
func (r CallsReport) WriteJSON(w io.Writer) error {
	pw := newPieceWriter(w)
	pw.head(r)
	if r.Calls == nil {
		pw.raw("null")
	} else {
		pw.raw("[")
		for i, c := range r.Calls {
			if i > 0 {
				pw.raw(",")
			}
			pw.call(c)
		}
		pw.raw("]")
	}
	pw.tail(r)
	return pw.err
}

// head writes the report's members up to the value of "calls".
func (pw *pieceWriter) head(r CallsReport) {
	pw.raw(`{"dialect":`)
	pw.value(r.Dialect)
	if len(r.Dialects) > 0 {
		pw.raw(`,"dialects":`)
		pw.value(r.Dialects)
	}
	pw.raw(`,"calls":`)
}

func (pw *pieceWriter) call(c CallReport) {
	pw.hold(&c.Arguments)
	if c.Sources != nil {
		src := make(map[string]string, len(c.Sources))
		for k, v := range c.Sources {
			pw.hold(&v)
			src[k] = v
		}
		c.Sources = src
	}
	pw.value(c)
}

// tail writes the report's members after "calls".
func (pw *pieceWriter) tail(r CallsReport) {
	pw.raw(`,"text":`)
	switch t := r.Text.(type) {
	case string:
		pw.hold(&t)
		pw.value(t)
	case []string:
		t = slices.Clone(t)
		for i := range t {
			pw.hold(&t[i])
		}
		pw.value(t)
	default:
		pw.value(t)
	}
	pw.raw(`,"outcome":`)
	pw.value(r.Outcome)
	pw.raw("}\n")
}

// pieceWriter writes a JSON document a value at a time with encoding/json,
// swapping strings held back by hold for their escaped form, written in
// pieces.
type pieceWriter struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
	// Held strings are replaced by a placeholder carrying a random nonce,
	// so stream content cannot forge one; it is bracketed by NUL bytes,
	// which encoding/json always escapes, so it is found in the output by
	// its escaped form.
	nonce, mark string
	big         []held
}

func newPieceWriter(w io.Writer) *pieceWriter {
	pw := &pieceWriter{w: w, nonce: strconv.FormatUint(rand.Uint64(), 36)}
	pw.mark = `\u0000` + pw.nonce + `\u0000`
	pw.enc = json.NewEncoder(&pw.buf)
	pw.enc.SetEscapeHTML(false)
	return pw
}

// hold replaces a big string by a placeholder until the next value is
// written.
func (pw *pieceWriter) hold(s *string) {
	if len(*s) > bigString {
		pw.big = append(pw.big, held{s: *s})
		*s = pw.placeholder()
	}
}

// holdBytes sets *s to b, or to a placeholder for b when b is big, so that
// big bytes are escaped from where they lie without a string copy.
func (pw *pieceWriter) holdBytes(s *string, b []byte) {
	if len(b) <= bigString {
		*s = string(b)
		return
	}
	pw.big = append(pw.big, held{b: b})
	*s = pw.placeholder()
}

func (pw *pieceWriter) placeholder() string {
	return "\x00" + pw.nonce + "\x00" + strconv.Itoa(len(pw.big)-1) + "\x00" + pw.nonce + "\x00"
}

// held is a big string or byte slice written in place of its placeholder.
type held struct {
	s string
	b []byte
}

func (pw *pieceWriter) raw(s string) {
	if pw.err == nil {
		_, pw.err = io.WriteString(pw.w, s)
	}
}

// value writes v's encoding, with the strings held for it.
func (pw *pieceWriter) value(v any) {
	defer func() { pw.big = pw.big[:0] }()
	if pw.err != nil {
		return
	}
	pw.buf.Reset()
	if pw.err = pw.enc.Encode(v); pw.err != nil {
		return
	}
	out := bytes.TrimSuffix(pw.buf.Bytes(), []byte("\n"))
	if len(pw.big) == 0 {
		_, pw.err = pw.w.Write(out) // nothing held: no placeholder to look for
		return
	}
	for len(out) > 0 && pw.err == nil {
		i := bytes.Index(out, []byte(pw.mark))
		if i < 0 {
			_, pw.err = pw.w.Write(out)
			return
		}
		if _, pw.err = pw.w.Write(out[:i]); pw.err != nil {
			return
		}
		out = out[i+len(pw.mark):]
		end := bytes.Index(out, []byte(pw.mark))
		n, _ := strconv.Atoi(string(out[:end]))
		out = out[end+len(pw.mark):]
		if h := pw.big[n]; h.b != nil {
			pw.err = writeEscaped(pw.w, h.b)
		} else {
			pw.err = writeEscaped(pw.w, h.s)
		}
	}
}

// writeEscaped writes the body of s's JSON encoding (no quotes) in pieces
// cut at rune boundaries, each escaped by encoding/json.
func writeEscaped[T string | []byte](w io.Writer, s T) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for len(s) > 0 {
		cut := min(len(s), bigString)
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		buf.Reset()
		if err := enc.Encode(string(s[:cut])); err != nil {
			return err
		}
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if _, err := w.Write(b[1 : len(b)-1]); err != nil {
			return err
		}
		s = s[cut:]
	}
	return nil
}
