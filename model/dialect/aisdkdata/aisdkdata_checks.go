package aisdkdata

import (
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// maskedError is an error part's text when the route's getErrorMessage is
// the default.
const maskedError = "An error occurred."

// dataChecks follows a data stream: the open step, the finish message and
// what comes after it.
type dataChecks struct {
	checks.Base
	lines    int
	last     int
	step     int // ordinal + 1 of the open f:
	finished int // ordinal + 1 of the d: of the message being read
	after    []int
	afterN   int
}

func newDataChecks() *dataChecks { return new(dataChecks) }

// members lists, for each part that carries an object, the members it
// requires and their JSON kind ('"' a string, '{' an object, 0 any).
var members = map[string][]struct {
	name string
	m    *model.Member
	kind byte
}{
	PartToolCallStart: {{"toolCallId", &mToolCallID, '"'}, {"toolName", &mToolName, '"'}},
	PartToolCallDelta: {{"toolCallId", &mToolCallID, '"'}, {"argsTextDelta", &mArgsTextDelta, '"'}},
	PartToolCall:      {{"toolCallId", &mToolCallID, '"'}, {"toolName", &mToolName, '"'}, {"args", &mArgs, '{'}},
	PartToolResult:    {{"toolCallId", &mToolCallID, '"'}, {"result", &mResult, 0}},
	PartFinishMessage: {{"finishReason", &mFinishReason, '"'}},
	PartFinishStep:    {{"finishReason", &mFinishReason, '"'}},
	PartStartStep:     {{"messageId", &mMessageID, '"'}},
	PartRedacted:      {{"data", &mData, '"'}},
	PartSignature:     {{"signature", &mSignature, '"'}},
	PartFile:          {{"data", &mData, '"'}, {"mimeType", &mMimeType, '"'}},
}

func (dc *dataChecks) Observe(c *checks.Checker, s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	dc.lines++
	dc.last = ord
	if f.Kind != capture.FrameEvent {
		return
	}
	name := s.TypeName(ev.Type)
	code := string(f.Event)
	switch {
	case name == TypeNoSeparator:
		c.Add(dMalformedLine, []int{ord}, "event %d: the line has no ':' (\"No separator found\"): the client throws", ord)
		return
	case ev.Flags&model.NonStandard != 0:
		c.Add(dUnknownCode, []int{ord}, "event %d: code %s is none of the data stream's (0-9, a-k as ai 4 uses them): the client throws \"Invalid code\"", ord, checks.Quote(code))
		return
	}
	dc.malformed(c, s, ord, name, code, f.Data)
	dc.afterFinish(ord, name)
	switch name {
	case PartStartStep:
		if dc.finished > 0 {
			dc.finished = 0 // the next message
		}
		if dc.step > 0 {
			c.Add(dStepUnbalanced, []int{dc.step - 1, ord}, "event %d starts a step while the step started at event %d has not finished", ord, dc.step-1)
		}
		dc.step = ord + 1
	case PartFinishStep:
		if dc.step == 0 {
			c.Add(dStepUnbalanced, []int{ord}, "event %d finishes a step, but no step is open", ord)
		}
		dc.step = 0
	case PartFinishMessage:
		if dc.finished == 0 {
			dc.finished = ord + 1
		}
		dc.step = 0
	case PartToolCallDelta:
		if ev.Flags&model.Orphan != 0 {
			c.Add(dDeltaWithoutStart, []int{ord}, "event %d: c: delta for call %s, which no b: began: the client throws", ord, checks.Quote(model.StringOf(s.Member(mToolCallID))))
		}
	case PartToolResult:
		if ev.Flags&model.Orphan != 0 {
			c.Add(dResultUnknownCall, []int{ord}, "event %d: a: result for call %s, which no 9: made: the client throws", ord, checks.Quote(model.StringOf(s.Member(mToolCallID))))
		}
	case PartToolCall:
		dc.argsMismatch(c, s, ord, ev)
	case PartError:
		if model.StringOf(f.Data) == maskedError {
			c.Add(dErrorMasked, []int{ord}, "event %d: the error part says only %s: the route's getErrorMessage masks the cause", ord, checks.Quote(maskedError))
		}
	}
}

// malformed reports a value of the wrong kind for its code, or an object
// without a member its part requires.
func (dc *dataChecks) malformed(c *checks.Checker, s *model.Session, ord int, name, code string, v []byte) {
	want := parts[code].kind
	if k := jsonscan.Kind(v); k != want {
		c.Add(dMalformedLine, []int{ord}, "event %d: %s: holds %s where %s is due: the client throws", ord, code, kindName(k), kindName(want))
		return
	}
	var bad []string
	for _, r := range members[name] {
		switch v := s.Member(*r.m); {
		case v == nil:
			bad = append(bad, "no "+r.name)
		case r.kind != 0 && jsonscan.Kind(v) != r.kind:
			bad = append(bad, r.name+" "+checks.QuoteBytes(v))
		}
	}
	if len(bad) > 0 {
		c.Add(dMalformedLine, []int{ord}, "event %d: %s: %s with %s: the client throws", ord, code, name, strings.Join(bad, ", "))
	}
}

// kindName names a JSON kind as jsonscan.Kind tells it.
func kindName(k byte) string {
	switch k {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "a number, a boolean or null"
}

// afterFinish counts a line after the message's d:: only data and
// annotations may follow it (an f: begins the next message).
func (dc *dataChecks) afterFinish(ord int, name string) {
	if dc.finished == 0 || name == PartData || name == PartAnnotations || name == PartStartStep {
		return
	}
	dc.afterN++
	if len(dc.after) < checks.MaxEvents {
		dc.after = append(dc.after, ord)
	}
}

// argsMismatch compares a 9: part's args with the concatenated c: deltas,
// when deltas came: deltas that make nothing stand for {} (a call
// without arguments).
func (dc *dataChecks) argsMismatch(c *checks.Checker, s *model.Session, ord int, ev *model.Event) {
	it := s.EventItem(ev)
	args := s.Member(mArgs)
	if it == nil || it.Deltas == 0 || args == nil {
		return
	}
	deltas, _ := it.Args.AsOf(ord)
	if len(deltas) == 0 {
		deltas = []byte("{}")
	}
	if checks.SameJSON(deltas, args) {
		return
	}
	var evs []int
	for _, fr := range it.Args.Frags {
		if int(fr.Ordinal) <= ord && len(evs) < checks.MaxEvents-1 && (len(evs) == 0 || evs[len(evs)-1] != int(fr.Ordinal)) {
			evs = append(evs, int(fr.Ordinal))
		}
	}
	c.Add(dArgsMismatch, append(evs, ord), "call %s (%s): the args at event %d differ from the concatenated deltas %s: %s",
		checks.Quote(it.CallID), checks.Quote(it.Name), ord, checks.QuoteBytes(deltas), checks.QuoteBytes(args))
}

// Unplaced sees what no dialect claimed after a line: a line whose value
// does not parse (framing/invalid-json says it), one without ':' among
// them.
func (dc *dataChecks) Unplaced(c *checks.Checker, _ *model.Session, ord int, ev *model.Event) {
	dc.last = ord
	if ev.Frame&capture.Coded != 0 && ev.Name == 0 {
		c.Add(dMalformedLine, []int{ord}, "event %d: the line has no ':' (\"No separator found\"): the client throws", ord)
	}
}

func (dc *dataChecks) Finish(out *checks.Checker, s *model.Session, _ bool) {
	if dc.lines == 0 {
		return
	}
	if dc.afterN > 0 {
		out.Add(dAfterFinish, append([]int{dc.finished - 1}, dc.after...), "%s after the finish message at event %d: only 2: data and 8: annotations may follow it",
			checks.Plural(dc.afterN, "line"), dc.finished-1)
	}
	ended, _ := s.Ended()
	if r := lastResponse(s); ended && r != nil && r.Terminal < 0 && !checks.Errored(s) {
		out.Add(dFinishMissing, []int{dc.last}, "the stream ends at event %d without d: finish_message: the run was aborted or the route threw, and the client takes what came for the answer", dc.last)
	}
}

// lastResponse returns the session's latest message of the stream, or nil.
func lastResponse(s *model.Session) *model.Response {
	for i := len(s.Responses) - 1; i >= 0; i-- {
		if s.Responses[i].Dialect == Protocol.ID() {
			return s.Responses[i]
		}
	}
	return nil
}
