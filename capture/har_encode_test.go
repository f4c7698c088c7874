package capture

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// harEntryLine writes one entry of in, fed in pieces of step bytes (0:
// whole) at times 1 ms apart, through a HAR to a buffer, and returns the
// entry's line.
func harEntryLine(t *testing.T, x *Exchange, in []byte, step int, timed bool) []byte {
	t.Helper()
	now := func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) }
	var w bytes.Buffer
	h := NewHAR(&w, HAROptions{Now: now, Version: "t"})
	e := h.Entry(x)
	feed(in, step, timed, e.Write)
	if err := e.Close(at(len(in), timed)); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	out := w.Bytes()
	i := bytes.Index(out, []byte("\n"+harFirst))
	if i < 0 || !bytes.HasSuffix(out, []byte(harTail)) {
		t.Fatalf("no entry in %q", out)
	}
	return out[i+1+len(harFirst) : len(out)-len(harTail)]
}

// legacyBytes is the same entry as the writer wrote it before.
func legacyBytes(x *Exchange, in []byte, step int, timed bool) []byte {
	e := newLegacyEntry(x, HAROptions{Now: func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) }})
	feed(in, step, timed, e.Write)
	return e.encoded(at(len(in), timed))
}

func at(i int, timed bool) time.Duration {
	if !timed {
		return NoTime
	}
	return time.Duration(i) * time.Millisecond
}

func feed(in []byte, step int, timed bool, write func([]byte, time.Duration) error) {
	if step <= 0 {
		step = max(len(in), 1)
	}
	for i := 0; i < len(in); i += step {
		_ = write(in[i:min(i+step, len(in))], at(i, timed))
	}
}

// TestHAREntryBytesAsBefore: an entry encoded as it is read is byte for
// byte the one encoding/json wrote of the whole entry at its end, for
// every sample and shape of body: SSE, JSON, binary event streams,
// recordings and `curl -i` output, bodies that stop being UTF-8 part
// way or end inside a rune, every character JSON escapes, timed and
// untimed, whole and a few bytes at a time.
func TestHAREntryBytesAsBefore(t *testing.T) {
	t.Parallel()
	inputs := map[string][]byte{
		"escapes":        []byte("data: {\"s\":\"\\\"<>&\x00\x01\x08\x0c\x1f\x7f\u2028\u2029é€😀\"}\r\n\r\ndata: \t x\n\n"),
		"utf8 then not":  []byte("data: é€😀\n\n" + strings.Repeat("data: x\n\n", 3) + "data: \xff\xfe\n\n"),
		"ends in a rune": []byte("data: x\n\ndata: \xe2\x82"),
		"invalid event":  []byte("event: \xc3\x28\nid: \xed\xa0\x80\ndata: \xf0\x28\x8c\xbc\n\n"),
		"curl -i":        []byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nAuthorization: Bearer sk-x\r\n\r\ndata: {\"a\":1}\n\n"),
		"json":           []byte(`{"id":"x","choices":[{"message":{"content":"hi <b>"}}]}`),
		"ndjson":         []byte("{\"a\":1}\n{\"b\":2}\n"),
		"empty":          nil,
	}
	for _, glob := range []string{"../samples/*.sse", "../samples/*.eventstream", "testdata/import/*"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				inputs[filepath.Base(p)] = b
			}
		}
	}
	var rec bytes.Buffer
	rx := &Exchange{Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Method: "POST", URL: "https://api.test/v1/messages?key=k",
		Status: 200, ResponseHeader: http.Header{"Content-Type": {"text/event-stream"}}, HeadAt: 100 * time.Millisecond, Error: "cut"}
	r := NewRecorder(&rec, rx, RecordOptions{Format: FormatSSE})
	_ = r.Write([]byte("event: a\ndata: {\"type\":\"a\"}\n\n"), 700*time.Millisecond)
	_ = r.Write([]byte("data: \xff\n\n"), 800*time.Millisecond)
	_ = r.Close(900 * time.Millisecond)
	inputs["recording"] = rec.Bytes()
	x := &Exchange{Started: time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC), Method: "POST", URL: "https://api.test/v1/responses",
		RequestHeader: http.Header{"X-Api-Key": {"k"}}, RequestBody: []byte(`{"model":"m","input":"<&>"}`), Status: 200,
		ResponseHeader: http.Header{"Content-Type": {"text/event-stream"}}, HeadAt: 5 * time.Millisecond}
	for name, in := range inputs {
		for _, ex := range []*Exchange{nil, x} {
			for _, step := range []int{0, 1, 3, 7} {
				for _, timed := range []bool{false, true} {
					if step == 1 && len(in) > 20000 {
						continue
					}
					got, want := harEntryLine(t, ex, in, step, timed), legacyBytes(ex, in, step, timed)
					if !bytes.Equal(got, want) {
						t.Errorf("%s (exchange %v, step %d, timed %v):\n got %s\nwant %s", name, ex != nil, step, timed, got, want)
					}
				}
			}
		}
	}
}

// FuzzHAREntry holds the writer to the one before on any input, fed in
// any pieces.
func FuzzHAREntry(f *testing.F) {
	f.Add([]byte("data: é\n\ndata: \xff\n\n"), 3, true)
	f.Add([]byte("HTTP/1.1 200 OK\r\n\r\ndata: \u2028\n\n"), 1, false)
	f.Add([]byte("data: x\n\ndata: \xe2\x82"), 2, true)
	f.Fuzz(func(t *testing.T, in []byte, step int, timed bool) {
		if len(in) > 4096 {
			return
		}
		step = step%16 + 1
		if got, want := harEntryLine(t, nil, in, step, timed), legacyBytes(nil, in, step, timed); !bytes.Equal(got, want) {
			t.Errorf("%q (step %d, timed %v):\n got %s\nwant %s", in, step, timed, got, want)
		}
	})
}

// appendJSONString and appendJSONFloat write what encoding/json writes.
func TestJSONAppendersAsEncodingJSON(t *testing.T) {
	t.Parallel()
	strs := []string{"", "plain", "\"\\/<>&", "\x00\x01\x08\x09\x0a\x0c\x0d\x1f\x7f", "\u2028\u2029", "é€😀", "\xff", "\xe2\x82", "\xed\xa0\x80", "a\xc3"}
	for i := range 256 {
		strs = append(strs, string([]byte{byte(i)}), string([]byte{'x', byte(i), 0x80}))
	}
	for _, s := range strs {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got, want := string(appendJSONString(nil, []byte(s))), strings.TrimSuffix(b.String(), "\n"); got != want {
			t.Errorf("appendJSONString(%q) = %s; want %s", s, got, want)
		}
	}
	for _, f := range []float64{0, 1, -1, 1767323045.3, 1767323045.123456, 1e-7, 1e-6, 1e20, 1e21, 123456789e15, math.SmallestNonzeroFloat64, math.MaxFloat64, -2.5e-9} {
		want, _ := json.Marshal(f)
		if got := appendJSONFloat(nil, f); string(got) != string(want) {
			t.Errorf("appendJSONFloat(%v) = %s; want %s", f, got, want)
		}
	}
}

// A body is content.text while it is UTF-8 and base64 from its first
// byte that is not, whatever the pieces it arrives in: the harBody's
// text decodes to the body.
func TestHARBodyPieces(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"abc é€😀 \u2028 \"q\"", "é€😀\xff", "😀\xf0\x9f", "\xf0\x9f\x98", strings.Repeat("é", 70000) + "\xff" + strings.Repeat("x", 10)} {
		for step := 1; step <= 9; step++ {
			var b harBody
			for i := 0; i < len(body); i += step {
				b.add([]byte(body[i:min(i+step, len(body))]))
			}
			b.finish()
			text := b.text.appendTo(nil, 0, b.text.len())
			want := []byte(body)
			if utf8.ValidString(body) {
				var s string
				if err := json.Unmarshal(append(append([]byte{'"'}, text...), '"'), &s); err != nil || s != body || b.b64 {
					t.Errorf("%q step %d: text %q (base64 %v)", body, step, text, b.b64)
				}
				continue
			}
			got, err := decodeBase64(string(text))
			if !b.b64 || err != nil || !bytes.Equal(got, want) || b.size != int64(len(body)) {
				t.Errorf("%q step %d: base64 %v, %q decodes to %q (%v)", body[:min(len(body), 40)], step, b.b64, text[:min(len(text), 40)], got[:min(len(got), 40)], err)
			}
		}
	}
}
