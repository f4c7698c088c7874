package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// chromeHAR builds a HAR entry the way Chrome exports one: timings in
// milliseconds, _eventSourceMessages with wall-clock seconds.
func chromeHAR(text string, msgs string) string {
	return `{"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": [
  {"startedDateTime": "2026-01-02T03:04:05.000Z", "time": 1500,
   "request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions", "httpVersion": "http/2.0",
     "headers": [{"name": ":authority", "value": "api.openai.com"}, {"name": "authorization", "value": "Bearer sk-secret"}],
     "postData": {"mimeType": "application/json", "text": "{\"model\":\"gpt-4o\",\"stream\":true}"}},
   "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0",
     "headers": [{"name": "content-type", "value": "text/event-stream; charset=utf-8"}, {"name": "set-cookie", "value": "a=b"}],
     "content": {"size": 0, "mimeType": "text/event-stream", "text": ` + text + `}},
   "timings": {"blocked": 2, "dns": -1, "connect": -1, "ssl": -1, "send": 1, "wait": 297, "receive": 1200},
   "_eventSourceMessages": ` + msgs + `},
  {"startedDateTime": "2026-01-02T03:04:04.000Z", "time": 20,
   "request": {"method": "GET", "url": "https://example.test/", "headers": []},
   "response": {"status": 200, "headers": [], "content": {"mimeType": "text/html", "text": "<html></html>"}},
   "timings": {"send": 0, "wait": 10, "receive": 10}}
]}}`
}

const chromeMessages = `[
  {"time": 1767323045.4, "eventName": "message", "eventId": "", "data": "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}"},
  {"time": 1767323045.9, "eventName": "message", "eventId": "7", "data": "[DONE]"}]`

// An EventSource entry without content.text: the stream is rebuilt from
// Chrome's messages, each timed from the entry's start.
func TestHARFromEventSourceMessages(t *testing.T) {
	t.Parallel()
	a := readArchive(t, []byte(chromeHAR(`""`, chromeMessages)), ArchiveOptions{})
	if a.Format != FormatHAR || len(a.Entries) != 1 || a.Skipped != 1 {
		t.Fatalf("format %v, %d entries, %d skipped; want HAR, 1, 1 (the page)", a.Format, len(a.Entries), a.Skipped)
	}
	e := a.Entries[0]
	want := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\nid: 7\ndata: [DONE]\n\n"
	if got := string(e.Bytes()); got != want {
		t.Errorf("body = %q; want %q", got, want)
	}
	if e.HeadAt != 300*time.Millisecond || e.Dur != 1500*time.Millisecond {
		t.Errorf("head at %v, duration %v; want 300ms, 1.5s", e.HeadAt, e.Dur)
	}
	if got := []time.Duration{e.Body[0].At.Round(time.Millisecond), e.Body[1].At.Round(time.Millisecond)}; got[0] != 400*time.Millisecond || got[1] != 900*time.Millisecond {
		t.Errorf("message times %v; want [400ms 900ms]", got)
	}
	if got := e.RequestHeader.Get("Authorization"); got != Redacted {
		t.Errorf("authorization = %q; want it redacted", got)
	}
	if e.Index != 0 || strings.Join(e.Decoded, ",") != "_eventSourceMessages" {
		t.Errorf("index %d, decoded %q", e.Index, e.Decoded)
	}
	head := string(e.Head())
	if !strings.HasPrefix(head, "HTTP/2.0 200 OK\r\n") || strings.Contains(head, ":authority") || !strings.Contains(head, "Set-Cookie: [redacted]\r\n") {
		t.Errorf("head = %q", head)
	}
}

// A fetch stream: content.text is the body; the messages time its events
// when they match them one for one.
func TestHARTextTimedByMessages(t *testing.T) {
	t.Parallel()
	text := `": ping\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\nid: 7\ndata: [DONE]\n\n"`
	e := readArchive(t, []byte(chromeHAR(text, chromeMessages)), ArchiveOptions{}).Entries[0]
	var got []string
	for _, c := range e.Body {
		at := "-"
		if c.At != NoTime {
			at = c.At.Round(time.Millisecond).String()
		}
		got = append(got, fmt.Sprintf("%q@%s", c.Data, at))
	}
	want := []string{`": ping\n\n"@-`, `"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"@400ms`, `"id: 7\ndata: [DONE]\n\n"@900ms`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("chunks\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// One message fewer than events: no guessing, the body is untimed.
	one := `[{"time": 1767323045.4, "eventName": "message", "data": "x"}]`
	e = readArchive(t, []byte(chromeHAR(text, one)), ArchiveOptions{}).Entries[0]
	if len(e.Body) != 1 || e.Body[0].At != NoTime {
		t.Errorf("mismatched messages: %d chunks, first at %v; want one untimed", len(e.Body), e.Body[0].At)
	}
}

// Times of another clock (CDP's monotonic seconds) count from the first
// message, which is taken to arrive with the head.
func TestHARMonotonicMessageTimes(t *testing.T) {
	t.Parallel()
	msgs := `[{"time": 5000.25, "type": "delta", "id": "1", "data": "a"}, {"time": 5001.0, "event": "done", "data": "b\nc"}]`
	e := readArchive(t, []byte(chromeHAR(`""`, msgs)), ArchiveOptions{}).Entries[0]
	if want := "event: delta\nid: 1\ndata: a\n\nevent: done\ndata: b\ndata: c\n\n"; string(e.Bytes()) != want {
		t.Errorf("body = %q; want %q", e.Bytes(), want)
	}
	if a, b := e.Body[0].At, e.Body[1].At.Round(time.Millisecond); a != 300*time.Millisecond || b != 1050*time.Millisecond {
		t.Errorf("times %v %v; want 300ms 1.05s", a, b)
	}
}

// JSON entries are kept (model tells which are LLM responses); base64
// content is decoded.
func TestHARJSONAndBase64Content(t *testing.T) {
	t.Parallel()
	in := `{"log": {"entries": [
 {"request": {"method": "POST", "url": "https://x.test/v1/responses"},
  "response": {"status": 200, "content": {"mimeType": "application/json", "encoding": "base64", "text": "eyJvYmplY3QiOiJyZXNwb25zZSJ9"}}},
 {"request": {"method": "GET", "url": "https://x.test/logo.png"},
  "response": {"status": 200, "content": {"mimeType": "image/png", "encoding": "base64", "text": "iVBORw0KGgo="}}}]}}`
	a := readArchive(t, []byte(in), ArchiveOptions{})
	if len(a.Entries) != 1 || a.Skipped != 1 || string(a.Entries[0].Bytes()) != `{"object":"response"}` {
		t.Fatalf("entries %d, skipped %d, body %q", len(a.Entries), a.Skipped, a.Entries[0].Bytes())
	}
}

// readHARBack reads what w got back as an archive.
func readHARBack(t *testing.T, w *bytes.Buffer) *Archive {
	t.Helper()
	if !json.Valid(w.Bytes()) {
		t.Fatalf("the HAR is not JSON:\n%s", w.Bytes())
	}
	a, err := ReadArchive(w.Bytes(), FormatAuto, ArchiveOptions{KeepSecrets: true})
	if err != nil {
		t.Fatalf("reading the HAR back: %v\n%s", err, w.Bytes())
	}
	return a
}

// Writing then reading a HAR gives back the exchange, the body byte for
// byte and each event's time: from an archive entry, from `curl -i`
// output, and from a timed recording.
func TestHARRoundTrip(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	body := "event: response.created\ndata: {\"type\":\"response.created\"}\n\n: keepalive\n\nid: 2\ndata: {\"type\":\"response.completed\"}\n\n"
	ka, id := strings.Index(body, ": keepalive"), strings.Index(body, "id: 2")
	entry := Entry{
		Exchange: Exchange{Started: start, Method: "POST", URL: "https://api.openai.com/v1/responses?key=SECRET",
			RequestHeader: http.Header{"Authorization": {"Bearer sk-1"}, "Content-Type": {"application/json"}},
			RequestBody:   []byte(`{"model":"gpt-5","stream":true}`), Proto: "HTTP/1.1", Status: 200,
			ResponseHeader: http.Header{"Content-Type": {"text/event-stream"}}, HeadAt: 250 * time.Millisecond},
		Body: []Chunk{{At: 300 * time.Millisecond, Data: []byte(body[:ka])}, {At: 400 * time.Millisecond, Data: []byte(body[ka:id])},
			{At: 1250 * time.Millisecond, Data: []byte(body[id:])}},
		Dur: NoTime,
	}
	var w bytes.Buffer
	h := NewHAR(&w, HAROptions{Version: "test"})
	src := entry.Source("entry")
	src.Record(h.Entry(&entry.Exchange))
	if err := src.Read(context.Background(), ReadOptions{}, func(*Frame) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	a := readHARBack(t, &w)
	if len(a.Entries) != 1 {
		t.Fatalf("%d entries back", len(a.Entries))
	}
	got := a.Entries[0]
	if string(got.Bytes()) != body {
		t.Errorf("body back = %q; want %q", got.Bytes(), body)
	}
	if got.Method != "POST" || got.URL != "https://api.openai.com/v1/responses?key=%5Bredacted%5D" || string(got.RequestBody) != `{"model":"gpt-5","stream":true}` {
		t.Errorf("request back = %s %q", got.String(), got.RequestBody)
	}
	if a := got.RequestHeader.Get("Authorization"); a != Redacted {
		t.Errorf("authorization back = %q; want it redacted in the file", a)
	}
	if got.Status != 200 || !got.Started.Equal(start) || got.HeadAt != 250*time.Millisecond {
		t.Errorf("status %d, started %v, head at %v", got.Status, got.Started, got.HeadAt)
	}
	var times []time.Duration
	for _, c := range got.Body {
		times = append(times, c.At.Round(time.Millisecond))
	}
	if fmt.Sprint(times) != "[300ms 300ms 1.25s]" {
		t.Errorf("times back %v; want [300ms 300ms 1.25s] (the keepalive, not a message, takes the time before it)", times)
	}
	if !strings.Contains(w.String(), `"_eventSourceMessages":[{"time":1767323045.3,"eventName":"response.created","eventId":"","data":"{\"type\":\"response.created\"}"}`) {
		t.Errorf("messages not written as Chrome does:\n%s", w.String())
	}
}

// A stream read without timing, not UTF-8, from `curl -i` output: the
// body is base64, the start unknown and said so, the messages untimed.
func TestHARWriteUntimedBinary(t *testing.T) {
	t.Parallel()
	in := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Api-Key: k\r\n\r\ndata: \xff\xfe\n\n"
	var w bytes.Buffer
	h := NewHAR(&w, HAROptions{Now: func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) }})
	src := FromReader("x", SourceFile, strings.NewReader(in), false)
	src.Record(h.Entry(nil))
	if err := src.Read(context.Background(), ReadOptions{}, func(*Frame) error { return nil }); err != nil {
		t.Fatal(err)
	}
	h.Close()
	out := w.String()
	for _, want := range []string{`"startedDateTime":"2030-01-01T00:00:00Z"`, `"encoding":"base64"`, `"comment":"the stream was read without its start time`, `"name":"X-Api-Key","value":"[redacted]"`, `"url":"about:blank"`} {
		if !strings.Contains(out, want) {
			t.Errorf("HAR lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"time":1`) {
		t.Errorf("untimed messages got a time:\n%s", out)
	}
	e := readHARBack(t, &w).Entries[0]
	if string(e.Bytes()) != "data: \xff\xfe\n\n" {
		t.Errorf("body back = %q", e.Bytes())
	}
}

// A timed recording keeps its request in the HAR, and its timing lines stay
// out of the body.
func TestHARFromRecording(t *testing.T) {
	t.Parallel()
	var rec bytes.Buffer
	x := &Exchange{Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Method: "POST", URL: "https://api.anthropic.com/v1/messages",
		Status: 200, ResponseHeader: http.Header{"Content-Type": {"text/event-stream"}}, HeadAt: 100 * time.Millisecond}
	r := NewRecorder(&rec, x, RecordOptions{Format: FormatSSE})
	r.Write([]byte("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"), 700*time.Millisecond)
	r.Close(700 * time.Millisecond)
	var w bytes.Buffer
	h := NewHAR(&w, HAROptions{})
	src := FromReader("rec", SourceFile, &rec, false)
	src.Record(h.Entry(nil))
	if err := src.Read(context.Background(), ReadOptions{}, func(*Frame) error { return nil }); err != nil {
		t.Fatal(err)
	}
	h.Close()
	e := readHARBack(t, &w).Entries[0]
	if e.Method != "POST" || e.URL != "https://api.anthropic.com/v1/messages" || e.HeadAt != 100*time.Millisecond {
		t.Errorf("exchange back = %s, head at %v", e.String(), e.HeadAt)
	}
	if string(e.Bytes()) != "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n" || e.Body[0].At != 700*time.Millisecond {
		t.Errorf("body back = %q at %v", e.Bytes(), e.Body[0].At)
	}
}

// A HAR with no entries is still a valid HAR.
func TestHAREmpty(t *testing.T) {
	t.Parallel()
	var w bytes.Buffer
	if err := NewHAR(&w, HAROptions{}).Close(); err != nil {
		t.Fatal(err)
	}
	if a := readHARBack(t, &w); len(a.Entries) != 0 {
		t.Errorf("%d entries", len(a.Entries))
	}
}

// A 20 MB event in a HAR body is read whole and framed as one event,
// flagged TooLarge, never cut.
func TestHARHugeEvent(t *testing.T) {
	t.Parallel()
	payload := strings.Repeat("x", 20<<20)
	text, _ := json.Marshal("data: {\"delta\":\"" + payload + "\"}\n\n")
	in := `{"log":{"entries":[{"request":{"method":"POST","url":"https://x.test"},"response":{"status":200,"content":{"mimeType":"text/event-stream","text":` + string(text) + `}}}]}}`
	a := readArchive(t, []byte(in), ArchiveOptions{})
	e := a.Entries[0]
	if n := len(e.Bytes()); n != len(payload)+len("data: {\"delta\":\"\"}\n\n") {
		t.Fatalf("body of %d bytes", n)
	}
	var events []Frame
	err := e.Source("huge").Read(context.Background(), ReadOptions{}, func(f *Frame) error {
		if f.Kind == FrameEvent {
			events = append(events, Frame{Flags: f.Flags, End: f.End, Start: f.Start})
		}
		return nil
	})
	if err != nil || len(events) != 1 || events[0].Flags&TooLarge == 0 || events[0].End-events[0].Start != int64(len(e.Bytes())) {
		t.Errorf("events %+v (%v); want one TooLarge event of the whole body", events, err)
	}
}
