// Package aisdkui is the Vercel AI SDK's UI message stream (ai 5 to 7):
// what a route returning toUIMessageStreamResponse() sends to useChat. It
// is SSE, one chunk a `data:` line, `data: [DONE]` at the end, and the
// response says what it is by its header x-vercel-ai-ui-message-stream:
// v1. One stream is one assistant message, made of steps (one model call
// each, start-step…finish-step) holding text and reasoning parts by id,
// tool calls by toolCallId (their input streamed as text, then given
// whole, then their output), sources, files and the app's data-* parts.
// It holds the dialect's detection and assembly, its explanations and its
// rules (the aisdk-ui/ rule ids). It imports no other dialect;
// model/dialects registers it.
//
// The wire rules are read from ai@7.0.185's code (uiMessageChunkSchema,
// processUIMessageStream, JsonToSseTransformStream):
// https://github.com/vercel/ai/tree/main/packages/ai/src/ui-message-stream.
package aisdkui

import (
	"strings"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Header names the response header that says a body is a UI message
// stream, and Version its value.
const (
	Header  = "x-vercel-ai-ui-message-stream"
	Version = "v1"
)

// The chunk types of the UI message stream (ai 7.0.185's
// uiMessageChunkSchema), and the prefix of the app's data parts
// (data-<name>).
const (
	TypeStart                = "start"
	TypeFinish               = "finish"
	TypeAbort                = "abort"
	TypeError                = "error"
	TypeStartStep            = "start-step"
	TypeFinishStep           = "finish-step"
	TypeResetStep            = "reset-step"
	TypeTextStart            = "text-start"
	TypeTextDelta            = "text-delta"
	TypeTextEnd              = "text-end"
	TypeReasoningStart       = "reasoning-start"
	TypeReasoningDelta       = "reasoning-delta"
	TypeReasoningEnd         = "reasoning-end"
	TypeToolInputStart       = "tool-input-start"
	TypeToolInputDelta       = "tool-input-delta"
	TypeToolInputAvailable   = "tool-input-available"
	TypeToolInputError       = "tool-input-error"
	TypeToolApprovalRequest  = "tool-approval-request"
	TypeToolApprovalResponse = "tool-approval-response"
	TypeToolOutputAvailable  = "tool-output-available"
	TypeToolOutputError      = "tool-output-error"
	TypeToolOutputDenied     = "tool-output-denied"
	TypeSourceURL            = "source-url"
	TypeSourceDocument       = "source-document"
	TypeFile                 = "file"
	TypeReasoningFile        = "reasoning-file"
	TypeCustom               = "custom"
	TypeMessageMetadata      = "message-metadata"
	TypeSteeringMessage      = "steering-message"
	DataPrefix               = "data-"
)

// The finish reasons of a finish chunk (FinishReason in ai's types).
const (
	FinishStop          = "stop"
	FinishLength        = "length"
	FinishContentFilter = "content-filter"
	FinishToolCalls     = "tool-calls"
	FinishError         = "error"
	FinishInterrupted   = "interrupted"
	FinishOther         = "other"
)

// Aborted is the finish reason the assembly records for an abort chunk,
// which ends a run that the route's abortSignal stopped: the answer is cut.
const Aborted = "aborted"

// chunkKinds gives each known chunk type its kind. data-* parts are
// told by their prefix.
var chunkKinds = map[string]model.Kind{
	TypeStart: model.KindLifecycle, TypeFinish: model.KindTerminal, TypeAbort: model.KindTerminal,
	TypeError: model.KindError, TypeStartStep: model.KindLifecycle, TypeFinishStep: model.KindLifecycle,
	TypeResetStep: model.KindLifecycle, TypeTextStart: model.KindItemOpen, TypeTextDelta: model.KindTextDelta,
	TypeTextEnd: model.KindItemDone, TypeReasoningStart: model.KindItemOpen, TypeReasoningDelta: model.KindTextDelta,
	TypeReasoningEnd: model.KindItemDone, TypeToolInputStart: model.KindItemOpen, TypeToolInputDelta: model.KindArgsDelta,
	TypeToolInputAvailable: model.KindArgsDone, TypeToolInputError: model.KindArgsDone,
	TypeToolApprovalRequest: model.KindLifecycle, TypeToolApprovalResponse: model.KindLifecycle,
	TypeToolOutputAvailable: model.KindItemDone, TypeToolOutputError: model.KindItemDone, TypeToolOutputDenied: model.KindItemDone,
	TypeSourceURL: model.KindItemOpen, TypeSourceDocument: model.KindItemOpen, TypeFile: model.KindItemOpen,
	TypeReasoningFile: model.KindItemOpen, TypeCustom: model.KindLifecycle, TypeMessageMetadata: model.KindLifecycle,
	TypeSteeringMessage: model.KindLifecycle,
}

// KnownType reports whether typ is a chunk type of the stream: one of
// the schema's, or data-<name>.
func KnownType(typ string) bool {
	_, ok := chunkKinds[typ]
	return ok || IsData(typ)
}

// IsData reports whether typ is an app's data part type, data-<name>.
func IsData(typ string) bool {
	return len(typ) > len(DataPrefix) && typ[:len(DataPrefix)] == DataPrefix
}

// Protocol is the UI message stream dialect, for model.Register.
var Protocol = new(uiDialect)

type uiDialect struct{ model.Base }

func (*uiDialect) Info() model.DialectInfo {
	return model.DialectInfo{Name: "aisdk-ui", Short: "aisdk-ui",
		Abbrev: []string{"tool-input-", "input-", "tool-output-", "output-", "available", "avail"}}
}

// ClaimHead takes a response whose head says
// x-vercel-ai-ui-message-stream: v1 (UI_MESSAGE_STREAM_HEADERS): every
// chunk of its body is the stream's, whatever its type.
func (*uiDialect) ClaimHead(h *model.Head) bool {
	return strings.TrimSpace(h.Get(Header)) == Version
}

// ClaimType takes the chunk types no other API uses: those of two words
// (text-delta, tool-input-start, start-step …), and any other of the
// families text-, reasoning-, tool- and source- (a chunk type the schema
// does not know, which the rules report). The one-word types (start,
// finish, error, abort, file, custom) and data-<name> are claimed by their
// shape.
func (*uiDialect) ClaimType(typ string) bool {
	if _, ok := chunkKinds[typ]; ok {
		return strings.IndexByte(typ, '-') > 0
	}
	for _, p := range []string{"text-", "reasoning-", "tool-", "source-"} {
		if len(typ) > len(p) && typ[:len(p)] == p {
			return true
		}
	}
	return false
}

// ClaimShape takes a one-word chunk (start, finish, abort, error, file,
// custom) or a data part of a stream that has shown no other dialect,
// when it holds the members its schema allows and those it requires: a
// {"type":"start"} of some other API with other members stays theirs.
func (*uiDialect) ClaimShape(s *model.Session, typ string) bool {
	if d := s.LastDialect(); d != model.DialectUnknown && d != Protocol.ID() {
		return false
	}
	switch {
	case typ == TypeStart:
		return only(s, nil, "messageId", "messageMetadata")
	case typ == TypeFinish:
		return only(s, nil, "finishReason", "messageMetadata")
	case typ == TypeAbort:
		return only(s, nil, "reason")
	case typ == TypeError:
		return only(s, &mErrorText, "errorText")
	case typ == TypeFile:
		return only(s, &mURL, "url", "mediaType", "providerMetadata", "filename")
	case typ == TypeCustom:
		return only(s, &mKind, "kind", "providerMetadata")
	case IsData(typ):
		return only(s, &mData, "id", "data", "transient")
	}
	return false
}

// only reports whether the chunk being added has the member need (unless
// need is nil), and no top-level member but type and those allowed.
func only(s *model.Session, need *model.Member, allowed ...string) bool {
	if need != nil && s.Member(*need) == nil {
		return false
	}
	ok := true
	s.JSON().Members(s.Data(), func(k, _ []byte) bool {
		if string(k) == "type" {
			return true
		}
		for _, a := range allowed {
			if string(k) == a {
				return true
			}
		}
		ok = false
		return false
	})
	return ok
}

// FinishOutcome reads a finish chunk's finishReason: "length" is the
// token limit, "content-filter" a filter that withheld the rest,
// "interrupted" a provider stream that ended without its terminal event
// (the step was cut: no tool ran), "error" a failed run; an abort chunk
// is recorded as Aborted. "stop", "tool-calls" and "other" end normally.
func (*uiDialect) FinishOutcome(reason string) string {
	switch {
	case reason == FinishLength:
		return model.OutcomeIncomplete
	case reason == FinishContentFilter:
		return model.OutcomeBlocked
	case reason == FinishInterrupted, reason == Aborted, strings.HasPrefix(reason, Aborted+":"):
		return model.OutcomeTruncated
	case reason == FinishError:
		return model.OutcomeError
	}
	return ""
}

func (*uiDialect) NewAssembly() model.Assembly {
	return &uiState{text: map[string]*model.Item{}, reasoning: map[string]*model.Item{},
		calls: map[string]*model.Item{}, open: -1}
}

// uiState assembles the messages of a UI message stream: one response a
// message, from its first chunk (data parts may come before start) to its
// finish (data parts may come after it too); a start after a finish
// begins the next message.
type uiState struct {
	resp     *model.Response
	started  bool // resp had its start
	finished bool // resp had its finish or abort
	next     int  // the position of resp's next item
	// text and reasoning are the open parts, and calls every call of the
	// message, each by its id as the chunk writes it (JSON, quotes and
	// all), so that a lookup costs no copy.
	text, reasoning, calls map[string]*model.Item
	approvals              map[string]*model.Item // calls by the approvalId they wait for
	data                   map[string]*model.Item // data parts by type and id
	steps                  []model.Step
	open                   int // index in steps of the open step, or -1
	model.NoSentinel
}

// Steps returns the steps of response r (model.Stepper).
func (st *uiState) Steps(r int) []model.Step { return stepsOf(st.steps, r) }

// stepsOf returns the steps of response r among steps, which are in
// stream order (and so in the order of their responses).
func stepsOf(steps []model.Step, r int) []model.Step {
	i := 0
	for i < len(steps) && steps[i].Response < r {
		i++
	}
	j := i
	for j < len(steps) && steps[j].Response == r {
		j++
	}
	return steps[i:j:j]
}

// response returns the message being assembled, starting one at the
// first chunk and at a start after a finish.
func (st *uiState) response(s *model.Session, ord int, typ string) *model.Response {
	if st.resp == nil || st.finished && typ == TypeStart {
		st.resp = s.NewResponse(Protocol.ID(), ord)
		st.resp.Status.Set(ord, "in_progress")
		st.started, st.finished, st.next = false, false, 0
		clear(st.text)
		clear(st.reasoning)
		clear(st.calls)
		st.approvals, st.data, st.open = nil, nil, -1
	}
	return st.resp
}

// Event applies one chunk.
func (st *uiState) Event(s *model.Session, ev *model.Event, typ string, _ []byte, ord int) {
	kind, known := chunkKinds[typ]
	switch {
	case known:
	case IsData(typ):
		kind = model.KindItemOpen
	default:
		ev.Kind = model.KindUnknown
		ev.Flags |= model.NonStandard
		st.response(s, ord, typ)
		return
	}
	ev.Kind = kind
	r := st.response(s, ord, typ)
	switch typ {
	case TypeStart:
		st.started = true
		if id := s.Member(mMessageID); jsonscan.Kind(id) == '"' && r.ID == "" {
			r.ID = model.StringOf(id)
		}
		if r.Created < 0 {
			r.Created = ord
		}
	case TypeFinish:
		st.finished = true
		r.Terminal, r.Final = ord, ord
		r.Status.Set(ord, model.OutcomeCompleted)
		if v := s.Member(mFinishReason); jsonscan.Kind(v) == '"' {
			r.AddFinish(0, ord, model.StringOf(v))
		}
		st.closeStep(ord)
	case TypeAbort:
		st.finished = true
		r.Terminal, r.Final = ord, ord
		r.Status.Set(ord, Aborted)
		reason := Aborted
		if v := model.StringOf(s.Member(mReason)); v != "" {
			reason += ": " + v
		}
		r.AddFinish(0, ord, reason)
	case TypeError:
		s.ErrorEvent(ev, s.Member(mErrorText), ord)
		r.Status.Set(ord, model.OutcomeError)
	case TypeStartStep:
		st.closeStep(ord - 1) // a step left open ends where the next starts
		st.steps = append(st.steps, model.Step{Response: r.Index, Start: ord, End: -1})
		st.open = len(st.steps) - 1
	case TypeFinishStep:
		st.closeStep(ord)
	case TypeTextStart:
		st.part(s, ev, r, st.text, model.RoleMessage, "text", ord)
	case TypeReasoningStart:
		st.part(s, ev, r, st.reasoning, model.RoleReasoning, "reasoning", ord)
	case TypeTextDelta:
		st.delta(s, ev, r, st.text, model.RoleMessage, "text", ord)
	case TypeReasoningDelta:
		st.delta(s, ev, r, st.reasoning, model.RoleReasoning, "reasoning", ord)
	case TypeTextEnd:
		st.end(s, ev, r, st.text, model.RoleMessage, "text", ord)
	case TypeReasoningEnd:
		st.end(s, ev, r, st.reasoning, model.RoleReasoning, "reasoning", ord)
	case TypeToolInputStart:
		st.inputStart(s, ev, r, ord)
	case TypeToolInputDelta:
		it := st.call(s, ev, r, ord)
		if v := s.Member(mInputTextDelta); jsonscan.Kind(v) == '"' {
			it.Args.AddString(ord, v)
			it.Deltas++
		}
	case TypeToolInputAvailable, TypeToolInputError:
		st.inputDone(s, ev, r, typ, ord)
	case TypeToolApprovalRequest:
		it := st.call(s, ev, r, ord)
		it.Status.Set(ord, model.ToolApprovalRequested)
		if id := s.Member(mApprovalID); jsonscan.Kind(id) == '"' {
			it.RunOf().ApprovalID = model.StringOf(id)
			if st.approvals == nil {
				st.approvals = map[string]*model.Item{}
			}
			st.approvals[string(id)] = it
		}
	case TypeToolApprovalResponse:
		if it := st.approvals[string(s.Member(mApprovalID))]; it != nil {
			it.Touch(ord)
			ev.Item = int32(it.Index)
			if string(s.Member(mApproved)) == "false" {
				it.Status.Set(ord, model.ToolOutputDenied)
			} else {
				it.Status.Set(ord, model.ToolApprovalResponded)
			}
		}
	case TypeToolOutputAvailable:
		it := st.call(s, ev, r, ord)
		run := it.RunOf()
		st.runFlags(s, run)
		if v := s.Member(mOutput); v != nil {
			run.SetOutput(v, ord, string(s.Member(mPreliminary)) == "true")
		}
		run.Error = "" // the output replaces an input error, as in the client's part (a provider-executed tool the route does not know)
		it.Status.Set(ord, model.ToolOutputAvailable)
	case TypeToolOutputError:
		it := st.call(s, ev, r, ord)
		run := it.RunOf()
		st.runFlags(s, run)
		run.Error = model.StringOf(s.Member(mErrorText))
		it.Status.Set(ord, model.ToolOutputError)
	case TypeToolOutputDenied:
		it := st.call(s, ev, r, ord)
		it.Status.Set(ord, model.ToolOutputDenied)
	case TypeSourceURL, TypeSourceDocument, TypeFile, TypeReasoningFile:
		st.whole(s, ev, r, typ, ord)
	default:
		if IsData(typ) {
			st.dataPart(s, ev, r, typ, ord)
		}
	}
}

// closeStep ends the open step at event end.
func (st *uiState) closeStep(end int) {
	if st.open >= 0 {
		st.steps[st.open].End = end
		st.open = -1
	}
}

// newItem starts an item of response r at the next position.
func (st *uiState) newItem(s *model.Session, ev *model.Event, r *model.Response, role model.ItemRole, typ string, ord int) *model.Item {
	it := s.NewItem(Protocol.ID(), role, typ, ord)
	it.Response, it.Position = r.Index, st.next
	st.next++
	ev.Item = int32(it.Index)
	return it
}

// part starts a text or reasoning part.
func (st *uiState) part(s *model.Session, ev *model.Event, r *model.Response, open map[string]*model.Item, role model.ItemRole, typ string, ord int) {
	id := s.Member(mID)
	it := st.newItem(s, ev, r, role, typ, ord)
	it.ItemID, it.Opened = model.StringOf(id), ord
	it.Status.Set(ord, "in_progress")
	open[string(id)] = it
}

// target finds the open part a delta or an end names: one never started
// (or ended already) is an orphan, given an item of its own so that its
// text is kept.
func (st *uiState) target(s *model.Session, ev *model.Event, r *model.Response, open map[string]*model.Item, role model.ItemRole, typ string, ord int) *model.Item {
	id := s.Member(mID)
	it := open[string(id)]
	if it == nil {
		ev.Flags |= model.Orphan
		it = st.newItem(s, ev, r, role, typ, ord)
		it.ItemID = model.StringOf(id)
		it.Status.Set(ord, "in_progress")
		open[string(id)] = it
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	return it
}

func (st *uiState) delta(s *model.Session, ev *model.Event, r *model.Response, open map[string]*model.Item, role model.ItemRole, typ string, ord int) {
	it := st.target(s, ev, r, open, role, typ, ord)
	if v := s.Member(mDelta); jsonscan.Kind(v) == '"' {
		it.Text.AddString(ord, v)
	}
	if role != model.RoleReasoning {
		return
	}
	// Anthropic's thinking signature rides an empty delta's provider
	// metadata; it goes back verbatim with the next request.
	if sig := s.JSON().Path(s.Member(mProviderMetadata), "anthropic", "signature"); jsonscan.Kind(sig) == '"' {
		it.SignatureBuffer().AddString(ord, sig)
	}
}

func (st *uiState) end(s *model.Session, ev *model.Event, r *model.Response, open map[string]*model.Item, role model.ItemRole, typ string, ord int) {
	it := st.target(s, ev, r, open, role, typ, ord)
	it.Close(ord)
	it.Status.Set(ord, "completed")
	delete(open, string(s.Member(mID)))
}

// inputStart starts a call.
func (st *uiState) inputStart(s *model.Session, ev *model.Event, r *model.Response, ord int) {
	id := s.Member(mToolCallID)
	if it := st.calls[string(id)]; it != nil && it.Opened < 0 {
		// Its deltas or its input came first (see the rules): the
		// start opens the call they made.
		it.Opened = ord
		it.Touch(ord)
		ev.Item = int32(it.Index)
		return
	}
	typ := "tool"
	if string(s.Member(mDynamic)) == "true" {
		typ = "dynamic-tool"
	}
	it := st.newItem(s, ev, r, model.RoleCall, typ, ord)
	it.CallID, it.Name, it.Opened = model.StringOf(id), model.StringOf(s.Member(mToolName)), ord
	it.Status.Set(ord, "in_progress")
	if string(s.Member(mProviderExecuted)) == "true" || typ == "dynamic-tool" {
		st.runFlags(s, it.RunOf())
	}
	st.calls[string(id)] = it
}

// call finds the call a chunk names by its toolCallId: one never started
// is an orphan, given an item so that what it carries is kept.
func (st *uiState) call(s *model.Session, ev *model.Event, r *model.Response, ord int) *model.Item {
	id := s.Member(mToolCallID)
	it := st.calls[string(id)]
	if it == nil {
		ev.Flags |= model.Orphan
		it = st.newItem(s, ev, r, model.RoleCall, "tool", ord)
		it.CallID = model.StringOf(id)
		it.Status.Set(ord, "in_progress")
		st.calls[string(id)] = it
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	return it
}

// inputDone applies a tool-input-available or tool-input-error: the call
// is whole, its input the parsed arguments, which stand for the arguments
// when no delta came (a call the provider gave whole).
func (st *uiState) inputDone(s *model.Session, ev *model.Event, r *model.Response, typ string, ord int) {
	id := s.Member(mToolCallID)
	it := st.calls[string(id)]
	if it == nil {
		// No start: a call given whole (Anthropic's mcp_tool_use), or
		// one whose start comes later (see the rules). It is not an
		// orphan: the client makes its part from this chunk.
		it = st.newItem(s, ev, r, model.RoleCall, "tool", ord)
		it.CallID = model.StringOf(id)
		st.calls[string(id)] = it
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	if name := model.StringOf(s.Member(mToolName)); it.Name == "" {
		it.Name = name
	} else {
		it.SawID(ord, "toolName", it.Name, name)
	}
	if string(s.Member(mDynamic)) == "true" {
		it.Type = "dynamic-tool"
	}
	run := it.RunOf()
	st.runFlags(s, run)
	if in := s.Member(mInput); in != nil {
		it.SetSource(model.SourceAdded, it.ArgsSourceOf(in, ord))
	}
	if it.Closed < 0 {
		it.Close(ord)
	}
	if typ == TypeToolInputError {
		run.Error = model.StringOf(s.Member(mErrorText))
		it.Status.Set(ord, model.ToolInputError)
		return
	}
	it.Status.Set(ord, model.ToolInputAvailable)
}

// runFlags records what a chunk says of who runs the call.
func (st *uiState) runFlags(s *model.Session, run *model.ToolRun) {
	if string(s.Member(mProviderExecuted)) == "true" {
		run.ProviderExecuted = true
	}
	if string(s.Member(mDynamic)) == "true" {
		run.Dynamic = true
	}
}

// whole adds a source or a file: an item given whole, its text the URL
// (or the document's title).
func (st *uiState) whole(s *model.Session, ev *model.Event, r *model.Response, typ string, ord int) {
	it := st.newItem(s, ev, r, model.RoleOther, typ, ord)
	it.ItemID, it.Opened = model.StringOf(s.Member(mSourceID)), ord
	v := s.Member(mURL)
	if jsonscan.Kind(v) != '"' {
		v = s.Member(mTitle)
	}
	if jsonscan.Kind(v) == '"' {
		it.Text.AddString(ord, v)
	}
	it.Close(ord)
	it.Status.Set(ord, "completed")
}

// dataPart adds an app's data part: one with the id of an earlier one of
// its type replaces that one's data, as the client does.
func (st *uiState) dataPart(s *model.Session, ev *model.Event, r *model.Response, typ string, ord int) {
	id := s.Member(mID)
	key := typ + " " + string(id)
	if it := st.data[key]; it != nil && id != nil {
		it.Touch(ord)
		it.Text.SetWhole(ord, s.Member(mData))
		it.Status.Set(ord, "replaced")
		ev.Item = int32(it.Index)
		return
	}
	it := st.newItem(s, ev, r, model.RoleOther, typ, ord)
	it.ItemID, it.Opened = model.StringOf(id), ord
	if v := s.Member(mData); v != nil {
		it.Text.SetWhole(ord, v)
	}
	it.Close(ord)
	it.Status.Set(ord, "completed")
	if id != nil {
		if st.data == nil {
			st.data = map[string]*model.Item{}
		}
		st.data[key] = it
	}
}
