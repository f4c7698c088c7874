package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// entryBytes reads an archive entry back as a stream, head and body.
func entryBytes(t *testing.T, e *Entry) []byte {
	t.Helper()
	var out []byte
	err := e.Source("t").Read(context.Background(), ReadOptions{}, func(f *Frame) error {
		out = append(out, f.Raw...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// httprrTrace writes an httprr trace of the given request and response
// pairs.
func httprrTrace(pairs ...string) []byte {
	b := []byte(httprrMagic)
	for i := 0; i+1 < len(pairs); i += 2 {
		b = fmt.Appendf(b, "%d %d\n%s%s", len(pairs[i]), len(pairs[i+1]), pairs[i], pairs[i+1])
	}
	return b
}

// TestHTTPRRLangchaingo: langchaingo's httprr traces (testdata/import;
// README.md there attributes them) read as archives: an Ollama NDJSON
// stream in the chunked transfer coding comes out de-chunked, an
// Anthropic SSE stream as it was, the request line's absolute URL and
// headers kept (credentials redacted unless kept), and a gzipped trace of
// three exchanges reads whole. Before, a trace read as one SSE stream with
// framing warnings, and the chunked NDJSON came out truncated.
func TestHTTPRRLangchaingo(t *testing.T) {
	t.Parallel()
	a := readArchive(t, importFixture(t, "ollama-chat-chunked__langchaingo.httprr"), ArchiveOptions{})
	if a.Format != FormatHTTPRR || len(a.Entries) != 1 {
		t.Fatalf("got %v with %d entries; want an httprr trace of 1", a.Format, len(a.Entries))
	}
	e := &a.Entries[0]
	if e.String() != "POST http://localhost:11434/api/chat 200" || e.Proto != "HTTP/1.1" {
		t.Errorf("entry = %s %s", e, e.Proto)
	}
	if got := e.RequestHeader.Get("User-Agent"); got != "langchaingo-httprr" {
		t.Errorf("User-Agent (its line ends in LF alone) = %q", got)
	}
	if !bytes.HasPrefix(e.RequestBody, []byte(`{"model":"gemma3:1b"`)) {
		t.Errorf("request body = %q", e.RequestBody)
	}
	body := e.Bytes()
	if len(e.Decoded) != 1 || e.Decoded[0] != "chunked" || e.Note != "" {
		t.Errorf("decoded %v, note %q; want chunked undone", e.Decoded, e.Note)
	}
	if !bytes.HasPrefix(body, []byte(`{"model":"gemma3:1b","created_at":`)) || !bytes.HasSuffix(body, []byte("\"done_reason\":\"stop\",\"done\":true,\"total_duration\":171946792,\"load_duration\":38473250,\"prompt_eval_count\":16,\"prompt_eval_duration\":27608250,\"eval_count\":22,\"eval_duration\":105611917}\n")) ||
		bytes.Contains(body, []byte("b48\r\n")) {
		t.Errorf("body is not the de-chunked NDJSON: %q … %q", body[:min(60, len(body))], body[max(0, len(body)-60):])
	}

	a = readArchive(t, importFixture(t, "anthropic-message-stream__langchaingo.httprr"), ArchiveOptions{})
	e = &a.Entries[0]
	if e.URL != "https://api.anthropic.com/v1/messages" || e.Status != 200 || e.Proto != "HTTP/2.0" || e.RequestHeader.Get("X-Api-Key") != Redacted {
		t.Errorf("entry = %s %s, X-Api-Key %q", e, e.Proto, e.RequestHeader.Get("X-Api-Key"))
	}
	if got := string(entryBytes(t, e)); !strings.HasPrefix(got, "HTTP/2.0 200 OK\r\n") || !strings.Contains(got, "\r\n\r\nevent: message_start\n") {
		t.Errorf("stream = %q", got[:min(200, len(got))])
	}
	a = readArchive(t, importFixture(t, "anthropic-message-stream__langchaingo.httprr"), ArchiveOptions{KeepSecrets: true})
	if got := a.Entries[0].RequestHeader.Get("X-Api-Key"); got != "test-api-key" {
		t.Errorf("kept X-Api-Key = %q", got)
	}

	gz := importFixture(t, "embeddings-then-chat__langchaingo.httprr.gz")
	if DetectArchive(gz) != FormatHTTPRR {
		t.Fatal("a gzipped httprr trace is not detected")
	}
	a = readArchive(t, gz, ArchiveOptions{})
	if len(a.Entries) != 3 || a.Entries[2].URL != "https://api.openai.com/v1/chat/completions" || a.Entries[2].Index != 2 {
		t.Fatalf("%d entries, the third %v; want 3, the last a chat completion", len(a.Entries), a.Entries[len(a.Entries)-1].String())
	}
	if !bytes.Contains(a.Entries[2].Bytes(), []byte("The color of the desk is orange.")) {
		t.Errorf("third body = %q", a.Entries[2].Bytes())
	}
}

// TestHTTPRRShapes: what a trace may hold besides the usual, and what
// makes it refused with the record and byte named.
func TestHTTPRRShapes(t *testing.T) {
	t.Parallel()
	req := "POST /v1/chat/completions HTTP/1.1\r\nHost: api.example.com\r\nContent-Type: application/json\r\n\r\n{}"
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {}\n\n"
	// A request written by Request.Write: a path, the host in Host.
	a := readArchive(t, httprrTrace(req, resp, req, ""), ArchiveOptions{})
	if len(a.Entries) != 2 || a.Entries[0].URL != "//api.example.com/v1/chat/completions" || string(a.Entries[0].RequestBody) != "{}" {
		t.Fatalf("entries %v", a.Entries)
	}
	if a.Entries[1].Status != 0 || a.Entries[1].Head() != nil {
		t.Errorf("a request with no response = %s", a.Entries[1].String())
	}
	// A chunked body cut short keeps what decoded, and says so.
	cut := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n5\r\nwor"
	a = readArchive(t, httprrTrace(req, cut), ArchiveOptions{})
	if e := a.Entries[0]; !strings.HasPrefix(string(e.Bytes()), "hello") || !strings.Contains(e.Note, "chunked") {
		t.Errorf("cut chunked body = %q, note %q", e.Bytes(), e.Note)
	}
	// A gzip body is inflated when read.
	zipped := "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + string(gzipped(t, "data: {}\n\n"))
	a = readArchive(t, httprrTrace(req, zipped), ArchiveOptions{})
	if e := a.Entries[0]; string(e.Bytes()) != "data: {}\n\n" || strings.Join(e.Decoded, ",") != "gzip" {
		t.Errorf("gzip body = %q, decoded %v", e.Bytes(), e.Decoded)
	}

	for _, tt := range []struct {
		name, in, want string
	}{
		{"no lengths", httprrMagic + "POST / HTTP/1.1\r\n\r\n", "record 1 at byte 16: want two lengths"},
		{"lengths past the end", httprrMagic + "10 900\nPOST / HTTP/1.1\r\n\r\n", "record 1 at byte 23: the lengths say 910 bytes; 19 are left"},
		{"a line without its end", httprrMagic + "10 9", "record 1 at byte 16: no line of lengths"},
		{"negative", httprrMagic + "-1 2\n", "want two lengths"},
		{"no status line", string(httprrTrace(req, "200 OK\r\n\r\n")), "response: want a status line"},
		{"no request line", string(httprrTrace("\r\n\r\n", resp)), "request: want a request line"},
		{"second record broken", string(httprrTrace(req, resp)) + "x y\n", "record 2 at byte"},
	} {
		_, err := ReadArchive([]byte(tt.in), FormatHTTPRR, ArchiveOptions{})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "httprr: ") {
			t.Errorf("%s: err = %v; want one saying %q", tt.name, err, tt.want)
		}
	}
	if _, err := ReadArchive([]byte("data: x\n\n"), FormatHTTPRR, ArchiveOptions{}); err == nil {
		t.Error("a stream read as an httprr trace: no error")
	}
}

// TestHTTPRRBounds: a gzipped trace is inflated within the bound for one
// file, and a body's own compression within the bounds every archive
// has.
func TestHTTPRRBounds(t *testing.T) {
	t.Parallel()
	req := "POST /v1/messages HTTP/1.1\r\nHost: h\r\n\r\n{}"
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + strings.Repeat("data: {}\n\n", 200)
	trace := httprrTrace(req, resp)
	if _, err := ReadArchive(gzipped(t, string(trace)), FormatAuto, ArchiveOptions{maxFile: int64(len(trace))}); err != nil {
		t.Errorf("a trace of just the bound: %v", err)
	}
	_, err := ReadArchive(gzipped(t, string(trace)), FormatAuto, ArchiveOptions{maxFile: int64(len(trace)) - 1})
	var big errHTTPRRTooBig
	if !errors.As(err, &big) {
		t.Errorf("a trace past the bound: err = %v; want it refused", err)
	}
	bomb := "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + string(gzipped(t, strings.Repeat("a", 1<<16)))
	a, err := ReadArchive(httprrTrace(req, bomb), FormatHTTPRR, ArchiveOptions{maxBody: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var refused *InflateError
	if err := a.Entries[0].Source("s").Read(context.Background(), ReadOptions{}, func(*Frame) error { return nil }); !errors.As(err, &refused) {
		t.Errorf("a body past the bound: read err = %v; want an *InflateError", err)
	}
}

// TestDetectArchiveNewShapes: httprr traces (plain, gzipped) and
// ddapm-test-agent cassettes are told apart from streams and from JSON
// that only looks like them.
func TestDetectArchiveNewShapes(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", archivePeek)
	for _, tt := range []struct {
		name string
		in   []byte
		want Format
	}{
		{"httprr", []byte(httprrMagic + "0 0\n"), FormatHTTPRR},
		{"httprr gzipped", gzipped(t, httprrMagic+"0 0\n"), FormatHTTPRR},
		{"another gzip", gzipped(t, "data: {}\n\n"), FormatAuto},
		{"httprr's line later", []byte("x\n" + httprrMagic), FormatAuto},
		{"ddapm", []byte(`{"request":{"method":"POST","url":"https://x","headers":{},"body":""},"response":{"status":{"code":200}}}`), FormatCassette},
		{"ddapm, url first, a request body past what detection reads", []byte(`{"request":{"url":"https://x","method":"POST","body":"` + long + `"}`), FormatCassette},
		{"request without method", []byte(`{"request":{"url":"https://x","headers":{}},"response":{}}`), FormatAuto},
		{"request not first", []byte(`{"id":1,"request":{"method":"POST","url":"u"}}`), FormatAuto},
		{"a Responses event", []byte(`{"type":"response.created","response":{"id":"r"}}`), FormatAuto},
	} {
		if got := DetectArchive(tt.in); got != tt.want {
			t.Errorf("%s: DetectArchive = %v; want %v", tt.name, got, tt.want)
		}
	}
}
