package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBedrockWholeInvoke: the whole body of a text model's non-streaming
// InvokeModel answer (Titan, Llama, Mistral, Cohere, AI21 Jurassic,
// Claude 2) reads as bedrock-invoke from a file, from stdin and from a
// cassette that keeps it as a string: calls --json gives its text and
// its stop reason's outcome, check passes it, events shows it as one
// (invoke response). Before, each was dialect unknown and check exited
// 1 on a good answer, "truncated (no response recognised)".
func TestBedrockWholeInvoke(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, model, body, text, outcome string
	}{
		{"titan", "amazon.titan-text-express-v1",
			`{"inputTextTokenCount":30,"results":[{"tokenCount":9,"outputText":"Bedrock es la forma más sencilla.","completionReason":"FINISH"}]}`,
			`Bedrock es la forma más sencilla.`, `{"state":"completed","detail":"FINISH"}`},
		{"llama", "meta.llama3-70b-instruct-v1:0",
			`{"generation":" Leave the llama be.","prompt_token_count":26,"generation_token_count":6,"stop_reason":"stop"}`,
			` Leave the llama be.`, `{"state":"completed","detail":"stop"}`},
		{"mistral", "mistral.mistral-7b-instruct-v0:2",
			`{"outputs":[{"text":" Lemon juice.","stop_reason":"stop"}]}`,
			` Lemon juice.`, `{"state":"completed","detail":"stop"}`},
		{"cohere", "cohere.command-text-v14",
			`{"id":"3266ca30","generations":[{"id":"5ccd25a1","text":" A span walks into a bar.","finish_reason":"COMPLETE"}],"prompt":"Tell me a joke"}`,
			` A span walks into a bar.`, `{"state":"completed","detail":"COMPLETE"}`},
		{"jurassic", "ai21.j2-mid-v1",
			`{"id":1234,"prompt":{"text":"Translate","tokens":[]},"completions":[{"data":{"text":"\nTraducir","tokens":[]},"finishReason":{"reason":"endoftext"}}]}`,
			`\nTraducir`, `{"state":"completed","detail":"endoftext"}`},
		{"claude 2", "anthropic.claude-v2:1",
			`{"type":"completion","completion":" Here is a joke.","stop_reason":"stop_sequence","stop":"\n\nHuman:"}`,
			` Here is a joke.`, `{"state":"completed","detail":"stop_sequence"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// A cassette keeps the body as a YAML string, single-quoted.
			cassette := "interactions:\n- request:\n    body: '{\"prompt\": \"p\"}'\n    headers:\n      Content-Type:\n      - application/json\n" +
				"    method: POST\n    uri: https://bedrock-runtime.us-east-1.amazonaws.com/model/" + c.model + "/invoke\n" +
				"  response:\n    body:\n      string: '" + strings.ReplaceAll(c.body, "'", "''") + "'\n" +
				"    headers:\n      Content-Type:\n      - application/json\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
			path := writeTemp(t, "invoke.json", c.body)
			cass := writeTemp(t, "invoke.yaml", cassette)
			runs := map[string]func(args ...string) (int, string, string){
				"file":     func(args ...string) (int, string, string) { return runCLI(t, nil, append(args, path)...) },
				"stdin":    func(args ...string) (int, string, string) { return runCLI(t, []byte(c.body), append(args, "-")...) },
				"cassette": func(args ...string) (int, string, string) { return runCLI(t, nil, append(args, cass)...) },
			}
			for name, run := range runs {
				code, out, errs := run("calls", "--json")
				want := `{"dialect":"bedrock-invoke","calls":[],"text":"` + c.text + `","outcome":` + c.outcome + `}`
				if code != 0 || !strings.Contains(out, want) {
					t.Errorf("%s: calls --json = %d, %s%s; want %s", name, code, out, errs, want)
				}
				code, out, errs = run("check")
				if code != 0 || !strings.Contains(out, "outcome: completed") || !strings.Contains(out, "0 errors, 0 warnings, 0 infos") {
					t.Errorf("%s: check = %d, %s%s", name, code, out, errs)
				}
				code, out, errs = run("events")
				lines := strings.Split(strings.TrimSpace(out), "\n")
				var ev struct{ Dialect, Kind, Type string }
				if code != 0 || json.Unmarshal([]byte(lines[len(lines)-1]), &ev) != nil ||
					ev != (struct{ Dialect, Kind, Type string }{"bedrock-invoke", "terminal", "(invoke response)"}) {
					t.Errorf("%s: events = %d, %s%s", name, code, out, errs)
				}
			}
		})
	}
	// The outcome passes or fails check as a stream's would: a length
	// limit passes as incomplete, a filter or a guardrail's intervention
	// fails as blocked; a body short of its shape's keys stays unknown,
	// no LLM stream (not-a-stream).
	for _, c := range []struct {
		body, want string
		code       int
	}{
		{`{"generation":" Once","prompt_token_count":4,"generation_token_count":2,"stop_reason":"length"}`, "outcome: incomplete (length)", 0},
		{`{"id":"a","generations":[{"id":"b","text":" Why","finish_reason":"MAX_TOKENS"}],"prompt":"p"}`, "outcome: incomplete (MAX_TOKENS)", 0},
		{`{"inputTextTokenCount":5,"results":[{"tokenCount":0,"outputText":"","completionReason":"CONTENT_FILTERED"}]}`, "outcome: blocked (CONTENT_FILTERED)", 1},
		{`{"inputTextTokenCount":5,"results":[{"tokenCount":3,"outputText":"Sorry.","completionReason":"FINISH"}],"amazon-bedrock-guardrailAction":"INTERVENED"}`,
			"outcome: blocked (guardrail_intervened)", 1},
		{`{"generation":" hi"}`, "outcome: not-a-stream (no event of a known dialect)", 1},
	} {
		code, out, errs := runCLI(t, []byte(c.body), "check", "-")
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("check %s = %d, %s%s; want %d, %s", c.body, code, out, errs, c.code, c.want)
		}
	}
}
