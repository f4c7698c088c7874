package cli

import (
	"os"
	"strings"
	"testing"
)

// importFile is a real archive of capture/testdata/import (README.md there
// says where each comes from), as a string.
func importFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../capture/testdata/import/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheckSuiteOfTestAgentCassettes: a directory of ddapm-test-agent
// cassettes (one interaction a JSON file, as the Datadog tracers' suites
// keep them: SSE as text, Bedrock event streams as base64) and of Go
// httprr traces (plain and gzipped) is one suite: a verdict per exchange,
// every LLM stream read and passing, and a JSON file of no LLM exchange
// skipped. Before, each cassette read as one unknown JSON document that
// passed with outcome truncated, and the traces as SSE with framing
// warnings.
func TestCheckSuiteOfTestAgentCassettes(t *testing.T) {
	t.Parallel()
	dir := suiteDir(t, map[string]string{
		"openai/chat.json":           importFile(t, "chat-tool-call-stream__dd-trace-js.json"),
		"bedrock/jamba.json":         importFile(t, "bedrock-invoke-jamba-stream__dd-trace-js.json"),
		"bedrock/claude-text.json":   importFile(t, "bedrock-invoke-claude-text-stream__dd-trace-js.json"),
		"bedrock/request-body.json":  `{"anthropic_version":"bedrock-2023-05-31","max_tokens":5}`,
		"go/ollama.httprr":           importFile(t, "ollama-chat-chunked__langchaingo.httprr"),
		"go/anthropic.httprr":        importFile(t, "anthropic-message-stream__langchaingo.httprr"),
		"datadog/telemetry-api.json": `{"request":{"method":"POST","url":"https://api.datadoghq.com/api/v2/series","headers":{},"body":""},"response":{"status":{"code":202,"message":"Accepted"},"headers":{},"body":"{\"errors\":[]}"}}`,
	})
	code, stdout, stderr := runCheckArgs(t, nil, "--json", dir)
	if code != 0 {
		t.Fatalf("check = %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	want := map[string]string{
		"bedrock/claude-text.json": `"outcome":{"state":"completed","detail":"stop_sequence"}`,
		"bedrock/jamba.json":       `"outcome":{"state":"completed","detail":"stop"}`,
		"go/anthropic.httprr":      `"outcome":{"state":"completed","detail":"end_turn"}`,
		"go/ollama.httprr":         `"outcome":{"state":"completed","detail":"stop"}`,
		"openai/chat.json":         `"outcome":{"state":"completed","detail":"tool_calls"}`,
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d verdicts; want %d\n%s", len(lines), len(want), stdout)
	}
	for _, l := range lines {
		ok := false
		for file, outcome := range want {
			if strings.Contains(l, file+`","session":1,`) && strings.Contains(l, outcome+`,"findings":[],"pass":true`) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("verdict %s; want one of %v, passing with no finding", l, want)
		}
	}
	for _, skipped := range []string{"request-body.json: no stream in it", "telemetry-api.json: no LLM exchange in it"} {
		if !strings.Contains(stderr, skipped) {
			t.Errorf("stderr %q; want %q", stderr, skipped)
		}
	}
}
