package inject

import (
	"slices"
	"strings"
)

// uiDefects are the defects of the AI SDK's UI message stream: what a
// route returning toUIMessageStreamResponse() sends to useChat, one chunk
// a data: line, then data: [DONE].
var uiDefects = append(sseFraming(), []variant{
	{"utf8-split", "framing/invalid-utf8", utf8Split(uiTexts), nil},
	{"invalid-utf8", "framing/invalid-utf8", invalidUTF8(uiTexts), nil},
	// The SDK's keepAliveMs option sends these comments.
	{"keepalive-flood", "", commentFlood(": keep-alive"), nil},
	{"midstream-error", "framing/error-payload", uiError, nil},
	{"cut-terminal", "aisdk-ui/finish-missing", uiCutFinish, nil},
	{"done-drop", "aisdk-ui/done-missing", doneDrop, nil},
	{"done-doubled", "aisdk-ui/after-done", doneDoubled, nil},
	{"after-terminal", "aisdk-ui/after-finish", uiAfterFinish, nil},
	{"unknown-event", "aisdk-ui/unknown-chunk", uiUnknown, nil},
	{"member-drop", "aisdk-ui/malformed-chunk", uiMemberDrop, nil},
	{"finish-nonstandard", "aisdk-ui/malformed-chunk", uiFinishReason, nil},
	{"step-twice", "aisdk-ui/step-unbalanced", stepTwice(func(e *edit) []int { return e.ui().steps }, ""), nil},
	{"args-differ", "aisdk-ui/input-mismatch", uiInputDiffer, nil},
	{"delta-before-start", "aisdk-ui/before-start", callStartSwap(uiCalls), nil},
	{"call-start-drop", "aisdk-ui/delta-without-start", callStartDrop(uiCalls), nil},
	{"output-unknown-call", "aisdk-ui/unknown-call", outputUnknown(uiCalls, "toolCallId"), nil},
}...)

// appCall is one tool call of an application's stream (the AI SDK's),
// by its events: its start (tool-input-start, b:, or -1), its argument
// deltas, the event that gives it whole (tool-input-available, 9:, or
// -1), and its outputs.
type appCall struct {
	id           string
	start, whole int
	deltas, outs []int
}

// appIndex is what the AI SDK's two streams are indexed by: the events
// of the message's end, its steps and its calls, each told by its role.
type appIndex struct {
	finish  int   // the first finish, or -1
	errored int   // the first error, or -1
	steps   []int // the step starts
	calls   []*appCall
	content int // the first event of a part or call, or -1
	byID    map[string]*appCall
}

// appRole is what an event of an AI SDK stream is to the index.
type appRole uint8

const (
	appOther     appRole = iota
	appFinish            // the message's finish
	appError             // an error
	appStep              // a step's start
	appCallStart         // a call's start, before its deltas
	appCallDelta         // an argument delta
	appCallWhole         // a call given whole
	appCallOut           // a call's output or error
)

func newAppIndex() appIndex {
	return appIndex{finish: -1, errored: -1, content: -1, byID: map[string]*appCall{}}
}

// note files event i, of role r, under the call id names (for a call's
// roles): a call first named by any of its events is listed then.
func (x *appIndex) note(i int, r appRole, id string) {
	switch r {
	case appFinish:
		if x.finish < 0 {
			x.finish = i
		}
	case appError:
		if x.errored < 0 {
			x.errored = i
		}
	case appStep:
		x.steps = append(x.steps, i)
	case appCallStart:
		if c := x.call(id); c.start < 0 {
			c.start = i
		}
	case appCallDelta:
		c := x.call(id)
		c.deltas = append(c.deltas, i)
	case appCallWhole:
		if c := x.call(id); c.whole < 0 {
			c.whole = i
		}
	case appCallOut:
		c := x.call(id)
		c.outs = append(c.outs, i)
	}
}

func (x *appIndex) call(id string) *appCall {
	c := x.byID[id]
	if c == nil {
		c = &appCall{id: id, start: -1, whole: -1}
		x.byID[id] = c
		x.calls = append(x.calls, c)
	}
	return c
}

// sawContent notes event i as one of a part or call.
func (x *appIndex) sawContent(i int) {
	if x.content < 0 {
		x.content = i
	}
}

// uiRoles are the UI message stream's chunk types the index tells.
var uiRoles = map[string]appRole{
	"finish": appFinish, "error": appError, "start-step": appStep,
	"tool-input-start": appCallStart, "tool-input-delta": appCallDelta, "tool-input-available": appCallWhole,
	"tool-output-available": appCallOut, "tool-output-error": appCallOut,
}

// uiIndex is a UI message stream by its chunks.
type uiIndex struct {
	appIndex
	chunks []int // every chunk of the stream, in order
	// early holds, for each part or call whose start came after its
	// first chunk, the span from that chunk to the start.
	early [][2]int
}

func (e *edit) ui() *uiIndex {
	x := &uiIndex{appIndex: newAppIndex()}
	first := map[string]int{} // each part's or call's first chunk
	for i, ev := range e.st.Events {
		if ev.Dialect != dUI || ev.Doc == nil {
			continue
		}
		x.chunks = append(x.chunks, i)
		id, _ := getString(ev.Doc, "toolCallId")
		x.note(i, uiRoles[ev.Type], id)
		if key := uiPart(ev.Type, ev.Doc); key != "" {
			x.sawContent(i)
			f, seen := first[key]
			switch {
			case !seen:
				first[key] = i
			case strings.HasSuffix(ev.Type, "-start") && f < i:
				x.early = append(x.early, [2]int{f, i})
			}
		}
	}
	return x
}

func uiCalls(e *edit) []*appCall { return e.ui().calls }

// uiPart names the part or call a chunk of type typ belongs to ("text
// t1", "tool call_1"), or "" for a chunk of none.
func uiPart(typ string, doc []byte) string {
	switch {
	case strings.HasPrefix(typ, "text-"), strings.HasPrefix(typ, "reasoning-"):
		id, _ := getString(doc, "id")
		return typ[:strings.IndexByte(typ, '-')] + " " + id
	case strings.HasPrefix(typ, "tool-"):
		id, _ := getString(doc, "toolCallId")
		return "tool " + id
	}
	return ""
}

// uiTexts lists the text and reasoning deltas, each text told by its
// part's id.
func uiTexts(e *edit) []textRef {
	var out []textRef
	for _, i := range e.ui().chunks {
		ev := e.st.Events[i]
		if ev.Type != "text-delta" && ev.Type != "reasoning-delta" {
			continue
		}
		if s, ok := getString(ev.Doc, "delta"); ok && s != "" {
			id, _ := getString(ev.Doc, "id")
			out = append(out, textRef{i: i, path: []any{"delta"}, text: ev.Type + " " + id})
		}
	}
	return out
}

// maskedError is the errorText the AI SDK writes for any error when the
// route passes no onError (its default getErrorMessage): what a client
// meets most.
const maskedError = "An error occurred."

// uiError cuts the stream after the chosen chunk (from the first part on,
// before the finish) and ends it as the SDK ends a failed run: an error
// chunk, then data: [DONE].
func uiError(e *edit) error {
	x := e.ui()
	end := x.finish
	if end < 0 {
		end = x.chunks[len(x.chunks)-1]
	}
	if x.content < 0 {
		e.note = "no part or call to cut after"
		return errNoPlace
	}
	// Not between a chunk and the start that came after it: the cut
	// would leave it with none.
	cands := slices.DeleteFunc(e.midstreamCands(x.content, end), func(i int) bool {
		return slices.ContainsFunc(x.early, func(sp [2]int) bool { return sp[0] <= i && i < sp[1] })
	})
	i, err := e.pick(cands)
	if err != nil {
		return err
	}
	e.cutWith(i, e.like(i, []byte(`{"type":"error","errorText":"`+maskedError+`"}`), ""), e.doneEvent(i))
	e.note = "cut after the chosen chunk; an error chunk (the default onError's text) and data: [DONE] end the stream"
	return nil
}

func uiCutFinish(e *edit) error {
	x := e.ui()
	if x.finish < 0 {
		e.note = "no finish chunk"
		return errNoPlace
	}
	if x.errored >= 0 && x.errored < x.finish {
		e.note = "an error chunk ends the run before its finish: without the finish it is an error still"
		return errNoPlace
	}
	e.removeFrom(x.finish)
	e.note = "the finish chunk and what follows it cut"
	return nil
}

// uiAfterFinish writes the message's metadata once more after its finish:
// a chunk of the message where only data parts may follow.
func uiAfterFinish(e *edit) error {
	x := e.ui()
	if x.finish < 0 {
		e.note = "no finish chunk"
		return errNoPlace
	}
	e.insertAfter(x.finish, e.like(x.finish, []byte(`{"type":"message-metadata","messageMetadata":{}}`), ""))
	e.note = "a message-metadata chunk after finish"
	return nil
}

// uiUnknown sends a chunk type of ai 5's betas that ai 7's schema no
// longer has: what a client meets when the route's ai is of another
// version.
func uiUnknown(e *edit) error {
	i, err := e.pick(e.dataEvents())
	if err != nil {
		return err
	}
	e.insertBefore(i, e.like(i, []byte(`{"type":"reasoning-part-finish"}`), ""))
	e.note = "a reasoning-part-finish chunk (ai 5 beta), which the schema does not know"
	return nil
}

// uiMemberDrop takes a required member from the chosen chunk: a text or
// reasoning delta's delta, or a tool-input-start's toolName.
func uiMemberDrop(e *edit) error {
	var cands []int
	member := map[int]string{}
	for _, i := range e.ui().chunks {
		switch e.st.Events[i].Type {
		case "text-delta", "reasoning-delta":
			member[i] = "delta"
		case "tool-input-start":
			member[i] = "toolName"
		default:
			continue
		}
		cands = append(cands, i)
	}
	i, err := e.pick(cands)
	if err != nil {
		e.note = "no text delta or tool-input-start"
		return err
	}
	if !e.change(i, func(doc []byte) ([]byte, bool) { return del(doc, member[i]) }) {
		return errNoPlace
	}
	e.note = "a " + e.st.Events[i].Type + " without its " + member[i]
	return nil
}

func uiFinishReason(e *edit) error {
	x := e.ui()
	if x.finish < 0 {
		e.note = "no finish chunk"
		return errNoPlace
	}
	if !e.change(x.finish, func(doc []byte) ([]byte, bool) { return add(doc, "finishReason", quote("end_turn")) }) {
		return errNoPlace
	}
	e.note = `finishReason "end_turn"`
	return nil
}

// uiInputDiffer changes the input of a call whose arguments were
// streamed: tool-input-available states other arguments than the deltas.
func uiInputDiffer(e *edit) error {
	var cands []*appCall
	for _, c := range e.ui().calls {
		if len(c.deltas) > 0 && c.whole >= 0 && get(e.st.Events[c.whole].Doc, "input") != nil {
			cands = append(cands, c)
		}
	}
	c, err := pickCall(e, cands)
	if err != nil {
		return err
	}
	if !e.change(c.whole, func(doc []byte) ([]byte, bool) { return set(doc, changedValue(get(doc, "input")), "input") }) {
		return errNoPlace
	}
	e.note = "call " + c.id + ": tool-input-available's input changed"
	return nil
}

// pickCall chooses one of the calls.
func pickCall(e *edit, calls []*appCall) (*appCall, error) {
	cands := make([]int, len(calls))
	for k := range cands {
		cands[k] = k
	}
	k, err := e.pick(cands)
	if err != nil {
		if e.note == "" {
			e.note = "no call that fits"
		}
		return nil, err
	}
	return calls[k], nil
}

// callStartSwap makes a call's first argument delta trade places with
// the call's start: the delta comes before the call begins.
func callStartSwap(calls func(e *edit) []*appCall) func(e *edit) error {
	return func(e *edit) error {
		var cands []*appCall
		for _, c := range calls(e) {
			if c.start >= 0 && len(c.deltas) > 0 && c.deltas[0] > c.start {
				cands = append(cands, c)
			}
		}
		c, err := pickCall(e, cands)
		if err != nil {
			e.note = "no call started and streamed"
			return err
		}
		start, delta := e.st.Events[c.start], e.st.Events[c.deltas[0]]
		startOwn, deltaOwn := start.own, delta.own
		e.setOwn(c.start, deltaOwn)
		e.setOwn(c.deltas[0], startOwn)
		e.note = "call " + c.id + ": its first delta before its start"
		return nil
	}
}

// callStartDrop cuts a streamed call's start.
func callStartDrop(calls func(e *edit) []*appCall) func(e *edit) error {
	return func(e *edit) error {
		var cands []*appCall
		for _, c := range calls(e) {
			if c.start >= 0 && len(c.deltas) > 0 {
				cands = append(cands, c)
			}
		}
		c, err := pickCall(e, cands)
		if err != nil {
			e.note = "no call started and streamed"
			return err
		}
		e.remove(c.start)
		e.note = "call " + c.id + ": its start cut"
		return nil
	}
}

// outputUnknown gives a call's output the id of no call (the member
// named idMember, in the output's document).
func outputUnknown(calls func(e *edit) []*appCall, idMember string) func(e *edit) error {
	return func(e *edit) error {
		var cands []*appCall
		for _, c := range calls(e) {
			if len(c.outs) > 0 {
				cands = append(cands, c)
			}
		}
		c, err := pickCall(e, cands)
		if err != nil {
			e.note = "no call with an output"
			return err
		}
		other := c.id + "_other"
		for _, i := range c.outs {
			if !e.change(i, func(doc []byte) ([]byte, bool) { return setString(doc, other, idMember) }) {
				return errNoPlace
			}
		}
		e.note = "call " + c.id + ": its output names call " + other
		return nil
	}
}

// stepTwice sends the chosen step's start a second time, right after it;
// code is its code in a data stream (f).
func stepTwice(steps func(e *edit) []int, code string) func(e *edit) error {
	return func(e *edit) error {
		i, err := e.pick(steps(e))
		if err != nil {
			e.note = "no step"
			return err
		}
		ev := e.st.Events[i]
		typ := ""
		if ev.carry == carryCoded {
			typ = code
		}
		e.insertAfter(i, e.like(i, ev.Doc, typ))
		e.note = "a step started twice"
		return nil
	}
}
