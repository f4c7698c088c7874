package inject

import (
	"slices"
	"strconv"
)

// geminiDefects are the defects of Gemini streamGenerateContent streams.
var geminiDefects = append(sseFraming(), []variant{
	{"utf8-split", "framing/invalid-utf8", utf8Split(geminiTexts), nil},
	{"invalid-utf8", "framing/invalid-utf8", invalidUTF8(geminiTexts), nil},
	{"keepalive-flood", "", commentFlood(": keepalive"), nil},
	{"midstream-error", "framing/error-payload", geminiError, nil},
	{"args-object", "gemini/args-not-object", geminiArgsString, nil},
	{"finish-nonstandard", "gemini/finish-reason-nonstandard", geminiFinish, nil},
}...)

// geminiChunks lists the Gemini chunks.
func (e *edit) geminiChunks() []int {
	return e.where(func(_ int, ev *Event) bool { return ev.Dialect == dGemini && ev.Doc != nil })
}

// geminiParts calls f with every part of every candidate of the chunk:
// its path.
func geminiParts(doc []byte, f func(c int, path []any)) {
	for c := range count(doc, "candidates") {
		for p := range count(doc, "candidates", c, "content", "parts") {
			f(c, []any{"candidates", c, "content", "parts", p})
		}
	}
}

// geminiTexts lists the text parts that are not thoughts.
func geminiTexts(e *edit) []textRef {
	var out []textRef
	for _, i := range e.geminiChunks() {
		doc := e.st.Events[i].Doc
		geminiParts(doc, func(c int, path []any) {
			if thought := get(doc, append(slices.Clone(path), "thought")...); string(thought) == "true" {
				return
			}
			if s, _ := getString(doc, append(slices.Clone(path), "text")...); s != "" {
				out = append(out, textRef{i: i, path: append(slices.Clone(path), "text"), text: strconv.Itoa(c)})
			}
		})
	}
	return out
}

func geminiError(e *edit) error {
	chunks := e.geminiChunks()
	if len(chunks) < 2 {
		return errNoPlace
	}
	// Cut before the chunk that finishes (or the last one).
	end := chunks[len(chunks)-1]
	for _, i := range chunks {
		if get(e.st.Events[i].Doc, "candidates", 0, "finishReason") != nil {
			end = i
			break
		}
	}
	i, err := e.pick(e.midstreamCands(chunks[0], end))
	if err != nil {
		return err
	}
	doc := `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`
	e.cutWith(i, e.like(i, []byte(doc), ""))
	e.note = "cut after the chosen chunk; an error chunk (503 UNAVAILABLE) ends the stream"
	return nil
}

func geminiArgsString(e *edit) error {
	type ref struct {
		i    int
		path []any
	}
	var refs []ref
	for _, i := range e.geminiChunks() {
		doc := e.st.Events[i].Doc
		geminiParts(doc, func(_ int, path []any) {
			args := append(slices.Clone(path), "functionCall", "args")
			if v := get(doc, args...); v != nil && v[0] == '{' {
				refs = append(refs, ref{i, args})
			}
		})
	}
	cands := make([]int, len(refs))
	for k := range cands {
		cands[k] = k
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no functionCall with args"
		return err
	}
	r := refs[k]
	e.change(r.i, func(doc []byte) ([]byte, bool) {
		return set(doc, quote(string(get(doc, r.path...))), r.path...)
	})
	e.note = "functionCall.args sent as a JSON string"
	return nil
}

func geminiFinish(e *edit) error {
	var cands []int
	for _, i := range e.geminiChunks() {
		if _, ok := getString(e.st.Events[i].Doc, "candidates", 0, "finishReason"); ok {
			cands = append(cands, i)
		}
	}
	i, err := e.pick(cands)
	if err != nil {
		e.note = "no finishReason"
		return err
	}
	e.change(i, func(doc []byte) ([]byte, bool) { return setString(doc, "END_TURN", "candidates", 0, "finishReason") })
	e.note = "finishReason END_TURN"
	return nil
}
