// Package responses is the OpenAI Responses dialect: response.* events that
// name their item by item_id and output_index, and whole response bodies.
// It holds the dialect's detection and assembly, its explanations and its
// rules (the responses/ rule ids). It imports no other dialect;
// model/dialects registers it.
package responses

import (
	"cmp"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Protocol is the Responses dialect, for model.Register.
var Protocol = new(responsesDialect)

var _ model.FinishOutcomer = Protocol // its finish reasons tell the outcome

// responsesDialect is the OpenAI Responses API: response.* events that
// name their item by item_id and output_index, and whole response bodies.
type responsesDialect struct{ model.Base }

func (*responsesDialect) Info() model.DialectInfo {
	// No abbreviation may spell another real type: reasoning_summary_text
	// once read reasoning_text, which is response.reasoning_text.delta
	// (ui/plain's TestShortTypeNeverNamesAnotherType holds this).
	return model.DialectInfo{Name: "openai-responses", Short: "responses", TypePrefix: "response.", Abbrev: []string{
		"function_call_arguments", "fn_args", "reasoning_summary_text", "summary_text",
		"reasoning_summary_part", "summary_part", "custom_tool_call_input", "custom_input",
	}}
}

func (*responsesDialect) ClaimType(typ string) bool {
	return len(typ) > 9 && typ[:9] == "response." || typ == "keepalive"
}

// ClaimShape takes a non-streaming response body by its object.
func (*responsesDialect) ClaimShape(s *model.Session, _ string) bool {
	return jsonscan.Equal(s.Member(mObject), "response")
}

// ClaimError takes an error event numbered like every Responses event.
func (*responsesDialect) ClaimError(s *model.Session, typ string) bool {
	return typ == "error" && s.Member(mSeq) != nil
}

func (*responsesDialect) NewAssembly() model.Assembly { return new(respState) }

// FinishOutcome reads the reason of a terminal snapshot's
// incomplete_details: "max_output_tokens" is the limit, "content_filter"
// a filter that withheld the rest.
func (*responsesDialect) FinishOutcome(reason string) string {
	switch reason {
	case "max_output_tokens":
		return model.OutcomeIncomplete
	case "content_filter":
		return model.OutcomeBlocked
	}
	return ""
}

// respState tracks the current OpenAI Responses response: its items by id
// and by output_index, the two keys events use to name them.
type respState struct {
	resp    *model.Response
	byID    map[string]*model.Item
	byIndex map[int]*model.Item
	found   []*model.Item // scratch for matching a terminal output[]
	model.NoSentinel
}

// Documented Responses event types beyond the ones handled by name, with
// the kind each has. Anything else that starts with "response." is shown as
// non-standard.
var responsesKinds = map[string]model.Kind{
	"response.content_part.added":                  model.KindLifecycle,
	"response.reasoning_summary_part.added":        model.KindLifecycle,
	"response.reasoning_summary_part.done":         model.KindLifecycle,
	"response.output_text.annotation.added":        model.KindLifecycle,
	"response.image_generation_call.partial_image": model.KindLifecycle,
	"response.shell_call_command.added":            model.KindLifecycle,
	"response.shell_call_command.delta":            model.KindArgsDelta,
	"response.shell_call_command.done":             model.KindArgsDone,
	"response.shell_call_output_content.delta":     model.KindTextDelta,
	"response.shell_call_output_content.done":      model.KindTextDone,
	"response.audio.delta":                         model.KindTextDelta,
	"response.audio.done":                          model.KindTextDone,
	"response.audio.transcript.delta":              model.KindTextDelta,
	"response.audio.transcript.done":               model.KindTextDone,
}

// Item status events: response.<tool>_call.<status>.
var toolCallPrefixes = []string{
	"response.web_search_call.", "response.file_search_call.", "response.code_interpreter_call.",
	"response.image_generation_call.", "response.mcp_call.", "response.mcp_list_tools.",
}

// argument streams: delta type → (done type, field of the done event, field
// of the item snapshot).
var argStreams = map[string]struct{ done, doneField, itemField string }{
	"response.function_call_arguments.delta":    {"response.function_call_arguments.done", "arguments", "arguments"},
	"response.custom_tool_call_input.delta":     {"response.custom_tool_call_input.done", "input", "input"},
	"response.mcp_call_arguments.delta":         {"response.mcp_call_arguments.done", "arguments", "arguments"},
	"response.code_interpreter_call_code.delta": {"response.code_interpreter_call_code.done", "code", "code"},
}

var argDone = func() map[string]string {
	m := map[string]string{}
	for _, v := range argStreams {
		m[v.done] = v.doneField
	}
	return m
}()

func responsesRole(typ string) model.ItemRole {
	switch typ {
	case "function_call", "custom_tool_call", "mcp_call":
		return model.RoleCall
	case "message":
		return model.RoleMessage
	case "reasoning":
		return model.RoleReasoning
	}
	return model.RoleOther
}

// argsField names where an item snapshot of this type keeps its arguments.
func argsField(typ string) string {
	if typ == "custom_tool_call" {
		return "input"
	}
	return "arguments"
}

// snapshot is the part of an item object streamtap reads.
type snapshot struct {
	id, typ, status, callID, name string
	rawArgs                       []byte // the arguments' JSON value, still encoded
	hasArgs                       bool
	content, summary              []byte
}

func readSnapshot(s *model.Session, obj []byte) snapshot {
	var sn snapshot
	var args, input []byte
	s.JSON().Members(obj, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			sn.id = model.StringOf(v)
		case "type":
			sn.typ = model.StringOf(v)
		case "status":
			sn.status = model.StringOf(v)
		case "call_id":
			sn.callID = model.StringOf(v)
		case "name":
			sn.name = model.StringOf(v)
		case "arguments":
			args = v
		case "input":
			input = v
		case "content":
			sn.content = v
		case "summary":
			sn.summary = v
		}
		return true
	})
	if argsField(sn.typ) == "input" {
		args = input
	}
	if args != nil && !jsonscan.IsNull(args) {
		sn.hasArgs, sn.rawArgs = true, args
	}
	return sn
}

// args decodes the snapshot's arguments: a string's value, or the JSON
// text of anything else (a gateway that sends an object).
func (sn *snapshot) args() []byte {
	if jsonscan.Kind(sn.rawArgs) == '"' {
		return jsonscan.Unquote(nil, sn.rawArgs)
	}
	return []byte(model.CompactJSON(sn.rawArgs))
}

// argsSource states the snapshot's arguments as a source of the call's
// final arguments, comparing before decoding: when they equal what the
// deltas built, the shared string serves and no copy is made.
func argsSource(it *model.Item, sn *snapshot, ord int) model.Stated {
	if jsonscan.Kind(sn.rawArgs) == '"' && jsonscan.EqualDecoded(sn.rawArgs, it.Args.Bytes()) {
		return it.ArgsSourceOf(it.Args.Bytes(), ord)
	}
	return model.Stated{Present: true, Ordinal: ord, Value: string(sn.args())}
}

func (st *respState) Event(s *model.Session, ev *model.Event, typ string, data []byte, ord int) {
	first := len(s.Responses) == 0
	st.apply(s, ev, typ, data, ord)
	// A stream whose first response starts mid-way, numbered past 0, is
	// one resumed with starting_after: the events before its resume point
	// are legally missing.
	if first && len(s.Responses) == 1 && typ != "response.created" && ev.Seq > 0 {
		r := s.Responses[0]
		r.Resumed = true
		for _, it := range s.Items {
			it.Resumed = it.Opened < 0
		}
	}
}

func (st *respState) apply(s *model.Session, ev *model.Event, typ string, data []byte, ord int) {
	if s.Member(mType) == nil && jsonscan.Equal(s.Member(mObject), "response") { // a non-streaming response body
		ev.Kind = model.KindTerminal
		st.snapshot(s, data, ord, snapTerminal)
		return
	}
	switch typ {
	case "response.created":
		ev.Kind = model.KindLifecycle
		st.snapshot(s, s.Member(mResponse), ord, snapCreated)
		return
	case "response.in_progress", "response.queued":
		ev.Kind = model.KindLifecycle
		st.snapshot(s, s.Member(mResponse), ord, snapUpdate)
		return
	case "response.completed", "response.incomplete", "response.failed":
		ev.Kind = model.KindTerminal
		st.snapshot(s, s.Member(mResponse), ord, snapTerminal)
		return
	case "response.output_item.added":
		ev.Kind = model.KindItemOpen
		st.itemAdded(s, ev, ord)
		return
	case "response.output_item.done":
		ev.Kind = model.KindItemDone
		st.itemDone(s, ev, ord)
		return
	case "error":
		s.ErrorEvent(ev, s.Member(mError), ord)
		if cur := st.resp; s.Upgraded() && cur != nil && cur.Terminal >= 0 {
			// On a connection that carries response after response, an
			// error after a terminal event refuses the next request: a
			// turn of its own.
			st.resp = nil
		}
		if r := st.current(s, ord); r != nil {
			r.Status.Set(ord, "error")
		}
		return
	case "keepalive":
		ev.Kind = model.KindKeepalive
		return
	case "response.output_text.delta", "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		ev.Kind = model.KindTextDelta
		if it := st.item(s, ev, ord); it != nil {
			it.Text.AddString(ord, s.Member(mDelta))
			if typ == "response.output_text.delta" {
				it.AddTextDelta()
			}
		}
		return
	case "response.refusal.delta":
		ev.Kind = model.KindTextDelta
		if it := st.item(s, ev, ord); it != nil {
			it.RefusalBuffer().AddString(ord, s.Member(mDelta))
		}
		return
	case "response.output_text.done", "response.reasoning_summary_text.done", "response.reasoning_text.done":
		ev.Kind = model.KindTextDone
		it := st.item(s, ev, ord)
		if it == nil {
			return
		}
		if len(it.Text.Frags) == 0 {
			it.Text.AddString(ord, s.Member(mText))
		}
		if typ == "response.output_text.done" && it.Role == model.RoleMessage && jsonscan.Kind(s.Member(mText)) == '"' {
			it.StateTextPart(model.TextDone, model.IntOr(s.Member(mContentIndex), 0), s.Member(mText), ord)
		}
		return
	case "response.content_part.done":
		ev.Kind = model.KindLifecycle
		it := st.item(s, ev, ord)
		if it == nil || it.Role != model.RoleMessage || !jsonscan.Equal(s.JSON().Get(s.Member(mPart), "type"), "output_text") {
			return
		}
		if text := s.JSON().Get(s.Member(mPart), "text"); jsonscan.Kind(text) == '"' {
			it.StateTextPart(model.TextPartDone, model.IntOr(s.Member(mContentIndex), 0), text, ord)
		}
		return
	case "response.refusal.done":
		ev.Kind = model.KindTextDone
		if it := st.item(s, ev, ord); it != nil && it.Refusal.Count() == 0 {
			it.RefusalBuffer().AddString(ord, s.Member(mRefusal))
		}
		return
	}
	if _, ok := argStreams[typ]; ok {
		ev.Kind = model.KindArgsDelta
		if it := st.item(s, ev, ord); it != nil {
			it.Args.AddString(ord, s.Member(mDelta))
			it.Deltas++
		}
		return
	}
	if field, ok := argDone[typ]; ok {
		ev.Kind = model.KindArgsDone
		it := st.item(s, ev, ord)
		if it == nil {
			return
		}
		v := s.Member(mArguments)
		switch field {
		case "input":
			v = s.Member(mInput)
		case "code":
			v = s.Member(mCode)
		}
		if it.Stating(model.SourceArgsDone) {
			it.SawID(ord, "arguments_done", "", "again")
		}
		if it.Deltas == 0 && it.Args.Len() == 0 {
			it.Args.AddString(ord, v) // arguments only in .done: show them as they arrived
		}
		it.SetSource(model.SourceArgsDone, it.ArgsSourceOfString(v, ord))
		if s.Member(mName) != nil {
			it.SawIDUnlessLearnt(ord, "name", it.Name, model.StringOf(s.Member(mName)))
			if it.Opened < 0 && it.Name == "" {
				it.Name = model.StringOf(s.Member(mName))
			}
		}
		return
	}
	if k, ok := responsesKinds[typ]; ok {
		ev.Kind = k
		st.item(s, ev, ord)
		return
	}
	for _, p := range toolCallPrefixes {
		if strings.HasPrefix(typ, p) {
			ev.Kind = model.KindLifecycle
			if it := st.item(s, ev, ord); it != nil {
				it.Status.Set(ord, typ[len(p):])
			}
			return
		}
	}
	// response.required_action (a gateway extension), response.keep_alive,
	// and whatever comes next.
	ev.Kind = model.KindUnknown
	ev.Flags |= model.NonStandard
	if typ == "response.required_action" || typ == "response.keep_alive" {
		ev.Kind = model.KindLifecycle
		if typ == "response.keep_alive" {
			ev.Kind = model.KindKeepalive
		}
	}
	if s.Member(mItemID) != nil || s.Member(mOutputIndex) != nil {
		st.item(s, ev, ord)
	}
}

// current returns the response being streamed, starting one if an
// event arrives before any response.created.
func (st *respState) current(s *model.Session, ord int) *model.Response {
	if st.resp == nil {
		st.resp = s.NewResponse(Protocol.ID(), ord)
		st.byID, st.byIndex = map[string]*model.Item{}, map[int]*model.Item{}
	}
	return st.resp
}

// snapKind is which snapshot of a whole response an event carries.
type snapKind uint8

const (
	snapCreated  snapKind = iota // response.created: a response starts
	snapUpdate                   // response.in_progress, response.queued
	snapTerminal                 // the terminal event, or a non-streaming body
)

// snapshot reads a whole response object: from a lifecycle event, a
// terminal event, or a non-streaming response body.
//
// A new response starts after a terminal event (unless it is that
// terminal event again, for the same id), or at a response.created
// that names another id (or, on an upgraded connection, that follows an
// error). A later snapshot of an unfinished response that
// names another id is the same response with its id changed: GitHub
// Copilot's backend gives every snapshot a new id, and splitting there
// would tell each item (and its text) again.
func (st *respState) snapshot(s *model.Session, obj []byte, ord int, kind snapKind) {
	// Separate lookups stop at their key; one full walk would also cross
	// the long tools and instructions members every snapshot repeats.
	idV, statusV := s.JSON().Get(obj, "id"), s.JSON().Get(obj, "status")
	id, status := model.StringOf(idV), model.StringOf(statusV)
	if cur := st.resp; cur != nil {
		if kind == snapTerminal && cur.Terminal >= 0 && id != "" && id == cur.ID {
			// The terminal event again, for the response it ended: the
			// same response told twice (responses/terminal-repeated), not
			// a second one. Clients keep one response; a second would
			// tell every item of its output[] again, and lack its own
			// response.created.
			return
		}
		renamed := id != "" && cur.ID != "" && id != cur.ID
		// On a connection that carries response after response, an error
		// ends a turn as a terminal event does: the next response.created
		// answers the next request.
		refused := s.Upgraded() && cur.Status.Last() == "error"
		switch {
		case cur.Terminal >= 0, kind == snapCreated && (renamed || refused):
			st.resp = nil // a new response in the same stream
		case renamed:
			cur.RecordID(ord, "id", cur.ID, id)
		}
	}
	terminal := kind == snapTerminal
	r := st.current(s, ord)
	if r.ID == "" {
		r.ID = id
	}
	if r.Model == "" {
		r.Model = model.StringOf(s.JSON().Get(obj, "model"))
	}
	if status != "" {
		r.Status.Set(ord, status)
	}
	if r.Created < 0 {
		r.Created = ord
	}
	if !terminal {
		return
	}
	r.Terminal, r.Final = ord, ord
	if why := s.JSON().Path(obj, "incomplete_details", "reason"); jsonscan.Kind(why) == '"' {
		r.AddFinish(0, ord, model.StringOf(why))
	}
	st.terminalOutput(s, r, s.JSON().Get(obj, "output"), ord)
}

// terminalOutput matches the items of the terminal output[] to the streamed
// items: first by id or call_id, then the rest by position (the streamed
// item at that output_index, of the same type, not matched already), so a
// gateway that renames items still has each told once.
func (st *respState) terminalOutput(s *model.Session, r *model.Response, output []byte, ord int) {
	// By id first: on a healthy stream that finds every item, and the
	// snapshots are read once, in the last pass, without being kept.
	found := st.found[:0]
	defer func() { clear(found); st.found = found[:0] }() // reused: a stream has thousands of terminal events
	missing := false
	s.JSON().Elements(output, func(_ int, v []byte) bool {
		idV := s.JSON().Get(v, "id")
		raw, plain := jsonscan.Raw(idV)
		if !plain {
			raw = []byte(model.StringOf(idV))
		}
		it := st.byID[string(raw)]
		if it != nil && slices.Contains(found, it) {
			it = nil
		}
		found = append(found, it)
		missing = missing || it == nil
		return true
	})
	if missing {
		st.matchRest(s, found, output)
	}
	s.JSON().Elements(output, func(i int, v []byte) bool {
		sn := readSnapshot(s, v)
		st.terminalItem(s, r, i, &sn, found[i], ord)
		return true
	})
}

// matchRest matches the terminal output[] items that no id found: by
// call_id, then by position (the streamed item at that output_index, of
// the same type, not matched already).
func (st *respState) matchRest(s *model.Session, found []*model.Item, output []byte) {
	taken := func(it *model.Item) bool { return slices.Contains(found, it) }
	s.JSON().Elements(output, func(i int, v []byte) bool {
		callID := model.StringOf(s.JSON().Get(v, "call_id"))
		if found[i] != nil || callID == "" {
			return true
		}
		for _, c := range st.byIndex {
			if c.CallID == callID && !taken(c) {
				found[i] = c
				break
			}
		}
		return true
	})
	s.JSON().Elements(output, func(i int, v []byte) bool {
		if c := st.byIndex[i]; found[i] == nil && c != nil && !taken(c) && c.Type == model.StringOf(s.JSON().Get(v, "type")) {
			found[i] = c
		}
		return true
	})
}

// terminalItem records one item of the terminal output[], matched to the
// streamed item it (or nil), and its arguments as a source. Items that
// were never streamed are created from the snapshot, so a non-streaming
// response assembles like a streamed one.
func (st *respState) terminalItem(s *model.Session, r *model.Response, i int, snp *snapshot, it *model.Item, ord int) {
	sn := *snp
	if it == nil {
		it = s.NewItem(Protocol.ID(), responsesRole(sn.typ), sn.typ, ord)
		it.ItemID, it.CallID, it.Name, it.Position = sn.id, sn.callID, sn.name, i
		snapshotText(s, it, sn, ord)
		if sn.hasArgs {
			it.Args.Add(ord, sn.args())
		}
		st.byID[sn.id] = it
	} else {
		it.SawID(ord, "item_id", it.ItemID, sn.id)
		it.SawIDUnlessLearnt(ord, "call_id", it.CallID, sn.callID)
		it.SawIDUnlessLearnt(ord, "name", it.Name, sn.name)
		it.Touch(ord)
		if it.Opened < 0 {
			it.CallID, it.Name = cmp.Or(it.CallID, sn.callID), cmp.Or(it.Name, sn.name)
		}
	}
	if sn.status != "" {
		it.Status.Set(ord, sn.status)
	}
	if it.IsCall() && sn.hasArgs {
		it.SetSource(model.SourceTerminal, argsSource(it, &sn, ord))
	}
	s.StateSnapshotText(it, model.TextTerminal, sn.content, ord)
}

// snapshotText fills a message's or reasoning item's text from a snapshot
// when no deltas brought it.
func snapshotText(s *model.Session, it *model.Item, sn snapshot, ord int) {
	if it.Text.Len() > 0 {
		return
	}
	var text []byte
	collect := func(arr []byte, want ...string) {
		s.JSON().Elements(arr, func(_ int, part []byte) bool {
			typ := model.StringOf(s.JSON().Get(part, "type"))
			for _, w := range want {
				if typ == w {
					text = jsonscan.Unquote(text, s.JSON().Get(part, "text"))
				}
			}
			return true
		})
	}
	switch it.Role {
	case model.RoleMessage:
		collect(sn.content, "output_text")
	case model.RoleReasoning:
		collect(sn.summary, "summary_text")
		collect(sn.content, "reasoning_text")
	}
	if len(text) > 0 {
		it.Text.Add(ord, text)
	}
}

func (st *respState) itemAdded(s *model.Session, ev *model.Event, ord int) {
	r := st.current(s, ord)
	sn := readSnapshot(s, s.Member(mItem))
	idx := model.IntOr(s.Member(mOutputIndex), -1)
	it := s.NewItem(Protocol.ID(), responsesRole(sn.typ), sn.typ, ord)
	it.Response = r.Index
	it.ItemID, it.CallID, it.Name, it.Position, it.Opened = sn.id, sn.callID, sn.name, idx, ord
	if sn.status != "" {
		it.Status.Set(ord, sn.status)
	}
	if sn.hasArgs {
		it.SetSource(model.SourceAdded, model.Stated{Present: true, Ordinal: ord, Value: string(sn.args())})
	}
	if sn.id != "" {
		st.byID[sn.id] = it
	}
	if idx >= 0 {
		st.byIndex[idx] = it
	}
	ev.Item = int32(it.Index)
}

func (st *respState) itemDone(s *model.Session, ev *model.Event, ord int) {
	st.current(s, ord)
	sn := readSnapshot(s, s.Member(mItem))
	idx := model.IntOr(s.Member(mOutputIndex), -1)
	it := st.byID[sn.id]
	if it == nil {
		it = st.byIndex[idx]
		if it != nil {
			ev.Flags |= model.Matched
		}
	}
	if it == nil {
		ev.Flags |= model.Orphan
		it = s.NewItem(Protocol.ID(), responsesRole(sn.typ), sn.typ, ord)
		it.ItemID, it.CallID, it.Name, it.Position = sn.id, sn.callID, sn.name, idx
		it.Resumed = st.current(s, ord).Resumed
		if sn.id != "" {
			st.byID[sn.id] = it
		}
	} else {
		it.SawID(ord, "item_id", it.ItemID, sn.id)
		it.SawIDUnlessLearnt(ord, "call_id", it.CallID, sn.callID)
		it.SawIDUnlessLearnt(ord, "name", it.Name, sn.name)
		it.SawID(ord, "type", it.Type, sn.typ)
		if it.Closed >= 0 {
			it.SawID(ord, "output_item.done", "", "again")
		}
	}
	it.Touch(ord)
	if it.Name == "" {
		it.Name = sn.name
	}
	if it.CallID == "" {
		it.CallID = sn.callID
	}
	if sn.status != "" {
		it.Status.Set(ord, sn.status)
	}
	if it.Closed < 0 {
		it.Close(ord)
	}
	if it.IsCall() && sn.hasArgs {
		if it.Args.Len() == 0 && it.Deltas == 0 {
			it.Args.Add(ord, sn.args()) // arguments only in the snapshot
		}
		it.SetSource(model.SourceItemDone, argsSource(it, &sn, ord))
	}
	snapshotText(s, it, sn, ord)
	s.StateSnapshotText(it, model.TextItemDone, sn.content, ord)
	ev.Item = int32(it.Index)
}

// item finds the item an event names: by item_id, else by
// output_index, else the single open call. An event naming nothing known
// gets a new orphan item, so its content is not lost.
func (st *respState) item(s *model.Session, ev *model.Event, ord int) *model.Item {
	r := st.current(s, ord)
	// Look the id up without allocating: this runs for every delta.
	idRaw, plainID := jsonscan.Raw(s.Member(mItemID))
	id := ""
	if !plainID {
		id = model.StringOf(s.Member(mItemID))
		idRaw = []byte(id)
	}
	idx := model.IntOr(s.Member(mOutputIndex), -1)
	it := st.byID[string(idRaw)]
	switch {
	case it != nil:
	case idx >= 0 && st.byIndex[idx] != nil:
		it = st.byIndex[idx]
		ev.Flags |= model.Matched
	case len(idRaw) == 0 && idx < 0:
		var open *model.Item
		n := 0
		for _, c := range st.byIndex {
			if c.Closed < 0 {
				open, n = c, n+1
			}
		}
		if n == 1 {
			it = open
			ev.Flags |= model.Matched
		}
	}
	if it == nil {
		ev.Flags |= model.Orphan
		typ := orphanType(s.TypeName(ev.Type))
		it = s.NewItem(Protocol.ID(), responsesRole(typ), typ, ord)
		id = string(idRaw)
		it.Response, it.ItemID, it.Position, it.Resumed = r.Index, id, idx, r.Resumed
		if id != "" {
			st.byID[id] = it
		}
		if idx >= 0 {
			st.byIndex[idx] = it
		}
	} else if len(idRaw) > 0 && string(idRaw) != it.ItemID {
		it.SawID(ord, "item_id", it.ItemID, string(idRaw))
	}
	it.Touch(ord)
	ev.Item = int32(it.Index)
	return it
}

// orphanType guesses the type of an item that was never added, from the
// event that names it.
func orphanType(evType string) string {
	switch {
	case strings.Contains(evType, "function_call_arguments"):
		return "function_call"
	case strings.Contains(evType, "custom_tool_call"):
		return "custom_tool_call"
	case strings.Contains(evType, "mcp_call"):
		return "mcp_call"
	case strings.Contains(evType, "output_text"), strings.Contains(evType, "refusal"), strings.Contains(evType, "content_part"):
		return "message"
	case strings.Contains(evType, "reasoning"):
		return "reasoning"
	}
	return "unknown"
}
