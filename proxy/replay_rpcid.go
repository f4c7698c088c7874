package proxy

import (
	"bytes"
	"encoding/json"
)

// idEdit returns what rewrites a recorded JSON-RPC exchange's response
// for the request that came, or nil when there is nothing to rewrite:
// the response to the recorded request's id gets the id of the request
// that came, and a notifications/progress its progress token. Nothing
// else changes: notifications, the server's own requests (whose ids the
// server counts), a response to another id (a defect injected on
// purpose) and every byte around the id are sent as recorded.
func idEdit(rec, live *rpcRequest) func([]byte) []byte {
	if !rec.ok || !live.ok || rec.method != live.method {
		return nil
	}
	id := rec.id != nil && live.id != nil && !bytes.Equal(rec.id, live.id)
	token := rec.token != nil && live.token != nil && !bytes.Equal(rec.token, live.token)
	if !id && !token {
		return nil
	}
	e := &rpcEdit{}
	if id {
		e.id, e.newID = rec.id, live.id
	}
	if token {
		e.token, e.newToken = rec.token, live.token
	}
	return e.chunk
}

// rpcEdit rewrites the messages of a response body's chunks.
type rpcEdit struct {
	id, newID       []byte
	token, newToken []byte
}

// chunk rewrites the messages of one chunk of a body: an SSE event's
// data lines (a recording's chunks are whole events), or a JSON body.
func (e *rpcEdit) chunk(b []byte) []byte {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		if out, ok := e.message(t); ok {
			start := bytes.Index(b, t)
			return append(append(append([]byte(nil), b[:start]...), out...), b[start+len(t):]...)
		}
		return b
	}
	var out []byte
	changed := false
	for line := range bytes.Lines(b) {
		content := bytes.TrimRight(line, "\r\n")
		if v, ok := bytes.CutPrefix(content, []byte("data:")); ok {
			v = bytes.TrimPrefix(v, []byte(" "))
			if m, ok := e.message(v); ok {
				out = append(out, content[:len(content)-len(v)]...)
				out = append(out, m...)
				out = append(out, line[len(content):]...)
				changed = true
				continue
			}
		}
		out = append(out, line...)
	}
	if !changed {
		return b
	}
	return out
}

// message rewrites one JSON-RPC message, and says whether it did.
func (e *rpcEdit) message(m []byte) ([]byte, bool) {
	if !json.Valid(m) {
		return m, false // a message cut or broken (on purpose, maybe) is sent as recorded
	}
	if e.id != nil && (hasMember(m, "result") || hasMember(m, "error")) {
		if s, end, ok := memberSpan(m, "id"); ok && bytes.Equal(compact(m[s:end]), e.id) {
			return splice(m, s, end, e.newID), true
		}
	}
	if e.token != nil {
		if s, end, ok := memberSpan(m, "method"); ok && string(m[s:end]) == `"notifications/progress"` {
			if ps, pend, ok := memberSpan(m, "params"); ok {
				p := m[ps:pend]
				if ts, tend, ok := memberSpan(p, "progressToken"); ok && bytes.Equal(compact(p[ts:tend]), e.token) {
					return splice(m, ps, pend, splice(p, ts, tend, e.newToken)), true
				}
			}
		}
	}
	return m, false
}

// splice is b with b[s:end] replaced by v, in a new slice.
func splice(b []byte, s, end int, v []byte) []byte {
	out := make([]byte, 0, len(b)-(end-s)+len(v))
	return append(append(append(out, b[:s]...), v...), b[end:]...)
}

func hasMember(obj []byte, name string) bool {
	_, _, ok := memberSpan(obj, name)
	return ok
}

// memberSpan finds the value of the member name of the JSON object obj
// (its top level only): where its bytes start and end. ok is false when
// obj holds no such member, or is not a JSON object.
func memberSpan(obj []byte, name string) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, 0, false
		}
		if key, _ := tok.(string); key == name {
			end := int(dec.InputOffset())
			return end - len(v), end, true
		}
	}
	return 0, 0, false
}
