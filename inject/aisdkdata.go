package inject

import "github.com/streamtap/streamtap/model/jsonscan"

// dataDefects are the defects of the AI SDK's v4 data stream: what a
// route returning toDataStreamResponse() (ai 4.x) sends to useChat, one
// part a line, CODE:JSON.
var dataDefects = []variant{
	{"crlf", "framing/mixed-line-endings", mixEndings("\r\n"), nil},
	{"unterminated", "framing/unterminated-event", unterminated, nil},
	{"not-object", "aisdk-data/malformed-line", insertRaw(`"keepalive"`), nil},
	{"utf8-split", "framing/invalid-utf8", utf8Split(dataTexts), nil},
	{"invalid-utf8", "framing/invalid-utf8", invalidUTF8(dataTexts), nil},
	{"midstream-error", "framing/error-payload", dataError, nil},
	{"cut-terminal", "aisdk-data/finish-missing", dataCutFinish, nil},
	{"after-terminal", "aisdk-data/after-finish", dataAfterFinish, nil},
	{"unknown-event", "aisdk-data/unknown-code", dataUnknown, nil},
	{"member-drop", "aisdk-data/malformed-line", dataMemberDrop, nil},
	{"step-twice", "aisdk-data/step-unbalanced", stepTwice(func(e *edit) []int { return e.data().steps }, "f"), nil},
	{"args-differ", "aisdk-data/args-mismatch", dataArgsDiffer, nil},
	{"delta-before-start", "aisdk-data/delta-without-start", callStartSwap(dataCalls), nil},
	{"call-start-drop", "aisdk-data/delta-without-start", callStartDrop(dataCalls), nil},
	{"output-unknown-call", "aisdk-data/result-unknown-call", outputUnknown(dataCalls, "toolCallId"), nil},
}

// dataRoles are the data stream's codes the index tells.
var dataRoles = map[string]appRole{
	"d": appFinish, "3": appError, "f": appStep,
	"b": appCallStart, "c": appCallDelta, "9": appCallWhole, "a": appCallOut,
}

// dataIndex is a data stream by its lines, told by their codes.
type dataIndex struct {
	appIndex
	lines []int // every part, in order
}

func (e *edit) data() *dataIndex {
	x := &dataIndex{appIndex: newAppIndex()}
	for i, ev := range e.st.Events {
		if ev.Dialect != dData || ev.carry != carryCoded || ev.Doc == nil {
			continue
		}
		x.lines = append(x.lines, i)
		id, _ := getString(ev.Doc, "toolCallId")
		x.note(i, dataRoles[ev.Name], id)
		switch ev.Name {
		case "0", "g", "b", "9": // text, reasoning, a call
			x.sawContent(i)
		}
	}
	return x
}

func dataCalls(e *edit) []*appCall { return e.data().calls }

// dataTexts lists the text (0:) and reasoning (g:) parts.
func dataTexts(e *edit) []textRef {
	var out []textRef
	for _, i := range e.data().lines {
		ev := e.st.Events[i]
		if ev.Name != "0" && ev.Name != "g" {
			continue
		}
		if s, ok := jsonscan.String(ev.Doc); ok && s != "" {
			out = append(out, textRef{i: i, path: nil, text: ev.Name})
		}
	}
	return out
}

// dataError cuts the stream after the chosen line and ends it with an
// error part, as the SDK writes a failed run's (with the default
// getErrorMessage's text).
func dataError(e *edit) error {
	x := e.data()
	if x.content < 0 {
		e.note = "no text or call to cut after"
		return errNoPlace
	}
	end := x.finish
	if end < 0 {
		end = x.lines[len(x.lines)-1]
	}
	i, err := e.pick(e.midstreamCands(x.content, end))
	if err != nil {
		return err
	}
	e.cutWith(i, e.like(i, quote(maskedError), "3"))
	e.note = "cut after the chosen line; an error part (the default getErrorMessage's text) ends the stream"
	return nil
}

func dataCutFinish(e *edit) error {
	x := e.data()
	if x.finish < 0 {
		e.note = "no d: finish_message"
		return errNoPlace
	}
	if x.errored >= 0 && x.errored < x.finish {
		e.note = "an error part ends the run before d:: without d: it is an error still"
		return errNoPlace
	}
	e.removeFrom(x.finish)
	e.note = "the d: finish_message and what follows it cut"
	return nil
}

// dataAfterFinish writes a text part after the finish message.
func dataAfterFinish(e *edit) error {
	x := e.data()
	if x.finish < 0 {
		e.note = "no d: finish_message"
		return errNoPlace
	}
	e.insertAfter(x.finish, e.like(x.finish, quote(" "), "0"))
	e.note = `a 0: text part after d:`
	return nil
}

// dataUnknown sends a part of the assistant stream's codes (4: an
// assistant message), which useChat's parser does not know.
func dataUnknown(e *edit) error {
	var cands []int
	for _, i := range e.dataEvents() {
		if e.st.Events[i].carry == carryCoded {
			cands = append(cands, i)
		}
	}
	i, err := e.pick(cands)
	if err != nil {
		return err
	}
	e.insertBefore(i, e.like(i, []byte(`{"id":"msg_1","role":"assistant","content":[]}`), "4"))
	e.note = "a 4: line (the assistant stream's), a code useChat does not know"
	return nil
}

// dataMemberDrop takes a required member from the chosen part: a 9:
// tool call's args, a b: call start's toolName, an a: result's result.
func dataMemberDrop(e *edit) error {
	member := map[string]string{"9": "args", "b": "toolName", "a": "result"}
	var cands []int
	for _, i := range e.data().lines {
		if member[e.st.Events[i].Name] != "" {
			cands = append(cands, i)
		}
	}
	i, err := e.pick(cands)
	if err != nil {
		e.note = "no tool call, call start or result"
		return err
	}
	name := e.st.Events[i].Name
	if !e.change(i, func(doc []byte) ([]byte, bool) { return del(doc, member[name]) }) {
		return errNoPlace
	}
	e.note = "a " + name + ": part without its " + member[name]
	return nil
}

// dataArgsDiffer changes the args of a 9: tool call whose arguments were
// streamed (c: deltas).
func dataArgsDiffer(e *edit) error {
	var cands []*appCall
	for _, c := range e.data().calls {
		if len(c.deltas) > 0 && c.whole >= 0 && get(e.st.Events[c.whole].Doc, "args") != nil {
			cands = append(cands, c)
		}
	}
	c, err := pickCall(e, cands)
	if err != nil {
		return err
	}
	if !e.change(c.whole, func(doc []byte) ([]byte, bool) { return set(doc, changedValue(get(doc, "args")), "args") }) {
		return errNoPlace
	}
	e.note = "call " + c.id + ": the 9: tool call's args changed"
	return nil
}
