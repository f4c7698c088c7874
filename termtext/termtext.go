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
	"unicode"
	"unicode/utf8"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// Safe makes untrusted text printable: control characters, escape
// sequences, C1 controls, bidi overrides and invalid UTF-8 are shown as
// escapes (EscapeByte, EscapeRune), so the text can never move the
// cursor, retitle the window or clear the screen. Printable text,
// including non-ASCII, is kept.
//
// It also keeps the text from writing a command into the log of a CI job
// that shows it (a recording's name or content comes from a pull
// request): the "[" of a CI command marker anywhere ("##[", "##vso[",
// "##teamcity[": jsonscan.CIMarker) is shown as \x5b, and a ":" that
// starts the text, after white space, when a second follows (a GitHub
// workflow command, "::error::…", is a line that starts so) as \x3a.
// With its line breaks escaped the text starts no line of its own, and a
// line that starts with it starts with no command.
func Safe(s string) string {
	if printableASCII(s) && !logCommand(s) {
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
	out := b.String()
	if logCommand(out) { // escapes hold no "#" and start with "\\": they never make one
		out = disarm(out)
	}
	return out
}

// logCommand says whether s holds what a CI runner would obey in a line of
// its log: a command marker, or a leading "::".
func logCommand(s string) bool {
	return jsonscan.CIMarker(s) >= 0 || colonStart(s) >= 0
}

// colonStart is the index of the ":" that starts s after white space (as
// the GitHub runner trims it: unicode.IsSpace is its list) when another
// ":" follows it, or -1.
func colonStart(s string) int {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	if strings.HasPrefix(t, "::") {
		return len(s) - len(t)
	}
	return -1
}

// disarm escapes the leading ":" and the "[" of each marker of s.
func disarm(s string) string {
	var b strings.Builder
	if i := colonStart(s); i >= 0 {
		b.WriteString(s[:i])
		b.WriteString(EscapeByte(':'))
		s = s[i+1:]
	}
	for {
		m := jsonscan.CIMarker(s)
		if m < 0 {
			break
		}
		b.WriteString(s[:m])
		b.WriteString(EscapeByte('['))
		s = s[m+1:]
	}
	b.WriteString(s)
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
// valid UTF-8 (and the ":" and "[" of a CI log command): \n, \r and \t for
// those three, \xNN for the others.
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
