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
	equal, at, _ = compareStrings(a, b)
	return equal, at
}

// resume is where a decoder may start again: a position of the raw
// string outside any escape, and the decoded offset it stands for.
type resume struct{ raw, off int }

// compareStrings is sameString that also says, for each side, where to
// resume decoding to show the strings from a little before the first
// difference: the start of the chunk before the one that differs.
func compareStrings(a, b []byte) (equal bool, at int, from [2]resume) {
	if bytes.Equal(a, b) {
		return true, 0, from
	}
	ds := [2]*strDecoder{newStrDecoder(a), newStrDecoder(b)}
	var p [2][]byte
	var chunk, prev [2]resume // the current and previous chunks' starts
	var done [2]int           // decoded bytes before the current chunk
	off := 0
	for {
		for w := range p {
			if len(p[w]) == 0 {
				prev[w], chunk[w] = chunk[w], resume{raw: ds[w].pos, off: done[w]}
				p[w] = ds[w].next()
				done[w] += len(p[w])
			}
		}
		if len(p[0]) == 0 || len(p[1]) == 0 {
			return len(p[0]) == len(p[1]), off, prev
		}
		n := min(len(p[0]), len(p[1]))
		k := 0
		for k < n && p[0][k] == p[1][k] {
			k++
		}
		if k < n {
			return false, off + k, prev
		}
		off += n
		p[0], p[1] = p[0][n:], p[1][n:]
	}
}

// window decodes the JSON string value v from r on and returns its bytes
// from decoded offset from, at most n of them (a few more, to end on a
// whole rune).
func window(v []byte, r resume, from, n int) []byte {
	d := newStrDecoder(v)
	d.pos = min(r.raw, len(d.s))
	off := r.off
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
