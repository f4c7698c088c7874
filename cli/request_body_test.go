package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/checks"
)

// Requests for checkClean, whose one call is f({}).
const (
	reqDeclaresF  = `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}]}`
	reqDeclaresG  = `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"g","parameters":{"type":"object"}}}]}`
	reqNeedsCity  = `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","strict":true,"parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}}]}`
	reqChoiceNone = `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"none"}`
)

func requestTemp(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkRules runs check --json and returns its findings' rules and
// messages.
func checkRules(t *testing.T, args ...string) (int, []checks.Finding, string) {
	t.Helper()
	code, out, errOut := runCheckArgs(t, nil, append([]string{"--json"}, args...)...)
	var rep struct{ Findings []checks.Finding }
	if code != 2 {
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("check --json output is not JSON: %v\n%s", err, out)
		}
	}
	return code, rep.Findings, errOut
}

// TestCheckRequestFlag: check --request FILE holds the stream's calls to
// the request: the findings of the request rules, and the exit code.
func TestCheckRequestFlag(t *testing.T) {
	t.Parallel()
	stream := checkTemp(t, checkClean)
	tests := []struct {
		name string
		req  string
		code int
		rule string // the one request finding expected, "" for none
		msg  string
	}{
		{"declared, arguments valid", reqDeclaresF, 0, "", ""},
		{"undeclared tool", reqDeclaresG, 0, "request/tool-undeclared", `call f at event 0 names a tool the request does not declare; it declares g — id "call_1"`},
		{"strict schema fails", reqNeedsCity, 1, "request/args-schema", `the arguments of call f, complete at event 1, break its schema: (root): missing property 'city' [required]`},
		{"tool_choice none", reqChoiceNone, 1, "request/tool-choice-violated", `tool_choice is "none"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, found, errOut := checkRules(t, "--request", requestTemp(t, tt.req), stream)
			if code != tt.code {
				t.Errorf("exit %d; want %d (stderr %q, findings %v)", code, tt.code, errOut, found)
			}
			var req []checks.Finding
			for _, f := range found {
				if strings.HasPrefix(f.Rule, "request/") {
					req = append(req, f)
				}
			}
			switch {
			case tt.rule == "" && len(req) > 0:
				t.Errorf("findings %v; want no request finding", req)
			case tt.rule != "" && (len(req) != 1 || req[0].Rule != tt.rule || !strings.Contains(req[0].Message, tt.msg)):
				t.Errorf("findings %v; want one %s containing %q", req, tt.rule, tt.msg)
			}
		})
	}
	// Without --request the same stream has no request finding.
	if code, found, _ := checkRules(t, stream); code != 0 || len(found) != 0 {
		t.Errorf("without --request: exit %d, findings %v; want 0 and none", code, found)
	}
}

// TestCheckRequestFlagErrors: a --request file that cannot be read or is
// not a JSON object is bad input (exit 2, one line naming it).
func TestCheckRequestFlagErrors(t *testing.T) {
	t.Parallel()
	stream := checkTemp(t, checkClean)
	for name, path := range map[string]string{
		"missing":    filepath.Join(t.TempDir(), "nope.json"),
		"not JSON":   requestTemp(t, "data: x"),
		"JSON array": requestTemp(t, "[1]"),
	} {
		code, out, errOut := runCheckArgs(t, nil, "--request", path, stream)
		if code != 2 || out != "" || !strings.Contains(errOut, "--request") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and one line naming --request", name, code, out, errOut)
		}
	}
}

// TestCheckRequestFromRecording: a timed recording carries its request
// body; check holds the calls to it without --request, and --request
// wins over it.
func TestCheckRequestFromRecording(t *testing.T) {
	t.Parallel()
	rec := capture.RecordingMagic + "\n: request POST https://api.example.com/v1/chat/completions\n: request-body " + reqDeclaresG +
		"\n: response HTTP/1.1 200 OK\n: response-header Content-Type: text/event-stream\n\n" + checkClean
	path := checkTemp(t, rec)
	_, found, _ := checkRules(t, path)
	if len(found) != 1 || found[0].Rule != "request/tool-undeclared" {
		t.Errorf("recording: findings %v; want one request/tool-undeclared", found)
	}
	if _, found, _ := checkRules(t, "--request", requestTemp(t, reqDeclaresF), path); len(found) != 0 {
		t.Errorf("recording with --request: findings %v; want none", found)
	}
}

// TestCheckRequestFromCassette: each exchange of an imported cassette is
// checked against its own request.
func TestCheckRequestFromCassette(t *testing.T) {
	t.Parallel()
	cassette := `interactions:
- request:
    body: '` + reqDeclaresG + `'
    headers: {}
    method: POST
    uri: https://api.example.com/v1/chat/completions
  response:
    body:
      string: ` + yamlQuote(checkClean) + `
    headers:
      content-type:
      - text/event-stream
    status:
      code: 200
      message: OK
- request:
    body: '` + reqDeclaresF + `'
    headers: {}
    method: POST
    uri: https://api.example.com/v1/chat/completions
  response:
    body:
      string: ` + yamlQuote(checkClean) + `
    headers:
      content-type:
      - text/event-stream
    status:
      code: 200
      message: OK
version: 1
`
	path := filepath.Join(t.TempDir(), "cassette.yaml")
	if err := os.WriteFile(path, []byte(cassette), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCheckArgs(t, nil, "--json", path)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, %d lines (stderr %q):\n%s; want 0 and a line per session", code, len(lines), errOut, out)
	}
	if !strings.Contains(lines[0], `"session":1`) || !strings.Contains(lines[0], "request/tool-undeclared") {
		t.Errorf("session 1: %s; want its call undeclared by its request", lines[0])
	}
	if strings.Contains(lines[1], "request/") {
		t.Errorf("session 2: %s; want no request finding, its request declares f", lines[1])
	}
}

// yamlQuote writes s as a double-quoted YAML scalar on one line.
func yamlQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestInspectorRequestFlag: the inspector's findings pane, given
// --request, lists the request rules' findings as check --request does.
func TestInspectorRequestFlag(t *testing.T) {
	t.Parallel()
	stream := checkTemp(t, checkClean)
	for _, body := range []string{reqDeclaresG, reqNeedsCity, reqChoiceNone} {
		req := requestTemp(t, body)
		want := checkFindings(t, stream, "--request", req)
		got := inspectorFindings(t, stream, "--request", req)
		if !slices.Equal(got, want) || !slices.ContainsFunc(got, func(k findingKey) bool { return strings.HasPrefix(k.Rule, "request/") }) {
			t.Errorf("request %s:\ninspector: %v\ncheck:     %v\nwant equal, with a request finding", body, got, want)
		}
	}
}

// TestRequestOf: the request a source answers is --request's when given,
// else its exchange's (an archive entry, `streamtap request`), else none.
func TestRequestOf(t *testing.T) {
	t.Parallel()
	src := capture.FromReader("x", capture.SourceHTTP, strings.NewReader(""), false)
	if r := requestOf(src, options{}); r != nil {
		t.Errorf("plain stream: %+v; want no request", r)
	}
	src.Exchange = &capture.Exchange{URL: "https://h/v1beta/models/gemini-2.5:streamGenerateContent", RequestBody: []byte(reqDeclaresG)}
	if r := requestOf(src, options{}); r == nil || r.Decl("g") == nil {
		t.Errorf("exchange: %+v; want its request, declaring g", r)
	}
	if r := requestOf(src, options{requestBody: []byte(reqDeclaresF)}); r == nil || r.Decl("f") == nil || r.Decl("g") != nil {
		t.Errorf("--request and an exchange: %+v; want --request's, declaring f", r)
	}
	src.Exchange.RequestBody = []byte("grant_type=x")
	if r := requestOf(src, options{}); r != nil {
		t.Errorf("a form body: %+v; want no request", r)
	}
}
