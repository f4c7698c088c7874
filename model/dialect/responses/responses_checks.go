package responses

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// respChecks holds what the OpenAI Responses rules need across events.
type respChecks struct {
	// resps and items are by Session.Responses and Session.Items index
	// (slices: the indexes are dense, and a map's growth cost more than
	// the rules): what each response showed, and items as
	// output_item.added opened them.
	resps   []*respFacts
	items   []itemFacts
	last    int // ordinal + 1 of the latest Responses event
	events  int // Responses JSON events
	lastRsp int // index + 1 of the response being streamed

	// Sequence numbers run over the whole stream; response.created resets
	// them.
	seqPrev     int64
	seqPrevOrd  int
	seqStarted  bool
	seqMissing  []int
	seqMissingN int
	// noName lists the SSE events without an event: line (the first
	// MaxEvents), noNameN counts them.
	noName  []int
	noNameN int

	terminal     int // ordinal + 1 of the first terminal event
	terminalType string
	after        []int
	afterN       int
	earlyDone    int // ordinal + 1 of a [DONE] before any terminal event
	earlyTold    bool
	curR         *model.Response // the latest Responses response and its facts
	curF         *respFacts
	nonStd       checks.EventGroups
	typeUnknown  checks.EventGroups
	noItemID     checks.EventGroups // by event type: events that must name their item and do not
	// itemTypes caches namesItem by interned event type: 0 not asked yet,
	// 1 no, 2 yes.
	itemTypes []uint8
	checks.Base
}

// namesItem lists the documented events that must carry item_id: each
// delta, .done and part event of an item's content or arguments. (Audio
// events and shell_call_command events name no item.)
var namesItem = map[string]bool{
	"response.content_part.added": true, "response.content_part.done": true,
	"response.output_text.delta": true, "response.output_text.done": true, "response.output_text.annotation.added": true,
	"response.refusal.delta": true, "response.refusal.done": true,
	"response.function_call_arguments.delta": true, "response.function_call_arguments.done": true,
	"response.custom_tool_call_input.delta": true, "response.custom_tool_call_input.done": true,
	"response.reasoning_summary_part.added": true, "response.reasoning_summary_part.done": true,
	"response.reasoning_summary_text.delta": true, "response.reasoning_summary_text.done": true,
	"response.reasoning_text.delta": true, "response.reasoning_text.done": true,
	"response.code_interpreter_call_code.delta": true, "response.code_interpreter_call_code.done": true,
	"response.mcp_call_arguments.delta": true, "response.mcp_call_arguments.done": true,
	"response.image_generation_call.partial_image": true,
	"response.shell_call_output_content.delta":     true, "response.shell_call_output_content.done": true,
}

// respFacts is what one response showed.
type respFacts struct {
	added        int // output_item.added events so far
	statusRank   int
	statusOrd    int
	snapshots    int
	noReasoning  []int
	terminal     int // ordinal of its terminal event, or -1
	terminalType string
	last         int // ordinal of its latest event
}

// itemFacts is an item as output_item.added opened it.
type itemFacts struct {
	name, callID string
	opened       bool
}

// item returns the facts of item i, and false when output_item.added did
// not open it.
func (rc *respChecks) item(i int) (itemFacts, bool) {
	if i < 0 || i >= len(rc.items) || !rc.items[i].opened {
		return itemFacts{}, false
	}
	return rc.items[i], true
}

// resp returns the facts of response i, or nil.
func (rc *respChecks) resp(i int) *respFacts {
	if i < 0 || i >= len(rc.resps) {
		return nil
	}
	return rc.resps[i]
}

// grow returns s with at least n elements.
func grow[T any](s []T, n int) []T {
	if n > len(s) {
		s = append(s, make([]T, n-len(s))...)
	}
	return s
}

var respTerminals = map[string]string{
	"response.completed": "completed", "response.incomplete": "incomplete", "response.failed": "failed",
}

// documented output item types (the SDK's ResponseOutputItem union and the
// tool-search items the live API sends).
var respItemTypes = map[string]bool{
	"message": true, "function_call": true, "custom_tool_call": true, "reasoning": true,
	"web_search_call": true, "file_search_call": true, "computer_call": true, "code_interpreter_call": true,
	"image_generation_call": true, "local_shell_call": true, "shell_call": true, "shell_call_output": true,
	"apply_patch_call": true, "apply_patch_call_output": true, "mcp_call": true, "mcp_list_tools": true,
	"mcp_approval_request": true, "compaction": true, "tool_search_call": true, "tool_search_output": true,
}

// namesItem is namesItem[typ] for the interned type id, remembered by id:
// it is asked for every event, and a slice index costs less than hashing
// the name.
func (rc *respChecks) namesItem(id uint16, typ string) bool {
	if int(id) >= len(rc.itemTypes) {
		rc.itemTypes = append(rc.itemTypes, make([]uint8, int(id)+1-len(rc.itemTypes))...)
	}
	known := &rc.itemTypes[id]
	if *known == 0 {
		*known = 1
		if namesItem[typ] {
			*known = 2
		}
	}
	return *known == 2
}

// nonEmptyString reports whether the value v (validated JSON) is a string
// that is not "", as model.StringOf(v) != "" does, without decoding it: a string of
// more than its two quotes decodes to at least one rune.
func nonEmptyString(v []byte) bool { return len(v) > 2 && v[0] == '"' }

func (rc *respChecks) NewItem(it *model.Item, ord int) {
	if it.Opened != ord {
		return
	}
	rc.items = grow(rc.items, it.Index+1)
	rc.items[it.Index] = itemFacts{name: it.Name, callID: it.CallID, opened: true}
}

func (rc *respChecks) facts(s *model.Session, ord int) (*model.Response, *respFacts) {
	if n := len(s.Responses); n > 0 && s.Responses[n-1] == rc.curR {
		return rc.curR, rc.curF
	}
	for i := len(s.Responses) - 1; i >= 0; i-- {
		r := s.Responses[i]
		if r.Dialect != Protocol.ID() {
			continue
		}
		f := rc.resp(r.Index)
		if f == nil {
			f = &respFacts{terminal: -1, statusOrd: -1}
			rc.resps = grow(rc.resps, r.Index+1)
			rc.resps[r.Index] = f
		}
		rc.curR, rc.curF = r, f
		return r, f
	}
	return nil, nil
}

func (rc *respChecks) Observe(c *checks.Checker, s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	typ := s.TypeName(ev.Type)
	if ev.Kind == model.KindSentinel {
		switch {
		case rc.terminal > 0:
			c.Add(rDoneSentinel, []int{rc.terminal - 1, ord},
				"event %d: data: [DONE] after %s (event %d); not part of the Responses contract",
				ord, rc.terminalType, rc.terminal-1)
		case rc.earlyDone == 0:
			rc.earlyDone = ord + 1
		}
		return
	}
	if typ == "" || s.Member(mType) == nil {
		// A non-streaming response body ({"object":"response",…}): the
		// stream rules do not apply; its items are judged at the end.
		rc.facts(s, ord)
		return
	}
	rc.last = ord + 1
	rc.events++
	if ev.Name == 0 && c.SSE() && checks.IsSSE(f) && !s.Upgraded() { // a WebSocket message has no event: line to lose
		rc.noNameN++
		if len(rc.noName) < checks.MaxEvents {
			rc.noName = append(rc.noName, ord)
		}
	}
	if rc.earlyDone > 0 && !rc.earlyTold {
		rc.earlyTold = true
		c.Add(rDoneEarly, []int{rc.earlyDone - 1, ord}, "data: [DONE] at event %d comes before the stream's end (%s at event %d follows); the official SDKs stop reading at [DONE]",
			rc.earlyDone-1, typ, ord)
	}
	r, rf := rc.facts(s, ord)
	if r != nil && r.First == ord && rc.lastRsp != r.Index+1 {
		rc.lastRsp = r.Index + 1
		switch {
		case r.Resumed:
			c.Add(rResumed, []int{ord}, "the stream starts at sequence_number %d with %s (event %d), without response.created: a stream resumed with starting_after=%d; the events before it are not in it",
				ev.Seq, typ, ord, ev.Seq-1)
		case typ != "response.created" && typ != "" && ev.Kind != model.KindError:
			c.Add(rFirstNotCreated, []int{ord}, "the response starts with %s (event %d), not response.created%s",
				typ, ord, checks.IDs("id", r.ID))
		}
	}

	// Sequence numbers.
	if typ == "response.created" {
		rc.seqStarted = false
	}
	if ev.Seq < 0 { // absent, or not an integer
		rc.seqMissingN++
		if len(rc.seqMissing) < checks.MaxEvents {
			rc.seqMissing = append(rc.seqMissing, ord)
		}
	} else {
		switch {
		case !rc.seqStarted:
			if ev.Seq != 0 && typ == "response.created" {
				c.Add(rSeqGap, []int{ord}, "sequence_number starts at %d (event %d), not 0", ev.Seq, ord)
			}
		case ev.Seq <= rc.seqPrev:
			c.Add(rSeqOrder, []int{rc.seqPrevOrd, ord}, "sequence_number %d at event %d after %d at event %d",
				ev.Seq, ord, rc.seqPrev, rc.seqPrevOrd)
		case ev.Seq > rc.seqPrev+1:
			c.Add(rSeqGap, []int{rc.seqPrevOrd, ord}, "sequence_number jumps from %d (event %d) to %d (event %d): %d missing",
				rc.seqPrev, rc.seqPrevOrd, ev.Seq, ord, ev.Seq-rc.seqPrev-1)
		}
		rc.seqStarted, rc.seqPrev, rc.seqPrevOrd = true, ev.Seq, ord
	}

	// After the terminal event.
	isTerminal := ev.Kind == model.KindTerminal
	if rc.terminal > 0 && s.Upgraded() && turnStart(typ) {
		rc.endTurn(c)
	}
	if rc.terminal > 0 {
		if isTerminal {
			c.Add(rTermRepeated, []int{rc.terminal - 1, ord}, "a second terminal event %s at event %d after the one at event %d",
				typ, ord, rc.terminal-1)
		} else {
			rc.afterN++
			if len(rc.after) < checks.MaxEvents {
				rc.after = append(rc.after, ord)
			}
		}
	}

	if rf != nil {
		rf.last = ord
	}

	if ev.Flags&model.Orphan != 0 {
		what := []string{}
		if id := model.StringOf(s.Member(mItemID)); id != "" {
			what = append(what, "item_id "+checks.Quote(id))
		}
		if idx := s.Member(mOutputIndex); idx != nil {
			what = append(what, "output_index "+string(idx))
		}
		if it := s.Member(mItem); it != nil {
			what = append(what, "item "+checks.Quote(model.StringOf(s.JSON().Get(it, "id"))))
		}
		if r != nil && r.Resumed {
			// Opened before the resume point, most likely.
			c.AddAt(rNotAdded, checks.Info, []int{ord}, "event %d (%s) names %s, not opened in this resumed stream (it may have been opened before its resume point)",
				ord, typ, strings.Join(what, ", "))
		} else {
			c.Add(rNotAdded, []int{ord}, "event %d (%s) names %s, never opened by response.output_item.added",
				ord, typ, strings.Join(what, ", "))
		}
	}
	if ev.Flags&model.NonStandard != 0 {
		rc.nonStd.Add(typ, ord)
	}
	if rc.namesItem(ev.Type, typ) && !nonEmptyString(s.Member(mItemID)) {
		rc.noItemID.Add(typ, ord)
	}
	for _, m := range indexMembers {
		if v := s.Member(m); len(v) > 0 && v[0] == '-' { // only a negative index needs parsing
			c.Add(rBadIndex, []int{ord}, "event %d (%s): %s is %s", ord, typ, m.Name(), v)
		}
	}

	switch typ {
	case "response.created", "response.in_progress", "response.queued":
		respSnapshot(c, s, ord, typ, rf)
	case "response.completed", "response.incomplete", "response.failed":
		respSnapshot(c, s, ord, typ, rf)
		if rc.terminal == 0 {
			rc.terminal, rc.terminalType = ord+1, typ
		}
		if rf != nil && rf.terminal < 0 {
			rf.terminal, rf.terminalType = ord, typ
			terminalOutput(c, s, ord, typ, r)
		}
	case "response.output_item.added":
		item := s.Member(mItem)
		itype := model.StringOf(s.JSON().Get(item, "type"))
		if itype != "" && !respItemTypes[itype] {
			rc.typeUnknown.Add(itype, ord)
		}
		if st := model.StringOf(s.JSON().Get(item, "status")); st != "" && st != "in_progress" {
			c.Add(rItemStatus, []int{ord}, "output_item.added (event %d) opens item %s with status %s, not in_progress",
				ord, checks.Quote(model.StringOf(s.JSON().Get(item, "id"))), checks.Quote(st))
		}
		if rf != nil {
			if n, ok := jsonscan.Int(s.Member(mOutputIndex)); ok && n >= 0 && int(n) != rf.added {
				c.Add(rBadIndex, []int{ord}, "output_item.added (event %d) uses output_index %d; items so far take 0..%d, so it should be %d",
					ord, n, rf.added-1, rf.added)
			}
			rf.added++
		}
	case "response.output_item.done":
		item := s.Member(mItem)
		if st := model.StringOf(s.JSON().Get(item, "status")); st != "" && !finalStatus(st) {
			c.Add(rItemStatus, []int{ord}, "output_item.done (event %d) closes item %s with status %s; expected completed or incomplete",
				ord, checks.Quote(model.StringOf(s.JSON().Get(item, "id"))), checks.Quote(st))
		}
	}
}

// indexMembers are the members that index an item, a content part or a
// summary part, which must not be negative.
var indexMembers = []model.Member{mOutputIndex, mContentIndex, mSummaryIndex}

// turnStart reports whether an event that follows a terminal one on a
// connection that carries response after response (model.Session.Upgraded)
// answers the client's next request: a new response, or an error that
// refuses the request (previous_response_not_found, say). Anything else
// after a terminal event is still after it.
func turnStart(typ string) bool {
	return typ == "response.created" || typ == "error"
}

// endTurn closes the turn whose terminal event came before the next
// request's answer: the events after that terminal are told now, and the
// next response has a terminal event of its own to come.
func (rc *respChecks) endTurn(c *checks.Checker) {
	rc.reportAfter(c)
	rc.terminal, rc.terminalType, rc.after, rc.afterN = 0, "", nil, 0
}

// reportAfter tells the events that followed the terminal event.
func (rc *respChecks) reportAfter(out *checks.Checker) {
	if rc.afterN > 0 {
		out.Add(rAfterTerminal, append([]int{rc.terminal - 1}, rc.after...), "%s after the terminal event (event %d); clients that wait for EOF stall",
			checks.Plural(rc.afterN, "event"), rc.terminal-1)
	}
}

func finalStatus(st string) bool {
	return st == "completed" || st == "incomplete" || st == "failed"
}

// respSnapshot checks a whole response object: its status and its
// reasoning field.
func respSnapshot(c *checks.Checker, s *model.Session, ord int, typ string, rf *respFacts) {
	resp := s.Member(mResponse)
	if rf == nil || resp == nil {
		return
	}
	rf.snapshots++
	if s.JSON().Get(resp, "reasoning") == nil {
		rf.noReasoning = append(rf.noReasoning, ord)
	}
	st := model.StringOf(s.JSON().Get(resp, "status"))
	if want, ok := respTerminals[typ]; ok {
		if st != want {
			got := "no status"
			if st != "" {
				got = "status " + checks.Quote(st)
			}
			c.Add(rTermStatus, []int{ord}, "%s (event %d) carries %s", typ, ord, got)
		}
		return
	}
	rank := map[string]int{"queued": 1, "in_progress": 2}[st]
	switch {
	case st == "":
	case rank == 0:
		c.Add(rRespStatus, []int{ord}, "%s (event %d) says status %s before any terminal event; expected queued or in_progress",
			typ, ord, checks.Quote(st))
	case rank < rf.statusRank:
		c.Add(rRespStatus, []int{rf.statusOrd, ord}, "status goes back from in_progress (event %d) to %s (event %d)",
			rf.statusOrd, checks.Quote(st), ord)
	default:
		rf.statusRank, rf.statusOrd = rank, ord
	}
}

// outItem is an entry of the terminal output[].
type outItem struct {
	id, typ, callID string
	matched         bool
}

// terminalOutput compares the terminal output[] with the items streamed.
func terminalOutput(c *checks.Checker, s *model.Session, ord int, typ string, r *model.Response) {
	if r == nil {
		return
	}
	output := s.JSON().Get(s.Member(mResponse), "output")
	var outs []outItem
	s.JSON().Elements(output, func(_ int, v []byte) bool {
		var o outItem
		s.JSON().Members(v, func(k, v []byte) bool {
			switch string(k) {
			case "id":
				o.id = model.StringOf(v)
			case "type":
				o.typ = model.StringOf(v)
			case "call_id":
				o.callID = model.StringOf(v)
			}
			return true
		})
		outs = append(outs, o)
		return true
	})
	// The items streamed before it: those output_item.added opened, and
	// those whose events came without one (responses/item-not-added
	// reports that) under an item_id: they were streamed all the same,
	// and clients that keep such events hold them.
	var streamed []*model.Item // by output_index, as the index keeps them
	for _, it := range s.ResponseItems(r.Index) {
		if it.Dialect == Protocol.ID() && streamedAt(it) >= 0 && streamedAt(it) < ord {
			streamed = append(streamed, it)
		}
	}
	if len(streamed) == 0 {
		return
	}
	if len(outs) == 0 {
		what := "[]"
		if output == nil {
			what = "missing"
		}
		c.Add(rOutputEmpty, []int{streamedAt(streamed[0]), ord}, "%s (event %d): response.output is %s although %s streamed",
			typ, ord, what, checks.Plural(len(streamed), "item was"))
		return
	}
	// Match each streamed item to an output entry by id, else by call_id.
	byID, byCall := map[string][]int{}, map[string][]int{}
	for i, o := range outs {
		byID[o.id] = append(byID[o.id], i)
		if o.callID != "" {
			byCall[o.callID] = append(byCall[o.callID], i)
		}
	}
	take := func(m map[string][]int, key string) int {
		for _, i := range m[key] {
			if !outs[i].matched {
				return i
			}
		}
		return -1
	}
	var missing []*model.Item
	var pos []int // index in outs of each streamed item found
	for _, it := range streamed {
		found := -1
		if it.ItemID != "" {
			found = take(byID, it.ItemID)
		}
		if found < 0 && it.CallID != "" {
			found = take(byCall, it.CallID)
		}
		if found < 0 {
			missing = append(missing, it)
			continue
		}
		outs[found].matched = true
		pos = append(pos, found)
		if t := outs[found].typ; t != "" && it.Type != "" && t != it.Type && it.Opened >= 0 { // a never-added item's type is a guess
			ref := itemRef{it}
			c.Add(rTypeChanged, []int{it.Opened, ord}, "%s is %s at output_item.added (event %d) but %s in %s (event %d)%s",
				ref, checks.Quote(it.Type), it.Opened, checks.Quote(t), typ, ord, ref.ids())
		}
	}
	if typ == "response.failed" {
		return // a failed response may stop short: its output is what it got to
	}
	sev := checks.Warning // only reasoning and other items that carry no call and no reply
	serious := func(t string) {
		if t == "message" || respCallType(t) {
			sev = checks.Error
		}
	}
	var parts []string
	evs := []int{}
	for _, it := range missing {
		evs = append(evs, streamedAt(it))
		serious(it.Type)
		// The same type at the same place under another id is a rename.
		if p := it.Position; p >= 0 && p < len(outs) && !outs[p].matched && outs[p].typ == it.Type {
			outs[p].matched = true
			if renamedBefore(it, ord) {
				continue // item-id-changed tells this rename with the others
			}
			parts = append(parts, fmt.Sprintf("names the %s streamed as %s (events %d–%d) %s", it.Type, checks.Quote(it.ItemID),
				streamedAt(it), max(it.Closed, it.Last), checks.Quote(outs[p].id)))
			continue
		}
		parts = append(parts, fmt.Sprintf("lacks %s, streamed at event %d%s", itemRef{it}, streamedAt(it), itemRef{it}.ids()))
	}
	for _, o := range outs {
		// A resumed stream lacks the items before its resume point.
		if !o.matched && !r.Resumed {
			serious(o.typ)
			parts = append(parts, fmt.Sprintf("adds %s %s, never streamed", o.typ, checks.Quote(o.id)))
		}
	}
	if !slices.IsSorted(pos) {
		sev = checks.Error
		parts = append(parts, "orders the items differently from output_index")
	}
	if len(parts) > 0 {
		c.AddAt(rOutputMismatch, sev, append(evs, ord), "%s (event %d): output[] %s", typ, ord, strings.Join(parts, "; "))
	}
}

// streamedAt is the event that opened an item, or, for one never opened
// (no output_item.added) that its events name by item_id, the first of
// them; -1 for an item only a snapshot holds.
func streamedAt(it *model.Item) int {
	switch {
	case it.Opened >= 0:
		return it.Opened
	case it.ItemID != "":
		return it.First
	}
	return -1
}

// renamedBefore reports whether an item's events had named it by another
// id before event ord.
func renamedBefore(it *model.Item, ord int) bool {
	for _, x := range it.IDs {
		if x.Field == "item_id" && x.Ordinal < ord {
			return true
		}
	}
	return false
}

// respErrored reports whether an error payload tells why response r has
// no terminal event: any error in the stream, except on a connection that
// carries response after response (model.Session.Upgraded), where only an
// error before the next response started is r's.
func respErrored(s *model.Session, r *model.Response) bool {
	if !s.Upgraded() {
		return checks.Errored(s)
	}
	end := int(^uint(0) >> 1)
	if r.Index+1 < len(s.Responses) {
		end = s.Responses[r.Index+1].First
	}
	for _, e := range s.Errors {
		if e.Ordinal >= r.First && e.Ordinal < end {
			return true
		}
	}
	return false
}

func respCallType(t string) bool {
	switch t {
	case "function_call", "custom_tool_call", "mcp_call", "computer_call", "local_shell_call", "shell_call", "apply_patch_call":
		return true
	}
	return false
}

// itemRef is how a finding's message names an item: as the subject of its
// sentence, what the item is and its name (String: `call get_weather`,
// `message`, `reasoning`), and after the sentence its ids (ids). Both are
// formatted only when a message needs them: most items are fine, and
// formatting is the costly part of judging them.
type itemRef struct{ it *model.Item }

func (r itemRef) String() string { return itemSubject(r.it) }

// ids is the end of a message naming the item: its call_id and item id,
// or its place in the output when it has neither; the ids the sentence
// says already (omit: "call_id", "item") left out.
func (r itemRef) ids(omit ...string) itemIDs { return itemIDs{r.it, omit} }

type itemIDs struct {
	it   *model.Item
	omit []string
}

func (x itemIDs) String() string {
	it := x.it
	callID, itemID := it.CallID, it.ItemID
	if slices.Contains(x.omit, "call_id") {
		callID = ""
	}
	if slices.Contains(x.omit, "item") {
		itemID = ""
	}
	if it.CallID == "" && it.ItemID == "" && it.Position >= 0 {
		return fmt.Sprintf(" — output %d", it.Position)
	}
	return checks.IDs("call_id", callID, "item", itemID)
}

// itemSubject names an item as a sentence's subject: a call by its name,
// the message or the reasoning as such, another item by its type.
func itemSubject(it *model.Item) string {
	switch {
	case it.IsCall() && it.Name != "":
		return "call " + checks.Name(it.Name)
	case it.IsCall() && it.Type != "" && it.Type != "function_call":
		return checks.Name(it.Type)
	case it.IsCall():
		return "a call"
	case it.Role == model.RoleMessage:
		return "the message"
	case it.Role == model.RoleReasoning:
		return "the reasoning"
	case it.Type != "":
		return "the " + checks.Name(it.Type) + " item"
	}
	return "an item"
}

func idOr(id string) string {
	if id == "" {
		return "(no id)"
	}
	return checks.Quote(id)
}

func (rc *respChecks) Finish(out *checks.Checker, s *model.Session, _ bool) {
	if rc.events == 0 && len(rc.resps) == 0 { // no response has facts
		return
	}
	ended, _ := s.Ended()
	switch {
	case rc.noNameN > 0 && rc.noNameN == rc.events:
		out.Add(rNameMissing, rc.noName, "none of the %d Responses events has an event: line (a gateway dropped them?); the OpenAI SDKs read data.type, but clients that dispatch on the SSE event name (an EventSource listener for response.completed, a proxy that routes by it) receive nothing",
			rc.events)
	case rc.noNameN > 0:
		out.Add(rNameMissing, rc.noName, "%d of %d Responses events have no event: line (first: event %d); clients that dispatch on the SSE event name miss them",
			rc.noNameN, rc.events, rc.noName[0])
	}
	if rc.seqMissingN > 0 {
		out.Add(rSeqMissing, rc.seqMissing, "%d of %d Responses events have no integer sequence_number (first: event %d)",
			rc.seqMissingN, rc.events, rc.seqMissing[0])
	}
	for _, k := range rc.nonStd.Keys {
		l := rc.nonStd.By[k]
		out.Add(rNonStandard, l.Events, "%s: %s of a type outside the documented Responses stream", checks.Quote(k), checks.Plural(l.N, "event"))
	}
	for _, k := range rc.noItemID.Keys {
		l := rc.noItemID.By[k]
		out.Add(rItemIDMissing, l.Events, "%s: %s without item_id; clients that key content by item_id drop it or attach it to nothing, and only output_index is left to place it",
			checks.Quote(k), checks.Plural(l.N, "event"))
	}
	for _, k := range rc.typeUnknown.Keys {
		l := rc.typeUnknown.By[k]
		out.Add(rTypeUnknown, l.Events, "output item type %s (%s) is not a documented output item type", checks.Quote(k), checks.Plural(l.N, "item"))
	}
	rc.reportAfter(out)
	for _, r := range s.Responses {
		rf := rc.resp(r.Index)
		if r.Dialect != Protocol.ID() || rf == nil {
			continue
		}
		if len(rf.noReasoning) > 0 {
			out.Add(rNoReasoning, rf.noReasoning, "%d of %d snapshots of the response lack the reasoning field%s",
				len(rf.noReasoning), rf.snapshots, checks.IDs("id", r.ID))
		}
		if len(r.IDs) > 0 {
			evs := []int{max(r.Created, r.First)}
			for _, x := range r.IDs {
				evs = append(evs, x.Ordinal)
			}
			out.Add(rRespIDChanged, evs, "the response opened as %s (event %d) is renamed %s; clients that keep the first id (to resume, cancel or chain with previous_response_id) hold one the later snapshots disown",
				idOr(r.ID), evs[0], valuesAt(r.IDs, model.TallyOf(r.MoreIDs, "id")))
		}
		if r.Terminal < 0 && ended && !respErrored(s, r) {
			last := rc.last - 1
			if s.Upgraded() {
				last = rf.last // the next response follows on the same connection
			}
			out.Add(rNoTerminal, []int{r.First, last}, "the response of events %d–%d has no response.completed, .incomplete or .failed%s",
				r.First, last, checks.IDs("id", r.ID))
		}
	}
	for _, it := range s.Items {
		if it.Dialect == Protocol.ID() {
			rc.checkItem(out, s, it)
		}
	}
}
