package ollama

import (
	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// ollamaChecks follows an Ollama NDJSON stream: the calls of the response
// being streamed (to tell a continued call from a new one), its done:true
// line and whatever comes after it.
type ollamaChecks struct {
	resp    *model.Response
	ids     map[string]int // call id → event of the call, in resp
	indexes map[int64]int  // function.index → event of the call, in resp
	calls   int            // calls in resp
	last    int            // ordinal of the latest Ollama line, or of what came after it
	lines   int
	done    int   // ordinal + 1 of the first done: true line
	after   []int // events after it (capped)
	afterN  int
}

func (oc *ollamaChecks) NewItem(*model.Item, int) {}

func (oc *ollamaChecks) Observe(c *checks.Checker, s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	oc.blankLines(c, ord, f.Kind, f.Flags)
	oc.afterDone(ord, f.Kind)
	oc.lines++
	oc.last = ord
	if ev.Kind == model.KindError {
		return
	}
	r := lastResponse(s, Protocol.ID())
	if r == nil {
		return
	}
	if r != oc.resp {
		oc.resp, oc.calls = r, 0
		oc.ids, oc.indexes = map[string]int{}, map[int64]int{}
	}
	calls := s.JSON().Path(f.Data, "message", "tool_calls")
	if calls == nil {
		calls = s.JSON().Get(f.Data, "tool_calls") // /api/generate
	}
	s.JSON().Elements(calls, func(_ int, entry []byte) bool {
		oc.call(c, entry, ord)
		return true
	})
	if ev.Kind != model.KindTerminal {
		return
	}
	if oc.done == 0 {
		oc.done = ord + 1
	}
	reasonV := s.JSON().Get(f.Data, "done_reason")
	reason, isString := jsonscan.String(reasonV)
	switch {
	case reasonV == nil:
		// Servers before done_reason (2024), and a connection the
		// client closed, send none: nothing to judge.
	case !isString:
		c.Add(oDoneReason, []int{ord}, "event %d: done_reason %s is not a string", ord, checks.QuoteBytes(reasonV))
	case reason != OllamaStop && reason != OllamaLength && reason != OllamaLoad && reason != OllamaUnload:
		c.Add(oDoneReason, []int{ord}, "event %d: done_reason %s is none of stop, length, load, unload", ord, checks.Quote(reason))
	}
	if oc.calls > 0 && reason == OllamaStop {
		c.Add(oStopWithCalls, []int{ord}, "event %d: done_reason \"stop\" after %s: Ollama's normal end; a translator must not wait for \"tool_calls\"",
			ord, checks.Plural(oc.calls, "tool call"))
	}
}

// call judges one tool_calls[] entry against the calls before it in the
// response.
func (oc *ollamaChecks) call(c *checks.Checker, entry []byte, ord int) {
	call := ReadOllamaCall(entry)
	name, id := model.StringOf(call.Name), model.StringOf(call.ID)
	index, hasIndex := jsonscan.Int(call.Index)
	oc.calls++
	switch k := jsonscan.Kind(call.Arguments); {
	case call.Arguments == nil:
		c.Add(oArgsNotObject, []int{ord}, "call %s at event %d has no function.arguments", checks.Quote(name), ord)
	case k != '{':
		c.Add(oArgsNotObject, []int{ord}, "call %s at event %d: function.arguments %s is not a JSON object", checks.Quote(name), ord, checks.QuoteBytes(call.Arguments))
	}
	prev, continued := 0, false
	switch {
	case name == "":
		c.Add(oCallSplit, []int{ord}, "a tool_calls entry at event %d has no name: a piece of a call, which clients run as a call of its own", ord)
		return
	case id != "":
		prev, continued = oc.ids[id]
	case hasIndex:
		prev, continued = oc.indexes[index]
	}
	if continued {
		what := "id " + checks.Quote(id)
		if id == "" {
			what = "function.index " + string(call.Index)
		}
		c.Add(oCallSplit, []int{prev, ord}, "call %s at event %d has the %s of the call at event %d: one call in two entries, which clients run twice",
			checks.Quote(name), ord, what, prev)
		return
	}
	if id != "" {
		oc.ids[id] = ord
	}
	if hasIndex {
		oc.indexes[index] = ord
	}
}

// blankLines reports the blank lines a frame starts with (or is).
func (oc *ollamaChecks) blankLines(c *checks.Checker, ord int, kind capture.FrameKind, flags capture.Flags) {
	if flags&capture.BlankLines == 0 {
		return
	}
	where := "before it"
	if kind == capture.FrameRemainder {
		where = "at the end of the stream"
	}
	c.Add(oBlankLine, []int{ord}, "event %d: blank lines %s; ollama-python's json.loads(\"\") raises on each", ord, where)
}

// afterDone counts a line after the done: true line.
func (oc *ollamaChecks) afterDone(ord int, kind capture.FrameKind) {
	if oc.done == 0 || kind != capture.FrameEvent {
		return
	}
	oc.afterN++
	if len(oc.after) < checks.MaxEvents {
		oc.after = append(oc.after, ord)
	}
}

// unplaced sees what no dialect claimed after an Ollama line: an invalid
// JSON line, an untyped object, the blank lines at the end.
func (oc *ollamaChecks) Unplaced(c *checks.Checker, s *model.Session, ord int, ev *model.Event) {
	oc.blankLines(c, ord, ev.Source, ev.Frame)
	oc.afterDone(ord, ev.Source)
	oc.last = ord
}

func (oc *ollamaChecks) Finish(out *checks.Checker, s *model.Session, _ bool) {
	if oc.lines == 0 {
		return
	}
	if oc.afterN > 0 {
		out.Add(oAfterDone, append([]int{oc.done - 1}, oc.after...), "%s after the done: true line (event %d); ollama-js stops reading at it, ollama-python reads on",
			checks.Plural(oc.afterN, "line"), oc.done-1)
	}
	ended, _ := s.Ended()
	if r := lastResponse(s, Protocol.ID()); ended && r != nil && r.Terminal < 0 && !checks.Errored(s) {
		out.Add(oDoneMissing, []int{oc.last}, "the stream ends at event %d without a done: true line", oc.last)
	}
}

// lastResponse returns the session's latest response of dialect d, or nil.
func lastResponse(s *model.Session, d model.Dialect) *model.Response {
	for i := len(s.Responses) - 1; i >= 0; i-- {
		if s.Responses[i].Dialect == d {
			return s.Responses[i]
		}
	}
	return nil
}
