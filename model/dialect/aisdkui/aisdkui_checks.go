package aisdkui

import (
	"maps"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// maskedError is the errorText of an error chunk when the route's onError
// is the default (getErrorMessage in ai: "An error occurred.").
const maskedError = "An error occurred."

// uiChecks follows a UI message stream: the parts and calls that had
// chunks before their start, the finish of the message, the steps, and
// what comes after the finish.
type uiChecks struct {
	checks.Base
	chunks int
	last   int // ordinal of the latest chunk, or of what came after it
	// early holds, by part kind and id ("text 0", "tool call_1"), the
	// chunks that came before any start of their part or call, until a
	// start comes (then they came before it) or the part ends (then it
	// never started); orphans holds those that never started.
	early   map[string]*pending
	orphans []orphan
	before  []orphan // chunks whose start came after them, with the start last
	started map[string]bool
	// finished is the ordinal + 1 of the finish or abort of the message
	// being read, and after the chunks after it.
	finished int
	after    []int
	afterN   int
	step     int // the ordinal + 1 of the open start-step
}

// pending is the chunks of a part or call not started yet; deltas says
// some of them carry a piece of it (a call given whole by its
// tool-input-available needs no start).
type pending struct {
	events []int
	deltas bool
}

// orphan is a part's or call's chunks that came before its start, or
// without one.
type orphan struct {
	key    string
	events []int
}

func newUIChecks() *uiChecks {
	return &uiChecks{early: map[string]*pending{}, started: map[string]bool{}}
}

func (uc *uiChecks) Observe(c *checks.Checker, s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	uc.chunks++
	uc.last = ord
	if f.Kind != capture.FrameEvent || ev.Kind == model.KindSentinel {
		return
	}
	typ := s.TypeName(ev.Type)
	if ev.Flags&model.NonStandard != 0 {
		c.Add(uUnknownChunk, []int{ord}, "event %d: chunk type %s is none of the UI message stream's: useChat's parse fails and the chat ends in an error", ord, checks.Quote(typ))
		return
	}
	uc.malformed(c, s, ord, typ)
	uc.afterFinish(ord, typ)
	switch typ {
	case TypeStart:
		if uc.finished > 0 {
			uc.finished, uc.step = 0, 0 // the next message
			clear(uc.started)
		}
	case TypeFinish, TypeAbort:
		if uc.finished == 0 {
			uc.finished = ord + 1
		}
		uc.step = 0
	case TypeStartStep:
		if uc.step > 0 {
			c.Add(uStepUnbalanced, []int{uc.step - 1, ord}, "event %d starts a step while the step started at event %d has not finished", ord, uc.step-1)
		}
		uc.step = ord + 1
	case TypeFinishStep:
		if uc.step == 0 {
			c.Add(uStepUnbalanced, []int{ord}, "event %d finishes a step, but no step is open", ord)
		}
		uc.step = 0
	case TypeTextStart, TypeReasoningStart, TypeToolInputStart:
		uc.start(partKey(s, typ))
	case TypeTextDelta, TypeReasoningDelta, TypeToolInputDelta:
		if key := partKey(s, typ); ev.Flags&model.Orphan != 0 || uc.early[key] != nil {
			uc.note(key, ord, true)
		}
	case TypeTextEnd, TypeReasoningEnd:
		key := partKey(s, typ)
		if ev.Flags&model.Orphan != 0 || uc.early[key] != nil {
			uc.note(key, ord, true)
			uc.orphans = append(uc.orphans, orphan{key: key, events: uc.early[key].events})
			delete(uc.early, key)
		}
	case TypeToolInputAvailable, TypeToolInputError:
		// A call given whole needs no start, unless its start comes after.
		if key := partKey(s, typ); !uc.started[key] {
			uc.note(key, ord, false)
		}
		uc.inputMismatch(c, s, ord, ev)
	case TypeToolOutputAvailable, TypeToolOutputError, TypeToolOutputDenied, TypeToolApprovalRequest:
		if ev.Flags&model.Orphan != 0 {
			c.Add(uUnknownCall, []int{ord}, "event %d: %s for call %s, which the stream never made: useChat throws \"No tool invocation found\"",
				ord, typ, checks.Quote(model.StringOf(s.Member(mToolCallID))))
		}
	case TypeError:
		if model.StringOf(s.Member(mErrorText)) == maskedError {
			c.Add(uErrorMasked, []int{ord}, "event %d: the error chunk says only %s: the route's onError masks the cause", ord, checks.Quote(maskedError))
		}
	}
}

// partKey names a part or call by its kind and its id as the chunk
// writes it.
func partKey(s *model.Session, typ string) string {
	switch {
	case strings.HasPrefix(typ, "text-"):
		return "text " + string(s.Member(mID))
	case strings.HasPrefix(typ, "reasoning-"):
		return "reasoning " + string(s.Member(mID))
	}
	return "tool " + string(s.Member(mToolCallID))
}

// note records a chunk of a part or call not started yet; delta says it
// carries a piece of it.
func (uc *uiChecks) note(key string, ord int, delta bool) {
	p := uc.early[key]
	if p == nil {
		p = new(pending)
		uc.early[key] = p
	}
	p.deltas = p.deltas || delta
	if len(p.events) < checks.MaxEvents-1 {
		p.events = append(p.events, ord)
	}
}

// start sees the start of a part or call: the chunks noted for it came
// before it.
func (uc *uiChecks) start(key string) {
	uc.started[key] = true
	p := uc.early[key]
	if p == nil {
		return
	}
	delete(uc.early, key)
	uc.before = append(uc.before, orphan{key: key, events: append(p.events, uc.last)})
}

// afterFinish counts a chunk after the message's finish: only data parts
// may come there (a start begins the next message).
func (uc *uiChecks) afterFinish(ord int, typ string) {
	if uc.finished == 0 || typ == TypeStart || IsData(typ) {
		return
	}
	uc.afterN++
	if len(uc.after) < checks.MaxEvents {
		uc.after = append(uc.after, ord)
	}
}

// inputMismatch compares a tool-input-available's input with the
// concatenated deltas, when deltas came.
func (uc *uiChecks) inputMismatch(c *checks.Checker, s *model.Session, ord int, ev *model.Event) {
	it := s.EventItem(ev)
	in := s.Member(mInput)
	if it == nil || it.Deltas == 0 || in == nil {
		return
	}
	args, _ := it.Args.AsOf(ord)
	if checks.SameJSON(args, in) {
		return
	}
	if jsonscan.Kind(in) == '"' && string(jsonscan.Unquote(nil, in)) == string(args) {
		return // inputEncoding "text": the input is the text itself
	}
	why := "differs from"
	if !checks.SameJSON(args, args) {
		why = "is valid JSON where the deltas are not:"
	}
	c.Add(uInputMismatch, append(fragments(it, ord), ord), "call %s (%s): the input at event %d %s the concatenated deltas %s: %s",
		checks.Quote(it.CallID), checks.Quote(it.Name), ord, why, checks.QuoteBytes(args), checks.QuoteBytes(in))
}

// fragments lists the events that added a call's deltas by event ord
// (capped).
func fragments(it *model.Item, ord int) []int {
	var out []int
	for _, f := range it.Args.Frags {
		if int(f.Ordinal) <= ord && len(out) < checks.MaxEvents-1 && (len(out) == 0 || out[len(out)-1] != int(f.Ordinal)) {
			out = append(out, int(f.Ordinal))
		}
	}
	return out
}

// required lists, for each chunk type, the members its schema requires
// and their JSON kind ('"' a string, 'b' a boolean, '[' an array, 0 any).
var required = map[string][]struct {
	name string
	m    *model.Member
	kind byte
}{
	TypeTextStart:            {{"id", &mID, '"'}},
	TypeTextDelta:            {{"id", &mID, '"'}, {"delta", &mDelta, '"'}},
	TypeTextEnd:              {{"id", &mID, '"'}},
	TypeReasoningStart:       {{"id", &mID, '"'}},
	TypeReasoningDelta:       {{"id", &mID, '"'}, {"delta", &mDelta, '"'}},
	TypeReasoningEnd:         {{"id", &mID, '"'}},
	TypeToolInputStart:       {{"toolCallId", &mToolCallID, '"'}, {"toolName", &mToolName, '"'}},
	TypeToolInputDelta:       {{"toolCallId", &mToolCallID, '"'}, {"inputTextDelta", &mInputTextDelta, '"'}},
	TypeToolInputAvailable:   {{"toolCallId", &mToolCallID, '"'}, {"toolName", &mToolName, '"'}, {"input", &mInput, 0}},
	TypeToolInputError:       {{"toolCallId", &mToolCallID, '"'}, {"toolName", &mToolName, '"'}, {"input", &mInput, 0}, {"errorText", &mErrorText, '"'}},
	TypeToolApprovalRequest:  {{"approvalId", &mApprovalID, '"'}, {"toolCallId", &mToolCallID, '"'}},
	TypeToolApprovalResponse: {{"approvalId", &mApprovalID, '"'}, {"approved", &mApproved, 'b'}},
	TypeToolOutputAvailable:  {{"toolCallId", &mToolCallID, '"'}},
	TypeToolOutputError:      {{"toolCallId", &mToolCallID, '"'}, {"errorText", &mErrorText, '"'}},
	TypeToolOutputDenied:     {{"toolCallId", &mToolCallID, '"'}},
	TypeSourceURL:            {{"sourceId", &mSourceID, '"'}, {"url", &mURL, '"'}},
	TypeSourceDocument:       {{"sourceId", &mSourceID, '"'}, {"mediaType", &mMediaType, '"'}, {"title", &mTitle, '"'}},
	TypeFile:                 {{"url", &mURL, '"'}, {"mediaType", &mMediaType, '"'}},
	TypeReasoningFile:        {{"url", &mURL, '"'}, {"mediaType", &mMediaType, '"'}},
	TypeCustom:               {{"kind", &mKind, '"'}},
	TypeError:                {{"errorText", &mErrorText, '"'}},
}

// optional lists members that, when present, must be of a kind.
var optional = []struct {
	name string
	m    *model.Member
	kind byte
}{
	{"providerExecuted", &mProviderExecuted, 'b'}, {"dynamic", &mDynamic, 'b'}, {"preliminary", &mPreliminary, 'b'},
	{"messageId", &mMessageID, '"'}, {"reason", &mReason, '"'},
}

// finishReasons are the values a finish chunk's finishReason may take.
var finishReasons = []string{FinishStop, FinishLength, FinishContentFilter, FinishToolCalls, FinishError, FinishInterrupted, FinishOther}

// malformed reports a chunk that lacks a member its type requires, or has
// one of the wrong kind.
func (uc *uiChecks) malformed(c *checks.Checker, s *model.Session, ord int, typ string) {
	var bad []string
	check := func(name string, v []byte, kind byte, need bool) {
		switch {
		case v == nil:
			if need {
				bad = append(bad, "no "+name)
			}
		case kind == 'b' && string(v) != "true" && string(v) != "false",
			kind != 0 && kind != 'b' && jsonscan.Kind(v) != kind:
			bad = append(bad, name+" "+checks.QuoteBytes(v))
		}
	}
	for _, r := range required[typ] {
		check(r.name, s.Member(*r.m), r.kind, true)
	}
	for _, o := range optional {
		check(o.name, s.Member(*o.m), o.kind, false)
	}
	if typ == TypeFinish {
		if v := s.Member(mFinishReason); v != nil && !slices.Contains(finishReasons, model.StringOf(v)) {
			bad = append(bad, "finishReason "+checks.QuoteBytes(v)+" (none of "+strings.Join(finishReasons, ", ")+")")
		}
	}
	if len(bad) > 0 {
		c.Add(uMalformedChunk, []int{ord}, "event %d: %s chunk with %s: useChat's parse fails and the chat ends in an error", ord, typ, strings.Join(bad, ", "))
	}
}

// Unplaced sees an event no dialect claimed after a chunk: a typed chunk
// the stream does not know (a body read without its head), or anything
// after the finish. An event with no data field (" data: …", whose field
// name a leading space spoils) is no chunk: useChat's SSE parser
// dispatches nothing for it.
func (uc *uiChecks) Unplaced(c *checks.Checker, s *model.Session, ord int, ev *model.Event) {
	uc.last = ord
	if ev.Source != capture.FrameEvent || ev.Flags&(model.DecodeError|model.NotObject) != 0 || ev.Kind == model.KindSentinel || ev.Frame&capture.NoData != 0 {
		return
	}
	if typ := s.TypeName(ev.Type); typ != "" && typ != "(untyped)" && ev.Kind != model.KindError {
		c.Add(uUnknownChunk, []int{ord}, "event %d: chunk type %s is none of the UI message stream's: useChat's parse fails and the chat ends in an error", ord, checks.Quote(typ))
	}
}

func (uc *uiChecks) Finish(out *checks.Checker, s *model.Session, sse bool) {
	if uc.chunks == 0 {
		return
	}
	for _, o := range uc.before {
		start := o.events[len(o.events)-1]
		out.Add(uBeforeStart, o.events, "%s: %s before its start at event %d: useChat has no part for it yet and throws",
			describe(o.key), checks.Plural(len(o.events)-1, "chunk"), start)
	}
	orphans := slices.Clone(uc.orphans)
	for _, key := range slices.Sorted(maps.Keys(uc.early)) {
		if p := uc.early[key]; p.deltas {
			orphans = append(orphans, orphan{key: key, events: p.events})
		}
	}
	for _, o := range orphans {
		if len(o.events) == 0 {
			continue
		}
		out.Add(uDeltaWithoutStart, o.events, "%s: %s and no start: useChat throws on the first (a stream resumed mid-part begins so)",
			describe(o.key), checks.Plural(len(o.events), "chunk"))
	}
	if uc.afterN > 0 {
		out.Add(uAfterFinish, append([]int{uc.finished - 1}, uc.after...), "%s after the finish at event %d: only data parts may follow it",
			checks.Plural(uc.afterN, "chunk"), uc.finished-1)
	}
	ended, _ := s.Ended()
	if !ended {
		return
	}
	if r := lastResponse(s); r != nil && r.Terminal < 0 && !checks.Errored(s) {
		out.Add(uFinishMissing, []int{uc.last}, "the stream ends at event %d without finish: useChat takes it for a whole answer (its status goes back to ready), though the message was cut", uc.last)
	}
	if sse && s.Done() < 0 {
		out.Add(uDoneMissing, []int{uc.last}, "the stream ends at event %d without data: [DONE]", uc.last)
	}
}

// describe names a part or call by its key.
func describe(key string) string {
	kind, id, _ := strings.Cut(key, " ")
	if kind == "tool" {
		kind = "call"
	} else {
		kind += " part"
	}
	return kind + " " + id
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
