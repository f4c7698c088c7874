package inject

import (
	"slices"
	"strconv"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// chatDefects are the defects of OpenAI Chat Completions streams.
var chatDefects = append(sseFraming(), []variant{
	{"utf8-split", "framing/invalid-utf8", utf8Split(chatTexts), nil},
	{"invalid-utf8", "framing/invalid-utf8", invalidUTF8(chatTexts), nil},
	{"keepalive-flood", "", commentFlood(": OPENROUTER PROCESSING"), nil},
	{"midstream-error", "framing/error-payload", chatError, nil},
	{"cut-terminal", "chat/done-missing", doneDrop, nil},
	{"done-doubled", "chat/data-after-done", doneDoubled, nil},
	{"finish-missing", "chat/finish-reason-missing", chatFinish(func(string) string { return "null" }), nil},
	{"finish-nonstandard", "chat/finish-reason-nonstandard", chatFinish(func(string) string { return `"end_turn"` }), nil},
	{"stop-not-tool", "chat/stop-with-tool-calls", chatStopNotTool, nil},
	{"finish-twice", "chat/finish-reason-repeated", chatFinishTwice, nil},
	{"delta-after-finish", "chat/delta-after-finish", chatDeltaAfterFinish, nil},
	{"index-missing", "chat/tool-index-missing", chatIndexMissing, nil},
	{"index-collision", "chat/tool-index-collision", chatIndexCollision, nil},
	{"index-gap", "chat/tool-index-not-dense", chatIndexGap, nil},
	{"call-id-drop", "chat/tool-id-missing", chatFirstDrop("id"), nil},
	{"name-drop", "chat/tool-name-missing", chatFirstDrop("function", "name"), nil},
	{"name-switch", "chat/tool-name-changed", chatNameSwitch, nil},
	{"id-repeated", "chat/tool-id-repeated", chatContinuations(func(c *chatCall) (id, name string) { return c.id, c.name }), nil},
	{"id-empty", "chat/tool-id-empty", chatContinuations(func(*chatCall) (id, name string) { return "", "" }), nil},
	{"args-null", "chat/tool-field-null", chatArgsNull, nil},
	{"args-object", "chat/args-not-string", chatArgsObject, nil},
	{"args-resent", "chat/args-resent", chatArgsResent, nil},
	{"args-missing", "chat/args-missing", chatArgsMissing, nil},
	{"args-truncated", "chat/args-invalid-json", chatArgsTruncated, nil},
	{"identity-switch", "chat/identity-changed", chatChunkField("id", func(v []byte) []byte {
		s, _ := jsonscan.String(v)
		return quote(s + "-2")
	}), nil},
	{"created-switch", "chat/created-changed", chatChunkField("created", changedValue), nil},
	{"message-beside-delta", "chat/message-in-chunk", chatMessageBeside, nil},
}...)

// chatFrag is one fragment of a call: the event, the position of its
// choice in choices[] and of the fragment in tool_calls[].
type chatFrag struct{ i, c, k int }

func (f chatFrag) path(rest ...any) []any {
	return append([]any{"choices", f.c, "delta", "tool_calls", f.k}, rest...)
}

// chatCall is one tool call of a Chat stream.
type chatCall struct {
	choice, index int
	id, name      string
	frags         []chatFrag
	args          string
}

// chatIndex is a Chat stream by its chunks.
type chatIndex struct {
	chunks []int
	calls  []*chatCall
	finish []chatFrag // chunks whose choice has a finish_reason (k unused)
}

func (e *edit) chat() *chatIndex {
	x := &chatIndex{}
	byKey := map[[2]int]*chatCall{}
	for i, ev := range e.st.Events {
		if ev.Dialect != dChat || ev.Doc == nil {
			continue
		}
		x.chunks = append(x.chunks, i)
		for c := range count(ev.Doc, "choices") {
			choice, _ := getInt(ev.Doc, "choices", c, "index")
			if fr := get(ev.Doc, "choices", c, "finish_reason"); fr != nil && !jsonscan.IsNull(fr) {
				x.finish = append(x.finish, chatFrag{i: i, c: c})
			}
			for k := range count(ev.Doc, "choices", c, "delta", "tool_calls") {
				f := chatFrag{i: i, c: c, k: k}
				idx, ok := getInt(ev.Doc, f.path("index")...)
				if !ok {
					idx = -1
				}
				call := byKey[[2]int{choice, idx}]
				id, _ := getString(ev.Doc, f.path("id")...)
				if call == nil || (id != "" && call.id != "" && id != call.id) {
					call = &chatCall{choice: choice, index: idx}
					byKey[[2]int{choice, idx}] = call
					x.calls = append(x.calls, call)
				}
				if call.id == "" {
					call.id = id
				}
				if name, _ := getString(ev.Doc, f.path("function", "name")...); call.name == "" {
					call.name = name
				}
				a, _ := getString(ev.Doc, f.path("function", "arguments")...)
				call.args += a
				call.frags = append(call.frags, f)
			}
		}
	}
	return x
}

// pickChatCall chooses a call with its id, its name and string
// arguments that parse, and with at least frags fragments.
func (e *edit) pickChatCall(x *chatIndex, frags int) (*chatCall, error) {
	shared := map[[2]int]int{}
	for _, c := range x.calls {
		shared[[2]int{c.choice, c.index}]++
	}
	var cands []int
	for k, c := range x.calls {
		if c.id != "" && c.name != "" && c.index >= 0 && len(c.frags) >= frags && jsonscan.Validate([]byte(c.args)) == nil &&
			shared[[2]int{c.choice, c.index}] == 1 {
			cands = append(cands, k)
		}
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no whole call of " + strconv.Itoa(frags) + " fragments or more"
		return nil, err
	}
	return x.calls[k], nil
}

// chatTexts lists the content deltas.
func chatTexts(e *edit) []textRef {
	var out []textRef
	for i, ev := range e.st.Events {
		if ev.Dialect != dChat || ev.Doc == nil {
			continue
		}
		for c := range count(ev.Doc, "choices") {
			if s, ok := getString(ev.Doc, "choices", c, "delta", "content"); ok && s != "" {
				choice, _ := getInt(ev.Doc, "choices", c, "index")
				out = append(out, textRef{i: i, path: []any{"choices", c, "delta", "content"}, text: strconv.Itoa(choice)})
			}
		}
	}
	return out
}

func chatError(e *edit) error {
	x := e.chat()
	if len(x.chunks) < 2 {
		return errNoPlace
	}
	end := x.chunks[len(x.chunks)-1]
	if len(x.finish) > 0 {
		end = x.finish[0].i
	}
	cands := slices.DeleteFunc(e.midstreamCands(x.chunks[0], end), func(i int) bool {
		for _, c := range x.calls {
			if c.frags[0].i <= i && i < c.frags[len(c.frags)-1].i {
				return true // mid-arguments
			}
		}
		return false
	})
	i, err := e.pick(cands)
	if err != nil {
		return err
	}
	doc := `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":"server_error"}}`
	e.cutWith(i, e.like(i, []byte(doc), ""))
	e.note = "cut after the chosen chunk; an error chunk ends the stream"
	return nil
}

// doneDrop cuts the stream's data: [DONE] and what follows it, for the
// dialects that end with it (Chat, the AI SDK's UI message stream).
func doneDrop(e *edit) error {
	i := firstDone(e)
	if i < 0 {
		e.note = "no data: [DONE]"
		return errNoPlace
	}
	e.removeFrom(i)
	e.note = "data: [DONE] cut"
	return nil
}

// doneDoubled sends the stream's data: [DONE] twice.
func doneDoubled(e *edit) error {
	i := firstDone(e)
	if i < 0 {
		e.note = "no data: [DONE]"
		return errNoPlace
	}
	e.insertAfter(i, e.doneEvent(i))
	e.note = "data: [DONE] sent twice"
	return nil
}

// firstDone is the stream's first data: [DONE], or -1.
func firstDone(e *edit) int {
	for i, ev := range e.st.Events {
		if ev.Type == model.TypeDone {
			return i
		}
	}
	return -1
}

// chatFinish sets the chosen finishing chunk's finish_reason to what f
// makes of it (raw JSON).
func chatFinish(f func(old string) string) func(e *edit) error {
	return func(e *edit) error {
		x := e.chat()
		cands := make([]int, len(x.finish))
		for k := range cands {
			cands[k] = k
		}
		k, err := e.pick(cands)
		if err != nil {
			e.note = "no finish_reason"
			return err
		}
		fr := x.finish[k]
		old, _ := getString(e.st.Events[fr.i].Doc, "choices", fr.c, "finish_reason")
		v := f(old)
		e.change(fr.i, func(doc []byte) ([]byte, bool) { return set(doc, []byte(v), "choices", fr.c, "finish_reason") })
		e.note = "finish_reason " + old + " → " + v
		return nil
	}
}

func chatStopNotTool(e *edit) error {
	x := e.chat()
	var cands []int
	for k, fr := range x.finish {
		if s, _ := getString(e.st.Events[fr.i].Doc, "choices", fr.c, "finish_reason"); s == "tool_calls" {
			cands = append(cands, k)
		}
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = `no finish_reason "tool_calls"`
		return err
	}
	fr := x.finish[k]
	e.change(fr.i, func(doc []byte) ([]byte, bool) { return setString(doc, "stop", "choices", fr.c, "finish_reason") })
	e.note = `finish_reason "tool_calls" → "stop"`
	return nil
}

// finishingChunk returns a chunk of the finishing chunk fr's choice alone,
// with delta set to delta and finish_reason to reason (raw JSON).
func (e *edit) finishingChunk(fr chatFrag, delta, reason string) []byte {
	doc := e.st.Events[fr.i].Doc
	choice := get(doc, "choices", fr.c)
	choice, _ = set(choice, []byte(delta), "delta")
	choice, _ = set(choice, []byte(reason), "finish_reason")
	doc, _ = set(doc, append(append([]byte{'['}, choice...), ']'), "choices")
	if u := get(doc, "usage"); u != nil && !jsonscan.IsNull(u) {
		doc, _ = set(doc, []byte("null"), "usage")
	}
	return doc
}

func chatFinishTwice(e *edit) error {
	x := e.chat()
	fr, err := e.pickFinish(x)
	if err != nil {
		return err
	}
	old, _ := getString(e.st.Events[fr.i].Doc, "choices", fr.c, "finish_reason")
	other := "stop"
	if old == "stop" {
		other = "length"
	}
	e.insertAfter(fr.i, e.like(fr.i, e.finishingChunk(fr, "{}", string(quote(other))), ""))
	e.note = "a second finishing chunk says " + other + " after " + old
	return nil
}

func (e *edit) pickFinish(x *chatIndex) (chatFrag, error) {
	cands := make([]int, len(x.finish))
	for k := range cands {
		cands[k] = k
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no finish_reason"
		return chatFrag{}, err
	}
	return x.finish[k], nil
}

func chatDeltaAfterFinish(e *edit) error {
	x := e.chat()
	fr, err := e.pickFinish(x)
	if err != nil {
		return err
	}
	e.insertAfter(fr.i, e.like(fr.i, e.finishingChunk(fr, `{"content":"…"}`, "null"), ""))
	e.note = "a content delta after the finish_reason"
	return nil
}

func chatIndexMissing(e *edit) error {
	x := e.chat()
	// A first fragment without index takes the next index in order of
	// arrival: a call whose index is that one stays itself. The last
	// call's: the indices the others state still start at 0.
	var fit []*chatCall
	seen, last := map[int]int{}, map[int]int{}
	for _, c := range x.calls {
		last[c.choice] = max(last[c.choice], c.index)
	}
	for _, c := range x.calls {
		if c.index == seen[c.choice] && c.index == last[c.choice] {
			fit = append(fit, c)
		}
		seen[c.choice]++
	}
	c, err := e.pickChatCall(&chatIndex{calls: fit}, 1)
	if err != nil {
		return err
	}
	f := c.frags[0]
	e.change(f.i, func(doc []byte) ([]byte, bool) { return del(doc, f.path("index")...) })
	e.note = "the first fragment of " + c.id + " has no index"
	return nil
}

func chatIndexCollision(e *edit) error {
	x := e.chat()
	zero := map[int]bool{}
	for _, c := range x.calls {
		if c.index == 0 {
			zero[c.choice] = true
		}
	}
	var cands []int
	for k, c := range x.calls {
		if c.index > 0 && c.id != "" && zero[c.choice] {
			cands = append(cands, k)
		}
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no second call"
		return err
	}
	c := x.calls[k]
	for _, f := range c.frags {
		e.change(f.i, func(doc []byte) ([]byte, bool) { return setInt(doc, 0, f.path("index")...) })
	}
	e.note = c.id + " takes index 0, as the first call has"
	return nil
}

func chatIndexGap(e *edit) error {
	x := e.chat()
	n := 0
	for _, c := range x.calls {
		if c.index < 0 {
			continue
		}
		for _, f := range c.frags {
			e.change(f.i, func(doc []byte) ([]byte, bool) { return setInt(doc, c.index+1, f.path("index")...) })
			n++
		}
	}
	if n == 0 {
		e.note = "no tool call"
		return errNoPlace
	}
	e.note = "every tool-call index one higher: they start at 1"
	return nil
}

// chatFirstDrop drops the member at path from the chosen call's first
// fragment (its id, its name).
func chatFirstDrop(path ...any) func(e *edit) error {
	return func(e *edit) error {
		x := e.chat()
		c, err := e.pickChatCall(x, 1)
		if err != nil {
			return err
		}
		f := c.frags[0]
		if !e.change(f.i, func(doc []byte) ([]byte, bool) { return del(doc, f.path(path...)...) }) {
			return errNoPlace
		}
		e.note = c.id + ": " + pathName(path) + " dropped from its first fragment"
		return nil
	}
}

func pathName(path []any) string {
	s := ""
	for _, p := range path {
		if s != "" {
			s += "."
		}
		switch v := p.(type) {
		case string:
			s += v
		case int:
			s += strconv.Itoa(v)
		}
	}
	return s
}

func chatNameSwitch(e *edit) error {
	x := e.chat()
	c, err := e.pickChatCall(x, 2)
	if err != nil {
		return err
	}
	f := c.frags[len(c.frags)-1]
	e.change(f.i, func(doc []byte) ([]byte, bool) {
		return add(doc, "name", quote(c.name+"_v2"), f.path("function")...)
	})
	e.note = c.id + ": its last fragment names it " + c.name + "_v2"
	return nil
}

// chatContinuations gives every continuation fragment of the chosen call
// the id and name f says.
func chatContinuations(f func(c *chatCall) (id, name string)) func(e *edit) error {
	return func(e *edit) error {
		x := e.chat()
		c, err := e.pickChatCall(x, 2)
		if err != nil {
			return err
		}
		id, name := f(c)
		for _, fr := range c.frags[1:] {
			e.change(fr.i, func(doc []byte) ([]byte, bool) {
				doc, ok := add(doc, "id", quote(id), fr.path()...)
				if !ok {
					return doc, false
				}
				return add(doc, "name", quote(name), fr.path("function")...)
			})
		}
		e.note = c.id + ": continuation fragments carry \"id\":" + string(quote(id)) + " and \"name\":" + string(quote(name))
		return nil
	}
}

func chatArgsNull(e *edit) error {
	x := e.chat()
	c, err := e.pickChatCall(x, 1)
	if err != nil {
		return err
	}
	// A fragment whose arguments are "" says nothing: null in its place
	// keeps the arguments as they are.
	for _, f := range c.frags {
		if s, ok := getString(e.st.Events[f.i].Doc, f.path("function", "arguments")...); ok && s == "" {
			e.change(f.i, func(doc []byte) ([]byte, bool) { return set(doc, []byte("null"), f.path("function", "arguments")...) })
			e.note = c.id + ": \"arguments\": null on a fragment that had \"\""
			return nil
		}
	}
	f := c.frags[0]
	if !e.change(f.i, func(doc []byte) ([]byte, bool) { return add(doc, "arguments", []byte("null"), f.path("function")...) }) {
		return errNoPlace
	}
	e.note = c.id + ": \"arguments\": null beside the name"
	return nil
}

func chatArgsObject(e *edit) error {
	x := e.chat()
	c, err := e.pickChatCall(x, 1)
	if err != nil {
		return err
	}
	if jsonscan.Kind([]byte(c.args)) != '{' {
		return errNoPlace
	}
	for n, f := range c.frags {
		e.change(f.i, func(doc []byte) ([]byte, bool) {
			if n == 0 {
				if out, ok := set(doc, []byte(c.args), f.path("function", "arguments")...); ok {
					return out, true
				}
				return add(doc, "arguments", []byte(c.args), f.path("function")...)
			}
			return del(doc, f.path("function", "arguments")...)
		})
	}
	e.note = c.id + ": arguments sent as one JSON object"
	return nil
}

func chatArgsResent(e *edit) error {
	x := e.chat()
	c, err := e.pickChatCall(x, 2)
	if err != nil {
		return err
	}
	f := c.frags[len(c.frags)-1]
	entry := `{"index":` + strconv.Itoa(c.index) + `,"function":{"arguments":` + string(quote(c.args)) + `}}`
	doc := e.finishingChunk(chatFrag{i: f.i, c: f.c}, `{"tool_calls":[`+entry+`]}`, "null")
	e.insertAfter(f.i, e.like(f.i, doc, ""))
	e.note = c.id + ": the whole arguments sent again after the last fragment"
	return nil
}

func chatArgsMissing(e *edit) error {
	x := e.chat()
	c, err := e.pickChatCall(x, 1)
	if err != nil {
		return err
	}
	for _, f := range c.frags {
		e.change(f.i, func(doc []byte) ([]byte, bool) { return del(doc, f.path("function", "arguments")...) })
	}
	e.note = c.id + ": no fragment carries arguments"
	return nil
}

func chatArgsTruncated(e *edit) error {
	x := e.chat()
	// The arguments of a choice that never finishes are not judged.
	finished := map[int]bool{}
	for _, fr := range x.finish {
		choice, _ := getInt(e.st.Events[fr.i].Doc, "choices", fr.c, "index")
		finished[choice] = true
	}
	c, err := e.pickChatCall(&chatIndex{calls: slices.DeleteFunc(slices.Clone(x.calls), func(c *chatCall) bool {
		return !finished[c.choice]
	})}, 1)
	if err != nil {
		return err
	}
	for k := len(c.frags) - 1; k >= 0; k-- {
		f := c.frags[k]
		s, _ := getString(e.st.Events[f.i].Doc, f.path("function", "arguments")...)
		if s == "" {
			continue
		}
		e.change(f.i, func(doc []byte) ([]byte, bool) {
			return setString(doc, s[:len(s)-1], f.path("function", "arguments")...)
		})
		e.note = c.id + ": its last fragment loses its last character"
		return nil
	}
	return errNoPlace
}

// chatChunkField changes a top-level member of one chunk (not the first).
func chatChunkField(key string, f func(v []byte) []byte) func(e *edit) error {
	return func(e *edit) error {
		x := e.chat()
		var cands []int
		for _, i := range x.chunks[min(1, len(x.chunks)):] {
			if v := get(e.st.Events[i].Doc, key); v != nil && !jsonscan.IsNull(v) && len(get(e.st.Events[i].Doc, "choices")) > 2 {
				cands = append(cands, i)
			}
		}
		i, err := e.pick(cands)
		if err != nil {
			e.note = "no chunk after the first with " + key
			return err
		}
		e.change(i, func(doc []byte) ([]byte, bool) { return set(doc, f(get(doc, key)), key) })
		e.note = "one chunk's " + key + " differs"
		return nil
	}
}

func chatMessageBeside(e *edit) error {
	x := e.chat()
	var cands []int
	for _, ref := range chatTexts(e) {
		cands = append(cands, ref.i)
	}
	for _, c := range x.calls {
		cands = append(cands, c.frags[0].i)
	}
	slices.Sort(cands)
	i, err := e.pick(slices.Compact(cands))
	if err != nil {
		e.note = "no delta"
		return err
	}
	ok := e.change(i, func(doc []byte) ([]byte, bool) {
		delta := get(doc, "choices", 0, "delta")
		if delta == nil {
			return doc, false
		}
		return add(doc, "message", delta, "choices", 0)
	})
	if !ok {
		return errNoPlace
	}
	e.note = "the chunk's delta sent again as message"
	return nil
}
