package checks

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// framingState holds what the transport rules need across events.
type framingState struct {
	data    int    // events with a data field
	endings [3]int // first frame ending in LF, CRLF, CR (ordinal + 1)
	// endingsSeen holds the flags of the endings found (endings[i] > 0),
	// so that a frame whose endings are all known costs one test.
	endingsSeen capture.Flags
	done        int    // ordinal + 1 of the first data: [DONE]
	doneRule    string // the rule for events after it: that of the dialect it ended, if any
	afterDone   []int  // events after it (capped)
	afterDoneN  int    // how many
}

var endingFlags = [3]capture.Flags{capture.EndsLF, capture.EndsCRLF, capture.EndsCR}

const allEndings = capture.EndsLF | capture.EndsCRLF | capture.EndsCR

var endingNames = [3]string{"LF", "CRLF", "CR"}

func (c *Checker) observeFrame(s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	fs := &c.frames
	if f.Flags&allEndings&^fs.endingsSeen != 0 { // a line ending not seen before
		for i, e := range endingFlags {
			if f.Flags&e != 0 && fs.endings[i] == 0 {
				fs.endings[i] = ord + 1
				fs.endingsSeen |= e
			}
		}
	}
	if f.Kind != capture.FrameEvent {
		return
	}
	if f.Flags&capture.EventStream != 0 {
		c.observeEventStream(s, ord, ev, f)
		return
	}
	name := s.TypeName(ev.Type)
	truncated := f.Flags&capture.Truncated != 0
	switch {
	case f.Flags&capture.NoNewline != 0 && ev.Flags&model.DecodeError == 0:
		// A JSON line whose newline never came is whole: line readers
		// (httpx, ollama-js) still yield it, `while read` drops it.
		c.AddAt(fUnterminated, Info, []int{ord}, "%s is not ended by a newline before EOF; readers that wait for the newline drop it",
			frameNamed("line", ord, name))
	case f.Flags&capture.NoNewline != 0:
		truncated = true // cut mid-line: the unterminated line says so, not invalid-json
		c.Add(fUnterminated, []int{ord}, "%s is not ended by a newline before EOF, and stops mid-JSON", frameNamed("line", ord, name))
	case truncated:
		cut := ""
		if ev.Flags&model.DecodeError != 0 {
			cut = "; its data stops mid-JSON"
		}
		c.Add(fUnterminated, []int{ord}, "%s is not ended by a blank line before EOF: spec parsers discard it%s",
			frameNamed("event", ord, name), cut)
	}
	leading := f.Flags&capture.LeadingSpaceField != 0
	if leading {
		for _, u := range f.Unknown {
			if t := bytes.TrimLeft(u.Name, " \t"); len(t) < len(u.Name) && isField(t) {
				c.Add(fLeadingSpace, []int{ord}, "event %d: line %s starts with a space; spec parsers ignore the unknown field %s",
					ord, QuoteBytes(append(append(bytes.Clone(u.Name), ':'), u.Value...)), QuoteBytes(u.Name))
				break
			}
		}
	}
	if f.HasData {
		fs.data++
	}
	switch {
	case !f.HasData:
		if leading || string(f.Event) == "ping" {
			break
		}
		if f.HasEvent {
			c.Add(fEmptyData, []int{ord}, "event %d (event: %s) has no data line; clients that parse every event's data fail on it",
				ord, QuoteBytes(f.Event))
		} else {
			c.Add(fEmptyData, []int{ord}, "event %d has no data line", ord)
		}
	case blank(f.Data) && ev.Dialect == model.DialectUnknown:
		// Empty data a dialect claimed is its own (MCP's priming event),
		// judged by its rules.
		c.Add(fEmptyData, []int{ord}, "event %d: data is empty (a heartbeat?); JSON.parse(\"\") fails on it", ord)
	case ev.Kind == model.KindError:
		// The body of an HTTP error: the error payload below reports it.
	case ev.Flags&model.DecodeError != 0 && truncated:
		// Cut off by EOF: the unterminated event says so.
	case ev.Flags&model.DecodeError != 0:
		if f.Data[0] == ':' {
			c.Add(fInvalidJSON, []int{ord}, "event %d: data %s is an SSE comment re-wrapped as data; JSON parsers throw on it",
				ord, QuoteBytes(f.Data))
		} else {
			c.Add(fInvalidJSON, []int{ord}, "event %d: data %s is not JSON", ord, QuoteBytes(f.Data))
		}
	case ev.Flags&model.NotObject != 0:
		c.Add(fNotObject, []int{ord}, "event %d: data %s is JSON but not an object", ord, QuoteBytes(f.Data))
	}
	if f.Flags&capture.InvalidUTF8 != 0 {
		c.Add(fInvalidUTF8, []int{ord}, "%s contains bytes that are not valid UTF-8", frameNamed("event", ord, name))
	}
	if ev.Kind == model.KindError {
		// One event may carry several error payloads (a Gemini array body
		// of chunks): each gets a finding, in the order they came.
		first := len(s.Errors)
		for first > 0 && s.Errors[first-1].Ordinal == ord {
			first--
		}
		for _, e := range s.Errors[first:] {
			what := Quote(e.Message)
			if e.Code != "" {
				what = e.Code + ": " + what
			}
			if e.Status > 0 {
				what = fmt.Sprintf("(HTTP %d) %s", e.Status, what)
			}
			if strings.HasPrefix(name, "(") {
				c.Add(fErrorPayload, []int{ord}, "event %d is an error payload %s", ord, what)
			} else {
				c.Add(fErrorPayload, []int{ord}, "%s is an error payload %s", frameNamed("event", ord, name), what)
			}
		}
	}
	if ev.Flags&model.NameMismatch != 0 && !judgesNames(ev.Dialect) {
		c.Add(fNameMismatch, []int{ord}, "event %d: event: %s but data.type %s", ord, Quote(s.TypeName(ev.Name)), Quote(name))
	}
}

// judgesNames reports whether dialect d's rules judge an event: name that
// differs from data.type themselves.
func judgesNames(d model.Dialect) bool {
	r := rulesOf(d)
	return r != nil && r.JudgesNames
}

// blank reports whether data is empty or white space alone, as
// bytes.TrimSpace judges it; data that starts with a printable ASCII byte
// (nearly every event's: '{') is told at once.
func blank(data []byte) bool {
	if len(data) > 0 && data[0] > ' ' && data[0] < utf8.RuneSelf {
		return false
	}
	return len(bytes.TrimSpace(data)) == 0
}

func isField(name []byte) bool {
	switch string(name) {
	case "data", "event", "id", "retry":
		return true
	}
	return false
}

// observeSentinel notes a data: [DONE].
func (c *Checker) observeSentinel(s *model.Session, ord int, ev *model.Event) {
	fs := &c.frames
	if fs.done == 0 {
		fs.done = ord + 1
		if r := rulesOf(ev.Dialect); r != nil {
			fs.doneRule = r.AfterDone
		}
		return
	}
	c.afterSentinel(ord)
}

// afterSentinel notes an event after a [DONE] that ended its dialect's
// stream (Chat's).
func (c *Checker) afterSentinel(ord int) {
	fs := &c.frames
	if fs.done == 0 || fs.doneRule == "" {
		return
	}
	fs.afterDoneN++
	if len(fs.afterDone) < MaxEvents {
		fs.afterDone = append(fs.afterDone, ord)
	}
}

func (c *Checker) finishFraming(out *Checker, s *model.Session) {
	fs := &c.frames
	var seen []string
	var at []int
	for i, o := range fs.endings {
		if o > 0 {
			seen = append(seen, fmt.Sprintf("%s from event %d", endingNames[i], o-1))
			at = append(at, o-1)
		}
	}
	if len(seen) > 1 {
		out.Add(fMixedEndings, at, "line endings are mixed: %s", strings.Join(seen, ", "))
	}
	if fs.afterDoneN > 0 {
		out.Add(fs.doneRule, append([]int{fs.done - 1}, fs.afterDone...), "%s after data: [DONE] (event %d); clients stop at the first [DONE]",
			Plural(fs.afterDoneN, "event"), fs.done-1)
	}
	// A connection that switched protocols (a WebSocket) may carry no
	// event at all: its messages are comments, and that is no defect.
	// Nor may a stream that completed: an MCP notification's 202, a
	// DELETE, a GET stream the server closed with nothing to say.
	if ended, _ := s.Ended(); ended && fs.data == 0 && !Errored(s) && !s.Upgraded() && s.Outcome().State != model.OutcomeCompleted {
		if s.Len() == 0 {
			out.Add(fNoData, nil, "the stream is empty")
		} else {
			out.Add(fNoData, []int{0}, "none of the %s carries data", Plural(s.Len(), "frame"))
		}
	}
}

// frameNamed names event (or JSON line) ord with its type, "event 11
// (response.created)"; a pseudo type is in parentheses already, "event 11
// (invalid json)", and no type leaves the ordinal alone.
func frameNamed(what string, ord int, typ string) string {
	switch {
	case typ == "":
		return fmt.Sprintf("%s %d", what, ord)
	case strings.HasPrefix(typ, "(") && strings.HasSuffix(typ, ")"):
		return fmt.Sprintf("%s %d %s", what, ord, typ)
	}
	return fmt.Sprintf("%s %d (%s)", what, ord, typ)
}
