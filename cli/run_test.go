package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the command line with stdin from the given bytes.
func runCLI(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	in, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Write(stdin); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, errb bytes.Buffer
	code = run(t.Context(), args, in, &out, &errb)
	return code, out.String(), errb.String()
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const chatStream = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`

func TestCallsJSON(t *testing.T) {
	t.Parallel()
	path := writeTemp(t, "chat.sse", chatStream)
	for _, args := range [][]string{{"calls", "--json", path}, {"calls", path, "--json"}} {
		code, out, errs := runCLI(t, nil, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errs)
		}
		var rep struct {
			Dialect string `json:"dialect"`
			Calls   []struct {
				ID        *string `json:"id"`
				Name      string  `json:"name"`
				Arguments string  `json:"arguments"`
				Status    string  `json:"status"`
			} `json:"calls"`
			Text any `json:"text"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("calls --json output is not JSON: %v\n%s", err, out)
		}
		if rep.Dialect != "openai-chat" || len(rep.Calls) != 1 || *rep.Calls[0].ID != "call_1" ||
			rep.Calls[0].Name != "get_weather" || rep.Calls[0].Arguments != `{"city":"Paris"}` ||
			rep.Calls[0].Status != "completed" || rep.Text != "" {
			t.Fatalf("calls --json = %s", out)
		}
	}
}

func TestCallsFromStdinAndText(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, []byte(chatStream), "calls")
	if code != 0 || !strings.Contains(out, "get_weather") || !strings.Contains(out, `{"city":"Paris"}`) {
		t.Fatalf("calls from stdin: exit %d\n%s", code, out)
	}
}

func TestEventsLines(t *testing.T) {
	t.Parallel()
	in := ": keep-alive\n\n" + chatStream + "data: not json\n\n"
	code, out, errs := runCLI(t, []byte(in), "events", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines; want 7 (comment, 5 events, invalid):\n%s", len(lines), out)
	}
	var at int64
	for i, l := range lines {
		var ev struct {
			Ordinal int             `json:"ordinal"`
			Offset  int64           `json:"offset"`
			Length  int64           `json:"length"`
			Kind    string          `json:"kind"`
			Data    json.RawMessage `json:"data"`
			Error   *struct {
				Offset int `json:"offset"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %d is not JSON: %v", i, err)
		}
		if ev.Ordinal != i || ev.Offset != at {
			t.Fatalf("line %d: ordinal %d offset %d; want %d at %d", i, ev.Ordinal, ev.Offset, i, at)
		}
		at += ev.Length
		if i == 6 && (ev.Error == nil || ev.Error.Offset != 1) {
			t.Fatalf("invalid data line lacks its decode error position: %s", l)
		}
	}
	if at != int64(len(in)) {
		t.Fatalf("events cover %d of %d bytes", at, len(in))
	}
}

func TestTimelineWhenNotATerminal(t *testing.T) {
	t.Parallel()
	path := writeTemp(t, "chat.sse", chatStream)
	code, out, _ := runCLI(t, nil, path)
	if code != 0 || !strings.Contains(out, `call_1 get_weather +"{\"city\":"`) || !strings.Contains(out, "completed") {
		t.Fatalf("timeline: exit %d\n%s", code, out)
	}
}

func TestSaveWritesExactBytes(t *testing.T) {
	t.Parallel()
	in := "data: {\"a\":1}\r\n\r\n: c\r\rdata: x"
	save := filepath.Join(t.TempDir(), "saved.sse")
	code, _, errs := runCLI(t, []byte(in), "events", "--save", save)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, err := os.ReadFile(save)
	if err != nil || string(got) != in {
		t.Fatalf("saved %q, %v; want %q", got, err, in)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope.sse")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"calls", missing}, "nope.sse"},
		{[]string{"calls", "--bogus"}, "bogus"},
		{[]string{"calls", "--format", "xml", missing}, "unknown format"},
		{[]string{"calls", "a", "b"}, "one input"},
		{[]string{"--sample", "no-such-sample"}, "no-such-sample"},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(t, nil, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message naming %q", tt.args, code, errs, tt.want)
		}
	}
}

func TestSamplesCommandAndDemo(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, nil, "samples")
	if code != 0 || !strings.Contains(out, "responses-single-call") {
		t.Fatalf("samples: exit %d\n%s", code, out)
	}
	// Every lesson starts in one column, after at least two spaces.
	col := -1
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		name, _, _ := strings.Cut(line, " ")
		at := len(name) + len(line[len(name):]) - len(strings.TrimLeft(line[len(name):], " "))
		if col == -1 {
			col = at
		}
		if at != col || !strings.HasPrefix(line[len(name):], "  ") {
			t.Errorf("samples: the lesson of %s starts at column %d, the first at %d:\n%s", name, at, col, out)
		}
	}
	code, out, _ = runCLI(t, nil, "calls", "--sample", "chat-single-call", "--json")
	if code != 0 || !strings.Contains(out, `"dialect":"openai-chat"`) {
		t.Fatalf("calls --sample: exit %d\n%s", code, out)
	}
}

// TestErrorsAreTerminalSafe: an error line names what the user typed (a
// file, a flag) and it may hold escape sequences: they reach the terminal
// escaped, as stream content does.
func TestErrorsAreTerminalSafe(t *testing.T) {
	t.Parallel()
	const evil = "\x1b]0;pwned\x07\x1b[2J"
	for _, args := range [][]string{
		{"calls", "/nonexistent/" + evil},
		{"check", "--json", "/nonexistent/" + evil},
		{"diff", "/nonexistent/" + evil, "sample:responses-single-call"},
		{"calls", "--" + evil},
		{"timeline", "--request", "/nonexistent/" + evil, "x"},
	} {
		code, _, stderr := runCLI(t, nil, args...)
		if code != 2 || stderr == "" || strings.ContainsAny(stderr, "\x1b\x07") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and the name escaped", args, code, stderr)
		}
	}
}
