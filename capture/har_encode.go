package capture

// This file encodes a HAR entry's big parts as the stream is read, so
// that closing the entry only writes bytes already encoded: its body
// (content.text) and its event messages (_eventSourceMessages). Encoding
// a 200 MB body with encoding/json when the entry closed took seconds and
// about ten times the body in memory, which a command stopped by a
// signal does not have (it must end within 2 s); encoded as it arrives,
// the entry costs about twice the body, and its close is writes.
//
// Every string is escaped exactly as encoding/json escapes it with
// SetEscapeHTML(false), so a HAR written this way is byte for byte the
// one the encoder wrote (TestHAREntryBytesAsBefore).

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// spool is bytes kept in blocks of about spoolBlock, so that a body of
// hundreds of MB grows without copying itself at each doubling, and is
// written out a block at a time.
type spool struct {
	blocks [][]byte
	n      int64
}

// spoolBlock is the size a spool's blocks are started at once the first
// one is big; a small entry's spool is one block grown by append.
const spoolBlock = 1 << 20

// room returns the block to append at least need bytes to.
func (s *spool) room(need int) *[]byte {
	if k := len(s.blocks); k > 0 {
		b := &s.blocks[k-1]
		if cap(*b)-len(*b) >= need || len(*b) < spoolBlock/2 {
			return b
		}
	}
	s.blocks = append(s.blocks, make([]byte, 0, max(spoolBlock, need)))
	return &s.blocks[len(s.blocks)-1]
}

// len is how many bytes the spool holds.
func (s *spool) len() int64 { return s.n }

// each calls f with the bytes from a to b, a block's part at a time,
// and stops at its first error.
func (s *spool) each(a, b int64, f func([]byte) error) error {
	var off int64
	for _, blk := range s.blocks {
		lo, hi := max(a-off, 0), min(b-off, int64(len(blk)))
		if lo < hi {
			if err := f(blk[lo:hi]); err != nil {
				return err
			}
		}
		off += int64(len(blk))
		if off >= b {
			break
		}
	}
	return nil
}

// appendTo appends the bytes from a to b to dst.
func (s *spool) appendTo(dst []byte, a, b int64) []byte {
	_ = s.each(a, b, func(p []byte) error { dst = append(dst, p...); return nil })
	return dst
}

// harBody is an entry's body encoded as content.text: the inside of a
// JSON string while the body is UTF-8, its base64 from the first byte
// that is not (as the whole body was when it was encoded at the end).
type harBody struct {
	text  spool
	size  int64 // body bytes added
	b64   bool
	pend  [utf8.UTFMax]byte // a rune's start a later add completes (text), or a base64 group's first bytes
	npend int
	// frozen forbids turning the text into base64, which decodes all of
	// it again (a second for 100 MB): past a signal's deadline (Hurry)
	// the body stops instead, at its first byte that is not UTF-8
	// (stopped), and keeps the kept bytes before it.
	frozen, stopped bool
	kept            int64
}

// encodeChunk is how much of the body is escaped in one go: at most six
// times that into a spool's block.
const encodeChunk = 64 << 10

// add appends p to the body.
func (b *harBody) add(p []byte) {
	b.size += int64(len(p))
	if b.stopped {
		return
	}
	if b.b64 {
		b.addBase64(p)
		return
	}
	if b.npend > 0 {
		// The rune the last add began: complete it, or keep waiting.
		k := min(len(p), utf8.UTFMax-b.npend)
		buf := append(b.pend[:b.npend:b.npend], p[:k]...)
		if !utf8.FullRune(buf) {
			b.npend = copy(b.pend[:], buf)
			return
		}
		r, size := utf8.DecodeRune(buf)
		if r == utf8.RuneError && size == 1 {
			b.notUTF8(append(buf, p[k:]...))
			return
		}
		dst := b.text.room(2 * utf8.UTFMax)
		before := len(*dst)
		*dst, _, _ = appendEscaped(*dst, buf[:size], true)
		b.text.n += int64(len(*dst) - before)
		p = p[size-b.npend:]
		b.npend = 0
	}
	for len(p) > 0 {
		chunk := p[:min(len(p), encodeChunk)]
		dst := b.text.room(6 * len(chunk))
		before := len(*dst)
		var n int
		var ok bool
		*dst, n, ok = appendEscaped(*dst, chunk, true)
		b.text.n += int64(len(*dst) - before)
		switch {
		case !ok:
			b.notUTF8(p[n:])
			return
		case n < len(chunk) && len(chunk) < len(p):
			p = p[n:] // a rune across the chunk's end: the next chunk takes it whole
		case n < len(chunk):
			b.npend = copy(b.pend[:], chunk[n:]) // a rune the next add completes
			return
		default:
			p = p[len(chunk):]
		}
	}
}

// notUTF8 takes rest, the body from its first byte that is not UTF-8 on
// (already counted in size): as base64, or, frozen, not at all.
func (b *harBody) notUTF8(rest []byte) {
	if b.frozen {
		b.stop()
		return
	}
	b.toBase64(rest)
}

// stop ends the text where it stands: later bytes are counted, not kept.
func (b *harBody) stop() {
	b.stopped, b.kept, b.npend = true, b.encoded(), 0
}

// toBase64 turns the body into base64 at its first byte that is not
// UTF-8: the text so far is decoded back, and rest (the bytes from there
// on, already counted in size) follows it.
func (b *harBody) toBase64(rest []byte) {
	quoted := make([]byte, 0, b.text.len()+2)
	quoted = append(quoted, '"')
	quoted = b.text.appendTo(quoted, 0, b.text.len())
	quoted = append(quoted, '"')
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		panic("capture: a HAR body's own text does not decode: " + err.Error())
	}
	b.text, b.npend, b.b64 = spool{}, 0, true
	b.addBase64([]byte(s))
	b.addBase64(rest)
}

// addBase64 appends p's base64, keeping the last bytes of a group of
// three for the next add.
func (b *harBody) addBase64(p []byte) {
	if b.npend > 0 {
		k := min(len(p), 3-b.npend)
		b.npend += copy(b.pend[b.npend:], p[:k])
		p = p[k:]
		if b.npend < 3 {
			return
		}
		b.putBase64(b.pend[:3])
		b.npend = 0
	}
	for len(p) >= 3 {
		n := min(len(p), 3*encodeChunk) / 3 * 3
		b.putBase64(p[:n])
		p = p[n:]
	}
	b.npend = copy(b.pend[:], p)
}

func (b *harBody) putBase64(p []byte) {
	dst := b.text.room(base64.StdEncoding.EncodedLen(len(p)))
	*dst = base64.StdEncoding.AppendEncode(*dst, p)
	b.text.n += int64(base64.StdEncoding.EncodedLen(len(p)))
}

// finish ends the body: a rune left unfinished makes it base64 (it is
// not UTF-8), and base64's last group is padded.
func (b *harBody) finish() {
	if b.npend > 0 && !b.b64 {
		b.notUTF8(bytes.Clone(b.pend[:b.npend]))
	}
	if b.npend > 0 {
		b.putBase64(b.pend[:b.npend])
		b.npend = 0
	}
}

// encoded is how many body bytes the text encodes so far (the pending
// ones not).
func (b *harBody) encoded() int64 {
	if b.stopped {
		return b.kept
	}
	return b.size - int64(b.npend)
}

// appendEscaped appends src escaped as the inside of a JSON string, as
// encoding/json's appendString does without HTML escaping. With strict,
// it stops before a byte that is not UTF-8 (ok false) or before a rune
// cut by src's end (n short of len(src), ok true); without, such bytes
// are written as \ufffd, as encoding/json writes them. n is how much of
// src was taken.
func appendEscaped(dst, src []byte, strict bool) (out []byte, n int, ok bool) {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(src); {
		if c := src[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		if strict && !utf8.FullRune(src[i:]) {
			return append(dst, src[start:i]...), i, true
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			if strict {
				return append(dst, src[start:i]...), i, false
			}
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, src[start:]...), len(src), true
}

// appendJSONString appends s as a JSON string, as encoding/json writes
// it without HTML escaping.
func appendJSONString(dst, s []byte) []byte {
	dst = append(dst, '"')
	dst, _, _ = appendEscaped(dst, s, false)
	return append(dst, '"')
}

// appendJSONFloat appends f as encoding/json writes a float64 (it is
// finite).
func appendJSONFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
