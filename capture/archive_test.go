package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// importFixture reads a file of testdata/import, the real public archives
// that README.md there attributes.
func importFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "import", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func readArchive(t *testing.T, data []byte, opt ArchiveOptions) *Archive {
	t.Helper()
	a, err := ReadArchive(data, FormatAuto, opt)
	if err != nil {
		t.Fatalf("ReadArchive: %v", err)
	}
	return a
}

func TestDetectArchive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Format
	}{
		{"har", `{"log":{"version":"1.2","entries":[]}}`, FormatHAR},
		{"har indented with BOM", "\xEF\xBB\xBF{\n  \"log\": {\n    \"entries\": []", FormatHAR},
		{"vcrpy", "interactions:\n- request:\n", FormatCassette},
		{"go-vcr v2", "---\nversion: 2\ninteractions:\n    - id: 0\n", FormatCassette},
		{"ruby vcr", "---\nhttp_interactions:\n- request:\n", FormatCassette},
		{"json cassette", `{"version": 1, "interactions": [{"request": {}}]}`, FormatCassette},
		{"comment first", "# recorded\ninteractions: []\n", FormatCassette},
		{"sse", "event: x\ndata: {}\n\n", FormatAuto},
		{"sse field named like a key", "data: interactions:\n\n", FormatAuto},
		{"json response", `{"id":"resp_1","object":"response","output":[]}`, FormatAuto},
		{"log not first", `{"id":1,"log":{"entries":[]}}`, FormatAuto},
		{"jsonl", "{\"type\":\"a\"}\n{\"type\":\"b\"}\n", FormatAuto},
		{"curl -i", "HTTP/1.1 200 OK\r\n\r\n", FormatAuto},
		{"empty", "", FormatAuto},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := DetectArchive([]byte(tt.in)); got != tt.want {
				t.Errorf("DetectArchive(%q) = %v; want %v", tt.in, got, tt.want)
			}
		})
	}
}

// A pydantic-ai cassette (vcrpy, its own serializer): literal-block SSE
// bodies, requests as parsed_body.
func TestCassettePydanticAnthropicStream(t *testing.T) {
	t.Parallel()
	a := readArchive(t, importFixture(t, "anthropic-text-editor-stream__pydantic-ai.yaml"), ArchiveOptions{})
	if a.Format != FormatCassette || len(a.Entries) != 2 {
		t.Fatalf("got %v with %d entries; want a cassette with 2", a.Format, len(a.Entries))
	}
	for i, e := range a.Entries {
		if e.Method != "POST" || e.URL != "https://api.anthropic.com/v1/messages?beta=true" || e.Status != 200 {
			t.Errorf("entry %d = %s; want POST https://api.anthropic.com/v1/messages?beta=true 200", i, e.String())
		}
		if ct := e.ResponseHeader.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("entry %d content-type %q", i, ct)
		}
		body := string(e.Bytes())
		if !strings.HasPrefix(body, "event: message_start\ndata: {") || !strings.HasSuffix(body, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n") {
			t.Errorf("entry %d body = %.60q … %q", i, body, body[max(0, len(body)-60):])
		}
		var req map[string]any
		if err := json.Unmarshal(e.RequestBody, &req); err != nil || req["model"] != "claude-sonnet-4-6" || req["max_tokens"] != 4096.0 {
			t.Errorf("entry %d request body %s (%v)", i, e.RequestBody, err)
		}
	}
	if !strings.Contains(string(a.Entries[0].Bytes()), `"partial_json":"{\"comman"`) {
		t.Errorf("the first body lost its escapes: %.200s", a.Entries[0].Bytes())
	}
}

// Double-quoted bodies folded over lines, with CRLF escapes: the folds
// vanish, the escapes stay.
func TestCassetteFoldedQuotedBodies(t *testing.T) {
	t.Parallel()
	a := readArchive(t, importFixture(t, "gemini-iter-stream__pydantic-ai.yaml"), ArchiveOptions{})
	if len(a.Entries) != 3 {
		t.Fatalf("%d entries; want 3", len(a.Entries))
	}
	first := a.Entries[0].Bytes()
	if !bytes.HasPrefix(first, []byte(`data: {"candidates": [{"content": {"parts": [{"functionCall": {"name": "get_capital","args": {"country": "France"}}}]`)) ||
		!bytes.HasSuffix(first, []byte("\"}\r\n\r\n")) {
		t.Errorf("entry 0 body = %q", first)
	}
	if last := a.Entries[2].Bytes(); !bytes.Contains(last, []byte(`" Paris is 30°C."`)) || bytes.Count(last, []byte("\r\n\r\n")) != 2 {
		t.Errorf("entry 2 body = %q", last)
	}
}

// pydantic-ai writes a whole JSON response as YAML under parsed_body: it
// comes back as JSON with the keys in file order and numbers as spelt.
func TestCassetteParsedBodyIsJSON(t *testing.T) {
	t.Parallel()
	data := importFixture(t, "responses-json-tool-call__pydantic-ai.yaml")
	a := readArchive(t, data, ArchiveOptions{})
	if len(a.Entries) != 2 {
		t.Fatalf("%d entries; want 2", len(a.Entries))
	}
	body := a.Entries[0].Bytes()
	var resp struct {
		Object string
		Output []struct {
			Type, Name, Arguments string
			CallID                string `json:"call_id"`
		}
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	if resp.Object != "response" || len(resp.Output) != 1 || resp.Output[0].Arguments != `{"country":"PotatoLand"}` ||
		resp.Output[0].CallID != "call_61cRAI5gleGxCN89umufHn2a" {
		t.Errorf("response = %+v", resp)
	}
	for _, want := range []string{`{"created_at":1743072656,"error":null,`, `"temperature":1.0,`, `"metadata":{},`} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("body lacks %s:\n%s", want, body)
		}
	}
	if c := a.Entries[1].RequestHeader.Get("Cookie"); c != Redacted {
		t.Errorf("cookie = %q; want it redacted", c)
	}
	kept := readArchive(t, data, ArchiveOptions{KeepSecrets: true})
	if c := kept.Entries[1].RequestHeader.Get("Cookie"); !strings.HasPrefix(c, "__cf_bm=HbecOMmJ") {
		t.Errorf("cookie with KeepSecrets = %q", c)
	}
}

// simonw/llm's cassette keeps a gzip response as a !!binary scalar.
func TestCassetteGzipBinaryBody(t *testing.T) {
	t.Parallel()
	a := readArchive(t, importFixture(t, "responses-gzip-json__simonw-llm.yaml"), ArchiveOptions{})
	e := a.Entries[0]
	if got := strings.Join(e.Decoded, ","); got != "base64,gzip" || e.Note != "" {
		t.Errorf("decoded %q, note %q; want base64,gzip and no note", got, e.Note)
	}
	var resp struct {
		Output []struct{ Content []struct{ Text string } }
	}
	if err := json.Unmarshal(e.Bytes(), &resp); err != nil || len(resp.Output) != 1 || resp.Output[0].Content[0].Text != "pong" {
		t.Errorf("body %q (%v)", e.Bytes(), err)
	}
	if got := e.ResponseHeader.Values("Set-Cookie"); len(got) != 2 || got[0] != Redacted {
		t.Errorf("set-cookie = %q; want two values redacted", got)
	}
	if !bytes.Contains(e.RequestBody, []byte(`"content":"Reply with exactly: pong"`)) {
		t.Errorf("request body %s: the folded line must join with a space", e.RequestBody)
	}
}

// go-vcr v2 (and v3, v4): status line, code, proto, duration.
func TestCassetteGoVCR(t *testing.T) {
	t.Parallel()
	a := readArchive(t, importFixture(t, "json-content-type__go-vcr.yaml"), ArchiveOptions{})
	e := a.Entries[0]
	if e.Method != "GET" || e.URL != "https://httpbin.org/anything" || e.Status != 200 || e.Proto != "HTTP/2.0" {
		t.Errorf("entry = %s %s", e.String(), e.Proto)
	}
	if e.Dur != 83984896*time.Nanosecond {
		t.Errorf("duration %v; want 83.984896ms", e.Dur)
	}
	if got := e.RequestHeader.Get("Authorization"); got != Redacted {
		t.Errorf("authorization = %q; want it redacted", got)
	}
	if !json.Valid(e.Bytes()) || len(e.Bytes()) != 438 {
		t.Errorf("body (%d bytes) = %q", len(e.Bytes()), e.Bytes())
	}
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// Hand-made cassettes for the shapes no fixture here shows.
func TestCassetteShapes(t *testing.T) {
	t.Parallel()
	sse := "data: {\"a\":1}\n\ndata: [DONE]\n\n"
	b64 := base64.StdEncoding.EncodeToString([]byte(sse))
	gz := base64.StdEncoding.EncodeToString(gzipped(t, sse))
	tests := []struct {
		name, in    string
		body        string
		status      int
		method, url string
		decoded     string
	}{
		{"go-vcr v1", "---\nversion: 1\ninteractions:\n- request:\n    body: '{\"stream\":true}'\n    form: {}\n    headers: {}\n    url: https://x.test/v1\n    method: POST\n  response:\n    body: \"data: {\\\"a\\\":1}\\n\\ndata: [DONE]\\n\\n\"\n    headers:\n      Content-Type:\n      - text/event-stream\n    status: 200 OK\n    code: 200\n    duration: \"\"\n",
			sse, 200, "POST", "https://x.test/v1", ""},
		{"ruby vcr base64", "---\nhttp_interactions:\n- request:\n    method: post\n    uri: https://x.test/v1\n    body:\n      encoding: UTF-8\n      string: '{}'\n  response:\n    status:\n      code: 201\n      message: Created\n    body:\n      encoding: ASCII-8BIT\n      base64_string: |\n        " + b64 + "\n  recorded_at: Tue, 01 Nov 2022 10:00:00 GMT\n",
			sse, 201, "POST", "https://x.test/v1", "base64"},
		{"vcrpy gzip sse by header", "interactions:\n- request:\n    body: null\n    method: GET\n    uri: https://x.test/s\n  response:\n    body:\n      string: !!binary |\n        " + gz + "\n    headers:\n      Content-Encoding:\n      - gzip\n    status:\n      code: 200\n      message: OK\n",
			sse, 200, "GET", "https://x.test/s", "base64,gzip"},
		{"vcrpy json serializer", `{"interactions": [{"request": {"method": "POST", "uri": "https://x.test/j", "body": null, "headers": {}}, "response": {"status": {"code": 500, "message": "err"}, "headers": {}, "body": {"string": "{\"error\":{}}"}}}], "version": 1}`,
			`{"error":{}}`, 500, "POST", "https://x.test/j", ""},
		{"empty body", "interactions:\n- request: {method: GET, uri: 'https://x.test/e'}\n  response: {status: {code: 204}, body: {string: ''}}\n",
			"", 204, "GET", "https://x.test/e", ""},
		{"no response", "interactions:\n- request: {method: GET, uri: 'https://x.test/n'}\n",
			"", 0, "GET", "https://x.test/n", ""},
		{"crlf lines", strings.ReplaceAll("interactions:\n- request:\n    method: POST\n    uri: https://x.test/c\n  response:\n    status: {code: 200}\n    body:\n      string: |+\n        data: 1\n\n", "\n", "\r\n"),
			"data: 1\n\n", 200, "POST", "https://x.test/c", ""},
		{"key key on ?key=", "interactions:\n- request: {method: GET, uri: 'https://x.test/g?alt=sse&key=SECRET'}\n  response: {status: {code: 200}, body: {string: 'x'}}\n",
			"x", 200, "GET", "https://x.test/g?alt=sse&key=%5Bredacted%5D", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := readArchive(t, []byte(tt.in), ArchiveOptions{})
			if len(a.Entries) != 1 {
				t.Fatalf("%d entries; want 1", len(a.Entries))
			}
			e := a.Entries[0]
			if string(e.Bytes()) != tt.body || e.Status != tt.status || e.Method != tt.method || e.URL != tt.url {
				t.Errorf("entry = %s, body %q; want %s %s %d, body %q", e.String(), e.Bytes(), tt.method, tt.url, tt.status, tt.body)
			}
			if got := strings.Join(e.Decoded, ","); got != tt.decoded {
				t.Errorf("decoded %q; want %q", got, tt.decoded)
			}
		})
	}
}

// A binary body that is neither gzip nor text is kept byte for byte; a
// gzip body cut short keeps what decoded and says so once read.
func TestCassetteBinaryAndBrokenBodies(t *testing.T) {
	t.Parallel()
	bin := []byte{0, 1, 2, 0xff, 0xfe, 'd', 'a', 't', 'a'}
	in := "interactions:\n- request: {method: GET, uri: 'https://x.test/b'}\n  response:\n    status: {code: 200}\n    body: {string: !!binary '" + base64.StdEncoding.EncodeToString(bin) + "'}\n"
	e := readArchive(t, []byte(in), ArchiveOptions{}).Entries[0]
	if !bytes.Equal(e.Bytes(), bin) || e.Note != "" {
		t.Errorf("binary body = %q, note %q; want %q", e.Bytes(), e.Note, bin)
	}
	gz := gzipped(t, strings.Repeat("data: {\"x\":1}\n\n", 200))
	cut := gz[:len(gz)/2]
	in = "interactions:\n- request: {method: GET, uri: 'https://x.test/b'}\n  response:\n    status: {code: 200}\n    body: {string: !!binary '" + base64.StdEncoding.EncodeToString(cut) + "'}\n"
	e = readArchive(t, []byte(in), ArchiveOptions{}).Entries[0]
	// The cut is found when the body is inflated, as it is read.
	if body := e.Bytes(); !strings.Contains(e.Note, "cut short") || !bytes.HasPrefix(body, []byte("data: {\"x\":1}\n\n")) {
		t.Errorf("cut gzip: note %q, body %.40q", e.Note, body)
	}
	in = "interactions:\n- request: {method: GET, uri: 'https://x.test/b'}\n  response:\n    status: {code: 200}\n    headers: {Content-Encoding: [br]}\n    body: {string: 'abc'}\n"
	e = readArchive(t, []byte(in), ArchiveOptions{}).Entries[0]
	if string(e.Bytes()) != "abc" || !strings.Contains(e.Note, "br is not decoded") {
		t.Errorf("br body %q, note %q", e.Bytes(), e.Note)
	}
}

// Malformed input is an error that says where, never a panic.
func TestArchiveErrorsSayWhere(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		format Format
		in     string
		want   string
	}{
		{"yaml syntax", FormatCassette, "interactions:\n- request:\n    method: [GET\n", "line"},
		{"no interactions", FormatCassette, "version: 1\nrecorded: yes\n", "no interactions list"},
		{"interaction not a mapping", FormatCassette, "interactions:\n- 42\n", "interactions[0] (line 2)"},
		{"bad binary", FormatCassette, "interactions:\n- request: {method: GET}\n  response: {body: {string: !!binary '@@@'}}\n", "interactions[0] (line 2): response body: line 3: !!binary"},
		{"deep parsed_body", FormatCassette, "interactions:\n- request: {method: GET, parsed_body: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}\n", "line 2"},
		{"har syntax", FormatHAR, "{\"log\": {\"entries\": [\n  {\"request\": {]\n}}", "har: line 2, column 17"},
		{"har wrong type", FormatHAR, "{\"log\": {\"entries\": [{\"response\": {\"status\": \"200\"}}]}}", "har: line 1, column 51: json: cannot unmarshal string"},
		{"har without log", FormatHAR, "{\"entries\": []}", "no log object"},
		{"neither", FormatAuto, "data: x\n\n", ErrNotArchive.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadArchive([]byte(tt.in), tt.format, ArchiveOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadArchive(%.40q) error = %v; want one containing %q", tt.in, err, tt.want)
			}
		})
	}
}

// Aliases that expand a small file into a huge tree are refused.
func TestCassetteAliasBomb(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("interactions:\n- request: {method: POST, uri: 'https://x.test', parsed_body: *a8}\n")
	_, err := ReadArchive([]byte(b.String()), FormatCassette, ArchiveOptions{})
	if err == nil {
		t.Fatal("an alias bomb was expanded")
	}
	// Few nodes, each a long string: bounded by bytes.
	big := "s: &s " + strings.Repeat("x", 10000) + "\nl1: &l1 [*s, *s, *s, *s, *s, *s, *s, *s, *s, *s]\n" +
		"l2: &l2 [*l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1]\nl3: &l3 [*l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2]\n" +
		"interactions:\n- request: {method: POST, uri: 'https://x.test', parsed_body: *l3}\n"
	if _, err := ReadArchive([]byte(big), FormatCassette, ArchiveOptions{}); err == nil || !strings.Contains(err.Error(), "expands too far") {
		t.Fatalf("10 MB of aliased strings: error %v; want it refused", err)
	}
}

// TestEntrySourceCarriesExchange: an entry's source names the exchange it
// answers, so a reader finds the request body there.
func TestEntrySourceCarriesExchange(t *testing.T) {
	t.Parallel()
	a := readArchive(t, importFixture(t, "responses-json-tool-call__pydantic-ai.yaml"), ArchiveOptions{})
	src := a.Entries[0].Source("x #1")
	if src.Exchange == nil || !bytes.Contains(src.Exchange.RequestBody, []byte(`"get_capital"`)) {
		t.Fatalf("source exchange = %+v; want the entry's, with its request body", src.Exchange)
	}
	if FromReader("s", SourceStdin, strings.NewReader(""), false).Exchange != nil {
		t.Error("a plain stream has an exchange")
	}
}
