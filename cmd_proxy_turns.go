package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui"
)

// requestInfo is what the proxy learns from a request body: enough to name
// the session and to link it to the turn it answers.
type requestInfo struct {
	model      string
	stream     bool
	tools      []string
	previous   string   // Responses previous_response_id
	answers    []string // call ids the request sends tool output for
	assistants []string // call ids the request's history shows as made
	toolChoice string   // compact JSON
	parallel   string   // "true", "false" or ""
	outputs    []ui.ToolOutput
}

// maxOutputShown bounds how much of one tool output the request pane gets.
const maxOutputShown = 512

// outputText renders a tool output for the request pane: a JSON string
// unquoted, anything else compacted, cut to maxOutputShown bytes.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			s = b.String()
		} else {
			s = string(raw)
		}
	}
	if len(s) > maxOutputShown {
		cut := maxOutputShown
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// parseRequest reads an LLM request body of any dialect. A body that is
// not JSON gives an empty info: the proxy still forwards it.
func parseRequest(body []byte, path string) requestInfo {
	var info requestInfo
	var req struct {
		Model    string            `json:"model"`
		Stream   bool              `json:"stream"`
		Tools    []json.RawMessage `json:"tools"`
		Previous string            `json:"previous_response_id"`
		Choice   json.RawMessage   `json:"tool_choice"`
		Parallel *bool             `json:"parallel_tool_calls"`
		Input    json.RawMessage   `json:"input"`
		Messages []struct {
			Role       string                `json:"role"`
			ToolCallID string                `json:"tool_call_id"`
			ToolCalls  []struct{ ID string } `json:"tool_calls"`
			Content    json.RawMessage       `json:"content"`
		} `json:"messages"`
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					ID       string          `json:"id"`
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &req) == nil {
		info.model, info.stream, info.previous = req.Model, req.Stream, req.Previous
		if len(req.Choice) > 0 {
			info.toolChoice = outputText(req.Choice)
		}
		if req.Parallel != nil {
			info.parallel = strconv.FormatBool(*req.Parallel)
		}
		for _, t := range req.Tools {
			info.tools = append(info.tools, toolNames(t)...)
		}
		// Responses: input items.
		var items []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		}
		if json.Unmarshal(req.Input, &items) == nil {
			for _, it := range items {
				switch it.Type {
				case "function_call_output", "custom_tool_call_output":
					info.answers = append(info.answers, it.CallID)
					info.outputs = append(info.outputs, ui.ToolOutput{Kind: it.Type, CallID: it.CallID, Output: outputText(it.Output)})
				case "function_call", "custom_tool_call":
					info.assistants = append(info.assistants, it.CallID)
				}
			}
		}
		for _, m := range req.Messages {
			if m.Role == "tool" && m.ToolCallID != "" { // Chat
				info.answers = append(info.answers, m.ToolCallID)
				info.outputs = append(info.outputs, ui.ToolOutput{Kind: "tool", CallID: m.ToolCallID, Output: outputText(m.Content)})
			}
			for _, c := range m.ToolCalls {
				info.assistants = append(info.assistants, c.ID)
			}
			var blocks []struct { // Anthropic
				Type      string          `json:"type"`
				ID        string          `json:"id"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &blocks) == nil {
				for _, b := range blocks {
					switch b.Type {
					case "tool_result":
						info.answers = append(info.answers, b.ToolUseID)
						info.outputs = append(info.outputs, ui.ToolOutput{Kind: "tool_result", CallID: b.ToolUseID, Output: outputText(b.Content)})
					case "tool_use":
						info.assistants = append(info.assistants, b.ID)
					}
				}
			}
		}
		for _, c := range req.Contents { // Gemini
			for _, p := range c.Parts {
				if fr := p.FunctionResponse; fr != nil {
					if fr.ID != "" {
						info.answers = append(info.answers, fr.ID)
					}
					id := fr.ID
					if id == "" {
						id = fr.Name
					}
					info.outputs = append(info.outputs, ui.ToolOutput{Kind: "functionResponse", CallID: id, Output: outputText(fr.Response)})
				}
			}
		}
	}
	if info.model == "" {
		// Gemini names the model in the path: /v1beta/models/NAME:streamGenerateContent.
		if _, rest, ok := strings.Cut(path, "/models/"); ok {
			name, _, _ := strings.Cut(rest, ":")
			info.model = name
		}
	}
	return info
}

// toolNames reads the names a tool declaration defines: Responses and
// Anthropic {"name"}, Chat {"function":{"name"}}, Gemini
// {"functionDeclarations":[{"name"}]}.
func toolNames(raw json.RawMessage) []string {
	var t struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
		Decls []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return nil
	}
	var out []string
	switch {
	case t.Name != "":
		out = append(out, t.Name)
	case t.Function.Name != "":
		out = append(out, t.Function.Name)
	case t.Type != "":
		out = append(out, t.Type) // a built-in tool: web_search, file_search…
	}
	for _, d := range t.Decls {
		out = append(out, d.Name)
	}
	return out
}

// turns links requests to the sessions whose calls they answer. It is safe
// for concurrent use.
type turns struct {
	mu         sync.Mutex
	byResponse map[string]int   // response id → session
	byCall     map[string]int   // call id → session that made the call
	calls      map[int][]string // session → the call ids it made
}

// register records the responses and calls a finished session produced.
func (t *turns) register(id int, s *model.Session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byResponse == nil {
		t.byResponse, t.byCall, t.calls = map[string]int{}, map[string]int{}, map[int][]string{}
	}
	for _, r := range s.Responses {
		if r.ID != "" {
			t.byResponse[r.ID] = id
		}
	}
	for _, c := range s.Report().Calls {
		if c.ID != nil && *c.ID != "" {
			t.byCall[*c.ID] = id
			t.calls[id] = append(t.calls[id], *c.ID)
		}
	}
}

// link finds the session a request continues and the calls of that
// session it leaves unanswered: a Responses request names its previous
// response; a Chat, Anthropic or Gemini request answers calls of the
// latest session it sends output for, or repeats that session's calls in
// its history.
func (t *turns) link(req requestInfo) (prev int, unanswered []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if req.previous != "" {
		prev = t.byResponse[req.previous]
	}
	if prev == 0 {
		for _, id := range slices.Concat(req.answers, req.assistants) {
			prev = max(prev, t.byCall[id])
		}
	}
	if prev == 0 {
		return 0, nil
	}
	for _, c := range t.calls[prev] {
		if !slices.Contains(req.answers, c) {
			unanswered = append(unanswered, c)
		}
	}
	return prev, unanswered
}
