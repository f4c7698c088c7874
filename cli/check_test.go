package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Streams for the check command: a clean Chat stream, the same stream with
// its last event unterminated (a warning), and one whose tool-call
// arguments are broken (an error).
const (
	checkClean = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" +
		"data: [DONE]\n\n"
	checkWarning = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" +
		"data: [DONE]\n"
	checkError = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":\"}}]},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" +
		"data: [DONE]\n\n"
)

func checkTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stream.sse")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runCheckArgs(t *testing.T, stdin *os.File, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(t.Context(), append([]string{"check"}, args...), stdin, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheckExitCodes(t *testing.T) {
	t.Parallel()
	clean, warn, bad := checkTemp(t, checkClean), checkTemp(t, checkWarning), checkTemp(t, checkError)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"clean", []string{clean}, 0},
		{"warning below the default threshold", []string{warn}, 0},
		{"warning with --fail-on warning", []string{"--fail-on", "warning", warn}, 1},
		{"flag after the file", []string{warn, "--fail-on=warning"}, 1},
		{"error", []string{bad}, 1},
		{"error, tolerant", []string{"--profile", "tolerant", bad}, 1},
		{"clean with --fail-on info", []string{"--fail-on", "info", clean}, 0},
		{"missing file", []string{filepath.Join(t.TempDir(), "nope.sse")}, 2},
		{"bad --fail-on", []string{"--fail-on", "fatal", clean}, 2},
		{"bad --profile", []string{"--profile", "lax", clean}, 2},
		{"unknown flag", []string{"--frobnicate", clean}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCheckArgs(t, nil, tt.args...)
			if code != tt.want {
				t.Fatalf("runCheck(%q) = %d; want %d\nstdout: %s\nstderr: %s", tt.args, code, tt.want, stdout, stderr)
			}
			if code == 2 {
				if n := strings.Count(stderr, "\n"); n != 1 || !strings.HasPrefix(stderr, "streamtap check: ") {
					t.Errorf("runCheck(%q) stderr = %q; want one line", tt.args, stderr)
				}
				if stdout != "" {
					t.Errorf("runCheck(%q) stdout = %q; want nothing", tt.args, stdout)
				}
			}
		})
	}
}

func TestCheckUnreadableNamesTheFile(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope.sse")
	code, _, stderr := runCheckArgs(t, nil, missing)
	if code != 2 || !strings.Contains(stderr, missing) {
		t.Errorf("runCheck(%s) = %d, %q; want 2 and a message naming the file", missing, code, stderr)
	}
}

func TestCheckJSON(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCheckArgs(t, nil, "--json", checkTemp(t, checkError))
	if code != 1 {
		t.Fatalf("runCheck --json = %d; want 1", code)
	}
	var rep struct {
		Outcome  map[string]string `json:"outcome"`
		Findings []map[string]any  `json:"findings"`
		Pass     *bool             `json:"pass"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("output %s: %v", stdout, err)
	}
	if rep.Outcome["state"] != "completed" || rep.Outcome["detail"] != "tool_calls" || len(rep.Outcome) != 2 {
		t.Errorf("outcome = %v; want state completed, detail tool_calls", rep.Outcome)
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("findings = %v; want one", rep.Findings)
	}
	if rep.Pass == nil || *rep.Pass {
		t.Errorf("pass = %v; want false (an error finding)", rep.Pass)
	}
	f := rep.Findings[0]
	if f["rule"] != "chat/args-invalid-json" || f["severity"] != "error" || len(f) != 4 {
		t.Errorf("finding = %v; want chat/args-invalid-json, error, with events and message", f)
	}
	if ev, ok := f["events"].([]any); !ok || len(ev) == 0 {
		t.Errorf("events = %v; want event ordinals", f["events"])
	}
	if msg, _ := f["message"].(string); !strings.Contains(msg, "call_1") {
		t.Errorf("message = %q; want it to name call_1", msg)
	}

	// A clean stream: findings is an empty array.
	_, stdout, _ = runCheckArgs(t, nil, "--json", checkTemp(t, checkClean))
	if !strings.Contains(stdout, `"findings":[]`) || !strings.HasSuffix(stdout, `,"pass":true}`+"\n") {
		t.Errorf("clean --json = %s; want \"findings\":[] and \"pass\":true", stdout)
	}
}

func TestCheckText(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCheckArgs(t, nil, checkTemp(t, checkWarning))
	if code != 0 {
		t.Fatalf("runCheck = %d; want 0", code)
	}
	for _, want := range []string{"outcome: completed (tool_calls)", "warning framing/unterminated-event [2]: ", "0 errors, 1 warning, 0 infos"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestCheckStdin(t *testing.T) {
	t.Parallel()
	path := checkTemp(t, checkError)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if code, _, stderr := runCheckArgs(t, f, "-"); code != 1 {
		t.Errorf("runCheck(-) = %d (%s); want 1", code, stderr)
	}
	// No FILE and a stdin that is a regular file (a redirect): read it.
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCheckArgs(t, f); code != 1 {
		t.Errorf("runCheck() with redirected stdin = %d (%s); want 1", code, stderr)
	}
	// No FILE and no stdin: bad usage.
	if code, _, _ := runCheckArgs(t, nil); code != 2 {
		t.Errorf("runCheck() with no input = %d; want 2", code)
	}
}

func TestRulesCommand(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if code := run(t.Context(), []string{"rules"}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("runRules = %d", code)
	}
	for _, want := range []string{"responses/args-done-mismatch", "chat/tool-index-collision", "framing/unterminated-event",
		"anthropic/event-name-missing", "gemini/partial-args-unterminated"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("rules output lacks %s", want)
		}
	}
	out.Reset()
	if code := run(t.Context(), []string{"rules", "--json"}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("runRules --json = %d", code)
	}
	var rules []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rules); err != nil || len(rules) < 60 {
		t.Fatalf("rules --json: %d rules, %v", len(rules), err)
	}
	if r := rules[0]; r["id"] == "" || r["severity"] == "" || r["summary"] == "" {
		t.Errorf("rule = %v; want id, severity, summary", r)
	}
	if code := run(t.Context(), []string{"rules", "extra"}, nil, &out, io.Discard); code != 2 {
		t.Errorf("runRules(extra) = %d; want 2", code)
	}
}

// Streams whose outcome is not a success, and two that are.
const (
	checkHTTP401   = "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{\"error\":{\"message\":\"bad key\",\"type\":\"invalid_request_error\"}}"
	checkJSONError = "{\"error\":{\"message\":\"bad key\",\"type\":\"invalid_request_error\"}}\n"
	checkFailed    = "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
		"data: {\"type\":\"response.failed\",\"sequence_number\":1,\"response\":{\"id\":\"r\",\"status\":\"failed\",\"output\":[]}}\n\n"
	checkIncomplete = "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
		"data: {\"type\":\"response.incomplete\",\"sequence_number\":1,\"response\":{\"id\":\"r\",\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"},\"output\":[]}}\n\n"
	// A Gemini stream cut before its finishReason: no rule fires, only
	// the outcome tells.
	checkTruncated = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"hi\"}]},\"index\":0}]}\n\n"
	// A recorded WebSocket that carried no Responses events: its messages
	// are comments, and it ended closed.
	checkWSClosed = ": streamtap-recording v1\n: request GET https://api.example.com/v1/echo\n" +
		": response HTTP/1.1 101 Switching Protocols\n: response-header Upgrade: websocket\n\n" +
		": ws client text utf8 hi\n\n: ws server text utf8 hi\n\n: ws client close code=1000\n\n: ws server close code=1000\n\n"
)

// TestCheckOutcomeFails: a stream that ended in error, failed, truncated
// or empty fails the check even without findings at or above --fail-on;
// completed and incomplete pass; --allow-outcome lets named ones pass.
func TestCheckOutcomeFails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		stream       string
		args         []string
		want         int
		outcome      string // the state the text output names
		outcomeFails bool   // the text output says the outcome failed the check
	}{
		{"completed", checkClean, nil, 0, "completed", false},
		{"incomplete", checkIncomplete, nil, 0, "incomplete", false},
		{"HTTP 401", checkHTTP401, nil, 1, "error", true},
		{"JSON error body", checkJSONError, nil, 1, "error", true},
		{"failed", checkFailed, nil, 1, "failed", true},
		{"truncated", checkTruncated, nil, 1, "truncated", true},
		{"empty", "", nil, 1, "empty", true},
		{"closed WebSocket", checkWSClosed, nil, 0, "closed", false},
		{"closed allowed", checkWSClosed, []string{"--allow-outcome", "closed"}, 0, "closed", false},
		// An empty stream also breaks the rule framing/no-data (an error),
		// so allowing the outcome leaves the finding to fail the check.
		{"empty allowed", "", []string{"--allow-outcome", "empty"}, 1, "empty", false},
		{"truncated allowed in a list", checkTruncated, []string{"--allow-outcome", "truncated,empty"}, 0, "truncated", false},
		{"repeated flag", checkFailed, []string{"--allow-outcome", "error", "--allow-outcome", "failed"}, 0, "failed", false},
		{"another outcome allowed", checkHTTP401, []string{"--allow-outcome", "truncated"}, 1, "error", true},
		{"allowed outcome, failing findings", checkError, []string{"--allow-outcome", "completed"}, 1, "completed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{}, tt.args...), checkTemp(t, tt.stream))
			code, stdout, stderr := runCheckArgs(t, nil, args...)
			if code != tt.want {
				t.Fatalf("runCheck(%q) = %d; want %d\nstdout: %s\nstderr: %s", tt.args, code, tt.want, stdout, stderr)
			}
			if !strings.HasPrefix(stdout, "outcome: "+tt.outcome) {
				t.Errorf("runCheck(%q) stdout = %q; want the outcome %s first", tt.args, stdout, tt.outcome)
			}
			why := "outcome " + tt.outcome + " fails the check (allow it with --allow-outcome " + tt.outcome + ")"
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			last := lines[len(lines)-1]
			if tt.outcomeFails && last != why {
				t.Errorf("runCheck(%q) last line = %q; want %q", tt.args, last, why)
			}
			if !tt.outcomeFails && strings.Contains(stdout, "fails the check") {
				t.Errorf("runCheck(%q) says the outcome fails:\n%s", tt.args, stdout)
			}

			// --json says the same in "pass".
			code, stdout, _ = runCheckArgs(t, nil, append([]string{"--json"}, args...)...)
			var rep struct {
				Outcome struct{ State string } `json:"outcome"`
				Pass    *bool                  `json:"pass"`
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Pass == nil {
				t.Fatalf("runCheck --json %q = %s (%v); want an object with pass", tt.args, stdout, err)
			}
			if code != tt.want || *rep.Pass != (tt.want == 0) || rep.Outcome.State != tt.outcome {
				t.Errorf("runCheck --json %q = %d, pass %v, outcome %s; want %d, pass %v, %s", tt.args, code, *rep.Pass, rep.Outcome.State,
					tt.want, tt.want == 0, tt.outcome)
			}
		})
	}
}

// TestCheckAllowOutcomeIsValidated: a name that is not an outcome is bad
// usage, named in the one-line error.
func TestCheckAllowOutcomeIsValidated(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"truncatd", "truncated,bogus", "", "streaming"} {
		code, stdout, stderr := runCheckArgs(t, nil, "--allow-outcome", v, checkTemp(t, checkClean))
		if code != 2 || stdout != "" || !strings.Contains(stderr, "--allow-outcome") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("runCheck(--allow-outcome %q) = %d, %q, %q; want 2 and one line about --allow-outcome", v, code, stdout, stderr)
		}
	}
}

// TestSessionOfOneStream: --session N chooses a session of an archive;
// on a stream that is not one, every reading command refuses it in one
// line, exit 2. check used to ignore it and judge the stream.
func TestSessionOfOneStream(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"calls", "events", "timeline", "check"} {
		code, out, errs := runCLI(t, nil, cmd, "--session", "1", "--sample", "chat-single-call")
		want := "streamtap " + cmd + ": --session N chooses a session of a HAR file or a cassette; this input is one stream"
		if code != 2 || out != "" || !strings.HasPrefix(errs, want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s --session 1 on a sample = %d, stdout %q, stderr %q; want 2 and %q", cmd, code, out, errs, want)
		}
	}
}
