package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// ollamaChat is an Ollama /api/chat stream making the call chatStream
// (main_test.go) makes, with the same arguments: the streams diff compares
// across dialects.
const ollamaChat = `{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"index":0,"name":"get_weather","arguments":{"city":"Paris"}}}]},"done":false}
{"model":"m","created_at":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":5,"eval_count":3}
`

// TestOllamaHeadless: calls --json, events, check and diff on Ollama
// streams, from a file, from stdin and as `curl -i` output.
func TestOllamaHeadless(t *testing.T) {
	t.Parallel()
	path := writeTemp(t, "ollama.ndjson", ollamaChat)
	curl := "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nDate: Thu, 18 Sep 2025 09:12:03 GMT\r\n\r\n" + ollamaChat
	for name, args := range map[string][]string{"file": {"calls", "--json", path}, "stdin": {"calls", "--json", "-"}, "curl -i": {"calls", "--json"}} {
		stdin := []byte(ollamaChat)
		if name == "curl -i" {
			stdin = []byte(curl)
		}
		code, out, errs := runCLI(t, stdin, args...)
		var rep struct {
			Dialect string `json:"dialect"`
			Calls   []struct {
				ID        *string `json:"id"`
				Name      string  `json:"name"`
				Arguments string  `json:"arguments"`
				Kind      string  `json:"kind"`
				Status    string  `json:"status"`
			} `json:"calls"`
			Outcome struct{ State, Detail string } `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
			t.Fatalf("%s: exit %d (%s), %v:\n%s", name, code, errs, err, out)
		}
		if rep.Dialect != "ollama" || len(rep.Calls) != 1 || *rep.Calls[0].ID != "call_1" || rep.Calls[0].Name != "get_weather" ||
			rep.Calls[0].Arguments != `{"city":"Paris"}` || rep.Calls[0].Kind != "function" || rep.Calls[0].Status != "completed" ||
			rep.Outcome.State != model.OutcomeCompleted || rep.Outcome.Detail != "stop" {
			t.Errorf("%s: calls --json = %s", name, out)
		}
	}

	// events: one line per NDJSON line, every byte covered; the broken
	// lines are kept and flagged.
	broken := strings.Replace(ollamaChat, "\n", "\n\n{\"mess\n", 1) // a blank line, then an invalid one
	broken = strings.TrimSuffix(broken, "\n")                       // and no newline at EOF
	code, out, errs := runCLI(t, []byte(broken), "events", "-")
	if code != 0 {
		t.Fatalf("events: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	wantFlags := [][]string{nil, {"blank-lines", "invalid-json"}, {"no-newline"}}
	if len(lines) != len(wantFlags) {
		t.Fatalf("events: %d lines; want %d:\n%s", len(lines), len(wantFlags), out)
	}
	var at int64
	for i, l := range lines {
		var ev struct {
			Offset, Length int64
			Dialect        string
			Type           string
			Flags          []string
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Offset != at || strings.Join(ev.Flags, ",") != strings.Join(wantFlags[i], ",") {
			t.Errorf("events line %d at %d with flags %v; want at %d with %v", i, ev.Offset, ev.Flags, at, wantFlags[i])
		}
		at += ev.Length
	}
	if at != int64(len(broken)) {
		t.Errorf("events cover %d of %d bytes", at, len(broken))
	}

	// check: the broken stream fails (a blank line, an invalid line); a
	// stream cut before its done line fails and ends truncated.
	code, out, _ = runCLI(t, []byte(broken), "check", "--json", "-")
	if code != 1 || !strings.Contains(out, `"ollama/blank-line"`) || !strings.Contains(out, `"framing/invalid-json"`) {
		t.Errorf("check of the broken stream: exit %d\n%s", code, out)
	}
	cut := strings.SplitAfter(ollamaChat, "\n")[0]
	code, out, _ = runCLI(t, []byte(cut), "check", "--json", "-")
	if code != 1 || !strings.Contains(out, `"ollama/done-missing"`) || !strings.Contains(out, `"state":"truncated"`) {
		t.Errorf("check of a cut stream: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, []byte(ollamaChat), "check", "-")
	if code != 0 || !strings.Contains(out, "ollama/stop-with-tool-calls") {
		t.Errorf("check of a clean tool-call stream: exit %d; want 0 with the info on done_reason stop\n%s", code, out)
	}

	// diff: the Ollama stream and the Chat stream of the same call are
	// equivalent by calls, text and outcome state; another argument is a
	// difference.
	chat := writeTemp(t, "chat.sse", chatStream)
	code, out, errs = runCLI(t, nil, "diff", "--json", path, chat)
	if code != 0 || !strings.Contains(out, `"equal":true`) || !strings.Contains(out, `"mode":"semantic"`) {
		t.Errorf("diff ollama chat: exit %d (%s)\n%s", code, errs, out)
	}
	other := filepath.Join(t.TempDir(), "lyon.ndjson")
	if err := os.WriteFile(other, []byte(strings.Replace(ollamaChat, "Paris", "Lyon", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, nil, "diff", other, chat)
	if code != 1 || !strings.Contains(out, `arguments differ as JSON at 1 path: /city: "Lyon" → "Paris" (byte 9)`) {
		t.Errorf("diff of another argument: exit %d\n%s", code, out)
	}
}

// TestOllamaCapturesHeadless: every Ollama capture of captures-next reads
// through the commands as Ollama, completed, with no finding.
func TestOllamaCapturesHeadless(t *testing.T) {
	t.Parallel()
	files := fixtures.SharedGlob("captures-next/ollama*.ndjson")
	if len(files) == 0 {
		t.Skip("no Ollama captures in ../shared/captures-next")
	}
	for _, f := range files {
		code, out, errs := runCLI(t, nil, "check", "--json", "--fail-on", "info", f)
		if code != 0 || !strings.Contains(out, `{"outcome":{"state":"completed","detail":"stop"},"findings":[],`) {
			t.Errorf("%s: check exit %d (%s)\n%s", f, code, errs, out)
		}
	}
}

// TestOllamaRequest: `streamtap request` against an Ollama server reads
// its application/x-ndjson answer as Ollama, and a mid-stream error line
// fails the request as an error outcome.
func TestOllamaRequest(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/x-ndjson")
		body := ollamaChat
		if r.URL.Path == "/api/generate" {
			body = `{"model":"m","created_at":"2025-01-01T00:00:00Z","response":"A","done":false}` + "\n" +
				`{"error":"an error was encountered while running the model: unexpected EOF"}` + "\n"
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	code, out, errs := runCLI(t, nil, "request", "--json", srv.URL+"/api/chat", "-d", `{"model":"m","stream":true}`)
	if code != 0 || !strings.Contains(out, `"dialect":"ollama"`) || !strings.Contains(out, `"arguments":"{\"city\":\"Paris\"}"`) {
		t.Errorf("request /api/chat: exit %d (%s)\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, nil, "request", "--json", srv.URL+"/api/generate", "-d", `{"model":"m","prompt":"x"}`)
	if code != 1 || !strings.Contains(out, `"state":"error"`) || !strings.Contains(out, "unexpected EOF") {
		t.Errorf("request /api/generate with an error line: exit %d (%s)\n%s", code, errs, out)
	}
}

// TestOllamaCassette: a vcrpy cassette of an Ollama exchange (openllmetry
// records them so, the body a YAML string) reads as the Ollama stream,
// through the archive path every command takes: the sample, and a real
// capture of ../shared when it is there.
func TestOllamaCassette(t *testing.T) {
	t.Parallel()
	sample, err := samples.Open("ollama-chat-tool-calls")
	if err != nil {
		t.Fatal(err)
	}
	inputs := []struct {
		name string
		body func(t *testing.T) []byte
		want []string
	}{
		{"sample ollama-chat-tool-calls", func(*testing.T) []byte { return sample },
			[]string{`"dialect":"ollama"`, `"name":"get_weather"`, `"outcome":{"state":"completed","detail":"stop"}`}},
		{"capture ollama__chat-streaming-chat-legacy", func(t *testing.T) []byte {
			files := fixtures.SharedGlob("captures-next/ollama__chat-streaming-chat-legacy__*.ndjson")
			if len(files) == 0 {
				t.Skip("no Ollama captures in ../shared/captures-next (a clone has none)")
			}
			body, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			return body
		}, []string{`"dialect":"ollama"`, `"text":"Why did the OpenTelemetry agent go to therapy?`, `"outcome":{"state":"completed","detail":"stop"}`}},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			quoted, _ := json.Marshal(string(in.body(t)))
			cas := "interactions:\n- request:\n    body: '{\"model\":\"llama3\",\"stream\":true,\"messages\":[]}'\n    method: POST\n    uri: http://localhost:11434/api/chat\n" +
				"  response:\n    body:\n      string: " + string(quoted) + "\n    headers:\n      Content-Type:\n      - application/x-ndjson\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
			path := writeTemp(t, "cassette.yaml", cas)
			code, out, errs := runCLI(t, nil, "calls", "--json", path)
			for _, w := range in.want {
				if code != 0 || !strings.Contains(out, w) {
					t.Errorf("calls --json of the cassette: exit %d (%s), lacks %s\n%s", code, errs, w, out)
				}
			}
		})
	}
}
