package inspector

import (
	"bytes"
	"encoding/json"
)

// BytesQuery is a search text as it is looked for in an event's bytes:
// as typed and, when that differs, as a JSON string spells it (a quote
// or a line break inside arguments arrives escaped). Both are lowered as
// ASCII only, as AppendLower lowers the bytes, because a stream's bytes
// may be anything and are not decoded. The inspector's search and the diff
// page's match the bytes alike through it.
type BytesQuery struct {
	plain, escaped []byte
}

// NewBytesQuery prepares text for In.
func NewBytesQuery(text string) BytesQuery {
	q := BytesQuery{plain: AppendLower(nil, []byte(text))}
	if esc := AppendLower(nil, []byte(jsonEscape(text))); !bytes.Equal(esc, q.plain) {
		q.escaped = esc
	}
	return q
}

// In reports whether lowered, bytes passed through AppendLower, holds the
// text.
func (q BytesQuery) In(lowered []byte) bool {
	return bytes.Contains(lowered, q.plain) || (q.escaped != nil && bytes.Contains(lowered, q.escaped))
}

// AppendLower appends b with ASCII letters lowered.
func AppendLower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// jsonEscape spells s as it appears inside a JSON string.
func jsonEscape(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := bytes.TrimSpace(b.Bytes())
	return string(out[1 : len(out)-1])
}
