package inject

import (
	"strconv"
)

// ollamaDefects are the defects of Ollama's NDJSON streams (/api/chat,
// /api/generate).
var ollamaDefects = append(lineFraming(), []variant{
	{"utf8-split", "framing/invalid-utf8", utf8Split(ollamaTexts), nil},
	{"invalid-utf8", "framing/invalid-utf8", invalidUTF8(ollamaTexts), nil},
	{"midstream-error", "framing/error-payload", ollamaError, nil},
	{"blank-line", "ollama/blank-line", ollamaBlankLine, nil},
	{"args-object", "ollama/args-not-object", ollamaArgsString, nil},
	{"call-split", "ollama/call-split", ollamaCallSplit, nil},
	{"finish-nonstandard", "ollama/done-reason-unknown", ollamaDoneReason, nil},
	{"cut-terminal", "ollama/done-missing", ollamaCut, nil},
	{"after-terminal", "ollama/after-done", ollamaAfterDone, nil},
}...)

// ollamaLines lists the Ollama lines, and the one that says done: true
// (-1 when none does).
func (e *edit) ollamaLines() (lines []int, done int) {
	done = -1
	for i, ev := range e.st.Events {
		if ev.Dialect != dOllama || ev.Doc == nil {
			continue
		}
		lines = append(lines, i)
		if string(get(ev.Doc, "done")) == "true" && done < 0 {
			done = i
		}
	}
	return lines, done
}

// ollamaTexts lists the content and thinking (chat) and response
// (generate) pieces.
func ollamaTexts(e *edit) []textRef {
	var out []textRef
	lines, _ := e.ollamaLines()
	for _, i := range lines {
		doc := e.st.Events[i].Doc
		for _, path := range [][]any{{"message", "content"}, {"message", "thinking"}, {"response"}} {
			if s, _ := getString(doc, path...); s != "" {
				out = append(out, textRef{i: i, path: path, text: pathName(path)})
			}
		}
	}
	return out
}

func ollamaError(e *edit) error {
	lines, done := e.ollamaLines()
	if done < 0 || len(lines) < 2 {
		return errNoPlace
	}
	i, err := e.pick(e.midstreamCands(lines[0], done))
	if err != nil {
		return err
	}
	e.cutWith(i, e.like(i, []byte(`{"error":"an error was encountered while running the model: unexpected EOF"}`), ""))
	e.note = "cut after the chosen line; an error line ends the stream"
	return nil
}

func ollamaBlankLine(e *edit) error {
	lines, _ := e.ollamaLines()
	if len(lines) < 2 {
		return errNoPlace
	}
	i, err := e.pick(lines[1:])
	if err != nil {
		return err
	}
	ev := e.st.Events[i]
	e.setOwn(i, append([]byte(ending(ev)), ev.own...))
	e.note = "a blank line before line " + strconv.Itoa(i)
	return nil
}

// ollamaCalls lists the tool_calls entries: the line and the entry.
func (e *edit) ollamaCalls() (refs [][2]int) {
	lines, _ := e.ollamaLines()
	for _, i := range lines {
		for k := range count(e.st.Events[i].Doc, "message", "tool_calls") {
			refs = append(refs, [2]int{i, k})
		}
	}
	return refs
}

func (e *edit) pickOllamaCall() ([2]int, error) {
	refs := e.ollamaCalls()
	cands := make([]int, len(refs))
	for k := range cands {
		cands[k] = k
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no tool call"
		return [2]int{}, err
	}
	return refs[k], nil
}

func ollamaArgsString(e *edit) error {
	r, err := e.pickOllamaCall()
	if err != nil {
		return err
	}
	path := []any{"message", "tool_calls", r[1], "function", "arguments"}
	ok := e.change(r[0], func(doc []byte) ([]byte, bool) {
		v := get(doc, path...)
		if v == nil || v[0] != '{' {
			return doc, false
		}
		return set(doc, quote(string(v)), path...)
	})
	if !ok {
		return errNoPlace
	}
	e.note = "function.arguments sent as a JSON string, as OpenAI sends it"
	return nil
}

func ollamaCallSplit(e *edit) error {
	r, err := e.pickOllamaCall()
	if err != nil {
		return err
	}
	doc := e.st.Events[r[0]].Doc
	entry := get(doc, "message", "tool_calls", r[1])
	// The continuation: the same call (id, function.index) with no name.
	cont, _ := del(entry, "function", "name")
	cont, _ = set(cont, []byte("{}"), "function", "arguments")
	line, _ := set(doc, append(append([]byte{'['}, cont...), ']'), "message", "tool_calls")
	e.insertAfter(r[0], e.like(r[0], line, ""))
	e.note = "the call continued on a second tool_calls entry without its name"
	return nil
}

func ollamaDoneReason(e *edit) error {
	_, done := e.ollamaLines()
	if done < 0 {
		return errNoPlace
	}
	if !e.change(done, func(doc []byte) ([]byte, bool) { return add(doc, "done_reason", quote("end_turn")) }) {
		return errNoPlace
	}
	e.note = `done_reason "end_turn"`
	return nil
}

func ollamaCut(e *edit) error {
	_, done := e.ollamaLines()
	if done < 0 {
		return errNoPlace
	}
	e.removeFrom(done)
	e.note = "the done: true line cut"
	return nil
}

func ollamaAfterDone(e *edit) error {
	_, done := e.ollamaLines()
	if done < 0 {
		return errNoPlace
	}
	e.insertAfter(done, e.like(done, e.st.Events[done].Doc, ""))
	e.note = "the done: true line sent twice"
	return nil
}
