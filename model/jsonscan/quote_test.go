package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// encodingJSON is what encoding/json writes for v with HTML escaping off.
func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// hidden lists, apart from the code, the runes a JSON document of
// streamtap never holds raw beyond what encoding/json escapes: DEL, the
// C1 controls, the bidi marks, embeddings, overrides and isolates, and
// the byte order mark.
func hidden(r rune) bool {
	return r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x200e || r == 0x200f ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0xfeff
}

// withExtraEscapes is the oracle: encoding/json's text j with each hidden
// rune escaped as \uXXXX, and the "[" of each CI log command marker
// ("##[", "##vso[", "##teamcity[", any "##", letters and "[") as \u005b.
// j is UTF-8 (encoding/json replaced the rest).
func withExtraEscapes(j []byte) []byte {
	var out []byte
	for _, r := range string(j) {
		if hidden(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = utf8.AppendRune(out, r)
		}
	}
	return ciMarker.ReplaceAllFunc(out, func(m []byte) []byte {
		return append(m[:len(m)-1:len(m)-1], `\u005b`...)
	})
}

var ciMarker = regexp.MustCompile(`##[#A-Za-z]*\[`)

// rawHidden reports the first raw control, DEL or hidden rune in a JSON
// text, or -1.
func rawHidden(j []byte) int {
	for i, r := range string(j) {
		if r < 0x20 || hidden(r) || r == 0x2028 || r == 0x2029 || r == utf8.RuneError {
			return i
		}
	}
	return -1
}

var quoteSeeds = []string{
	"", "plain ascii, longer than one word", `"quoted" and \back\slashed`,
	"\x00\x01\b\f\n\r\t\x1f\x7f", "<html> & 'single'", "é€𝄞 multi-byte",
	"\u2028 and \u2029 separators", "bad \xff utf-8 \xc3", "cut rune \xe2\x82",
	"\xed\xa0\x80 surrogate half", strings.Repeat("0123456789abcdef", 9) + "\n",
	"8-bit CSI \u009b31m and NEL \u0085, raw \x9b", "abcdefg\x7fhijklmn DEL inside a word",
	"bidi \u202eevil\u202c \u2066iso\u2069 \u200e\u200f and BOM \ufeff", "\u00a0 and \u00ff are printable",
	"\xff\xff\xff\xff\xff\xff\xff\x7f carry into DEL",
	"##[error]forged ##vso[task.setvariable]x ##teamcity[message] ###[ ##a##[ ## [ #[ ##", "##[##[##[",
	"markdown ## heading [link] # and ##word without", "# # [ ##1[",
}

func quoteSame(t *testing.T, s string) {
	t.Helper()
	want := withExtraEscapes(encodingJSON(t, s))
	if got := AppendQuote(nil, s); !bytes.Equal(got, want) {
		t.Fatalf("AppendQuote(%q) = %s; encoding/json with the extra escapes writes %s", s, got, want)
	}
	if got := AppendQuote([]byte("x"), []byte(s)); !bytes.Equal(got[1:], want) {
		t.Fatalf("AppendQuote([]byte %q) = %s; encoding/json with the extra escapes writes %s", s, got[1:], want)
	}
	if i := rawHidden(want); i >= 0 {
		t.Fatalf("AppendQuote(%q) = %s holds a raw hidden character at %d", s, want, i)
	}
	var back string
	if err := json.Unmarshal(want, &back); err != nil || back != string(eachInvalidByte([]byte(s))) {
		t.Fatalf("AppendQuote(%q) = %s decodes to %q, %v", s, want, back, err)
	}
	// Pieces cut where PieceEnd cuts escape to the same bytes, whatever
	// their size.
	for n := range 6 {
		var pieces []byte
		for rest := s; len(rest) > 0; {
			cut := PieceEnd(rest, n)
			if cut == 0 {
				t.Fatalf("PieceEnd(%q, %d) = 0", rest, n)
			}
			pieces = AppendEscaped(pieces, rest[:cut])
			rest = rest[cut:]
		}
		if !bytes.Equal(pieces, want[1:len(want)-1]) {
			t.Fatalf("AppendEscaped in pieces of %d bytes of %q = %s; want %s", n, s, pieces, want[1:len(want)-1])
		}
	}
	// encoding/json's text made safe is the same text.
	if got := AppendSafe(nil, encodingJSON(t, s)); !bytes.Equal(got, want) {
		t.Fatalf("AppendSafe(encoding/json of %q) = %s; want %s", s, got, want)
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
	for _, r := range []rune{0x200d, 0x200e, 0x200f, 0x2010, 0x2027, 0x202a, 0x202e, 0x202f, 0x2065, 0x2066, 0x2069, 0x206a, 0xfefe, 0xfeff, 0xff00} {
		quoteSame(t, "a"+string(r)+"bcdefghijk")
	}
}

func FuzzAppendQuote(f *testing.F) {
	for _, s := range quoteSeeds {
		f.Add(s)
	}
	f.Fuzz(quoteSame)
}

// TestAppendSafe: a document encoding/json wrote, raw messages with
// invalid UTF-8 and hidden runes included, comes out valid, with no raw
// hidden character, and decodes to the same value as the document with
// its invalid bytes read as U+FFFD.
func TestAppendSafe(t *testing.T) {
	for _, s := range quoteSeeds {
		raw := json.RawMessage(`{"k` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `":["x\u0085",1]}`)
		if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 }) {
			continue // not a raw message encoding/json would take
		}
		doc := encodingJSON(t, map[string]any{"raw": raw, "s": s})
		safeJSON(t, doc)
	}
	// A raw message with bytes that are not UTF-8: encoding/json passes
	// them through.
	doc := encodingJSON(t, map[string]any{"raw": json.RawMessage("{\"a\xff\x9b\":\"\xc2\x9b[2J\u202e\x7f\"}")})
	if utf8.Valid(doc) {
		t.Fatalf("encoding/json no longer passes invalid UTF-8 through: %q", doc)
	}
	got := safeJSON(t, doc)
	if want := `{"raw":{"a\ufffd\ufffd":"\u009b[2J\u202e\u007f"}}`; string(got) != want {
		t.Errorf("AppendSafe(%q) = %s; want %s", doc, got, want)
	}
}

func safeJSON(t *testing.T, doc []byte) []byte {
	t.Helper()
	got := AppendSafe([]byte("prefix"), doc)[len("prefix"):]
	if !json.Valid(got) || !utf8.Valid(got) {
		t.Fatalf("AppendSafe(%q) = %q: not JSON", doc, got)
	}
	if i := rawHidden(got); i >= 0 {
		t.Fatalf("AppendSafe(%q) = %q: raw hidden character at %d", doc, got, i)
	}
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(eachInvalidByte(doc), &b); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("AppendSafe(%q) = %q decodes to %v; the document decodes to %v", doc, got, a, b)
	}
	return got
}

// eachInvalidByte replaces each byte of j that is not UTF-8 with U+FFFD,
// as encoding/json reads it.
func eachInvalidByte(j []byte) []byte {
	var out []byte
	for len(j) > 0 {
		r, n := utf8.DecodeRune(j)
		out, j = utf8.AppendRune(out, r), j[n:]
	}
	return out
}

func BenchmarkAppendQuote(b *testing.B) {
	s := []byte(strings.Repeat(`{\"location\":\"Paris, France\",\"unit\":\"celsius\"}`, 4))
	var dst []byte
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = AppendQuote(dst[:0], s)
	}
}

func BenchmarkAppendSafe(b *testing.B) {
	s := []byte(strings.Repeat(`{"location":"Paris, France","unit":"celsius","note":"é"}`, 4))
	var dst []byte
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = AppendSafe(dst[:0], s)
	}
}
