// Package termtext makes untrusted text safe to print on a terminal: what
// a stream, a server or a command line sent is shown, never obeyed.
// Control characters, escape sequences, C1 controls, bidi overrides and
// invalid UTF-8 become visible escapes; printable text, non-ASCII
// included, is kept. The inspector, the headless commands, the proxy's
// log and every error line use it, so all of them escape alike.
//
// It knows nothing about terminals beyond that: no styles, no widths, no
// terminal library.
package termtext

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// Safe makes untrusted text printable: control characters, escape
// sequences, C1 controls, bidi overrides and invalid UTF-8 are shown as
// escapes (EscapeByte, EscapeRune), so the text can never move the
// cursor, retitle the window or clear the screen. Printable text,
// including non-ASCII, is kept.
func Safe(s string) string {
	if printableASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(EscapeByte(s[i]))
		case r < 0x80 && Escaped(r):
			b.WriteString(EscapeByte(byte(r)))
		case Escaped(r):
			b.WriteString(EscapeRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Escaped reports whether Safe shows the rune r as an escape: the C0
// controls and DEL, and the runes beyond ASCII that are invisible or
// reorder text (C1 controls, bidi marks, embeddings, overrides and
// isolates, line and paragraph separators, the byte order mark). The
// runes beyond ASCII are the ones the JSON outputs escape too
// (jsonscan.HiddenRune): one list for both.
func Escaped(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && jsonscan.HiddenRune(r)
}

// EscapeByte is how Safe shows a control byte or a byte that is not
// valid UTF-8: \n, \r and \t for those three, \xNN for the others.
func EscapeByte(c byte) string {
	switch c {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	const digits = "0123456789abcdef"
	return string([]byte{'\\', 'x', digits[c>>4], digits[c&0xf]})
}

// EscapeRune is how Safe shows an escaped rune beyond ASCII: \u{NNNN},
// its code point in hexadecimal.
func EscapeRune(r rune) string {
	return `\u{` + strconv.FormatInt(int64(r), 16) + `}`
}

// printableASCII is Safe's fast path: printable ASCII needs no work.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}
