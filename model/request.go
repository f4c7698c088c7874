package model

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Request is what a request body of any dialect says, besides its
// stream: the model, the tools declared, how they may be called, and the
// tool outputs it sends back for an earlier turn's calls. The proxy names
// a session and links turns with it; the request pane shows it.
type Request struct {
	// Header is the request's headers, with secrets redacted unless the
	// user asked to keep them; Size is the body's length in bytes. The
	// proxy sets them; ParseRequest leaves them empty.
	Header     http.Header
	Size       int
	Model      string
	Stream     bool
	Tools      []string // names of the tools declared
	ToolChoice string   // compact JSON, "" when absent
	Parallel   string   // parallel_tool_calls: "true", "false" or ""
	Previous   string   // Responses previous_response_id
	Answers    []string // call ids the request sends tool output for
	Assistants []string // call ids the request's history shows as made
	Outputs    []ToolOutput

	// Decls are the tools declared, with their schemas, in request order
	// (Tools is their names as the request pane shows them). They include
	// tools a client-side tool search loaded (Responses tool_search_output
	// input items).
	Decls  []ToolDecl
	Choice ToolChoice
	// Serial says at most one call may come per response:
	// parallel_tool_calls false (OpenAI) or disable_parallel_tool_use
	// (Anthropic).
	Serial bool
	// ToolsElsewhere says tools may be declared outside the body (a
	// Responses stored prompt, a Gemini cachedContent): Decls may then
	// lack some.
	ToolsElsewhere bool
	// Parsed says the body was a JSON object: an empty Decls then means no
	// tool was declared, not that nothing is known.
	Parsed bool
	// RPC names the remote procedure a JSON-RPC request calls, where an
	// LLM request names its model: MCP's "tools/call add", "initialize",
	// "notifications/cancelled"; "" for other APIs.
	RPC string
}

// ToolOutput is one tool result a request sends back.
type ToolOutput struct {
	Kind   string // "function_call_output", "tool", "tool_result", "functionResponse", "toolResult"
	CallID string
	Output string // cut to MaxOutputShown bytes
}

// MaxOutputShown bounds how much of one tool output a Request keeps.
const MaxOutputShown = 512

// OutputText renders a tool output: a JSON string unquoted, anything
// else compacted, cut to MaxOutputShown bytes.
func OutputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			s = b.String()
		} else {
			s = string(raw)
		}
	}
	if len(s) > MaxOutputShown {
		cut := MaxOutputShown
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// RequestReader is the optional hook of a Protocol whose request bodies
// say what ParseRequest's own reading does not. ParseRequest reads, in one
// decoding, the members the OpenAI APIs, Anthropic and Gemini share or
// mirror (model, stream, tools, tool_choice, messages, input, contents):
// a request body arrives before its stream says its dialect, and the
// proxy reads every one. A dialect with members of its own (Bedrock
// Converse's toolConfig and toolUse blocks) reads them with ReadRequest,
// which ParseRequest calls, dialect by dialect in id order, for every body
// that is a JSON object: it must leave a body that is not its dialect's
// as it found it.
type RequestReader interface {
	ReadRequest(body []byte, r *Request)
}

// ParseRequest reads an LLM request body of any dialect; path is the
// request's path, where Gemini names the model. A body that is not JSON
// gives a Request with at most the model from the path.
func ParseRequest(body []byte, path string) Request {
	var info Request
	var req struct {
		tooling
		Model    string          `json:"model"`
		Stream   bool            `json:"stream"`
		Previous string          `json:"previous_response_id"`
		Input    json.RawMessage `json:"input"`
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
	if json.Unmarshal(body, &req) == nil && jsonObject(body) {
		info.Parsed = true
		info.readTooling(&req.tooling)
		info.Model, info.Stream, info.Previous = req.Model, req.Stream, req.Previous
		if len(req.Choice) > 0 {
			info.ToolChoice = OutputText(req.Choice)
		}
		if req.Parallel != nil {
			info.Parallel = strconv.FormatBool(*req.Parallel)
		}
		for _, t := range req.Tools {
			info.Tools = append(info.Tools, toolNames(t)...)
		}
		// Responses: input items.
		var items []struct {
			Type   string            `json:"type"`
			CallID string            `json:"call_id"`
			Output json.RawMessage   `json:"output"`
			Tools  []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(req.Input, &items) == nil {
			for _, it := range items {
				switch it.Type {
				case "function_call_output", "custom_tool_call_output":
					info.Answers = append(info.Answers, it.CallID)
					info.Outputs = append(info.Outputs, ToolOutput{Kind: it.Type, CallID: it.CallID, Output: OutputText(it.Output)})
				case "function_call", "custom_tool_call":
					info.Assistants = append(info.Assistants, it.CallID)
				case "tool_search_output":
					for _, t := range it.Tools {
						info.Decls = append(info.Decls, toolDecls(t)...)
					}
				}
			}
		}
		for _, m := range req.Messages {
			if m.Role == "tool" && m.ToolCallID != "" { // Chat
				info.Answers = append(info.Answers, m.ToolCallID)
				info.Outputs = append(info.Outputs, ToolOutput{Kind: "tool", CallID: m.ToolCallID, Output: OutputText(m.Content)})
			}
			for _, c := range m.ToolCalls {
				info.Assistants = append(info.Assistants, c.ID)
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
						info.Answers = append(info.Answers, b.ToolUseID)
						info.Outputs = append(info.Outputs, ToolOutput{Kind: "tool_result", CallID: b.ToolUseID, Output: OutputText(b.Content)})
					case "tool_use":
						info.Assistants = append(info.Assistants, b.ID)
					}
				}
			}
		}
		for _, c := range req.Contents { // Gemini
			for _, p := range c.Parts {
				if fr := p.FunctionResponse; fr != nil {
					if fr.ID != "" {
						info.Answers = append(info.Answers, fr.ID)
					}
					id := fr.ID
					if id == "" {
						id = fr.Name
					}
					info.Outputs = append(info.Outputs, ToolOutput{Kind: "functionResponse", CallID: id, Output: OutputText(fr.Response)})
				}
			}
		}
		for _, r := range registered {
			if rr, ok := r.p.(RequestReader); ok {
				rr.ReadRequest(body, &info)
			}
		}
	}
	if info.Model == "" {
		info.Model = modelInPath(path)
	}
	return info
}

// modelInPath reads the model a request names in its path: Gemini's
// /v1beta/models/NAME:streamGenerateContent, and Bedrock's
// /model/ID/converse-stream (or converse, invoke,
// invoke-with-response-stream), its id percent-decoded.
func modelInPath(path string) string {
	if _, rest, ok := strings.Cut(path, "/models/"); ok {
		name, _, _ := strings.Cut(rest, ":")
		return name
	}
	if _, rest, ok := strings.Cut(path, "/model/"); ok {
		id, op, _ := strings.Cut(rest, "/")
		if strings.HasPrefix(op, "converse") || strings.HasPrefix(op, "invoke") {
			if name, err := url.PathUnescape(id); err == nil {
				return name
			}
			return id
		}
	}
	return ""
}

// jsonObject reports whether a JSON value is an object.
func jsonObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
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
		DeclsSnake []struct {
			Name string `json:"name"`
		} `json:"function_declarations"`
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
	for _, d := range append(t.Decls, t.DeclsSnake...) {
		out = append(out, d.Name)
	}
	return out
}
