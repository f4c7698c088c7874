package model

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ToolKind says how a request declares a tool, and so what a call of it
// carries.
type ToolKind uint8

const (
	// ToolFunction takes JSON arguments, described by a JSON Schema (or
	// by none): OpenAI function tools, Anthropic tools with an
	// input_schema, Gemini function declarations.
	ToolFunction ToolKind = iota
	// ToolCustom is an OpenAI custom tool: free-form text input, maybe
	// held to a grammar.
	ToolCustom
	// ToolBuiltin is a tool the provider defines (web search, file
	// search, code execution, MCP servers, Anthropic's text editor …):
	// its input is the provider's, not the request's, to describe.
	ToolBuiltin
)

var toolKindNames = [...]string{"function", "custom", "builtin"}

func (k ToolKind) String() string {
	if int(k) < len(toolKindNames) {
		return toolKindNames[k]
	}
	return "unknown"
}

// Grammar is the grammar a custom tool's input must match.
type Grammar struct {
	Syntax     string `json:"syntax"` // "regex" or "lark"
	Definition string `json:"definition"`
}

// ToolDecl is one tool a request declares.
type ToolDecl struct {
	Name string
	// Type is the declaration's type member ("function", "custom",
	// "web_search_20250305" …), "" when it has none (Anthropic's client
	// tools, Gemini's function declarations).
	Type string
	Kind ToolKind
	// Schema is the arguments' schema as the request wrote it, nil when
	// it declares none. It is JSON Schema, except when OpenAPI is set:
	// then it is Gemini's parameters, an OpenAPI 3.0 subset (upper-case
	// types such as "OBJECT", nullable).
	Schema  json.RawMessage
	OpenAPI bool
	// Strict says the request asked for arguments that match the schema
	// exactly (OpenAI and Anthropic "strict": true).
	Strict bool
	// Grammar is a custom tool's grammar; nil when its input is free text.
	Grammar *Grammar
}

// ChoiceMode is what a request's tool_choice asks of the model.
type ChoiceMode uint8

const (
	// ChoiceUnset: the request does not say, or says something that
	// cannot be judged from the stream (a built-in tool forced).
	ChoiceUnset ChoiceMode = iota
	ChoiceAuto
	ChoiceNone
	// ChoiceRequired: at least one call (OpenAI "required", a named tool,
	// Anthropic "any" or "tool", Gemini ANY).
	ChoiceRequired
)

var choiceModeNames = [...]string{"", "auto", "none", "required"}

func (m ChoiceMode) String() string {
	if int(m) < len(choiceModeNames) {
		return choiceModeNames[m]
	}
	return "unknown"
}

// ToolChoice is a request's tool_choice (OpenAI, Anthropic), function_call
// (OpenAI's legacy functions) or toolConfig.functionCallingConfig
// (Gemini), in one shape.
type ToolChoice struct {
	Mode ChoiceMode
	// Names restricts the calls to these tools: the one a named choice
	// forces, or an allowed-tools list; nil when any declared tool may be
	// called.
	Names []string
}

// Decl returns the declaration of the tool named name, the first when a
// request declares a name twice; nil when it declares none.
func (r *Request) Decl(name string) *ToolDecl {
	for i := range r.Decls {
		if r.Decls[i].Name == name {
			return &r.Decls[i]
		}
	}
	return nil
}

// tooling is the part of a request body that says how tools may be
// called, read beside the rest by ParseRequest.
type tooling struct {
	Tools              []json.RawMessage `json:"tools"`
	Choice             json.RawMessage   `json:"tool_choice"`
	Parallel           *bool             `json:"parallel_tool_calls"`
	Functions          []json.RawMessage `json:"functions"`     // Chat, legacy
	FunctionCall       json.RawMessage   `json:"function_call"` // Chat, legacy
	Prompt             json.RawMessage   `json:"prompt"`        // Responses stored prompt
	CachedContent      json.RawMessage   `json:"cachedContent"` // Gemini
	CachedContentSnake json.RawMessage   `json:"cached_content"`
	ToolConfig         *toolConfig       `json:"toolConfig"`
	ToolConfigSnake    *toolConfig       `json:"tool_config"`
}

// toolConfig is Gemini's toolConfig member: its functionCallingConfig
// (Bedrock Converse's toolConfig, its tools and toolChoice, is read by
// that dialect, see RequestReader).
type toolConfig struct {
	Calling      *geminiCalling `json:"functionCallingConfig"`
	CallingSnake *geminiCalling `json:"function_calling_config"`
}

type geminiCalling struct {
	Mode         string   `json:"mode"`
	Allowed      []string `json:"allowedFunctionNames"`
	AllowedSnake []string `json:"allowed_function_names"`
}

// readTooling fills the request's declarations, choice and parallel flag
// from t.
func (info *Request) readTooling(t *tooling) {
	for _, raw := range t.Tools {
		info.Decls = append(info.Decls, toolDecls(raw)...)
	}
	for _, raw := range t.Functions {
		var f struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		}
		if json.Unmarshal(raw, &f) == nil && f.Name != "" {
			info.Decls = append(info.Decls, ToolDecl{Name: f.Name, Type: "function", Kind: ToolFunction, Schema: SchemaOf(f.Parameters)})
		}
	}
	info.ToolsElsewhere = present(t.Prompt) || present(t.CachedContent) || present(t.CachedContentSnake)
	if t.Parallel != nil && !*t.Parallel {
		info.Serial = true
	}
	switch {
	case present(t.Choice):
		info.readChoice(t.Choice)
	case present(t.FunctionCall):
		info.readChoice(legacyChoice(t.FunctionCall))
	default:
		for _, cfg := range []*toolConfig{t.ToolConfig, t.ToolConfigSnake} {
			if cfg == nil {
				continue
			}
			for _, c := range []*geminiCalling{cfg.Calling, cfg.CallingSnake} {
				if c != nil {
					info.Choice = geminiChoice(c)
				}
			}
		}
	}
}

// present reports whether a member was given, and not null.
func present(raw json.RawMessage) bool {
	v := bytes.TrimSpace(raw)
	return len(v) > 0 && string(v) != "null"
}

// SchemaOf keeps a schema when one was given.
func SchemaOf(raw json.RawMessage) json.RawMessage {
	if !present(raw) {
		return nil
	}
	return raw
}

// toolDecls reads one entry of tools[]: an OpenAI (Responses or Chat),
// Anthropic or Gemini declaration. Gemini's entry may declare several
// functions; its built-ins (googleSearch, codeExecution …) make no
// functionCall and declare nothing here.
func toolDecls(raw json.RawMessage) []ToolDecl {
	var t struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Parameters  json.RawMessage `json:"parameters"`
		InputSchema json.RawMessage `json:"input_schema"`
		Strict      *bool           `json:"strict"`
		Format      json.RawMessage `json:"format"`
		Function    *struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
			Strict     *bool           `json:"strict"`
		} `json:"function"`
		Custom *struct {
			Name   string          `json:"name"`
			Format json.RawMessage `json:"format"`
		} `json:"custom"`
		Decls      []geminiDecl `json:"functionDeclarations"`
		DeclsSnake []geminiDecl `json:"function_declarations"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return nil
	}
	strict := func(p *bool) bool { return p != nil && *p }
	switch {
	case t.Function != nil && t.Function.Name != "": // Chat function
		return []ToolDecl{{Name: t.Function.Name, Type: t.Type, Kind: ToolFunction,
			Schema: SchemaOf(t.Function.Parameters), Strict: strict(t.Function.Strict)}}
	case t.Custom != nil && t.Custom.Name != "": // Chat custom
		return []ToolDecl{{Name: t.Custom.Name, Type: t.Type, Kind: ToolCustom, Grammar: grammarOf(t.Custom.Format)}}
	case present(t.InputSchema) && t.Name != "": // Anthropic client tool
		return []ToolDecl{{Name: t.Name, Type: t.Type, Kind: ToolFunction, Schema: t.InputSchema, Strict: strict(t.Strict)}}
	case t.Type == "function" && t.Name != "": // Responses function
		return []ToolDecl{{Name: t.Name, Type: t.Type, Kind: ToolFunction, Schema: SchemaOf(t.Parameters), Strict: strict(t.Strict)}}
	case t.Type == "custom" && t.Name != "": // Responses custom
		return []ToolDecl{{Name: t.Name, Type: t.Type, Kind: ToolCustom, Grammar: grammarOf(t.Format)}}
	case t.Type != "": // a built-in: Anthropic's named, OpenAI's by type
		name := t.Name
		if name == "" {
			name = t.Type
		}
		return []ToolDecl{{Name: name, Type: t.Type, Kind: ToolBuiltin}}
	case t.Name != "": // a client tool declared without a schema
		return []ToolDecl{{Name: t.Name, Kind: ToolFunction, Schema: SchemaOf(t.Parameters)}}
	}
	var out []ToolDecl
	for _, d := range append(t.Decls, t.DeclsSnake...) {
		if d.Name == "" {
			continue
		}
		decl := ToolDecl{Name: d.Name, Kind: ToolFunction}
		switch {
		case present(d.JSONSchema):
			decl.Schema = d.JSONSchema
		case present(d.JSONSchemaSnake):
			decl.Schema = d.JSONSchemaSnake
		case present(d.Parameters):
			decl.Schema, decl.OpenAPI = d.Parameters, true
		}
		out = append(out, decl)
	}
	return out
}

type geminiDecl struct {
	Name            string          `json:"name"`
	Parameters      json.RawMessage `json:"parameters"`
	JSONSchema      json.RawMessage `json:"parametersJsonSchema"`
	JSONSchemaSnake json.RawMessage `json:"parameters_json_schema"`
}

// grammarOf reads a custom tool's format: {"type":"grammar", "syntax",
// "definition"} (Responses) or {"type":"grammar", "grammar":{"syntax",
// "definition"}} (Chat); nil for {"type":"text"} or none.
func grammarOf(raw json.RawMessage) *Grammar {
	var f struct {
		Type       string   `json:"type"`
		Syntax     string   `json:"syntax"`
		Definition string   `json:"definition"`
		Grammar    *Grammar `json:"grammar"`
	}
	if json.Unmarshal(raw, &f) != nil || f.Type != "grammar" {
		return nil
	}
	if f.Grammar != nil {
		return f.Grammar
	}
	return &Grammar{Syntax: f.Syntax, Definition: f.Definition}
}

// readChoice reads an OpenAI or Anthropic tool_choice: a string ("none",
// "auto", "required") or an object naming a tool, allowed tools, or a
// mode (Anthropic "auto", "any", "tool", "none").
func (info *Request) readChoice(raw json.RawMessage) {
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		info.Choice = ToolChoice{Mode: choiceMode(mode)}
		return
	}
	var c struct {
		Type     string `json:"type"`
		Name     string `json:"name"`
		Mode     string `json:"mode"`
		Function *struct {
			Name string `json:"name"`
		} `json:"function"`
		Custom *struct {
			Name string `json:"name"`
		} `json:"custom"`
		Tools   []json.RawMessage `json:"tools"`
		Allowed *struct {
			Mode  string            `json:"mode"`
			Tools []json.RawMessage `json:"tools"`
		} `json:"allowed_tools"`
		DisableParallel bool `json:"disable_parallel_tool_use"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return
	}
	if c.DisableParallel {
		info.Serial = true
	}
	named := func(name string) { info.Choice = ToolChoice{Mode: ChoiceRequired, Names: []string{name}} }
	switch {
	case c.Function != nil && c.Function.Name != "": // Chat named function
		named(c.Function.Name)
	case c.Custom != nil && c.Custom.Name != "": // Chat named custom tool
		named(c.Custom.Name)
	case c.Type == "allowed_tools" && c.Allowed != nil: // Chat
		info.Choice = ToolChoice{Mode: choiceMode(c.Allowed.Mode), Names: allowedNames(c.Allowed.Tools)}
	case c.Type == "allowed_tools": // Responses
		info.Choice = ToolChoice{Mode: choiceMode(c.Mode), Names: allowedNames(c.Tools)}
	case (c.Type == "function" || c.Type == "custom" || c.Type == "tool") && c.Name != "":
		named(c.Name) // Responses named function or custom tool; Anthropic "tool"
	case c.Type == "auto" || c.Type == "any" || c.Type == "none": // Anthropic
		info.Choice = ToolChoice{Mode: choiceMode(c.Type)}
	}
}

// choiceMode reads a mode's name.
func choiceMode(s string) ChoiceMode {
	switch strings.ToLower(s) {
	case "auto", "validated":
		return ChoiceAuto
	case "none":
		return ChoiceNone
	case "required", "any":
		return ChoiceRequired
	}
	return ChoiceUnset
}

// allowedNames reads the names of an allowed-tools list's function and
// custom tools; its built-ins name no call the rules judge.
func allowedNames(tools []json.RawMessage) []string {
	var out []string
	for _, raw := range tools {
		for _, d := range toolDecls(raw) {
			if d.Kind != ToolBuiltin {
				out = append(out, d.Name)
			}
		}
	}
	return out
}

// legacyChoice turns Chat's deprecated function_call ("none", "auto",
// {"name"}) into the tool_choice it stands for.
func legacyChoice(raw json.RawMessage) json.RawMessage {
	var f struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &f) == nil && f.Name != "" {
		b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": f.Name}})
		return b
	}
	return raw
}

// geminiChoice reads functionCallingConfig: mode AUTO, ANY, NONE or
// VALIDATED, and allowedFunctionNames.
func geminiChoice(c *geminiCalling) ToolChoice {
	names := c.Allowed
	if len(names) == 0 {
		names = c.AllowedSnake
	}
	mode := choiceMode(c.Mode)
	if mode == ChoiceUnset && len(names) > 0 {
		mode = ChoiceAuto
	}
	if mode == ChoiceNone || len(names) == 0 {
		names = nil
	}
	return ToolChoice{Mode: mode, Names: names}
}
