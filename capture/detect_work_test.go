package capture

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestDetectWorkIsLinear: detecting the format of an input that starts
// with what cannot tell it yet (blank space, blank lines, a long line)
// looks at each byte about once, however many reads bring it. It looked
// at all the bytes so far after every read: 100 MB of newlines in 256 KiB
// reads took 20x as long as with --format (quadratic). The work is counted
// by the detector, not timed; the format found is DetectFormat's on the
// whole input.
func TestDetectWorkIsLinear(t *testing.T) {
	t.Parallel()
	const n = 1 << 20
	big := func(s string) string { return strings.Repeat(s, n/len(s)) }
	cases := []struct {
		name string
		in   string
		want Format
	}{
		{"newlines", big("\n"), FormatSSE},
		{"spaces", big(" "), FormatSSE},
		{"blank lines then SSE", big("\r\n") + "data: {}\n\n", FormatSSE},
		{"blank lines then JSON lines", big("\n") + "{\"a\":1}\n{\"b\":2}\n", FormatJSONL},
		{"a long first line", "{\"a\":\"" + big("x") + "\"}\n", FormatJSONL},
		{"a broken first line, then blank lines", "{\"a\":\n" + big(" \n") + "{\"b\":2}\n", FormatJSONL},
		{"a broken first line, then a long one", "{\"a\":\n{\"b\":\"" + big("y") + "\"}\n", FormatJSONL},
		{"a document with blank lines", "{\n" + big("\n") + "\"a\": 1}\n", FormatJSON},
	}
	for _, c := range cases {
		fr := NewFramer(FormatAuto)
		in := []byte(c.in)
		for p := in; len(p) > 0; {
			k := min(len(p), 4096)
			fr.Feed(p[:k], NoTime, func(*Frame) {})
			p = p[k:]
		}
		fr.Finish(NoTime, func(*Frame) {})
		if fr.Format() != c.want || DetectFormat(in) != c.want {
			t.Errorf("%s: detected %v (DetectFormat %v); want %v", c.name, fr.Format(), DetectFormat(in), c.want)
		}
		if work := fr.det.looked; work > 2*len(in) {
			t.Errorf("%s: detection looked at %d bytes of a %d-byte input (%.0fx); want each about once", c.name, work, len(in), float64(work)/float64(len(in)))
		}
	}
}

// BenchmarkDetectBlankStart frames 16 MiB of newlines in 256 KiB reads,
// the size Source reads: the cost of detecting the format of an input
// whose start tells nothing yet. scripts/bench-detect.sh holds it against
// --format on 100 MB.
func BenchmarkDetectBlankStart(b *testing.B) {
	in := bytes.Repeat([]byte("\n"), 16<<20)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		fr := NewFramer(FormatAuto)
		for p := in; len(p) > 0; {
			k := min(len(p), readChunk)
			fr.Feed(p[:k], time.Duration(0), func(*Frame) {})
			p = p[k:]
		}
		fr.Finish(NoTime, func(*Frame) {})
	}
}
