package bedrock

import (
	"bytes"
	"encoding/json"

	"github.com/streamtap/streamtap/model"
)

// This file reads what an Amazon Bedrock Converse request declares: its
// toolConfig (tools and toolChoice) and the tool uses and results of its
// history (model.RequestReader). An InvokeModel request's body is the
// model's own (Anthropic's tools and tool_choice), which model.ParseRequest
// reads.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolConfiguration.html

var _ model.RequestReader = Converse

// ReadRequest reads a Converse request's toolConfig and the toolUse and
// toolResult blocks of its messages. Its toolChoice is the request's
// choice unless the body also holds an OpenAI or Anthropic tool_choice
// (or a legacy function_call), which ParseRequest read first.
func (*converseDialect) ReadRequest(body []byte, r *model.Request) {
	var req struct {
		ToolConfig *struct {
			Tools  []json.RawMessage `json:"tools"`
			Choice json.RawMessage   `json:"toolChoice"`
		} `json:"toolConfig"`
		ToolChoice   json.RawMessage `json:"tool_choice"`
		FunctionCall json.RawMessage `json:"function_call"`
		Messages     []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return
	}
	if cfg := req.ToolConfig; cfg != nil {
		for _, raw := range cfg.Tools {
			decls := converseDecls(raw)
			r.Decls = append(r.Decls, decls...)
			for _, d := range decls {
				r.Tools = append(r.Tools, d.Name)
			}
		}
		if present(cfg.Choice) {
			if len(req.ToolChoice) == 0 {
				r.ToolChoice = model.OutputText(cfg.Choice)
			}
			if !present(req.ToolChoice) && !present(req.FunctionCall) {
				r.Choice = converseChoice(cfg.Choice)
			}
		}
	}
	for _, m := range req.Messages {
		var blocks []historyBlock
		if json.Unmarshal(m.Content, &blocks) == nil {
			for i := range blocks {
				readConverseBlock(r, &blocks[i])
			}
		}
	}
}

// present reports whether a member was given, and not null.
func present(raw json.RawMessage) bool {
	v := bytes.TrimSpace(raw)
	return len(v) > 0 && string(v) != "null"
}

// converseDecls reads one entry of toolConfig.tools[], a union: toolSpec
// is a client tool ({name, description, inputSchema: {json: schema}}),
// systemTool one Bedrock runs itself (Nova's nova_grounding), cachePoint
// no tool at all.
func converseDecls(raw json.RawMessage) []model.ToolDecl {
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
		return []model.ToolDecl{{Name: t.Spec.Name, Kind: model.ToolFunction, Schema: model.SchemaOf(t.Spec.Schema.JSON)}}
	case t.System != nil && t.System.Name != "":
		return []model.ToolDecl{{Name: t.System.Name, Type: "systemTool", Kind: model.ToolBuiltin}}
	}
	return nil
}

// converseChoice reads toolConfig.toolChoice, a union: {"auto": {}},
// {"any": {}} (at least one call) or {"tool": {"name": …}} (a call of that
// tool).
func converseChoice(raw json.RawMessage) model.ToolChoice {
	var c struct {
		Auto *struct{} `json:"auto"`
		Any  *struct{} `json:"any"`
		Tool *struct {
			Name string `json:"name"`
		} `json:"tool"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return model.ToolChoice{}
	}
	switch {
	case c.Tool != nil && c.Tool.Name != "":
		return model.ToolChoice{Mode: model.ChoiceRequired, Names: []string{c.Tool.Name}}
	case c.Any != nil:
		return model.ToolChoice{Mode: model.ChoiceRequired}
	case c.Auto != nil:
		return model.ToolChoice{Mode: model.ChoiceAuto}
	}
	return model.ToolChoice{}
}

// historyBlock is the part of a Converse message's content block that
// says a tool was used or answered: {"toolUse": {toolUseId, name, input}}
// in an assistant message, {"toolResult": {toolUseId, content, status}}
// in a user message.
type historyBlock struct {
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
func readConverseBlock(info *model.Request, b *historyBlock) {
	if b.ToolUse != nil && b.ToolUse.ID != "" {
		info.Assistants = append(info.Assistants, b.ToolUse.ID)
	}
	if r := b.ToolResult; r != nil && r.ID != "" {
		info.Answers = append(info.Answers, r.ID)
		info.Outputs = append(info.Outputs, model.ToolOutput{Kind: "toolResult", CallID: r.ID, Output: model.OutputText(r.Content)})
	}
}
