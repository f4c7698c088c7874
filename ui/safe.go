package ui

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// Safe makes untrusted stream text printable: control characters, escape
// sequences, C1 controls, bidi overrides and invalid UTF-8 are shown as
// escapes, so a stream can never move the cursor, retitle the window or
// clear the screen. Printable text, including non-ASCII, is kept.
func Safe(s string) string {
	if safeAlready(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(byte(r)))
		case unsafeRune(r):
			b.WriteString(`\u{`)
			b.WriteString(strconv.FormatInt(int64(r), 16))
			b.WriteString(`}`)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// unsafeRune reports runes that are invisible or reorder text: C1
// controls, bidi marks, embeddings, overrides and isolates, line and
// paragraph separators, the byte order mark. They are the runes the JSON
// outputs escape too (jsonscan.HiddenRune): one list for both.
func unsafeRune(r rune) bool { return jsonscan.HiddenRune(r) }

// safeAlready is the fast path: printable ASCII needs no work.
func safeAlready(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}
