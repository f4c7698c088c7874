package model

import (
	"fmt"
	"strings"
	"testing"
)

// TestParseRequestForThePane: what the request pane shows, in every
// dialect's way of sending tool output back.
func TestParseRequestForThePane(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, path string
		choice, parallel string
		outputs          string
	}{
		{"responses", `{"model":"m","tool_choice":{"type":"function","name":"f"},"parallel_tool_calls":false,` +
			`"input":[{"type":"function_call","call_id":"c1"},{"type":"function_call_output","call_id":"c1","output":"{\"a\": 1}"}]}`,
			"/v1/responses", `{"type":"function","name":"f"}`, "false", `[function_call_output c1 {"a": 1}]`},
		{"chat", `{"model":"m","tool_choice":"auto","messages":[{"role":"tool","tool_call_id":"c2","content":"sunny"}]}`,
			"/v1/chat/completions", "auto", "", "[tool c2 sunny]"},
		{"anthropic", `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x"}]}]}]}`,
			"/v1/messages", "", "", `[tool_result t1 [{"type":"text","text":"x"}]]`},
		{"gemini", `{"contents":[{"parts":[{"functionResponse":{"name":"f","response":{"ok":true}}}]}]}`,
			"/v1beta/models/g:streamGenerateContent", "", "", `[functionResponse f {"ok":true}]`},
		{"bedrock converse", `{"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"f","input":{}}}]},` +
			`{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"json":{"ok":true}}],"status":"success"}}]}],` +
			`"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{}}}}],"toolChoice":{"any":{}}}}`,
			"/model/m/converse-stream", `{"any":{}}`, "", `[toolResult tooluse_1 [{"json":{"ok":true}}]]`},
		{"not json", `oops`, "/x", "", "", "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			info := ParseRequest([]byte(tt.body), tt.path)
			var outs []string
			for _, o := range info.Outputs {
				outs = append(outs, o.Kind+" "+o.CallID+" "+o.Output)
			}
			if info.ToolChoice != tt.choice || info.Parallel != tt.parallel || fmt.Sprint(outs) != tt.outputs {
				t.Errorf("ParseRequest(%q) = choice %q parallel %q outputs %q; want %q %q %q",
					tt.body, info.ToolChoice, info.Parallel, fmt.Sprint(outs), tt.choice, tt.parallel, tt.outputs)
			}
		})
	}
	long := `{"input":[{"type":"function_call_output","call_id":"c","output":"` + strings.Repeat("é", 400) + `"}]}`
	if o := ParseRequest([]byte(long), "/").Outputs[0].Output; len(o) > MaxOutputShown+len("…") || !strings.HasSuffix(o, "…") {
		t.Errorf("a long output is %d bytes; want it cut to %d with an ellipsis", len(o), MaxOutputShown)
	}
}

// The model a request names in its path: Gemini's and Bedrock's, so that
// an archive's Bedrock call (its body names no model) counts as an LLM
// exchange.
func TestModelInPath(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse":                           "gemini-2.5-flash",
		"/model/anthropic.claude-3-sonnet-20240229-v1%3A0/converse-stream":                        "anthropic.claude-3-sonnet-20240229-v1:0",
		"/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse":                          "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
		"/model/amazon.titan-text-express-v1/invoke-with-response-stream":                         "amazon.titan-text-express-v1",
		"/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123%3Aapplication-inference-profile%2Fx/invoke": "arn:aws:bedrock:us-east-1:123:application-inference-profile/x",
		"/model/x/other": "", "/v1/chat/completions": "", "/inference-profiles/x": "",
	} {
		if got := ParseRequest([]byte(`{"messages":[]}`), path).Model; got != want {
			t.Errorf("ParseRequest(path %q).Model = %q; want %q", path, got, want)
		}
	}
}

// TestParseRequestConverseHistory: a Converse request's history names
// the calls it repeats (toolUse) and answers (toolResult) by toolUseId,
// so the proxy and archives link its turns as they link the others'.
func TestParseRequestConverseHistory(t *testing.T) {
	t.Parallel()
	body := `{"messages":[{"role":"user","content":[{"text":"weather?"}]},` +
		`{"role":"assistant","content":[{"text":"Checking."},{"toolUse":{"toolUseId":"tooluse_a","name":"f","input":{}}},{"toolUse":{"toolUseId":"tooluse_b","name":"f","input":{}}}]},` +
		`{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_b","content":[{"text":"sunny"}],"status":"success"}}]}]}`
	r := ParseRequest([]byte(body), "/model/m/converse-stream")
	if fmt.Sprint(r.Assistants) != "[tooluse_a tooluse_b]" || fmt.Sprint(r.Answers) != "[tooluse_b]" {
		t.Errorf("Assistants %q, Answers %q; want [tooluse_a tooluse_b], [tooluse_b]", r.Assistants, r.Answers)
	}
	if !r.Continues() {
		t.Error("a request answering a call continues a turn")
	}
}
