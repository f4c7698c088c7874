package capture

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"testing"
	"time"

	"github.com/streamtap/streamtap/samples"
)

// bodyInputs are event stream and JSON lines bodies, sound and damaged,
// for the timed recording tests.
func bodyInputs(t testing.TB) map[string]struct {
	in    []byte
	ctype string
} {
	t.Helper()
	a, b := esEvent("messageStart", `{"role":"assistant"}`), esEvent("messageStop", `{"stopReason":"end_turn"}`)
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	flip := func(msg []byte, at int) []byte {
		c := bytes.Clone(msg)
		c[at] ^= 0x20
		return c
	}
	short := make([]byte, 12)
	binary.BigEndian.PutUint32(short, 12)
	binary.BigEndian.PutUint32(short[8:], crc32.ChecksumIEEE(short[:8]))
	const es, nd, ds = EventStreamContentType, "application/x-ndjson", dataStreamType
	out := map[string]struct {
		in    []byte
		ctype string
	}{
		"es sound":             {join(a, b, a), es},
		"es payload corrupted": {join(flip(a, len(a)-6), b), es},
		"es length corrupted":  {join(a, flip(a, 3), b), es},
		"es garbage between":   {join(a, []byte("\x00garbage\x00\x01"), b), es},
		"es impossible length": {join(short, b), es},
		"es cut in prelude":    {join(a, b[:7]), es},
		"es cut in payload":    {join(a, b[:len(b)-9]), es},
		"es garbage to end":    {join(a, []byte("\x00\x00\x00\x10garbage that never ends")), es},
		"es a colon after":     {join(a, []byte(": t=1\n"), b), es}, // a stream's own bytes, not a timing line
		"nd lines":             {[]byte("{\"a\":1}\n{\"b\":2}\n"), nd},
		"nd crlf":              {[]byte("{\"a\":1}\r\n{\"b\":2}\r\n"), nd},
		"nd blank lines":       {[]byte("{\"a\":1}\n\n\n{\"b\":2}\n\n"), nd},
		"nd no newline":        {[]byte("{\"a\":1}\n{\"b\":2}"), nd},
		"nd invalid line":      {[]byte("{\"a\":1}\n{\"cut\n{\"b\":2}\n"), nd},
		"ds lines":             {[]byte("f:{\"messageId\":\"m\"}\n0:\"Hi\"\n2:[1]\nd:{\"finishReason\":\"stop\"}\n"), ds},
		"ds no separator":      {[]byte("0:\"a\"\nno separator\n\n3:\"err\""), ds},
		"ds a colon after":     {[]byte("0:\"a\"\n: t=1\n0:\"b\"\n"), ds}, // a line of the stream, not a timing line
	}
	for _, name := range []string{"bedrock-converse-text-then-tool", "bedrock-invoke-claude-tool", "ollama-chat-tool-calls"} {
		data, err := samples.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		ctype := es
		if name == "ollama-chat-tool-calls" {
			ctype = nd
		}
		out["sample "+name] = struct {
			in    []byte
			ctype string
		}{data, ctype}
	}
	return out
}

// dataStreamType stands, in bodyInputs, for the AI SDK's data stream,
// whose head says what it is by a header of its own (bodyHead).
const dataStreamType = "text/plain; charset=utf-8"

// bodyHead is the response head of a body of bodyInputs: its Content-Type,
// and the data stream's header for a data stream.
func bodyHead(ctype string) http.Header {
	h := http.Header{"Content-Type": {ctype}}
	if ctype == dataStreamType {
		h.Set(DataStreamHeader, "v1")
	}
	return h
}

// TestRecordingTimesBinaryBody: a recording of an event stream or JSON
// lines body keeps each message's (or line's) arrival time, and reads
// back as the same frames, each at its time, whatever the reads; the
// body comes back byte for byte. Messages whose prelude fails, a stream
// cut short and a last line without its newline carry no time: they take
// the one before. A recording read from stdin (no head: the body's
// format told by its bytes) does the same.
func TestRecordingTimesBinaryBody(t *testing.T) {
	t.Parallel()
	for name, tt := range bodyInputs(t) {
		for _, head := range []bool{true, false} {
			x := sseExchange()
			x.ResponseHeader = bodyHead(tt.ctype)
			format := HeadFormat(x.ResponseHeader) // as the proxy records a body
			if !head {
				x, format = nil, FormatAuto // as --save-timed records stdin
			}
			for _, n := range []int{1, 7, 64, 1 << 20} {
				rec, want := record(t, x, RecordOptions{Format: format}, tt.in, n)
				got := readBack(t, rec, FormatAuto)
				if head {
					if len(got) == 0 || got[0].Kind != FrameHead {
						t.Fatalf("%s/%d: first frame %+v; want the head", name, n, got)
					}
				} else if len(got) == 0 || got[0].Kind != FrameComment {
					t.Fatalf("%s/%d (stdin): first frame %+v; want the header comment", name, n, got)
				}
				got = got[1:]
				if len(got) != len(want) {
					t.Fatalf("%s/%d: %d frames; want %d\n%q", name, n, len(got), len(want), rec)
				}
				last := NoTime // a stdin recording has no head, and no time before the body's
				if head {
					last = x.HeadAt
				}
				for i := range want {
					g, w := got[i], want[i]
					untimed := w.Kind != FrameEvent || w.Flags&(PreludeCRC|BadLength|Truncated|NoNewline) != 0
					if untimed {
						w.At = last
					}
					if g != w {
						t.Fatalf("%s/%d frame %d = %+v; want %+v\n%q", name, n, i, g, w, rec)
					}
					last = g.At
				}
				parsed, err := ParseRecording(rec)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(parsed.Bytes(), tt.in) {
					t.Fatalf("%s/%d: ParseRecording body = %q; want %q", name, n, parsed.Bytes(), tt.in)
				}
				wantFormat := HeadFormat(bodyHead(tt.ctype))
				if !head {
					wantFormat = NewFramer(FormatAuto).detectAll(tt.in)
				}
				if parsed.Format != wantFormat || len(parsed.Body) != len(want) {
					t.Fatalf("%s/%d: format %v, %d chunks; want %v, one a frame (%d)", name, n, parsed.Format, len(parsed.Body), wantFormat, len(want))
				}
			}
		}
	}
}

// TestRecordingBinaryBodyUntimed: a recording whose event stream or JSON
// lines body was written verbatim, as streamtap wrote them before it
// timed them, still reads as its frames, each at the head's time.
func TestRecordingBinaryBodyUntimed(t *testing.T) {
	t.Parallel()
	for name, tt := range bodyInputs(t) {
		if name == "es a colon after" || name == "ds a colon after" {
			continue // its own ": t=1" line after a message reads as that message's time
		}
		x := sseExchange()
		x.ResponseHeader = bodyHead(tt.ctype)
		rec, _ := record(t, x, RecordOptions{Format: FormatJSON}, tt.in, 64) // verbatim
		want := feedTimed(HeadFormat(x.ResponseHeader), tt.in, 64, nil)
		got := readBack(t, rec, FormatAuto)[1:]
		if len(got) != len(want) {
			t.Fatalf("%s: %d frames; want %d", name, len(got), len(want))
		}
		for i := range want {
			w := want[i]
			w.At = x.HeadAt
			if got[i] != w {
				t.Fatalf("%s frame %d = %+v; want %+v", name, i, got[i], w)
			}
		}
	}
}

// TestRecordingBodyTimingLines: the timing lines sit where the reader
// looks for them: after each sound message and each whole line.
func TestRecordingBodyTimingLines(t *testing.T) {
	t.Parallel()
	a := esEvent("metadata", "{}")
	x := sseExchange()
	x.ResponseHeader = http.Header{"Content-Type": {EventStreamContentType}}
	var buf bytes.Buffer
	r := NewRecorder(&buf, x, RecordOptions{Format: FormatEventStream})
	_ = r.Write(append(bytes.Clone(a), a[:5]...), 2*time.Millisecond)
	_ = r.Write(a[5:], 5*time.Millisecond)
	_ = r.Close(6 * time.Millisecond)
	_, body, _ := bytes.Cut(buf.Bytes(), []byte("\n\n"))
	want := string(a) + ": t=0.002000\n" + string(a) + ": t=0.005000\n"
	if string(body) != want {
		t.Errorf("body %q; want %q", body, want)
	}
}

// detectAll is the format fr tells for the whole input b.
func (fr *Framer) detectAll(b []byte) Format {
	fr.Feed(b, 0, func(*Frame) {})
	fr.Finish(0, func(*Frame) {})
	return fr.Format()
}

// TestHARFromTimedBody: --save-har of a recording whose event stream or
// JSON lines body is timed writes the body as received, its timing lines
// left out.
func TestHARFromTimedBody(t *testing.T) {
	t.Parallel()
	for name, tt := range bodyInputs(t) {
		x := sseExchange()
		x.ResponseHeader = bodyHead(tt.ctype)
		rec, _ := record(t, x, RecordOptions{Format: HeadFormat(x.ResponseHeader)}, tt.in, 7)
		var w bytes.Buffer
		h := NewHAR(&w, HAROptions{})
		src := FromReader("rec", SourceFile, bytes.NewReader(rec), false)
		src.Record(h.Entry(nil))
		if err := src.Read(t.Context(), ReadOptions{}, func(*Frame) error { return nil }); err != nil {
			t.Fatal(err)
		}
		h.Close()
		if got := readHARBack(t, &w).Entries[0].Bytes(); !bytes.Equal(got, tt.in) {
			t.Errorf("%s: HAR body %q; want %q", name, got, tt.in)
		}
	}
}
