package streamdiff

import (
	"bytes"
	"unicode/utf8"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// Strings longer than bigString (raw, in bytes) are compared and shown by
// decoding them a chunk at a time: two 50 MB argument strings that differ
// in one byte must not cost two 50 MB decoded copies.
const (
	bigString   = 64 << 10
	decodeChunk = 32 << 10
)

// strDecoder decodes a JSON string value a chunk at a time. Each chunk
// ends outside an escape sequence (and keeps a surrogate pair together),
// so that chunks decode alone to what the whole would.
type strDecoder struct {
	s       []byte // the body, between the quotes
	pos     int
	scratch []byte
	buf     []byte
}

func newStrDecoder(v []byte) *strDecoder {
	if len(v) >= 2 && v[0] == '"' {
		v = v[1 : len(v)-1]
	}
	return &strDecoder{s: v}
}

// next returns the next decoded chunk, valid until the following call;
// nil at the end.
func (d *strDecoder) next() []byte {
	if d.pos >= len(d.s) {
		return nil
	}
	end := safeEnd(d.s, d.pos, d.pos+decodeChunk)
	d.scratch = append(append(append(d.scratch[:0], '"'), d.s[d.pos:end]...), '"')
	d.pos = end
	d.buf = jsonscan.Unquote(d.buf[:0], d.scratch)
	return d.buf
}

// safeEnd returns the first position at or after target (or the end)
// that is not inside an escape sequence nor a UTF-8 sequence, scanning
// from pos, a position outside both.
func safeEnd(s []byte, pos, target int) int {
	i := escapeEnd(s, pos, target)
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// escapeEnd is safeEnd without the care for UTF-8.
func escapeEnd(s []byte, pos, target int) int {
	i := pos
	for i < target && i < len(s) {
		j := bytes.IndexByte(s[i:min(target, len(s))], '\\')
		if j < 0 {
			return min(target, len(s))
		}
		i += j
		if i+1 < len(s) && s[i+1] == 'u' {
			high := i+6 <= len(s) && isHighSurrogate(s[i+2:i+6])
			i += 6
			if high && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
				i += 6 // keep the pair together
			}
		} else {
			i += 2
		}
	}
	return min(i, len(s))
}

func isHighSurrogate(hex []byte) bool {
	v := 0
	for _, c := range hex {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return false
		}
	}
	return v >= 0xD800 && v <= 0xDBFF
}

// sameString compares two JSON string values decoded, a chunk at a time,
// and returns where the decoded strings first differ when they do.
func sameString(a, b []byte) (equal bool, at int) {
	if bytes.Equal(a, b) {
		return true, 0
	}
	da, db := newStrDecoder(a), newStrDecoder(b)
	var pa, pb []byte
	off := 0
	for {
		if len(pa) == 0 {
			pa = da.next()
		}
		if len(pb) == 0 {
			pb = db.next()
		}
		if len(pa) == 0 || len(pb) == 0 {
			return len(pa) == len(pb), off
		}
		n := min(len(pa), len(pb))
		k := 0
		for k < n && pa[k] == pb[k] {
			k++
		}
		if k < n {
			return false, off + k
		}
		off += n
		pa, pb = pa[n:], pb[n:]
	}
}

// window decodes the JSON string value v and returns its bytes from
// decoded offset from, at most n of them (a few more, to end on a whole
// rune).
func window(v []byte, from, n int) []byte {
	d := newStrDecoder(v)
	off := 0
	var out []byte
	for chunk := d.next(); chunk != nil && len(out) < n+4; chunk = d.next() {
		if off+len(chunk) > from {
			start := max(from-off, 0)
			out = append(out, chunk[start:min(len(chunk), start+n+4-len(out))]...)
		}
		off += len(chunk)
	}
	return out
}
