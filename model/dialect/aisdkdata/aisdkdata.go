// Package aisdkdata is the Vercel AI SDK's data stream before v5 (ai 4.x,
// toDataStreamResponse): what a route sent to useChat until the UI
// message stream replaced it. The body is text/plain, one part a line,
// CODE:JSON (capture's datastream format), and the response says what it
// is by its header x-vercel-ai-data-stream: v1. One stream is one
// assistant message made of steps (f: … e:), ended by d:. It holds the
// dialect's detection and assembly, its explanations and its rules (the
// aisdk-data/ rule ids). It imports no other dialect; model/dialects
// registers it.
//
// The parts are read from ai@4.3.19's @ai-sdk/ui-utils
// (data-stream-parts.ts, process-chat-response.ts):
// https://github.com/vercel/ai/tree/v4.3.19/packages/ui-utils/src.
package aisdkdata

import (
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Header names the response header that says a body is a data stream,
// and Version its value.
const (
	Header  = capture.DataStreamHeader
	Version = "v1"
)

// The parts of the data stream, named as the SDK names them; a line is
// typed by its part's name, and its code is its event name.
const (
	PartText           = "text"                      // 0: a string
	PartData           = "data"                      // 2: an array (writeData)
	PartError          = "error"                     // 3: a string
	PartAnnotations    = "message_annotations"       // 8: an array
	PartToolCall       = "tool_call"                 // 9: {toolCallId, toolName, args}
	PartToolResult     = "tool_result"               // a: {toolCallId, result}
	PartToolCallStart  = "tool_call_streaming_start" // b: {toolCallId, toolName}
	PartToolCallDelta  = "tool_call_delta"           // c: {toolCallId, argsTextDelta}
	PartFinishMessage  = "finish_message"            // d: {finishReason, usage}
	PartFinishStep     = "finish_step"               // e: {finishReason, usage, isContinued}
	PartStartStep      = "start_step"                // f: {messageId}
	PartReasoning      = "reasoning"                 // g: a string
	PartSource         = "source"                    // h: a source object
	PartRedacted       = "redacted_reasoning"        // i: {data}
	PartSignature      = "reasoning_signature"       // j: {signature}
	PartFile           = "file"                      // k: {data, mimeType}
	TypeNoSeparator    = "(no separator)"            // a line without ':'
	finishUnknown      = "unknown"                   // the provider sent no finish reason
	finishLength       = "length"
	finishContentFiler = "content-filter"
	finishError        = "error"
)

// parts names each code's part, and says the JSON kind of its value
// ('"' a string, '[' an array, '{' an object).
var parts = map[string]struct {
	name string
	kind byte
}{
	"0": {PartText, '"'}, "2": {PartData, '['}, "3": {PartError, '"'}, "8": {PartAnnotations, '['},
	"9": {PartToolCall, '{'}, "a": {PartToolResult, '{'}, "b": {PartToolCallStart, '{'}, "c": {PartToolCallDelta, '{'},
	"d": {PartFinishMessage, '{'}, "e": {PartFinishStep, '{'}, "f": {PartStartStep, '{'}, "g": {PartReasoning, '"'},
	"h": {PartSource, '{'}, "i": {PartRedacted, '{'}, "j": {PartSignature, '{'}, "k": {PartFile, '{'},
}

// Code returns the code of the part named name, or "".
func Code(name string) string {
	for c, p := range parts {
		if p.name == name {
			return c
		}
	}
	return ""
}

// Protocol is the data stream dialect, for model.Register.
var Protocol = new(dataDialect)

type dataDialect struct{ model.Base }

func (*dataDialect) Info() model.DialectInfo {
	return model.DialectInfo{Name: "aisdk-data", Short: "aisdk-data",
		Abbrev: []string{"tool_call_streaming_start", "call_start", "tool_call_delta", "call_delta", "message_annotations", "annotations"}}
}

// ClaimHead takes a response whose head says x-vercel-ai-data-stream: v1.
func (*dataDialect) ClaimHead(h *model.Head) bool {
	return strings.TrimSpace(h.Get(Header)) == Version
}

// ClaimShape takes every line framed as a data stream part (capture's
// Coded lines): no other API writes CODE:JSON.
func (*dataDialect) ClaimShape(s *model.Session, _ string) bool {
	return s.Current().Frame&capture.Coded != 0
}

// FinishOutcome reads a d: part's finishReason: "length" is the token
// limit, "content-filter" a filter, "error" a failed run, and "unknown"
// a provider stream that gave no reason (cut, or failed). "stop",
// "tool-calls" and "other" end normally.
func (*dataDialect) FinishOutcome(reason string) string {
	switch reason {
	case finishLength:
		return model.OutcomeIncomplete
	case finishContentFiler:
		return model.OutcomeBlocked
	case finishUnknown:
		return model.OutcomeTruncated
	case finishError:
		return model.OutcomeError
	}
	return ""
}

func (*dataDialect) NewAssembly() model.Assembly {
	return &dataState{calls: map[string]*model.Item{}, open: -1}
}

// dataState assembles the message of a data stream: one response from the
// first line to d: (data and annotations may follow it); an f: after d:
// begins the next message.
type dataState struct {
	resp      *model.Response
	finished  bool
	next      int                    // the position of resp's next item
	text      *model.Item            // the step's text
	reasoning *model.Item            // the step's reasoning
	calls     map[string]*model.Item // the message's calls, by toolCallId as the line writes it
	steps     []model.Step
	open      int // index in steps of the open step, or -1
	model.NoSentinel
}

// Steps returns the steps of response r (model.Stepper).
func (st *dataState) Steps(r int) []model.Step {
	i := 0
	for i < len(st.steps) && st.steps[i].Response < r {
		i++
	}
	j := i
	for j < len(st.steps) && st.steps[j].Response == r {
		j++
	}
	return st.steps[i:j:j]
}

func (st *dataState) response(s *model.Session, ord int, name string) *model.Response {
	if st.resp == nil || st.finished && name == PartStartStep {
		st.resp = s.NewResponse(Protocol.ID(), ord)
		st.resp.Status.Set(ord, "in_progress")
		st.finished, st.next, st.text, st.reasoning, st.open = false, 0, nil, nil, -1
		clear(st.calls)
	}
	return st.resp
}

// Event applies one line, whose value data is any JSON (its object
// members are at hand when it is an object).
func (st *dataState) Event(s *model.Session, ev *model.Event, typ string, data []byte, ord int) {
	part, known := parts[typ]
	if f := s.Current(); f.Name == 0 {
		ev.Type = s.Intern([]byte(TypeNoSeparator))
		ev.Kind = model.KindUnknown
		return
	}
	if !known {
		ev.Kind = model.KindUnknown
		ev.Flags |= model.NonStandard
		return
	}
	ev.Type = s.Intern([]byte(part.name))
	r := st.response(s, ord, part.name)
	ev.Kind = model.KindLifecycle
	switch part.name {
	case PartText:
		st.text = st.textItem(s, ev, r, st.text, model.RoleMessage, "text", ord)
		if jsonscan.Kind(data) == '"' {
			st.text.Text.AddString(ord, data)
		}
		ev.Kind = model.KindTextDelta
	case PartReasoning:
		st.reasoning = st.textItem(s, ev, r, st.reasoning, model.RoleReasoning, "reasoning", ord)
		if jsonscan.Kind(data) == '"' {
			st.reasoning.Text.AddString(ord, data)
		}
		ev.Kind = model.KindTextDelta
	case PartRedacted:
		st.reasoning = st.textItem(s, ev, r, st.reasoning, model.RoleReasoning, "reasoning", ord)
	case PartSignature:
		st.reasoning = st.textItem(s, ev, r, st.reasoning, model.RoleReasoning, "reasoning", ord)
		if v := s.Member(mSignature); jsonscan.Kind(v) == '"' {
			st.reasoning.SignatureBuffer().AddString(ord, v)
		}
		ev.Kind = model.KindTextDelta
	case PartError:
		s.ErrorEvent(ev, data, ord)
	case PartStartStep:
		st.closeStep(ord - 1)
		st.steps = append(st.steps, model.Step{Response: r.Index, Start: ord, End: -1})
		st.open = len(st.steps) - 1
		if id := s.Member(mMessageID); r.ID == "" && jsonscan.Kind(id) == '"' {
			r.ID = model.StringOf(id)
		}
		st.text, st.reasoning = nil, nil // a step's text is a part of its own
	case PartFinishStep:
		st.closeStep(ord)
		st.closeText(ord)
	case PartFinishMessage:
		st.finished = true
		st.closeStep(ord)
		st.closeText(ord)
		r.Terminal, r.Final = ord, ord
		r.Status.Set(ord, model.OutcomeCompleted)
		if v := s.Member(mFinishReason); jsonscan.Kind(v) == '"' {
			r.AddFinish(0, ord, model.StringOf(v))
		}
		ev.Kind = model.KindTerminal
	case PartToolCallStart:
		ev.Kind = model.KindItemOpen
		id := s.Member(mToolCallID)
		if it := st.calls[string(id)]; it != nil && it.Opened < 0 && it.Closed < 0 {
			// Its deltas came first (the rules report them): the start
			// opens the call they made, as the UI message stream's does.
			it.Opened = ord
			if it.Name == "" {
				it.Name = model.StringOf(s.Member(mToolName))
			}
			it.Touch(ord)
			ev.Item = int32(it.Index)
			break
		}
		it := st.newItem(s, ev, r, model.RoleCall, "tool-invocation", ord)
		it.CallID, it.Name, it.Opened = model.StringOf(id), model.StringOf(s.Member(mToolName)), ord
		it.Status.Set(ord, "in_progress")
		st.calls[string(id)] = it
	case PartToolCallDelta:
		it := st.call(s, ev, r, ord)
		if v := s.Member(mArgsTextDelta); jsonscan.Kind(v) == '"' {
			it.Args.AddString(ord, v)
			it.Deltas++
		}
		ev.Kind = model.KindArgsDelta
	case PartToolCall:
		st.toolCall(s, ev, r, ord)
		ev.Kind = model.KindArgsDone
	case PartToolResult:
		it := st.call(s, ev, r, ord)
		if v := s.Member(mResult); v != nil {
			it.RunOf().SetOutput(v, ord, false)
		}
		it.Status.Set(ord, model.ToolOutputAvailable)
		ev.Kind = model.KindItemDone
	case PartSource, PartFile:
		it := st.newItem(s, ev, r, model.RoleOther, part.name, ord)
		it.Opened = ord
		v := s.Member(mURL)
		if part.name == PartFile {
			v = s.Member(mMimeType)
		}
		if jsonscan.Kind(v) == '"' {
			it.Text.AddString(ord, v)
		}
		it.Close(ord)
		it.Status.Set(ord, "completed")
		ev.Kind = model.KindItemOpen
	case PartData, PartAnnotations:
		it := st.newItem(s, ev, r, model.RoleOther, part.name, ord)
		it.Opened = ord
		it.Text.SetWhole(ord, data)
		it.Close(ord)
		it.Status.Set(ord, "completed")
	}
}

// closeStep ends the open step at event end.
func (st *dataState) closeStep(end int) {
	if st.open >= 0 {
		st.steps[st.open].End = end
		st.open = -1
	}
}

// closeText closes the step's text and reasoning, which have no end part
// of their own: the step's end is theirs.
func (st *dataState) closeText(ord int) {
	for _, it := range []*model.Item{st.text, st.reasoning} {
		if it != nil && it.Closed < 0 {
			it.Close(ord)
			it.Status.Set(ord, "completed")
		}
	}
}

// newItem starts an item of response r at the next position.
func (st *dataState) newItem(s *model.Session, ev *model.Event, r *model.Response, role model.ItemRole, typ string, ord int) *model.Item {
	it := s.NewItem(Protocol.ID(), role, typ, ord)
	it.Response, it.Position = r.Index, st.next
	st.next++
	ev.Item = int32(it.Index)
	return it
}

// textItem returns the step's text or reasoning item, starting it.
func (st *dataState) textItem(s *model.Session, ev *model.Event, r *model.Response, it *model.Item, role model.ItemRole, typ string, ord int) *model.Item {
	if it == nil || it.Closed >= 0 {
		it = st.newItem(s, ev, r, role, typ, ord)
		it.Opened = ord
		it.Status.Set(ord, "in_progress")
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	return it
}

// call finds the call a line names by its toolCallId: one never started
// is an orphan, given an item so that what it carries is kept.
func (st *dataState) call(s *model.Session, ev *model.Event, r *model.Response, ord int) *model.Item {
	id := s.Member(mToolCallID)
	it := st.calls[string(id)]
	if it == nil {
		ev.Flags |= model.Orphan
		it = st.newItem(s, ev, r, model.RoleCall, "tool-invocation", ord)
		it.CallID = model.StringOf(id)
		it.Status.Set(ord, "in_progress")
		st.calls[string(id)] = it
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	return it
}

// toolCall applies a 9: part: the call whole, its args the parsed
// arguments, which stand for them when no c: delta came (toolCallStreaming
// off, the default, sends the call only so).
func (st *dataState) toolCall(s *model.Session, ev *model.Event, r *model.Response, ord int) {
	id := s.Member(mToolCallID)
	it := st.calls[string(id)]
	if it == nil {
		it = st.newItem(s, ev, r, model.RoleCall, "tool-invocation", ord)
		it.CallID, it.Opened = model.StringOf(id), ord
		st.calls[string(id)] = it
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	if name := model.StringOf(s.Member(mToolName)); it.Name == "" {
		it.Name = name
	} else {
		it.SawID(ord, "toolName", it.Name, name)
	}
	if args := s.Member(mArgs); args != nil {
		it.SetSource(model.SourceAdded, it.ArgsSourceOf(args, ord))
	}
	if it.Closed < 0 {
		it.Close(ord)
	}
	it.Status.Set(ord, model.ToolInputAvailable)
}
