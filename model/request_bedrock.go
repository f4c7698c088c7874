package model

import "encoding/json"

// This file reads what an Amazon Bedrock Converse request declares: its
// toolConfig (tools and toolChoice) and the tool uses and results of its
// history. An InvokeModel request's body is the model's own (Anthropic's
// tools and tool_choice), read as that dialect's.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolConfiguration.html

// converseDecls reads one entry of toolConfig.tools[], a union: toolSpec
// is a client tool ({name, description, inputSchema: {json: schema}}),
// systemTool one Bedrock runs itself (Nova's nova_grounding), cachePoint
// no tool at all.
func converseDecls(raw json.RawMessage) []ToolDecl {
	var t struct {
		Spec *struct {
			Name   string `json:"name"`
			Schema struct {
				JSON json.RawMessage `json:"json"`
			} `json:"inputSchema"`
		} `json:"toolSpec"`
		System *struct {
			Name string `json:"name"`
		} `json:"systemTool"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return nil
	}
	switch {
	case t.Spec != nil && t.Spec.Name != "":
		return []ToolDecl{{Name: t.Spec.Name, Kind: ToolFunction, Schema: SchemaOf(t.Spec.Schema.JSON)}}
	case t.System != nil && t.System.Name != "":
		return []ToolDecl{{Name: t.System.Name, Type: "systemTool", Kind: ToolBuiltin}}
	}
	return nil
}

// converseChoice reads toolConfig.toolChoice, a union: {"auto": {}},
// {"any": {}} (at least one call) or {"tool": {"name": …}} (a call of that
// tool).
func converseChoice(raw json.RawMessage) ToolChoice {
	var c struct {
		Auto *struct{} `json:"auto"`
		Any  *struct{} `json:"any"`
		Tool *struct {
			Name string `json:"name"`
		} `json:"tool"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return ToolChoice{}
	}
	switch {
	case c.Tool != nil && c.Tool.Name != "":
		return ToolChoice{Mode: ChoiceRequired, Names: []string{c.Tool.Name}}
	case c.Any != nil:
		return ToolChoice{Mode: ChoiceRequired}
	case c.Auto != nil:
		return ToolChoice{Mode: ChoiceAuto}
	}
	return ToolChoice{}
}

// converseBlock is the part of a Converse message's content block that
// says a tool was used or answered: {"toolUse": {toolUseId, name, input}}
// in an assistant message, {"toolResult": {toolUseId, content, status}}
// in a user message.
type converseBlock struct {
	ToolUse *struct {
		ID string `json:"toolUseId"`
	} `json:"toolUse"`
	ToolResult *struct {
		ID      string          `json:"toolUseId"`
		Content json.RawMessage `json:"content"`
	} `json:"toolResult"`
}

// readConverseBlock records a Converse history block's tool use or tool
// result.
func (info *Request) readConverseBlock(b *converseBlock) {
	if b.ToolUse != nil && b.ToolUse.ID != "" {
		info.Assistants = append(info.Assistants, b.ToolUse.ID)
	}
	if r := b.ToolResult; r != nil && r.ID != "" {
		info.Answers = append(info.Answers, r.ID)
		info.Outputs = append(info.Outputs, ToolOutput{Kind: "toolResult", CallID: r.ID, Output: OutputText(r.Content)})
	}
}
