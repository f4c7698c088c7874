package jsonscan

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzUnquoteSized holds UnquoteSized to Unquote's bytes, in room of
// exactly their length whenever the string is valid UTF-8: a buffer
// sized short grows by a copy of itself, one sized long keeps the rest.
func FuzzUnquoteSized(f *testing.F) {
	for _, s := range []string{
		`""`, `"abc"`, `"a\"b\\c\/d\n\t\r\b\f"`, `"\u00e9\u20ac\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`,
		`"\ude00\ud83d"`, `"\u12"`, `"\uzzzz"`, `"x\"`, `"é€😀"`, "\"\xff\xfe\"", `"{\"a\":\"` + strings.Repeat(`b\\\"`, 50) + `\"}"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v := append(append([]byte{'"'}, b...), '"')
		got, want := UnquoteSized(v), Unquote(nil, v)
		if !bytes.Equal(got, want) {
			t.Fatalf("UnquoteSized(%q) = %q; want %q", v, got, want)
		}
		if Validate(v) == nil && utf8.Valid(b) && cap(got) != len(got) {
			t.Fatalf("UnquoteSized(%q): %d bytes in room for %d; want it exact", v, len(got), cap(got))
		}
	})
}
