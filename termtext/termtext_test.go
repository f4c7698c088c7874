package termtext

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// ciCommand finds what a CI runner obeys anywhere in a line of its log.
var ciCommand = regexp.MustCompile(`##[#A-Za-z]*\[`)

func TestSafe(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"héllo ✓", "héllo ✓"},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"a\nb\r\tc", `a\nb\r\tc`},
		{"\xff\xfe", `\xff\xfe`},
		{"\u009b31m", `\u{9b}31m`},
		{"abc\u202edcba", `abc\u{202e}dcba`},
		{"nul\x00", `nul\x00`},
		{"del\x7f", `del\x7f`},
		{"bom\ufeff sep\u2028", `bom\u{feff} sep\u{2028}`},
		// CI log commands: a marker anywhere, "::" at the start.
		{"x ##[error]forged", `x ##\x5berror]forged`},
		{"##vso[task.setvariable variable=x]1 ##teamcity[message]", `##vso\x5btask.setvariable variable=x]1 ##teamcity\x5bmessage]`},
		{"é ##[warning]", `é ##\x5bwarning]`},
		{"::error::forged", `\x3a:error::forged`},
		{"  \u00a0\u3000::warning title=x::y", "  \u00a0\u3000\\x3a:warning title=x::y"},
		{"\n::error::x", `\n::error::x`}, // the escaped break starts it: no command
		{"a::b ## heading [x] #[ :: ##1[", "a::b ## heading [x] #[ :: ##1["},
		{":x :", ":x :"},
	}
	for _, tt := range tests {
		if got := Safe(tt.in); got != tt.want {
			t.Errorf("Safe(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestEscapesAreSafes: the escapes another renderer builds one byte or
// rune at a time (the inspector's document layout) are the ones Safe
// shows.
func TestEscapesAreSafes(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		b := byte(c)
		if b < 0x80 && !Escaped(rune(b)) {
			continue
		}
		if got, want := EscapeByte(b), Safe(string([]byte{b})); got != want {
			t.Errorf("EscapeByte(%#x) = %q; Safe shows %q", b, got, want)
		}
	}
	for _, r := range []rune{0x80, 0x9f, 0x200e, 0x202e, 0x2066, 0x2028, 0xfeff} {
		if !Escaped(r) {
			t.Errorf("Escaped(%U) = false", r)
		}
		if got, want := EscapeRune(r), Safe(string(r)); got != want {
			t.Errorf("EscapeRune(%U) = %q; Safe shows %q", r, got, want)
		}
	}
	for _, r := range []rune{' ', 'a', '~', 0xa0, 'é', '✓', 0x1f600} {
		if Escaped(r) {
			t.Errorf("Escaped(%U) = true; it is printable", r)
		}
	}
}

func FuzzSafe(f *testing.F) {
	for _, s := range []string{"a", "\x1b[31m", "\xff", "\u009b", "\u202e", "##[error]", " ::x", "#\x00#["} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Safe(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Safe(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if Escaped(r) {
				t.Fatalf("Safe(%q) let %U through", s, r)
			}
		}
		if ciCommand.MatchString(out) || strings.HasPrefix(strings.TrimLeftFunc(out, unicode.IsSpace), "::") {
			t.Fatalf("Safe(%q) = %q holds a CI log command", s, out)
		}
	})
}
