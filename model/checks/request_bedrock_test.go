package checks

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model"
)

// Bedrock request bodies: a Converse request declares its tools in
// toolConfig (toolSpec entries, the schema under inputSchema.json) and
// its choice as a union; an InvokeModel request of Claude is Anthropic's
// own body, with anthropic_version and no model (the path names it).
func convReq(tools, extra string) string {
	return `{"messages":[{"role":"user","content":[{"text":"weather?"}]}],"inferenceConfig":{"maxTokens":300},"toolConfig":{"tools":[` + tools + `]` + extra + `}}`
}

func convTool(name, schema string) string {
	return `{"toolSpec":{"name":"` + name + `","description":"d","inputSchema":{"json":` + schema + `}}}`
}

func invokeReq(tools, extra string) string {
	return `{"anthropic_version":"bedrock-2023-05-31","max_tokens":100,"messages":[{"role":"user","content":"weather?"}],"tools":[` + tools + `]` + extra + `}`
}

func bedrockRequestCases() []ruleCase {
	join := func(events []string) string { return strings.Join(events, "") }
	conv := join(convBase()) // get_weather({"city":"Paris"}) opens at 3, closes at 7
	// convText answers with text only, ending at event 3.
	convText := join([]string{convBase()[0], convBase()[1], convBase()[2],
		esEvent("messageStop", `{"stopReason":"end_turn"}`), convBase()[9]})
	// convEmpty's call sends only the "" fragment.
	convEmpty := join(slices.Delete(convBase(), 5, 7))
	invoke := join(invokeAnthropic(`""`, `"{\"city\":\"Paris\"}"`)) // the call opens at 1, closes at 4
	both := convTool("get_weather", cityOnly) + "," + convTool("get_time", cityOnly)
	// The same answers as whole Converse responses: one event each.
	convWhole := `{"output":{"message":{"role":"assistant","content":[{"text":"Let me check."},` +
		`{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}}]}},"stopReason":"tool_use",` +
		`"usage":{"inputTokens":40,"outputTokens":20,"totalTokens":60},"metrics":{"latencyMs":420}}`
	convWholeText := `{"output":{"message":{"role":"assistant","content":[{"text":"Let me check."}]}},"stopReason":"end_turn",` +
		`"usage":{"inputTokens":40,"outputTokens":4,"totalTokens":44},"metrics":{"latencyMs":120}}`
	return []ruleCase{
		// Converse: toolConfig.tools and toolChoice.
		withRequest(hit(qArgsSchema, "converse units missing", conv, 7), convReq(convTool("get_weather", needUnits), "")),
		withRequest(miss(qArgsSchema, "converse arguments match", conv), convReq(convTool("get_weather", cityOnly), "")),
		withRequest(hit(qArgsSchema, "converse empty input is {}", convEmpty, 5), convReq(convTool("get_weather", cityOnly), "")),
		withRequest(hit(qUndeclared, "converse", conv, 3), convReq(convTool("get_time", cityOnly), "")),
		withRequest(miss(qUndeclared, "converse declared beside a cache point", conv),
			convReq(`{"cachePoint":{"type":"default"}},`+convTool("get_weather", cityOnly), "")),
		withRequest(hit(qChoice, "converse tool choice names another", conv, 3), convReq(both, `,"toolChoice":{"tool":{"name":"get_time"}}`)),
		withRequest(miss(qChoice, "converse tool choice names it", conv), convReq(both, `,"toolChoice":{"tool":{"name":"get_weather"}}`)),
		withRequest(hit(qChoice, "converse any, text only", convText, 3), convReq(both, `,"toolChoice":{"any":{}}`)),
		withRequest(miss(qChoice, "converse auto, text only", convText), convReq(both, `,"toolChoice":{"auto":{}}`)),

		// A whole Converse response (Converse, not ConverseStream) is held
		// against its request as a stream is.
		withRequest(hit(qArgsSchema, "whole converse units missing", convWhole, 0), convReq(convTool("get_weather", needUnits), "")),
		withRequest(miss(qArgsSchema, "whole converse arguments match", convWhole), convReq(convTool("get_weather", cityOnly), "")),
		withRequest(hit(qUndeclared, "whole converse", convWhole, 0), convReq(convTool("get_time", cityOnly), "")),
		withRequest(hit(qChoice, "whole converse any, text only", convWholeText, 0), convReq(both, `,"toolChoice":{"any":{}}`)),
		withRequest(miss(qChoice, "whole converse auto, text only", convWholeText), convReq(both, `,"toolChoice":{"auto":{}}`)),

		// InvokeModel: Anthropic's tools and tool_choice in the body.
		withRequest(hit(qArgsSchema, "invoke units missing", invoke, 4), invokeReq(anthTool("get_weather", needUnits), "")),
		withRequest(hit(qUndeclared, "invoke", invoke, 1), invokeReq(anthTool("get_time", cityOnly), "")),
		withRequest(miss(qUndeclared, "invoke declared", invoke), invokeReq(anthTool("get_weather", cityOnly), "")),
		withRequest(hit(qChoice, "invoke named tool, another called", invoke, 1),
			invokeReq(anthTool("get_weather", cityOnly)+","+anthTool("get_time", cityOnly), `,"tool_choice":{"type":"tool","name":"get_time"}`)),
	}
}

// TestBedrockRequestMessages: a Converse call that sends only Claude's
// opening "" is judged as {} (what the SDKs read it as), so the finding
// names the missing property, not a parse failure.
func TestBedrockRequestMessages(t *testing.T) {
	t.Parallel()
	stream := strings.Join(slices.Delete(convBase(), 5, 7), "")
	got := findings(checkWithRequest(stream, convReq(convTool("get_weather", cityOnly), ""), Strict), qArgsSchema)
	if len(got) != 1 || !strings.Contains(got[0].Message, "missing property 'city'") {
		t.Errorf("findings %v; want one naming the missing property 'city'", got)
	}
}

// TestBedrockConverseCassette: openllmetry's ConverseStream cassette
// declares get_weather in toolConfig and the stream calls it. The call is
// declared (no request/tool-undeclared, which it drew when toolConfig was
// not read) and validated against inputSchema.json; the same stream held
// to a schema it fails is flagged.
func TestBedrockConverseCassette(t *testing.T) {
	t.Parallel()
	const name = "bedrock-converse-stream-tool-use__openllmetry.yaml #1"
	var a *archiveSession
	sessions := archiveSessions(t, func(r *model.Request) *model.Request { return r })
	for i := range sessions {
		if sessions[i].name == name {
			a = &sessions[i]
		}
	}
	if a == nil {
		t.Fatalf("no session %s", name)
	}
	if d := a.req.Decl("get_weather"); d == nil || d.Schema == nil {
		t.Fatalf("declarations %+v; want get_weather with its schema", a.req.Decls)
	}
	if got := a.c.Report(a.s, Strict).Findings; len(got) != 0 {
		t.Errorf("findings %v; want none", got)
	}
	if len(a.c.req.verdicts) != 1 {
		t.Errorf("%d calls validated; want get_weather's", len(a.c.req.verdicts))
	}

	strict := func(r *model.Request) *model.Request {
		if d := r.Decl("get_weather"); d != nil {
			d.Schema = []byte(`{"type":"object","required":["location","units"]}`)
		}
		return r
	}
	for _, b := range archiveSessions(t, strict) {
		if b.name != name {
			continue
		}
		got := findings(b.c.Report(b.s, Strict), qArgsSchema)
		if len(got) != 1 || !strings.Contains(got[0].Message, "missing property 'units'") {
			t.Errorf("args-schema findings %v; want one naming 'units'", got)
		}
	}
}
