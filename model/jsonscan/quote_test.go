package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// encodingJSON is what encoding/json writes for s with HTML escaping off.
func encodingJSON(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

var quoteSeeds = []string{
	"", "plain ascii, longer than one word", `"quoted" and \back\slashed`,
	"\x00\x01\b\f\n\r\t\x1f\x7f", "<html> & 'single'", "é€𝄞 multi-byte",
	"\u2028 and \u2029 separators", "bad \xff utf-8 \xc3", "cut rune \xe2\x82",
	"\xed\xa0\x80 surrogate half", strings.Repeat("0123456789abcdef", 9) + "\n",
}

func quoteSame(t *testing.T, s string) {
	t.Helper()
	want := encodingJSON(t, s)
	if got := AppendQuote(nil, s); !bytes.Equal(got, want) {
		t.Fatalf("AppendQuote(%q) = %s; encoding/json writes %s", s, got, want)
	}
	if got := AppendQuote([]byte("x"), []byte(s)); !bytes.Equal(got[1:], want) {
		t.Fatalf("AppendQuote([]byte %q) = %s; encoding/json writes %s", s, got[1:], want)
	}
	// Pieces cut at rune starts escape to the same bytes.
	var pieces []byte
	for rest := s; len(rest) > 0; {
		cut := min(len(rest), 5)
		for cut < len(rest) && !utf8.RuneStart(rest[cut]) {
			cut++
		}
		pieces = AppendEscaped(pieces, rest[:cut])
		rest = rest[cut:]
	}
	if !bytes.Equal(pieces, want[1:len(want)-1]) {
		t.Fatalf("AppendEscaped in pieces of %q = %s; want %s", s, pieces, want[1:len(want)-1])
	}
}

func TestAppendQuote(t *testing.T) {
	for _, s := range quoteSeeds {
		quoteSame(t, s)
	}
	for c := range 256 { // every byte alone, and inside a word
		quoteSame(t, string(rune(c)))
		quoteSame(t, string([]byte{byte(c)}))
		quoteSame(t, "abcdefg"+string([]byte{byte(c)})+"hijklmno")
	}
}

func FuzzAppendQuote(f *testing.F) {
	for _, s := range quoteSeeds {
		f.Add(s)
	}
	f.Fuzz(quoteSame)
}

func BenchmarkAppendQuote(b *testing.B) {
	s := []byte(strings.Repeat(`{\"location\":\"Paris, France\",\"unit\":\"celsius\"}`, 4))
	var dst []byte
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = AppendQuote(dst[:0], s)
	}
}
