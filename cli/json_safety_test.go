package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/streamtap/streamtap/samples"
)

// hostileText holds, in one string, what a stream may carry that a
// terminal obeys or that reorders text: 8-bit CSIs as a rune and as a raw
// byte, NEL, DEL, bidi overrides and isolates, marks, a BOM, bytes that
// are not UTF-8 (a cut rune among them) and the separators. It has no
// quote, backslash or C0 byte, so it can be put raw inside a JSON string
// (C0 bytes make the JSON invalid: hostileC0 covers them).
const hostileText = "\u009b31m\x9b[2J\x7f\u0085\u202eevil\u202c\u2066x\u2069\u200f\ufeff\xff\xe2\x80 \u2028\u2029"

// hostileC0 is a terminal escape and a bell, raw: a JSON string cannot
// hold them, so a data line with them is not JSON.
const hostileC0 = "\x1b]0;title\x07\x1b[31m"

// rawHiddenAt returns the offset of the first character in a JSON output
// that must never reach it raw: a C0 control (but the newline ending a
// line), DEL, a C1 control, a bidi or invisible format rune, a separator,
// or a byte that is not UTF-8. -1 when there is none.
func rawHiddenAt(out string) int {
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRuneInString(out[i:])
		switch {
		case r == utf8.RuneError && n == 1,
			r < 0x20 && r != '\n', r == 0x7f, r >= 0x80 && r <= 0x9f,
			r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
			r == 0x2028, r == 0x2029, r == 0xfeff:
			return i
		}
		i += n
	}
	return -1
}

// checkJSONLines fails unless every line of out parses as JSON and out
// holds no raw hidden character.
func checkJSONLines(t *testing.T, what, out string) {
	t.Helper()
	if out == "" {
		t.Errorf("%s printed nothing", what)
		return
	}
	if i := rawHiddenAt(out); i >= 0 {
		t.Errorf("%s: raw %q at byte %d: …%q…", what, out[i:min(i+4, len(out))], i, out[max(0, i-40):min(len(out), i+20)])
	}
	for n, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("%s: line %d is not JSON: %.200q", what, n+1, line)
		}
	}
}

// hostileFields are the JSON members whose string values the sample
// streams get hostileText in: ids, names, arguments, text, messages and
// reasons, in every dialect.
var hostileFields = regexp.MustCompile(`"(id|call_id|item_id|name|arguments|partial_json|delta|text|content|message|finish_reason|stop_reason|finishReason|code)":"`)

// hostileSample is a sample with hostileText after the opening quote of
// every hostileFields value, and a comment, an event with a hostile name
// and id, and data lines that are not JSON appended.
func hostileSample(t *testing.T, name string) []byte {
	t.Helper()
	data, err := samples.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	out := hostileFields.ReplaceAll(data, []byte(`"$1":"`+hostileText))
	return append(out, ": "+hostileText+hostileC0+"\n\n"+
		"event: x"+hostileText+"\nid: "+hostileText+"\ndata: {\"type\":\"x"+hostileText+"\"}\n\n"+
		"data: "+hostileText+hostileC0+"\n\n"+
		"data: {\"error\":{\"message\":\""+hostileText+"\"}}\n\n"...)
}

// hostileChat is a Chat stream whose call has valid arguments that hold
// hostileText, and whose text holds it too.
const hostileChat = `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"` + hostileText + `","tool_calls":[{"index":0,"id":"call_` + hostileText + `","type":"function","function":{"name":"f` + hostileText + `","arguments":"{\"a\":\"` + hostileText + `\"}"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls` + hostileText + `"}]}

data: [DONE]

`

// TestJSONOutputsAreSafe feeds hostile bytes through every JSON output
// (events, events --explain, calls --json, check --json, diff --json,
// request --json and the session lines of an archive) and checks that
// each line parses, that none holds a raw C0, C1, DEL, bidi character or
// byte that is not UTF-8, and that the events still give back the exact
// bytes: raw_base64 for an event that is not UTF-8, and offset and length
// always.
func TestJSONOutputsAreSafe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files []string
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
		return p
	}
	for _, s := range samples.List() {
		write(s.Name+".sse", hostileSample(t, s.Name))
	}
	chat := write("chat.sse", []byte(hostileChat))
	write("head.http", []byte("HTTP/1.1 200 OK"+hostileText+"\r\nContent-Type: text/event-stream\r\nX-Note: "+hostileText+"\r\n\r\n"+hostileChat))

	for _, f := range files {
		input, _ := os.ReadFile(f)
		for _, args := range [][]string{{"events"}, {"events", "--explain"}, {"calls", "--json"}, {"check", "--json"}, {"diff", "--json", chat}} {
			args = append(args, f)
			_, out, errs := runCLI(t, nil, args...)
			what := fmt.Sprintf("streamtap %s %s", strings.Join(args[:len(args)-1], " "), filepath.Base(f))
			checkJSONLines(t, what, out)
			if i := rawHiddenAt(strings.ReplaceAll(errs, "\n", "")); i >= 0 {
				t.Errorf("%s: stderr holds raw %q", what, errs[i:min(i+4, len(errs))])
			}
			if args[0] == "events" {
				eventsGiveBackTheBytes(t, what, input, out)
			}
		}
	}

	// A HAR whose entry has a hostile URL and a body that is not UTF-8.
	entry := func(url string, body []byte) map[string]any {
		return map[string]any{
			"request": map[string]any{"method": "POST", "url": url,
				"postData": map[string]any{"mimeType": "application/json", "text": `{"model":"m","stream":true}`}},
			"response": map[string]any{"status": 200, "headers": []any{map[string]any{"name": "Content-Type", "value": "text/event-stream"}},
				"content": map[string]any{"mimeType": "text/event-stream", "encoding": "base64", "text": base64.StdEncoding.EncodeToString(body)}},
		}
	}
	har, _ := json.Marshal(map[string]any{"log": map[string]any{"version": "1.2", "entries": []any{
		entry("https://api.test/v1/chat/completions?x="+hostileText, []byte(hostileChat)),
		entry("https://api.test/v1/"+hostileText, hostileSample(t, "anthropic-text-then-tool")),
	}}})
	harFile := write("x.har", har)
	for _, args := range [][]string{{"events"}, {"calls", "--json"}, {"check", "--json"}} {
		_, out, _ := runCLI(t, nil, append(args, harFile)...)
		checkJSONLines(t, "streamtap "+strings.Join(args, " ")+" x.har", out)
	}

	// request --json prints the calls report of what a server sent.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(hostileChat))
	}))
	defer srv.Close()
	_, out, _ := runCLI(t, nil, "request", srv.URL, "--json")
	checkJSONLines(t, "streamtap request --json", out)
}

// eventsGiveBackTheBytes checks the recovery rule of `streamtap events`:
// each line's offset and length cover input in order, and a line carries
// raw_base64, equal to those bytes, exactly when they are not UTF-8.
func eventsGiveBackTheBytes(t *testing.T, what string, input []byte, out string) {
	t.Helper()
	var at int64
	for n, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var ev struct {
			Offset    int64  `json:"offset"`
			Length    int64  `json:"length"`
			RawBase64 string `json:"raw_base64"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return // reported by checkJSONLines
		}
		if ev.Offset != at || ev.Offset+ev.Length > int64(len(input)) {
			t.Errorf("%s: line %d at %d+%d; want it at %d", what, n+1, ev.Offset, ev.Length, at)
			return
		}
		raw := input[ev.Offset : ev.Offset+ev.Length]
		at += ev.Length
		got, err := base64.StdEncoding.DecodeString(ev.RawBase64)
		switch {
		case err != nil:
			t.Errorf("%s: line %d: raw_base64: %v", what, n+1, err)
		case utf8.Valid(raw) && ev.RawBase64 != "":
			t.Errorf("%s: line %d has raw_base64 for UTF-8 bytes", what, n+1)
		case !utf8.Valid(raw) && !bytes.Equal(got, raw):
			t.Errorf("%s: line %d: raw_base64 gives %q; the input holds %q", what, n+1, got, raw)
		}
	}
	if at != int64(len(input)) {
		t.Errorf("%s: the events cover %d of %d bytes", what, at, len(input))
	}
}
