package jsonscan

import (
	"bytes"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// AppendQuote appends s as a JSON string, byte for byte as encoding/json
// writes it with HTML escaping off, plus the escapes of HiddenRune: quote,
// backslash and control bytes escaped (\b \f \n \r \t by name, the rest as
// \u00XX), each invalid UTF-8 byte as \ufffd, U+2028 and U+2029 escaped,
// and DEL, the C1 controls and the bidi and invisible formatting runes
// escaped as \uXXXX. The extra escapes keep every JSON document streamtap
// writes free of a raw character a terminal obeys (an 8-bit CSI is 0x9B)
// or that reorders the text around it, while a JSON reader still decodes
// the same string. It stands in for encoding/json where reflection costs
// too much.
func AppendQuote[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	dst = AppendEscaped(dst, s)
	return append(dst, '"')
}

// AppendEscaped appends what AppendQuote appends between the quotes. A
// string cut into pieces where PieceEnd cuts escapes piece by piece to the
// same bytes.
func AppendEscaped[T string | []byte](dst []byte, s T) []byte {
	for {
		m := CIMarker(s)
		if m < 0 {
			return appendEscaped(dst, s)
		}
		dst = append(appendEscaped(dst, s[:m]), markerEscape...)
		s = s[m+1:]
	}
}

func appendEscaped[T string | []byte](dst []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); {
		// Jump to the first byte that needs escaping or decoding: a word
		// at a time, then straight to the byte inside the word (the
		// lowest bit attention and delOrHigh set is exact).
		for i+8 <= len(s) {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if m := attention(w) | delOrHigh(w); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if quoteSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
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
				dst = appendRuneEscape(dst, rune(b))
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))])) // small: no allocation
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r < 0xa0 || r >= 0x200e && (r <= 0x2069 || r == 0xfeff) && HiddenRune(r):
			// (The first tests pass over most text at once: every
			// hidden rune beyond ASCII lies below U+00A0, from U+200E
			// to U+2069, or is U+FEFF.)
			dst = append(dst, s[start:i]...)
			dst = appendRuneEscape(dst, r)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// markerEscape is the "[" of a CIMarker, escaped in a JSON string.
const markerEscape = `\u005b`

// CIMarker returns the index of the "[" that ends the first CI log
// command marker in s, or -1. CI runners obey a command in any line of
// their log that holds "##[" (GitHub Actions' first workflow command
// syntax, still parsed anywhere in a line), "##vso[" (Azure Pipelines) or
// "##teamcity[" (TeamCity); a marker is any "##" followed by letters and
// "[", so that each of them is one. Everything streamtap writes shows that
// "[" escaped when the text came from outside (a stream, a file name), so
// that a recording cannot write a command into the log of the CI job that
// checks it.
func CIMarker[T string | []byte](s T) int {
	for i := 0; i < len(s); {
		h := indexHashes(s[i:])
		if h < 0 {
			return -1
		}
		j := i + h + 2
		for j < len(s) && (s[j] == '#' || isLetter(s[j])) {
			j++
		}
		if j < len(s) && s[j] == '[' {
			return j
		}
		i = j
	}
	return -1
}

// indexHashes is the index of the first "##" in s, or -1: strings.Index or
// bytes.Index, whichever s is, so that text without one costs a fast
// search and no more.
func indexHashes[T string | []byte](s T) int {
	var zero T
	if _, ok := any(zero).(string); ok {
		return strings.Index(string(s), "##")
	}
	return bytes.Index([]byte(s), []byte("##"))
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// PieceEnd returns where to end the first piece of s, of n bytes or a
// little more, so that pieces escape (AppendEscaped, AppendSafe) to the
// bytes the whole escapes to: at a rune start, and never inside a
// CIMarker (past the run of "#" and letters the cut falls in, and past a
// "[" that ends it). It is above 0 when s is not empty.
func PieceEnd[T string | []byte](s T, n int) int {
	if n >= len(s) {
		return len(s)
	}
	cut := max(n, 1)
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	if cut == len(s) || !(s[cut-1] == '#' || isLetter(s[cut-1])) {
		return cut
	}
	for cut < len(s) && (s[cut] == '#' || isLetter(s[cut])) {
		cut++
	}
	if cut < len(s) && s[cut] == '[' {
		cut++
	}
	return cut
}

// HiddenRune reports the runes beyond ASCII that a JSON document may hold
// raw but that streamtap escapes everywhere it shows or writes text: the
// C1 controls (U+0080–U+009F, which an 8-bit terminal obeys), the bidi
// marks, embeddings, overrides and isolates (U+200E, U+200F,
// U+202A–U+202E, U+2066–U+2069, which reorder the text around them), the
// line and paragraph separators (U+2028, U+2029) and the byte order mark
// (U+FEFF). DEL and the C0 controls are ASCII and escaped as well.
func HiddenRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	}
	return false
}

// appendRuneEscape appends r (below U+10000) as \uXXXX.
func appendRuneEscape(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

// quoteSafe marks the ASCII bytes AppendEscaped copies as they are:
// those a string needs no attention for, except DEL.
var quoteSafe = func() (t [256]bool) {
	t = strSafe
	t[0x7f] = false
	return t
}()

// delOrHigh sets the high bit of each of 8 bytes that is DEL or above
// ASCII. Adding 1 turns DEL into 0x80; a carry out of 0xFF reaches only
// bytes above it, and 0xFF is flagged itself, so the lowest set bit is
// exact.
func delOrHigh(x uint64) uint64 { return (x | (x + lsb)) & msb }

// AppendSafe appends the JSON text j, as encoding/json writes it, with the
// escapes AppendQuote adds: each DEL and HiddenRune as \uXXXX, each byte
// that is not UTF-8 as \ufffd, and the "[" of each CIMarker as \u005b. In
// such a text those bytes can only stand inside strings (a raw message
// included: encoding/json checks its syntax, not its UTF-8; a "#" is never
// outside a string), so the document keeps its meaning and becomes safe
// to print. Writers built on encoding/json pass their output through it,
// whole or in pieces cut where PieceEnd cuts; a string AppendQuote wrote
// is left as it is.
func AppendSafe(dst, j []byte) []byte {
	for {
		m := CIMarker(j)
		if m < 0 {
			return appendSafe(dst, j)
		}
		dst = append(appendSafe(dst, j[:m]), markerEscape...)
		j = j[m+1:]
	}
}

func appendSafe(dst, j []byte) []byte {
	start := 0
	for i := 0; i < len(j); {
		for i+8 <= len(j) {
			w := uint64(j[i]) | uint64(j[i+1])<<8 | uint64(j[i+2])<<16 | uint64(j[i+3])<<24 |
				uint64(j[i+4])<<32 | uint64(j[i+5])<<40 | uint64(j[i+6])<<48 | uint64(j[i+7])<<56
			if m := delOrHigh(w); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(j) {
			break
		}
		if j[i] < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRune(j[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, j[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == 0x7f || HiddenRune(r):
			dst = append(dst, j[start:i]...)
			dst = appendRuneEscape(dst, r)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, j[start:]...)
}

const hexDigits = "0123456789abcdef"
