package model

import (
	"encoding/json"
	"reflect"
	"testing"
)

// declView is what a test compares of a ToolDecl: the schema compacted.
type declView struct {
	Name, Type string
	Kind       ToolKind
	Schema     string
	OpenAPI    bool
	Strict     bool
	Grammar    *Grammar
}

func viewDecls(ds []ToolDecl) []declView {
	var out []declView
	for _, d := range ds {
		v := declView{Name: d.Name, Type: d.Type, Kind: d.Kind, OpenAPI: d.OpenAPI, Strict: d.Strict, Grammar: d.Grammar}
		if d.Schema != nil {
			v.Schema = CompactJSON(d.Schema)
		}
		out = append(out, v)
	}
	return out
}

// TestParseRequestTools: each dialect's tool declarations keep their
// names, kinds, schemas (raw) and strictness; tool_choice and the
// parallel flags are read into one shape.
func TestParseRequestTools(t *testing.T) {
	t.Parallel()
	const obj = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`
	tests := []struct {
		name       string
		body       string
		decls      []declView
		choice     ToolChoice
		serial     bool
		elsewhere  bool
		parsed     bool
		toolsNames []string
	}{
		{
			name: "responses function, custom and built-ins",
			body: `{"model":"gpt-5","tools":[` +
				`{"type":"function","name":"get_weather","parameters":` + obj + `,"strict":true},` +
				`{"type":"custom","name":"lookup_phone","format":{"type":"grammar","syntax":"regex","definition":"\\d{3}"}},` +
				`{"type":"custom","name":"free"},` +
				`{"type":"web_search"},{"type":"mcp","server_label":"deepwiki"}],` +
				`"tool_choice":"required","parallel_tool_calls":false}`,
			decls: []declView{
				{Name: "get_weather", Type: "function", Kind: ToolFunction, Schema: obj, Strict: true},
				{Name: "lookup_phone", Type: "custom", Kind: ToolCustom, Grammar: &Grammar{Syntax: "regex", Definition: `\d{3}`}},
				{Name: "free", Type: "custom", Kind: ToolCustom},
				{Name: "web_search", Type: "web_search", Kind: ToolBuiltin},
				{Name: "mcp", Type: "mcp", Kind: ToolBuiltin},
			},
			choice: ToolChoice{Mode: ChoiceRequired},
			serial: true, parsed: true,
			toolsNames: []string{"get_weather", "lookup_phone", "free", "web_search", "mcp"},
		},
		{
			name:   "responses named function and allowed tools",
			body:   `{"tools":[{"type":"function","name":"a"}],"tool_choice":{"type":"function","name":"a"}}`,
			decls:  []declView{{Name: "a", Type: "function", Kind: ToolFunction}},
			choice: ToolChoice{Mode: ChoiceRequired, Names: []string{"a"}}, parsed: true,
			toolsNames: []string{"a"},
		},
		{
			name:       "responses allowed_tools",
			body:       `{"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"a"},{"type":"custom","name":"b"},{"type":"image_generation"}]}}`,
			choice:     ToolChoice{Mode: ChoiceAuto, Names: []string{"a", "b"}},
			parsed:     true,
			toolsNames: nil,
		},
		{
			name:   "responses hosted tool choice is not judged",
			body:   `{"tool_choice":{"type":"web_search_preview"}}`,
			choice: ToolChoice{}, parsed: true,
		},
		{
			name:      "responses stored prompt may declare tools",
			body:      `{"prompt":{"id":"pmpt_1"},"input":"hi"}`,
			elsewhere: true, parsed: true,
		},
		{
			name: "responses tools loaded by a client tool search",
			body: `{"tools":[{"type":"tool_search","execution":"client"}],"input":[{"type":"tool_search_output","call_id":"c","tools":[{"type":"function","name":"late","parameters":` + obj + `}]}]}`,
			decls: []declView{
				{Name: "tool_search", Type: "tool_search", Kind: ToolBuiltin},
				{Name: "late", Type: "function", Kind: ToolFunction, Schema: obj},
			},
			parsed: true, toolsNames: []string{"tool_search"},
		},
		{
			name: "chat function, custom and legacy functions",
			body: `{"messages":[],"tools":[{"type":"function","function":{"name":"get_weather","parameters":` + obj + `,"strict":true}},` +
				`{"type":"custom","custom":{"name":"sql","format":{"type":"grammar","grammar":{"syntax":"lark","definition":"start: x"}}}}],` +
				`"functions":[{"name":"old","parameters":` + obj + `}],` +
				`"tool_choice":{"type":"function","function":{"name":"get_weather"}},"parallel_tool_calls":true}`,
			decls: []declView{
				{Name: "get_weather", Type: "function", Kind: ToolFunction, Schema: obj, Strict: true},
				{Name: "sql", Type: "custom", Kind: ToolCustom, Grammar: &Grammar{Syntax: "lark", Definition: "start: x"}},
				{Name: "old", Type: "function", Kind: ToolFunction, Schema: obj},
			},
			choice: ToolChoice{Mode: ChoiceRequired, Names: []string{"get_weather"}}, parsed: true,
			toolsNames: []string{"get_weather", "custom"},
		},
		{
			name:   "chat allowed_tools and legacy function_call",
			body:   `{"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"x"}}]}}}`,
			choice: ToolChoice{Mode: ChoiceRequired, Names: []string{"x"}}, parsed: true,
		},
		{
			name:   "chat legacy function_call none",
			body:   `{"functions":[{"name":"f"}],"function_call":"none"}`,
			decls:  []declView{{Name: "f", Type: "function", Kind: ToolFunction}},
			choice: ToolChoice{Mode: ChoiceNone}, parsed: true,
		},
		{
			name: "anthropic client, typed and server tools",
			body: `{"model":"claude","messages":[],"tools":[{"name":"get_weather","input_schema":` + obj + `,"strict":true},` +
				`{"type":"custom","name":"c","input_schema":` + obj + `},` +
				`{"type":"text_editor_20250728","name":"str_replace_based_edit_tool"},{"type":"web_search_20250305","name":"web_search"}],` +
				`"tool_choice":{"type":"tool","name":"get_weather","disable_parallel_tool_use":true}}`,
			decls: []declView{
				{Name: "get_weather", Kind: ToolFunction, Schema: obj, Strict: true},
				{Name: "c", Type: "custom", Kind: ToolFunction, Schema: obj},
				{Name: "str_replace_based_edit_tool", Type: "text_editor_20250728", Kind: ToolBuiltin},
				{Name: "web_search", Type: "web_search_20250305", Kind: ToolBuiltin},
			},
			choice: ToolChoice{Mode: ChoiceRequired, Names: []string{"get_weather"}}, serial: true, parsed: true,
			toolsNames: []string{"get_weather", "c", "str_replace_based_edit_tool", "web_search"},
		},
		{
			name:   "anthropic any and none",
			body:   `{"tool_choice":{"type":"any"}}`,
			choice: ToolChoice{Mode: ChoiceRequired}, parsed: true,
		},
		{
			name:   "anthropic none",
			body:   `{"tool_choice":{"type":"none"}}`,
			choice: ToolChoice{Mode: ChoiceNone}, parsed: true,
		},
		{
			name: "gemini camelCase, OpenAPI parameters",
			body: `{"contents":[],"tools":[{"functionDeclarations":[{"name":"g","parameters":{"type":"OBJECT","properties":{"x":{"type":"STRING"}}}},` +
				`{"name":"h","parametersJsonSchema":` + obj + `}]},{"googleSearch":{}}],` +
				`"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["g"]}}}`,
			decls: []declView{
				{Name: "g", Kind: ToolFunction, Schema: `{"type":"OBJECT","properties":{"x":{"type":"STRING"}}}`, OpenAPI: true},
				{Name: "h", Kind: ToolFunction, Schema: obj},
			},
			choice: ToolChoice{Mode: ChoiceRequired, Names: []string{"g"}}, parsed: true,
			toolsNames: []string{"g", "h"},
		},
		{
			name:   "gemini snake_case and cached content",
			body:   `{"cached_content":"cachedContents/1","tools":[{"function_declarations":[{"name":"g","parameters_json_schema":` + obj + `}]}],"tool_config":{"function_calling_config":{"mode":"NONE"}}}`,
			decls:  []declView{{Name: "g", Kind: ToolFunction, Schema: obj}},
			choice: ToolChoice{Mode: ChoiceNone}, elsewhere: true, parsed: true,
			toolsNames: []string{"g"},
		},
		{
			name: "bedrock converse toolSpec, systemTool and cachePoint; a named choice",
			body: `{"messages":[],"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","description":"d","inputSchema":{"json":` + obj + `}}},` +
				`{"cachePoint":{"type":"default"}},{"systemTool":{"name":"nova_grounding"}},{"toolSpec":{"name":"bare"}}],` +
				`"toolChoice":{"tool":{"name":"get_weather"}}}}`,
			decls: []declView{
				{Name: "get_weather", Kind: ToolFunction, Schema: obj},
				{Name: "nova_grounding", Type: "systemTool", Kind: ToolBuiltin},
				{Name: "bare", Kind: ToolFunction},
			},
			choice: ToolChoice{Mode: ChoiceRequired, Names: []string{"get_weather"}}, parsed: true,
			toolsNames: []string{"get_weather", "nova_grounding", "bare"},
		},
		{
			name:   "bedrock converse any",
			body:   `{"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{}}}}],"toolChoice":{"any":{}}}}`,
			decls:  []declView{{Name: "f", Kind: ToolFunction, Schema: `{}`}},
			choice: ToolChoice{Mode: ChoiceRequired}, parsed: true, toolsNames: []string{"f"},
		},
		{
			name:   "bedrock converse auto",
			body:   `{"toolConfig":{"tools":[],"toolChoice":{"auto":{}}}}`,
			choice: ToolChoice{Mode: ChoiceAuto}, parsed: true,
		},
		{
			name:   "bedrock converse choice of no known member",
			body:   `{"toolConfig":{"toolChoice":{"someday":{}}}}`,
			choice: ToolChoice{}, parsed: true,
		},
		{
			name: "bedrock invoke: Anthropic's body",
			body: `{"anthropic_version":"bedrock-2023-05-31","max_tokens":100,"messages":[],"tools":[{"name":"get_weather","input_schema":` + obj + `}],` +
				`"tool_choice":{"type":"any"}}`,
			decls:  []declView{{Name: "get_weather", Kind: ToolFunction, Schema: obj}},
			choice: ToolChoice{Mode: ChoiceRequired}, parsed: true, toolsNames: []string{"get_weather"},
		},
		{name: "bad bedrock toolConfig does not panic", body: `{"toolConfig":{"tools":[1,null,{"toolSpec":5},{"toolSpec":{"name":7}}],"toolChoice":[]}}`, parsed: true},
		{name: "not JSON", body: `data: x`},
		{name: "JSON but not an object", body: `[1,2]`},
		{name: "bad tools do not panic", body: `{"tools":[1,"x",null,{"function":5},{"functionDeclarations":{"a":1}}],"tool_choice":7}`, parsed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := ParseRequest([]byte(tt.body), "/")
			if got := viewDecls(r.Decls); !reflect.DeepEqual(got, tt.decls) {
				t.Errorf("Decls = %+v; want %+v", got, tt.decls)
			}
			if !reflect.DeepEqual(r.Choice, tt.choice) {
				t.Errorf("Choice = %+v; want %+v", r.Choice, tt.choice)
			}
			if r.Serial != tt.serial || r.ToolsElsewhere != tt.elsewhere || r.Parsed != tt.parsed {
				t.Errorf("Serial, ToolsElsewhere, Parsed = %v, %v, %v; want %v, %v, %v",
					r.Serial, r.ToolsElsewhere, r.Parsed, tt.serial, tt.elsewhere, tt.parsed)
			}
			if !reflect.DeepEqual(r.Tools, tt.toolsNames) {
				t.Errorf("Tools = %q; want %q (the names the pane shows are unchanged)", r.Tools, tt.toolsNames)
			}
		})
	}
}

// TestToolDeclLookup: Decl finds a declaration by name, the first when a
// name is declared twice.
func TestToolDeclLookup(t *testing.T) {
	t.Parallel()
	r := ParseRequest([]byte(`{"tools":[{"type":"function","name":"a","parameters":{"type":"object"}},{"type":"custom","name":"a"}]}`), "/")
	d := r.Decl("a")
	if d == nil || d.Kind != ToolFunction || string(d.Schema) != `{"type":"object"}` {
		t.Errorf("Decl(a) = %+v; want the function", d)
	}
	if r.Decl("b") != nil {
		t.Error("Decl(b) found a tool never declared")
	}
	var raw json.RawMessage = r.Decls[0].Schema
	if !json.Valid(raw) {
		t.Errorf("schema %q is not JSON", raw)
	}
}
