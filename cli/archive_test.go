package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/samples"
)

// importFixture is a real archive of capture/testdata/import.
func importFixture(name string) string { return fixtures.Import(name) }

// sessionReport is what a test reads from one line of calls --json.
type sessionReport struct {
	Session  int
	Exchange struct {
		Method, URL string
		Status      int
	}
	Dialect string
	Calls   []struct {
		ID              *string
		Name, Arguments string
	}
	Text    any
	Outcome struct{ State string }
}

func callsJSONLines(t *testing.T, args ...string) []sessionReport {
	t.Helper()
	code, out, errs := runCLI(t, nil, append([]string{"calls", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("calls --json %v: exit %d, %s", args, code, errs)
	}
	var reps []sessionReport
	for line := range strings.Lines(out) {
		var r sessionReport
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		reps = append(reps, r)
	}
	return reps
}

// Each session of the real cassettes assembles into what the upstream
// test of that cassette expects.
func TestImportedFixturesMatchUpstreamTests(t *testing.T) {
	t.Parallel()
	type want struct{ calls, text string }
	tests := []struct {
		file string
		want []want
	}{
		{"anthropic-text-editor-stream__pydantic-ai.yaml", []want{
			{`str_replace_based_edit_tool(toolu_015czvgRAN7XL7DZXTBbSXiP) {"command": "view", "path": "/tmp/example.py"}`, ""},
			{"", "The file `/tmp/example.py` contains a single line of Python code:\n\n```python\nprint(\"hello world\")\n```\n\nIt's a simple script that prints **\"hello world\"** to the console."},
		}},
		{"gemini-iter-stream__pydantic-ai.yaml", []want{
			{`get_capital() {"country":"France"}`, ""},
			{`get_temperature() {"city":"Paris"}`, ""},
			{"", "The temperature in Paris is 30°C."},
		}},
		{"responses-json-tool-call__pydantic-ai.yaml", []want{
			{`get_capital(call_61cRAI5gleGxCN89umufHn2a) {"country":"PotatoLand"}`, ""},
			{"", "The capital of PotatoLand is Potato City."},
		}},
		{"responses-gzip-json__simonw-llm.yaml", []want{{"", "pong"}}},
		{"chat-azure-model-router__vercel-ai.chunks.txt", []want{{"", "Capital of Denmark."}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			reps := callsJSONLines(t, importFixture(tt.file))
			if len(reps) != len(tt.want) {
				t.Fatalf("%d sessions; want %d", len(reps), len(tt.want))
			}
			for i, r := range reps {
				var calls []string
				for _, c := range r.Calls {
					id := ""
					if c.ID != nil {
						id = *c.ID
					}
					calls = append(calls, c.Name+"("+id+") "+c.Arguments)
				}
				if got := strings.Join(calls, "; "); got != tt.want[i].calls || r.Text != tt.want[i].text || r.Outcome.State != "completed" {
					t.Errorf("session %d: calls %q, text %q, outcome %s; want %q, %q, completed", i+1, got, r.Text, r.Outcome.State, tt.want[i].calls, tt.want[i].text)
				}
				if len(reps) > 1 && (r.Session != i+1 || r.Exchange.Method != "POST" || r.Exchange.Status != 200) {
					t.Errorf("session %d: session %d, exchange %+v", i+1, r.Session, r.Exchange)
				}
			}
		})
	}
}

// One session reads exactly as the same response read as a stream: no
// header, no added member, byte for byte.
func TestImportedSessionReadsAsItsStream(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"calls", "events", "check", "timeline"} {
		args := []string{cmd, "--session", "2", importFixture("anthropic-text-editor-stream__pydantic-ai.yaml")}
		if cmd == "calls" || cmd == "check" {
			args = append(args, "--json")
		}
		_, got, _ := runCLI(t, nil, args...)
		// The same exchange as `curl -i` prints it.
		body := strings.Join([]string{"HTTP/1.1 200 OK", "Cache-Control: no-cache", "Connection: keep-alive",
			"Content-Type: text/event-stream", "Strict-Transport-Security: max-age=31536000; includeSubDomains; preload",
			"Transfer-Encoding: chunked", "", ""}, "\r\n")
		stream := sseOfSession(t, 2)
		path := writeTemp(t, "s2.txt", body+stream)
		args[len(args)-1] = path
		if cmd == "calls" || cmd == "check" {
			args = args[:len(args)-2]
			args = append(args, path, "--json")
		}
		args = slicesWithout(args, "--session", "2")
		_, want, _ := runCLI(t, nil, args...)
		// The timeline's last line names the source.
		got = strings.Replace(got, importFixture("anthropic-text-editor-stream__pydantic-ai.yaml")+" #2", path, 1)
		if got != want || got == "" {
			t.Errorf("%s --session 2 =\n%s\nwant what the stream gives\n%s", cmd, got, want)
		}
	}
}

// sseOfSession is the body of a session of the pydantic-ai Anthropic
// cassette, cut from the YAML by hand: its literal block, unindented.
func sseOfSession(t *testing.T, n int) string {
	t.Helper()
	data, err := os.ReadFile(importFixture("anthropic-text-editor-stream__pydantic-ai.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(data), "      string: |+\n")
	var b strings.Builder
	for line := range strings.Lines(blocks[n]) {
		if !strings.HasPrefix(line, "        ") && line != "\n" {
			break
		}
		b.WriteString(strings.TrimPrefix(line, "        "))
	}
	return b.String()
}

func slicesWithout(args []string, drop ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if i+1 < len(args) && args[i] == drop[0] && args[i+1] == drop[1] {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// Several sessions: JSON lines, each object saying its session; events
// lines too; text outputs with a header per session.
func TestImportedSessionsOutputs(t *testing.T) {
	t.Parallel()
	file := importFixture("gemini-iter-stream__pydantic-ai.yaml")
	_, out, _ := runCLI(t, nil, "events", file)
	seen := map[int]int{}
	for line := range strings.Lines(out) {
		var ev struct{ Session, Ordinal int }
		if err := json.Unmarshal([]byte(line), &ev); err != nil || !strings.HasPrefix(line, `{"session":`) {
			t.Fatalf("events line %q: %v", line, err)
		}
		if ev.Ordinal != seen[ev.Session] {
			t.Errorf("session %d: ordinal %d after %d events", ev.Session, ev.Ordinal, seen[ev.Session])
		}
		seen[ev.Session]++
	}
	if len(seen) != 3 || seen[3] != 3 {
		t.Errorf("events per session %v; want 3 sessions, the third with head + 2 events", seen)
	}
	_, out, _ = runCLI(t, nil, "check", "--json", file)
	if n := strings.Count(out, "\n"); n != 3 || !strings.HasPrefix(out, `{"session":1,"exchange":{"method":"POST","url":"https://generativelanguage.googleapis.com/`) {
		t.Errorf("check --json: %d lines:\n%s", n, out)
	}
	_, out, _ = runCLI(t, nil, "timeline", file)
	if strings.Count(out, "# session ") != 3 || !strings.HasPrefix(out, "# session 1/3: POST https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse 200\n") {
		t.Errorf("timeline:\n%s", out)
	}
}

// check fails when any session fails, and says which.
func TestImportedCheckExitIsTheWorst(t *testing.T) {
	t.Parallel()
	cassette := writeTemp(t, "two.yaml", `interactions:
- request: {method: POST, uri: 'https://api.openai.com/v1/chat/completions'}
  response:
    status: {code: 200}
    headers: {Content-Type: [text/event-stream]}
    body: {string: "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"}
- request: {method: POST, uri: 'https://api.openai.com/v1/chat/completions', body: '{"model":"gpt-4o-mini","messages":[]}'}
  response:
    status: {code: 401}
    headers: {Content-Type: [application/json]}
    body: {string: '{"error":{"message":"bad key","type":"invalid_request_error"}}'}
`)
	code, out, _ := runCLI(t, nil, "check", cassette)
	if code != 1 || !strings.Contains(out, "# session 2/2: POST https://api.openai.com/v1/chat/completions 401\noutcome: error") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, nil, "check", "--session", "1", cassette); code != 0 {
		t.Errorf("check --session 1: exit %d; want 0", code)
	}
}

// Bad archives and bad --session say what and where.
func TestImportErrors(t *testing.T) {
	t.Parallel()
	bad := writeTemp(t, "bad.yaml", "interactions:\n- request:\n    method: [GET\n")
	badHAR := writeTemp(t, "bad.har", "{\"log\": {\"entries\": [\n  {\"request\": {]\n}")
	plain := writeTemp(t, "x.sse", chatStream)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"calls", bad}, "streamtap: " + bad + ": cassette: yaml: line 2: did not find expected"},
		{[]string{"calls", badHAR}, "streamtap: " + badHAR + ": har: line 2, column 17"},
		{[]string{"calls", "--session", "4", importFixture("gemini-iter-stream__pydantic-ai.yaml")}, "--session 4: " + importFixture("gemini-iter-stream__pydantic-ai.yaml") + " holds 3 sessions"},
		{[]string{"calls", "--session", "1", plain}, "--session N chooses a session of a HAR file or a cassette"},
		{[]string{"calls", "--session", "-1", plain}, "sessions count from 1"},
		{[]string{"calls", "--format", "har", plain}, "har: line 1, column 2: invalid character"},
		{[]string{"calls", "--save", "x", importFixture("gemini-iter-stream__pydantic-ai.yaml")}, "choose one of the 3 sessions with --session N"},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(t, nil, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}

// --save-har then reading the HAR gives every sample's calls and events
// back unchanged; a timed recording's calls (its events read back as the
// `curl -i` output the HAR holds, without the recording's timing lines).
func TestSaveHARRoundTripOnSamples(t *testing.T) {
	t.Parallel()
	for _, s := range samples.List() {
		name := strings.TrimSuffix(s.Name, ".sse")
		har := filepath.Join(t.TempDir(), name+".har")
		data, err := samples.Open(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		cmds := []string{"calls", "events"}
		if strings.HasPrefix(string(data), capture.RecordingMagic) {
			cmds = cmds[:1]
		}
		for _, cmd := range cmds {
			args := []string{cmd, "--sample", name}
			if cmd == "calls" {
				args = append(args, "--json")
			}
			code, want, errs := runCLI(t, nil, append(args, "--save-har", har, "--force")...)
			if code != 0 {
				t.Fatalf("%v: exit %d %s", args, code, errs)
			}
			args[1], args[2] = har, har
			args = args[1:]
			args = append([]string{cmd}, args[1:]...)
			_, got, errs := runCLI(t, nil, args...)
			if got != want {
				t.Errorf("%s of %s through a HAR =\n%s\nwant\n%s\n%s", cmd, name, got, want, errs)
			}
			// The same HAR on standard input, told by --format.
			b, err := os.ReadFile(har)
			if err != nil {
				t.Fatal(err)
			}
			args[1] = "-"
			if _, got, errs := runCLI(t, b, append(args, "--format", "har")...); got != want {
				t.Errorf("%s of %s through a HAR on stdin =\n%s\nwant\n%s\n%s", cmd, name, got, want, errs)
			}
		}
	}
}

// The HAR --save-har writes hides credentials unless --keep-secrets.
func TestSaveHARRedacts(t *testing.T) {
	t.Parallel()
	file := writeTemp(t, "auth.yaml", `interactions:
- request:
    method: POST
    uri: 'https://api.openai.com/v1/chat/completions'
    headers: {Authorization: [Bearer foo]}
    body: '{"model":"gpt-4o-mini","messages":[]}'
  response:
    status: {code: 200}
    headers: {Content-Type: [text/event-stream]}
    body: {string: "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"}
`)
	for _, keep := range []bool{false, true} {
		har := filepath.Join(t.TempDir(), "x.har")
		args := []string{"calls", file, "--save-har", har}
		if keep {
			args = append(args, "--keep-secrets")
		}
		if code, _, errs := runCLI(t, nil, args...); code != 0 {
			t.Fatalf("exit %d %s", code, errs)
		}
		data, _ := os.ReadFile(har)
		hasKey := strings.Contains(string(data), `"name":"Authorization","value":"Bearer foo"`)
		if hasKey != keep || !json.Valid(data) {
			t.Errorf("keep-secrets %v: the HAR holds the key: %v\n%s", keep, hasKey, data)
		}
	}
}

// A .chunks.txt file is read as vercel/ai's harness sends it: a Chat
// stream ends with its [DONE] and completes.
func TestChunksFileCompletes(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, nil, "check", importFixture("chat-azure-model-router__vercel-ai.chunks.txt"))
	if code != 0 || !strings.HasPrefix(out, "outcome: completed (stop)\n") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	_, out, _ = runCLI(t, nil, "events", importFixture("chat-azure-model-router__vercel-ai.chunks.txt"))
	var last string
	for line := range strings.Lines(out) {
		last = line
	}
	if !strings.Contains(last, `"kind":"sentinel"`) || !strings.Contains(last, `"flags":["implied"]`) || !strings.Contains(last, `"length":0`) {
		t.Errorf("last event %s; want the implied [DONE]", last)
	}
}
