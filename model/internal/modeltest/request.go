package modeltest

// Schemas of get_weather's arguments for the request rules' cases: the
// base streams call it with {"city":"Paris"}.
const (
	CityOnly  = `{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","enum":["c","f"]}},"required":["city"],"additionalProperties":false}`
	NeedUnits = `{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","enum":["c","f"]}},"required":["city","units"],"additionalProperties":false}`
)

// AnthTool is an Anthropic tool declaration (an InvokeModel body of
// Claude declares its tools so too).
func AnthTool(name, schema string) string {
	return `{"name":"` + name + `","input_schema":` + schema + `}`
}

// ConvReq is a Converse request declaring tools in toolConfig, extra
// members of toolConfig after them (a toolChoice).
func ConvReq(tools, extra string) string {
	return `{"messages":[{"role":"user","content":[{"text":"weather?"}]}],"inferenceConfig":{"maxTokens":300},"toolConfig":{"tools":[` + tools + `]` + extra + `}}`
}

// ConvTool is a Converse toolSpec entry, its schema under
// inputSchema.json.
func ConvTool(name, schema string) string {
	return `{"toolSpec":{"name":"` + name + `","description":"d","inputSchema":{"json":` + schema + `}}}`
}

// InvokeReq is an InvokeModel request of Claude: Anthropic's own body,
// with anthropic_version and no model (the path names it).
func InvokeReq(tools, extra string) string {
	return `{"anthropic_version":"bedrock-2023-05-31","max_tokens":100,"messages":[{"role":"user","content":"weather?"}],"tools":[` + tools + `]` + extra + `}`
}
