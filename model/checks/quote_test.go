package checks

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// quoteWhole and quoteBytesWhole are Quote and QuoteBytes as they were,
// converting the whole value: what the bounded ones must write.
func quoteWhole(v string) string {
	r := []rune(v)
	if len(r) > maxQuoted {
		return fmt.Sprintf("%q… (%d bytes)", string(r[:maxQuoted]), len(v))
	}
	return fmt.Sprintf("%q", v)
}

func quoteBytesWhole(b []byte) string {
	return quoteWhole(string(bytes.ToValidUTF8(b, []byte("\uFFFD"))))
}

// FuzzQuote holds Quote, QuoteView and QuoteBytes to the messages of the
// whole conversion, whatever the bytes: runes cut at the head's end,
// runs of invalid bytes across it, values of every length around it.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{
		"", "x", strings.Repeat("x", maxQuoted), strings.Repeat("x", maxQuoted+1),
		strings.Repeat("é", 200), strings.Repeat("😀", 62), strings.Repeat("\xff", 300),
		strings.Repeat("x", quotedHead-1) + "😀" + strings.Repeat("y", 10),
		strings.Repeat("😀", 60) + "\xf0\x9f" + strings.Repeat("x", 20),
		strings.Repeat("a\xff", 100) + strings.Repeat("\xfe", 400) + "z",
		strings.Repeat("x", 58) + strings.Repeat("\xff", 400) + "abc",
		"\xef\xbf\xbd" + strings.Repeat("\x80", 250) + "\U0010FFFF",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Quote(string(b)), quoteWhole(string(b)); got != want {
			t.Fatalf("Quote(%q) = %s; want %s", b, got, want)
		}
		if got, want := QuoteView(b), quoteWhole(string(b)); got != want {
			t.Fatalf("QuoteView(%q) = %s; want %s", b, got, want)
		}
		if got, want := QuoteBytes(b), quoteBytesWhole(b); got != want {
			t.Fatalf("QuoteBytes(%q) = %s; want %s", b, got, want)
		}
	})
}

// A finding quotes a value of any size in about what its message shows.
// Quote made a rune of every byte (4 bytes each) and QuoteBytes copied
// the value first: a 50 MB call whose arguments were no JSON cost 250 MB
// at the end of its session, a 50 MB event that was no JSON as much. Not
// parallel: it counts the process's allocations.
func TestQuoteAllocatesWhatItShows(t *testing.T) {
	big := bytes.Repeat([]byte("{\"a\":\"é"), 4<<20/8)
	s := string(big)
	for _, c := range []struct {
		name  string
		quote func() string
	}{
		{"Quote", func() string { return Quote(s) }},
		{"QuoteView", func() string { return QuoteView(big) }},
		{"QuoteBytes", func() string { return QuoteBytes(big) }},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := c.quote()
		runtime.ReadMemStats(&after)
		if want := quoteWhole(s); got != want {
			t.Fatalf("%s = %s; want %s", c.name, got, want)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
			t.Errorf("%s of %d MiB allocated %d KiB; want what the message shows (at most 64 KiB)", c.name, len(big)>>20, n>>10)
		}
	}
}
