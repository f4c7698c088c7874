package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/inject"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model/checks"
)

// TestInjectWritesTheDefect runs inject as the binary would: the output
// holds the defect (check reports its rule), stderr says where it acted,
// and --report writes the same as JSON.
func TestInjectWritesTheDefect(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, report := filepath.Join(dir, "out.sse"), filepath.Join(dir, "report.json")
	code, stdout, stderr := runCLI(t, nil, "inject", "done-doubled,stop-not-tool", "sample:chat-single-call", "-o", out, "--report", report)
	if code != 0 || stdout != "" {
		t.Fatalf("inject = %d, stdout %q, stderr %q; want 0 and nothing on stdout", code, stdout, stderr)
	}
	for _, want := range []string{
		"streamtap inject: done-doubled (openai-chat, chat/data-after-done): added event 10; data: [DONE] sent twice",
		"streamtap inject: stop-not-tool (openai-chat, chat/stop-with-tool-calls): changed event 8;",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rep := checks.CheckBytes(data, capture.FormatAuto, checks.Strict)
	for _, rule := range []string{"chat/data-after-done", "chat/stop-with-tool-calls"} {
		if !hasRule(rep, rule) {
			t.Errorf("check of the output lacks %s: %v", rule, rep.Findings)
		}
	}
	var got inject.Report
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Defects) != 2 || got.Defects[0].Inserted[0] != 10 || got.Defects[1].Changed[0] != 8 {
		t.Errorf("report = %+v; want done-doubled adding event 10, stop-not-tool changing event 8", got)
	}
}

func hasRule(r checks.Report, rule string) bool {
	for _, f := range r.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// TestInjectStdoutAndJSON writes the stream to stdout and the report as
// one JSON line on stderr; the same seed chooses the same place.
func TestInjectStdoutAndJSON(t *testing.T) {
	t.Parallel()
	in := fixtures.Path("samples/responses-parallel-calls.sse")
	code1, out1, err1 := runCLI(t, nil, "inject", "args-differ", in, "--seed", "5", "--json")
	code2, out2, err2 := runCLI(t, nil, "inject", "args-differ", in, "--seed", "5", "--json")
	if code1 != 0 || code2 != 0 {
		t.Fatalf("inject = %d, %d; stderr %q", code1, code2, err1)
	}
	if out1 != out2 || err1 != err2 {
		t.Error("the same seed gave two outputs")
	}
	var rep inject.Report
	if err := json.Unmarshal([]byte(err1), &rep); err != nil {
		t.Fatalf("stderr is not the JSON report: %v\n%s", err, err1)
	}
	if rep.Seed != 5 || len(rep.Defects) != 1 || rep.Defects[0].Rule != "responses/args-done-mismatch" {
		t.Errorf("report = %+v", rep)
	}
	if !hasRule(checks.CheckBytes([]byte(out1), capture.FormatAuto, checks.Strict), "responses/args-done-mismatch") {
		t.Error("check of stdout lacks responses/args-done-mismatch")
	}
}

// TestInjectErrors: an unknown defect, a defect of another dialect, a
// defect with no place in the stream, a missing input, each exit 2 with a
// line that says which.
func TestInjectErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown", []string{"inject", "no-such-defect", "sample:chat-single-call"}, `unknown defect "no-such-defect"`},
		{"other dialect", []string{"inject", "args-differ", "sample:chat-single-call"}, "args-differ: applies to openai-responses, aisdk-ui, aisdk-data, not to this openai-chat stream"},
		{"no place", []string{"inject", "index-collision", "sample:chat-single-call"}, "index-collision: no place for it in this stream: no second call"},
		{"no input", []string{"inject", "crlf"}, "inject takes DEFECT[,DEFECT…] and INPUT"},
		{"missing file", []string{"inject", "crlf", filepath.Join(t.TempDir(), "none.sse")}, "no such file"},
		{"list with input", []string{"inject", "--list", "x"}, "--list takes no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, nil, append(tc.args, "-o", filepath.Join(t.TempDir(), "o"))...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("%v = %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
			}
		})
	}
}

// TestInjectList lists every defect with each dialect's rule, and --json
// the same as an array.
func TestInjectList(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, nil, "inject", "--list")
	if code != 0 {
		t.Fatalf("inject --list = %d", code)
	}
	for _, want := range []string{
		"args-differ  .done (and the final snapshots; the AI SDK's tool-input-available input, a v4 9: call's args) state other arguments than the deltas spell\n    openai-responses   responses/args-done-mismatch\n    aisdk-ui           aisdk-ui/input-mismatch\n    aisdk-data         aisdk-data/args-mismatch\n",
		"crc  the chosen event stream message's CRC no longer matches its bytes\n    bedrock-converse   framing/eventstream-message-crc\n    bedrock-invoke     framing/eventstream-message-crc\n",
		"    openai-responses   — (legal: no rule reports it)\n",
		"(rewrites the line endings of every event from the chosen one: framing, by nature)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--list lacks %q", want)
		}
	}
	code, out, _ = runCLI(t, nil, "inject", "--list", "--json")
	var list []struct {
		Name     string `json:"name"`
		Variants []struct {
			Dialect, Rule string
		} `json:"variants"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 {
		t.Fatalf("--list --json = %d, %v", code, err)
	}
	if len(list) != len(inject.Defects()) || list[0].Name != "crlf" || len(list[0].Variants) == 0 {
		t.Errorf("--list --json = %d defects, first %+v", len(list), list[0])
	}
}

// TestInjectRecording keeps a recording a recording: its header and the
// timing of every event, the changed one timed as the one it replaces.
func TestInjectRecording(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out.sse")
	code, _, stderr := runCLI(t, nil, "inject", "cut-terminal", "sample:responses-websocket-turns", "-o", out)
	if code != 0 {
		t.Fatalf("inject = %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := capture.ParseRecording(data)
	if err != nil {
		t.Fatalf("the output is no recording: %v", err)
	}
	if rec.Status != 101 {
		t.Errorf("status = %d; want the recorded 101", rec.Status)
	}
	if !hasRule(checks.CheckBytes(data, capture.FormatAuto, checks.Strict), "responses/no-terminal") {
		t.Error("check of the output lacks responses/no-terminal")
	}
}

// TestInjectReportIsSafe: a note that quotes the stream (a call's name
// holding an 8-bit CSI) reaches stderr escaped, as text and as JSON.
func TestInjectReportIsSafe(t *testing.T) {
	t.Parallel()
	chunk := func(tc string) string {
		return `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[` + tc + `]},"finish_reason":null}]}` + "\n\n"
	}
	stream := chunk(`{"index":0,"id":"call_1","type":"function","function":{"name":"get\u009bweather","arguments":"{\"a\""}}`) +
		chunk(`{"index":0,"function":{"arguments":":1}"}}`) +
		`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	in := writeTemp(t, "in.sse", stream)
	for _, args := range [][]string{{}, {"--json"}} {
		code, _, stderr := runCLI(t, nil, append([]string{"inject", "name-switch", in, "-o", filepath.Join(t.TempDir(), "o")}, args...)...)
		if code != 0 {
			t.Fatalf("inject %v = %d: %s", args, code, stderr)
		}
		if strings.Contains(stderr, "\u009b") {
			t.Errorf("inject %v wrote a raw 8-bit CSI to stderr: %q", args, stderr)
		}
		if !strings.Contains(stderr, `\u009b`) && !strings.Contains(stderr, `\u{9b}`) {
			t.Errorf("inject %v: the name is not shown escaped: %q", args, stderr)
		}
	}
}

// TestInjectCompletion completes replay's --inject and --fault lists one
// item at a time.
func TestInjectCompletion(t *testing.T) {
	t.Parallel()
	got, _ := defectValues("crlf,args-t")
	if strings.Join(got, " ") != "crlf,args-truncated" {
		t.Errorf("defectValues(crlf,args-t) = %q", got)
	}
	got, _ = faultValues("gzip,st")
	if strings.Join(got, " ") != "gzip,stall: gzip,stall-inside: gzip,status:" {
		t.Errorf("faultValues(gzip,st) = %q", got)
	}
	if got, _ = faultValues("gzip,g"); len(got) != 0 {
		t.Errorf("faultValues(gzip,g) = %q; want nothing (gzip is there)", got)
	}
}

// TestInjectOutputs: -o refuses the input itself and, without --force, a
// file that holds something; with --force it overwrites it.
func TestInjectOutputs(t *testing.T) {
	t.Parallel()
	in := writeTemp(t, "in.sse", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	code, _, stderr := runCLI(t, nil, "inject", "done-doubled", in, "-o", in)
	if code != 2 || !strings.Contains(stderr, "it is the input") {
		t.Errorf("-o the input = %d, %q; want 2", code, stderr)
	}
	out := writeTemp(t, "out.sse", "keep me")
	code, _, stderr = runCLI(t, nil, "inject", "done-doubled", in, "-o", out)
	if code != 2 || !strings.Contains(stderr, "add --force to overwrite it") {
		t.Errorf("-o an existing file = %d, %q; want 2", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep me" {
		t.Errorf("the existing file was changed: %q", b)
	}
	if code, _, stderr = runCLI(t, nil, "inject", "done-doubled", in, "-o", out, "--force"); code != 0 {
		t.Fatalf("--force = %d, %q", code, stderr)
	}
	if b, _ := os.ReadFile(out); strings.Count(string(b), "[DONE]") != 2 {
		t.Errorf("--force wrote %q", b)
	}
}
