package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/samples"
)

func runDiffArgs(t *testing.T, stdin *os.File, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(t.Context(), append([]string{"diff"}, args...), stdin, &out, &errb)
	return code, out.String(), errb.String()
}

// diffTemp writes a sample, edited by replacing old with new everywhere,
// to a file.
func diffTemp(t *testing.T, sample, old, new string) string {
	t.Helper()
	data, err := samples.Open(sample)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.ReplaceAll(string(data), old, new)
	if old != "" && edited == string(data) {
		t.Fatalf("%s has no %q to edit", sample, old)
	}
	return checkTemp(t, edited)
}

// TestDiffExitCodes: 0 when equivalent, 1 when the streams differ, 2 on
// bad usage or unreadable input, with a line naming the problem.
func TestDiffExitCodes(t *testing.T) {
	t.Parallel()
	edited := diffTemp(t, "responses-single-call", `"delta":" \"Par"`, `"delta":" \"Lyo"`)
	renamed := diffTemp(t, "responses-single-call", "call_GuEb29uVR4NNs9GyZiycMHSC", "call_gateway0000000000000001")
	// The same call as Chat sends it, its arguments in another key order
	// and without spaces: equal as JSON, not as bytes.
	chat := checkTemp(t, `data: {"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"unit\":\"celsius\",\"location\":\"Paris, France\"}"}}]},"finish_reason":null}]}`+
		"\n\n"+`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\ndata: [DONE]\n\n")
	tests := []struct {
		name    string
		args    []string
		code    int
		stdout  string // a line the output must hold
		stderr  string
		noStdin bool
	}{
		{"same sample", []string{"sample:responses-single-call", "sample:responses-single-call"}, 0, "equivalent: no differences beyond the ignored ones", "", false},
		{"sample and its file", []string{"sample:chat-single-call", fixtures.Path("samples/chat-single-call.sse")}, 0, "equivalent", "", false},
		{"one delta edited", []string{"sample:responses-single-call", edited}, 1, "  field      A#5 B#5 response.function_call_arguments.delta delta:", "", false},
		{"flags after the operands", []string{"sample:responses-single-call", edited, "--json"}, 1, `"equal":false`, "", false},
		{"call id renamed", []string{"sample:responses-single-call", renamed}, 0, "equivalent", "", false},
		{"call id renamed, strict", []string{"--strict", "sample:responses-single-call", renamed}, 1, "call get_weather (response 0, output 0): id \"call_GuEb29uVR4NNs9GyZiycMHSC\" ≠ \"call_gateway0000000000000001\"", "", false},
		{"call id renamed, strict but ids ignored", []string{"--strict", "--ignore", "call_id,item_id", "--ignore", "id", "sample:responses-single-call", renamed}, 0, "ignoring: call_id, id, item_id", "", false},
		{"the same call across dialects", []string{"sample:responses-single-call", chat}, 0, "equivalent", "", false},
		{"the same call across dialects, strict", []string{"--strict", "--ignore", "id,call_id", "sample:responses-single-call", chat}, 1,
			"step 1 call get_weather id call_GuEb29uVR4NNs9GyZiycMHSC: arguments equal as JSON, bytes differ from byte 2", "", false},
		{"one operand", []string{"sample:responses-single-call"}, 2, "", "streamtap diff: diff takes two streams, A and B (got 1); run 'streamtap diff --help'", false},
		{"three operands: the provider's steps, then the app's", []string{"a", "b", "c"}, 2, "", "streamtap diff: B: open c: no such file or directory", false},
		{"stdin twice", []string{"-", "-"}, 2, "", "only one of A and B can be - (stdin)", false},
		{"stdin twice among three", []string{"-", "sample:chat-single-call", "-"}, 2, "", "only one of A and B can be - (stdin)", false},
		{"missing file", []string{"sample:responses-single-call", "/nonexistent/b.sse"}, 2, "", "streamtap diff: B: open /nonexistent/b.sse: no such file or directory", false},
		{"unknown sample", []string{"sample:nope", "sample:responses-single-call"}, 2, "", "streamtap diff: A: no sample \"nope\" ('streamtap samples' lists them)", false},
		{"--sample", []string{"--sample", "x", "a", "b"}, 2, "", "diff takes no --sample: name a sample as sample:NAME", false},
		{"bad format", []string{"--format", "xml", "a", "b"}, 2, "", "--format", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runDiffArgs(t, nil, tt.args...)
			if code != tt.code {
				t.Fatalf("diff %v = %d; want %d\nstdout:\n%s\nstderr:\n%s", tt.args, code, tt.code, out, errOut)
			}
			if tt.stdout != "" && !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, out)
			}
			if tt.stderr != "" && !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr = %q; want it to hold %q", errOut, tt.stderr)
			}
			if strings.Contains(out, "\x1b") {
				t.Errorf("colour on stdout that is not a terminal:\n%q", out)
			}
		})
	}
}

// TestDiffJSON: --json prints one object with the documented members,
// the verdict in "equal" agreeing with the exit code.
func TestDiffJSON(t *testing.T) {
	t.Parallel()
	edited := diffTemp(t, "responses-single-call", `"delta":" \"Par"`, `"delta":" \"Lyo"`)
	code, out, errOut := runDiffArgs(t, nil, "--json", "sample:responses-single-call", edited)
	if code != 1 || errOut != "" {
		t.Fatalf("diff --json = %d, stderr %q; want 1, nothing", code, errOut)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"equal", "mode", "ignored", "a", "b", "timing", "counts", "omitted", "differences"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("no member %q in %s", k, out)
		}
	}
	var res struct {
		Equal bool   `json:"equal"`
		Mode  string `json:"mode"`
		A     struct {
			Name    string `json:"name"`
			Dialect string `json:"dialect"`
			Events  int    `json:"events"`
		} `json:"a"`
		Counts      map[string]int `json:"counts"`
		Differences []struct {
			Kind   string          `json:"kind"`
			Item   string          `json:"item"`
			Type   string          `json:"type"`
			Path   string          `json:"path"`
			EventA *int            `json:"event_a"`
			EventB *int            `json:"event_b"`
			A      json.RawMessage `json:"a"`
			B      json.RawMessage `json:"b"`
			Msg    string          `json:"message"`
		} `json:"differences"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Equal || res.Mode != "events" || res.A.Name != "sample responses-single-call" || res.A.Dialect != "openai-responses" || res.A.Events != 14 {
		t.Errorf("head = equal %t, mode %q, a %+v; want false, events, the sample's 14 events", res.Equal, res.Mode, res.A)
	}
	if len(res.Differences) == 0 {
		t.Fatalf("no differences:\n%s", out)
	}
	d := res.Differences[0]
	if d.Kind != "field" || d.Path != "delta" || d.EventA == nil || *d.EventA != 5 || d.EventB == nil || *d.EventB != 5 ||
		string(d.A) != `" \"Par"` || string(d.B) != `" \"Lyo"` || d.Type != "response.function_call_arguments.delta" || d.Msg == "" {
		t.Errorf("first difference = %+v (a %s, b %s); want field delta at A#5 B#5", d, d.A, d.B)
	}
	if res.Counts["field"] != 1 || res.Counts["call"] != 1 {
		t.Errorf("counts = %v; want one field and one call difference", res.Counts)
	}
	code, out, _ = runDiffArgs(t, nil, "--json", "sample:responses-single-call", "sample:responses-single-call")
	if code != 0 || !strings.HasPrefix(out, `{"equal":true,`) || !strings.Contains(out, `"differences":[]`) {
		t.Errorf("equal streams: exit %d, %s; want 0, equal, no differences", code, out)
	}
}

// TestDiffStdin: one operand can be stdin; its bytes are kept so that
// the fields of its events can be read back.
func TestDiffStdin(t *testing.T) {
	t.Parallel()
	edited := diffTemp(t, "chat-single-call", `"arguments":"NVDA\","`, `"arguments":"AMD\","`)
	f, err := os.Open(edited)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	code, out, errOut := runDiffArgs(t, f, "sample:chat-single-call", "-")
	if code != 1 || !strings.Contains(out, `function.arguments: "NVDA\","`) || !strings.Contains(out, "B  stdin:") {
		t.Fatalf("diff sample - = %d:\n%s\n%s", code, out, errOut)
	}
}

// TestDiffSafe: stream text that differs reaches the report escaped,
// whether as a JSON value (a delta, a text) or as a name (a call's).
func TestDiffSafe(t *testing.T) {
	t.Parallel()
	hostile := diffTemp(t, "responses-parallel-calls", "get_local_time", `get\u001b]0;pwned\u0007time`)
	for i, args := range [][]string{{"sample:responses-parallel-calls", hostile}, {hostile, "sample:responses-parallel-calls"}} {
		want := []string{`name: "get_local_time" ≠ "get\u001b]0;pwned\u0007time"`, `call get\x1b]0;pwned\x07time (response 0, output 2)`}[i]
		code, out, _ := runDiffArgs(t, nil, args...)
		if code != 1 || strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, want) {
			t.Errorf("diff %v = %d; want 1 and the escape shown escaped:\n%q", args, code, out)
		}
	}
}

// TestDiffCrossDialect: two dialects of one request compare by what a
// client of each ends up with, step by step (calls, text, reasoning,
// outcome), and the report says so.
func TestDiffCrossDialect(t *testing.T) {
	t.Parallel()
	code, out, _ := runDiffArgs(t, nil, "sample:chat-single-call", "sample:responses-single-call")
	if code != 1 || !strings.Contains(out, "note: the streams speak different dialects (openai-chat, openai-responses)") ||
		!strings.Contains(out, "what a client of each ends up with is compared step by step (calls, text, reasoning, outcome), not event by event") ||
		!regexp.MustCompile(`call +A#0–#7 +B#2–#13 +step 1 call get_stock_quote .*: name "get_stock_quote" ≠ "get_weather"`).MatchString(out) {
		t.Errorf("diff chat responses = %d:\n%s", code, out)
	}
}
