package model

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// CallsReport is the `streamtap calls --json` document. Scripts rely on its
// shape: fields may be added, never renamed or removed.
type CallsReport struct {
	Dialect  string       `json:"dialect"`
	Dialects []string     `json:"dialects,omitempty"` // when the stream mixes several
	Calls    []CallReport `json:"calls"`
	Text     any          `json:"text"` // a string, or one string per choice
	// TextSources lists the messages whose statements of their text
	// disagree (the deltas, output_text.done, content_part.done,
	// output_item.done, the terminal output[]); absent when none do.
	TextSources []TextSourcesReport `json:"text_sources,omitempty"`
	// Reasoning is the model's reasoning (thinking, a reasoning summary,
	// thoughts), kept out of Text: a string, or one string per choice,
	// "" for reasoning that carried no text (redacted or encrypted);
	// absent when the stream has none.
	Reasoning any `json:"reasoning,omitempty"`
	// Steps counts the steps (model calls) of a dialect whose responses
	// are made of several (the AI SDK's start-step…finish-step); absent
	// for the others.
	Steps   int           `json:"steps,omitempty"`
	Outcome OutcomeReport `json:"outcome"`
}

// TextSourcesReport is one message whose text sources disagree: which
// message, and every stated text by source name (deltas, text_done,
// part_done, item_done, terminal). The report's text is still the deltas'.
type TextSourcesReport struct {
	ItemID  string            `json:"item_id,omitempty"`
	Choice  int               `json:"choice"`
	Index   int               `json:"index"`
	Sources map[string]string `json:"sources"`
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
	// Step is the number (from 1) of the step the call was made in, for a
	// dialect whose responses have steps; absent otherwise.
	Step int `json:"step,omitempty"`
	// What became of the call, as an application's stream tells (see
	// ToolRun); absent when it tells nothing: whether the provider ran it,
	// whether its tool is dynamic, its output (JSON text, the latest when
	// several came), how many preliminary outputs came before it, the
	// error of an invalid input or a failed run, the approval it waits for.
	ProviderExecuted bool    `json:"provider_executed,omitempty"`
	Dynamic          bool    `json:"dynamic,omitempty"`
	Output           *string `json:"output,omitempty"`
	Preliminary      int     `json:"preliminary,omitempty"`
	Error            string  `json:"error,omitempty"`
	ApprovalID       string  `json:"approval_id,omitempty"`
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
		pw.call(c, args)
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
	var differ []*Item // rare: found without a second list of every item
	for _, it := range s.Items {
		if it.Role == RoleMessage && it.ext != nil {
			if _, ok := it.TextSourcesDisagree(); ok {
				differ = append(differ, it)
			}
		}
	}
	switch rs := s.Reasoning(); len(rs) {
	case 0:
	case 1:
		rep.Reasoning = rs[0]
	default:
		rep.Reasoning = rs
	}
	sortOutput(differ)
	for _, it := range differ {
		src, _ := it.TextSourcesDisagree()
		rep.TextSources = append(rep.TextSources, TextSourcesReport{ItemID: it.ItemID, Choice: it.Choice, Index: it.Position, Sources: src})
	}
	for _, r := range s.Responses {
		rep.Steps += len(s.Steps(r))
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
	c.Step = s.StepOf(it)
	if run := it.Run(); run != nil {
		c.ProviderExecuted, c.Dynamic, c.Preliminary, c.Error, c.ApprovalID = run.ProviderExecuted, run.Dynamic, run.Preliminary, run.Error, run.ApprovalID
		if run.OutputAt >= 0 {
			out := string(run.Output)
			c.Output = &out
		}
	}
	return c, args
}

// bigString is the length above which WriteJSON streams a string instead of
// escaping it in one buffer.
const bigString = 64 << 10

// WriteJSON writes the report as one line of JSON, byte for byte what
// encoding/json writes with HTML escaping off, made safe to print by
// jsonscan.AppendSafe (DEL, C1 controls and bidi runes escaped). It writes one call at a
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
			pw.call(c, nil)
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

// call writes one call as encoding/json writes a CallReport, by hand:
// reflection, and the string copies it needs, cost more than the rest of
// a report of thousands of calls (20,000 calls took 30 ms, most of it
// collecting their garbage). args, when not nil, stands for c.Arguments,
// and is escaped from where it lies.
func (pw *pieceWriter) call(c CallReport, args []byte) {
	if pw.err != nil {
		return
	}
	b := append(pw.out[:0], `{"id":`...)
	if c.ID == nil {
		b = append(b, "null"...)
	} else {
		b = jsonscan.AppendQuote(b, *c.ID)
	}
	b = append(b, `,"name":`...)
	b = jsonscan.AppendQuote(b, c.Name)
	b = append(b, `,"arguments":"`...)
	if args != nil {
		b = escapeInPieces(pw, b, args)
	} else {
		b = escapeInPieces(pw, b, c.Arguments)
	}
	b = append(b, `","kind":`...)
	b = jsonscan.AppendQuote(b, c.Kind)
	b = append(b, `,"status":`...)
	b = jsonscan.AppendQuote(b, c.Status)
	if c.ItemID != "" {
		b = append(b, `,"item_id":`...)
		b = jsonscan.AppendQuote(b, c.ItemID)
	}
	b = append(b, `,"choice":`...)
	b = strconv.AppendInt(b, int64(c.Choice), 10)
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(c.Index), 10)
	if len(c.Sources) > 0 {
		b = append(b, `,"sources":{`...)
		for i, k := range slices.Sorted(maps.Keys(c.Sources)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonscan.AppendQuote(b, k)
			b = append(b, `:"`...)
			b = escapeInPieces(pw, b, c.Sources[k])
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, `,"arguments_json":`...)
	b = jsonscan.AppendQuote(b, c.ArgumentsJSON)
	if c.Step != 0 {
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, int64(c.Step), 10)
	}
	if c.ProviderExecuted {
		b = append(b, `,"provider_executed":true`...)
	}
	if c.Dynamic {
		b = append(b, `,"dynamic":true`...)
	}
	if c.Output != nil {
		b = append(b, `,"output":"`...)
		b = escapeInPieces(pw, b, *c.Output)
		b = append(b, '"')
	}
	if c.Preliminary != 0 {
		b = append(b, `,"preliminary":`...)
		b = strconv.AppendInt(b, int64(c.Preliminary), 10)
	}
	if c.Error != "" {
		b = append(b, `,"error":`...)
		b = jsonscan.AppendQuote(b, c.Error)
	}
	if c.ApprovalID != "" {
		b = append(b, `,"approval_id":`...)
		b = jsonscan.AppendQuote(b, c.ApprovalID)
	}
	pw.flush(append(b, '}'))
}

// tail writes the report's members after "calls".
func (pw *pieceWriter) tail(r CallsReport) {
	pw.raw(`,"text":`)
	pw.texts(r.Text)
	if len(r.TextSources) > 0 {
		pw.raw(`,"text_sources":[`)
		for i, ts := range r.TextSources {
			if i > 0 {
				pw.raw(",")
			}
			pw.textSources(ts)
		}
		pw.raw("]")
	}
	if r.Reasoning != nil {
		pw.raw(`,"reasoning":`)
		pw.texts(r.Reasoning)
	}
	if r.Steps != 0 {
		pw.raw(`,"steps":` + strconv.Itoa(r.Steps))
	}
	pw.raw(`,"outcome":`)
	pw.value(r.Outcome)
	pw.raw("}\n")
}

// texts writes a text member's value: a string or one per choice, each
// escaped in pieces (a text may be megabytes).
func (pw *pieceWriter) texts(v any) {
	switch t := v.(type) {
	case string:
		pw.quoted(t)
	case []string:
		if t == nil {
			pw.raw("null")
			break
		}
		pw.raw("[")
		for i, s := range t {
			if i > 0 {
				pw.raw(",")
			}
			pw.quoted(s)
		}
		pw.raw("]")
	default:
		pw.value(t)
	}
}

// textSources writes one message's disagreeing text sources, each value
// escaped in pieces (a message's text may be megabytes).
func (pw *pieceWriter) textSources(ts TextSourcesReport) {
	if pw.err != nil {
		return
	}
	b := append(pw.out[:0], '{')
	if ts.ItemID != "" {
		b = append(b, `"item_id":`...)
		b = jsonscan.AppendQuote(b, ts.ItemID)
		b = append(b, ',')
	}
	b = append(b, `"choice":`...)
	b = strconv.AppendInt(b, int64(ts.Choice), 10)
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(ts.Index), 10)
	b = append(b, `,"sources":`...)
	if ts.Sources == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(ts.Sources)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonscan.AppendQuote(b, k)
			b = append(b, `:"`...)
			b = escapeInPieces(pw, b, ts.Sources[k])
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	pw.flush(append(b, '}'))
}

// pieceWriter writes a JSON document a value at a time, byte for byte as
// encoding/json writes it with HTML escaping off and jsonscan.AppendSafe
// makes it safe to print.
type pieceWriter struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
	out []byte // an encoding on its way out, reused
}

func newPieceWriter(w io.Writer) *pieceWriter {
	pw := &pieceWriter{w: w}
	pw.enc = json.NewEncoder(&pw.buf)
	pw.enc.SetEscapeHTML(false)
	return pw
}

func (pw *pieceWriter) raw(s string) {
	if pw.err == nil {
		_, pw.err = io.WriteString(pw.w, s)
	}
}

// value writes v as encoding/json encodes it, made safe to print: for the
// small values.
func (pw *pieceWriter) value(v any) {
	if pw.err != nil {
		return
	}
	pw.buf.Reset()
	if pw.err = pw.enc.Encode(v); pw.err == nil {
		b := jsonscan.AppendSafe(pw.out[:0], bytes.TrimSuffix(pw.buf.Bytes(), []byte("\n")))
		pw.flush(b)
	}
}

// quoted writes s as a JSON string.
func (pw *pieceWriter) quoted(s string) {
	b := append(pw.out[:0], '"')
	b = escapeInPieces(pw, b, s)
	pw.flush(append(b, '"'))
}

// flush writes b, and keeps its memory unless it grew big.
func (pw *pieceWriter) flush(b []byte) {
	if pw.err == nil {
		_, pw.err = pw.w.Write(b)
	}
	if cap(b) <= 4*bigString {
		pw.out = b[:0]
	}
}

// escapeInPieces appends the escaped body of s to b; or, when s is big,
// writes b, then s escaped a piece at a time, and returns b emptied. The
// pieces are cut at rune starts, which escape to the same bytes as the
// whole.
func escapeInPieces[T string | []byte](pw *pieceWriter, b []byte, s T) []byte {
	if len(s) <= bigString {
		return jsonscan.AppendEscaped(b, s)
	}
	for len(s) > 0 && pw.err == nil {
		cut := jsonscan.PieceEnd(s, bigString)
		b = jsonscan.AppendEscaped(b, s[:cut])
		_, pw.err = pw.w.Write(b)
		b = b[:0]
		s = s[cut:]
	}
	return b
}
