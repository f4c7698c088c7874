package capture

import (
	"bytes"
	"strings"
	"testing"
)

// TestCassetteDDAPM: ddapm-test-agent's JSON cassettes (one interaction a
// file, testdata/import; README.md there attributes them) read as
// archives of one exchange: a text body as it is (its headers' chunked
// coding already undone by the recorder), a "base64:" body decoded to the
// AWS event stream it holds, each header one string. Before, such a file
// read as one unknown JSON document (truncated), and --format cassette
// said it had no interactions list.
func TestCassetteDDAPM(t *testing.T) {
	t.Parallel()
	a := readArchive(t, importFixture(t, "chat-tool-call-stream__dd-trace-js.json"), ArchiveOptions{})
	if a.Format != FormatCassette || len(a.Entries) != 1 {
		t.Fatalf("got %v with %d entries; want a cassette of 1", a.Format, len(a.Entries))
	}
	e := &a.Entries[0]
	if e.String() != "POST https://api.openai.com/v1/chat/completions 200" || e.ResponseHeader.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Errorf("entry = %s, %v", e, e.ResponseHeader)
	}
	if b := e.Bytes(); !bytes.HasPrefix(b, []byte(`data: {"id":"chatcmpl-BkZovPSQbtQE7inRJtfkkglI2o3A4"`)) || !bytes.HasSuffix(b, []byte("data: [DONE]\n\n")) || len(e.Decoded) != 0 {
		t.Errorf("body %q … decoded %v", b[:min(60, len(b))], e.Decoded)
	}
	if !bytes.Contains(e.RequestBody, []byte(`"get_weather"`)) {
		t.Errorf("request body = %q", e.RequestBody)
	}

	for _, name := range []string{"bedrock-invoke-jamba-stream__dd-trace-js.json", "bedrock-invoke-claude-text-stream__dd-trace-js.json"} {
		a = readArchive(t, importFixture(t, name), ArchiveOptions{})
		e = &a.Entries[0]
		b := e.Bytes()
		if !strings.HasSuffix(e.URL, "/invoke-with-response-stream") || e.ResponseHeader.Get("Content-Type") != EventStreamContentType ||
			strings.Join(e.Decoded, ",") != "base64" || DetectFormat(b) != FormatEventStream {
			t.Errorf("%s: %s, %v, decoded %v, body detected as %v", name, e, e.ResponseHeader, e.Decoded, DetectFormat(b))
		}
	}
}

// TestCassetteDDAPMShapes: a "base64:" body is decoded only in a
// ddapm-test-agent cassette (a vcrpy body that says so is text); a bad
// one is an error naming it; a request's body may be binary too; a body
// that starts like gzip is inflated, one its headers only say is gzip is
// not (the recorder inflated it).
func TestCassetteDDAPMShapes(t *testing.T) {
	t.Parallel()
	one := func(reqBody, respHeaders, respBody string) string {
		return `{"request":{"method":"POST","url":"https://x/v1/messages","headers":{"Content-Type":"application/json"},"body":"` + reqBody +
			`"},"response":{"status":{"code":200,"message":"OK"},"headers":{` + respHeaders + `},"body":"` + respBody + `"}}`
	}
	a := readArchive(t, []byte(one("base64:e30=", `"Content-Encoding":"gzip"`, `data: {}\n\n`)), ArchiveOptions{})
	if e := a.Entries[0]; string(e.RequestBody) != "{}" || string(e.Bytes()) != "data: {}\n\n" || e.Note != "" {
		t.Errorf("entry: request %q, body %q, note %q", e.RequestBody, e.Bytes(), e.Note)
	}
	if _, err := ReadArchive([]byte(one("", "", "base64:!!")), FormatAuto, ArchiveOptions{}); err == nil || !strings.Contains(err.Error(), "base64") {
		t.Errorf("bad base64: err = %v", err)
	}
	vcr := "interactions:\n- request: {method: GET, uri: u}\n  response: {status: {code: 200}, body: {string: 'base64:e30='}}\n"
	if a := readArchive(t, []byte(vcr), ArchiveOptions{}); string(a.Entries[0].Bytes()) != "base64:e30=" {
		t.Errorf("vcrpy body = %q; want it as written", a.Entries[0].Bytes())
	}
	if _, err := ReadArchive([]byte(`{"request":{"method":"POST"}}`), FormatCassette, ArchiveOptions{}); err == nil ||
		!strings.Contains(err.Error(), "no interactions list, and no request and response") {
		t.Errorf("a request alone: err = %v", err)
	}
}
