package ui

import "testing"

func TestSafe(t *testing.T) {
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
	}
	for _, tt := range tests {
		if got := Safe(tt.in); got != tt.want {
			t.Errorf("Safe(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzSafe(f *testing.F) {
	for _, s := range []string{"a", "\x1b[31m", "\xff", "\u009b", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Safe(s) {
			if r < 0x20 || r == 0x7f || unsafeRune(r) {
				t.Fatalf("Safe(%q) let %U through", s, r)
			}
		}
	})
}
