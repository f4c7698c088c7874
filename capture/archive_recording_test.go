package capture

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestEntryWriteRecording: an archive's entry written as a recording reads
// back as the exchange it holds (request, status, headers but
// Content-Encoding, each event at its time), whether its body was timed,
// untimed or compressed.
func TestEntryWriteRecording(t *testing.T) {
	t.Parallel()
	events := []string{"data: {\"a\":1}\n\n", "data: {\"a\":2}\n\n", "data: [DONE]\n\n"}
	x := Exchange{Started: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC), Method: "POST", URL: "https://api.example.com/v1/chat/completions",
		RequestBody: []byte(`{"model":"m","stream":true}`), Proto: "HTTP/1.1", Status: 200, HeadAt: 10 * time.Millisecond,
		ResponseHeader: http.Header{"Content-Type": {"text/event-stream"}, "X-Request-Id": {"r-1"}}}
	var har bytes.Buffer
	h := NewHAR(&har, HAROptions{KeepSecrets: true})
	e := h.Entry(&x)
	for i, ev := range events {
		if err := e.Write([]byte(ev), time.Duration(i+1)*100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(400 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(strings.Join(events, "")))
	_ = zw.Close()

	timed, err := ReadArchive(har.Bytes(), FormatAuto, ArchiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	packed := x
	packed.ResponseHeader = http.Header{"Content-Type": {"text/event-stream"}, "Content-Encoding": {"gzip"}}
	compressed := Entry{Exchange: packed}
	compressed.packed, _ = packBody(gz.Bytes(), packed.ResponseHeader, newInflateBudget(ArchiveOptions{}))
	if compressed.packed == nil {
		t.Fatal("the gzipped body is not packed")
	}
	for _, tt := range []struct {
		name  string
		e     *Entry
		times bool
	}{{"timed HAR entry", &timed.Entries[0], true}, {"compressed body", &compressed, false}} {
		var b bytes.Buffer
		if err := tt.e.WriteRecording(&b, true); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		rec, err := ParseRecording(b.Bytes())
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.name, err, b.String())
		}
		if rec.Method != "POST" || rec.URL != x.URL || string(rec.RequestBody) != string(x.RequestBody) || rec.Status != 200 {
			t.Errorf("%s: exchange %s %s %s %d", tt.name, rec.Method, rec.URL, rec.RequestBody, rec.Status)
		}
		if rec.ResponseHeader.Get("Content-Encoding") != "" || rec.ResponseHeader.Get("Content-Type") != "text/event-stream" {
			t.Errorf("%s: response headers %v", tt.name, rec.ResponseHeader)
		}
		if got := string(rec.Bytes()); got != strings.Join(events, "") {
			t.Errorf("%s: body %q", tt.name, got)
		}
		if tt.times {
			if len(rec.Body) != len(events) {
				t.Fatalf("%s: %d chunks; want %d", tt.name, len(rec.Body), len(events))
			}
			for i, c := range rec.Body {
				if want := time.Duration(i+1) * 100 * time.Millisecond; c.At != want {
					t.Errorf("%s: event %d at %v; want %v", tt.name, i+1, c.At, want)
				}
			}
		}
	}
}
