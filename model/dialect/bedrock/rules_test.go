package bedrock_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/dialect/bedrock"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// TestRules runs the rules' trigger and near-miss cases: the Bedrock
// dialects' own, and the request rules' on Bedrock's requests.
func TestRules(t *testing.T) {
	t.Parallel()
	dialecttest.Run(t, append(cases(), requestCases()...))
}

// TestEveryRuleTested: every rule of both Bedrock dialects has a case
// that triggers it and a near miss.
func TestEveryRuleTested(t *testing.T) {
	rules := append(slices.Clone(bedrock.ConverseRules.Rules), bedrock.InvokeRules.Rules...)
	dialecttest.EveryRuleTested(t, rules, cases())
}

func cases() []dialecttest.Case {
	base := modeltest.ConvBase()
	join := func(events []string) string { return strings.Join(events, "") }
	maxTok := modeltest.WithEvent(base, 8, modeltest.ESEvent("messageStop", `{"stopReason":"max_tokens"}`))
	maxTokCut := modeltest.WithEvent(maxTok, 6)
	wholeConverse := `{"output":{"message":{"role":"assistant","content":[{"text":"Let me check."},` +
		`{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}}]}},"stopReason":"tool_use",` +
		`"usage":{"inputTokens":40,"outputTokens":20,"totalTokens":60},"metrics":{"latencyMs":420}}`
	return []dialecttest.Case{

		dialecttest.Hit("bedrock/delta-unknown-block", "toolUse delta with no contentBlockStart", join(modeltest.WithEvent(base, 3)), 3),
		dialecttest.Hit("bedrock/delta-unknown-block", "text delta after its block's stop", join(modeltest.WithEvent(base, 3, base[3], modeltest.ESEvent("contentBlockDelta",
			`{"contentBlockIndex":0,"delta":{"text":" More."}}`))), 2, 4),
		dialecttest.Hit("bedrock/delta-unknown-block", "stop twice", join(modeltest.WithEvent(base, 2, base[2], base[2])), 2, 3),
		dialecttest.Miss("bedrock/delta-unknown-block", "text opens its block with its first delta", join(base)),
		dialecttest.Hit("bedrock/delta-wrong-block", "text routed to the tool block", join(modeltest.WithEvent(base, 6, base[6], modeltest.ESEvent("contentBlockDelta",
			`{"contentBlockIndex":1,"delta":{"text":"Done."}}`))), 3, 7),
		dialecttest.Miss("bedrock/delta-wrong-block", "text in a block of its own after the call", join(modeltest.WithEvent(base, 7, base[7], modeltest.ESEvent("contentBlockDelta",
			`{"contentBlockIndex":2,"delta":{"text":"Done."}}`), modeltest.ESEvent("contentBlockStop", `{"contentBlockIndex":2}`)))),
		dialecttest.Hit("bedrock/empty-block-start", "start union empty", join(modeltest.WithEvent(base, 1, modeltest.ESEvent("contentBlockStart", `{"contentBlockIndex":0,"start":{}}`), base[1])), 1),
		dialecttest.Miss("bedrock/empty-block-start", "tool call start", join(base)),
		dialecttest.Hit("bedrock/tool-input-invalid-json", "input cut", join(modeltest.WithEvent(base, 6)), 3, 6),
		{Rule: "bedrock/tool-input-invalid-json", Name: "input cut by max_tokens", Stream: join(maxTokCut), Hit: true, Events: []int{3, 6}, Sev: dialecttest.Sev(checks.Warning)},
		dialecttest.Miss("bedrock/tool-input-invalid-json", "input complete", join(base)),
		dialecttest.Hit("bedrock/message-stop-missing", "cut before messageStop", join(base[:8]), 7),
		dialecttest.Miss("bedrock/message-stop-missing", "an exception ends it", join(append(slices.Clone(base[:6]), modeltest.ESExceptionOf("modelStreamErrorException", "The model failed")))),
		dialecttest.Hit("bedrock/metadata-missing", "no metadata", join(base[:9]), 8),
		dialecttest.Miss("bedrock/metadata-missing", "metadata", join(base)),
		// A whole Converse response has no messageStop or metadata event:
		// its stopReason, usage and metrics are its own members.
		dialecttest.Miss("bedrock/message-stop-missing", "a whole Converse response", wholeConverse),
		dialecttest.Miss("bedrock/metadata-missing", "a whole Converse response", wholeConverse),
		dialecttest.Miss("bedrock/tool-input-invalid-json", "a whole Converse response", wholeConverse),
		dialecttest.Hit("bedrock/unknown-event", "an invented event type", join(modeltest.WithEvent(base, 9, base[9], modeltest.ESEvent("messageTrailer", `{}`))), 10),
		dialecttest.Miss("bedrock/unknown-event", "documented types", join(base)),
		dialecttest.Hit("bedrock/message-start-repeated", "a second message after the first", join(append(slices.Clone(base), base[0], base[1], base[2],
			modeltest.ESEvent("messageStop", `{"stopReason":"end_turn"}`), base[9])), 0, 10),
		dialecttest.Hit("bedrock/message-start-repeated", "a message started again before its stop", join(modeltest.WithEvent(base, 3, base[0], base[3])), 0, 3),
		dialecttest.Hit("bedrock/message-start-repeated", "Nova inside InvokeModel, two messageStart chunks", join([]string{
			modeltest.InvokeChunk(`{"messageStart":{"role":"assistant"}}`), modeltest.InvokeChunk(`{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"Hi"}}}`),
			modeltest.InvokeChunk(`{"messageStart":{"role":"assistant"}}`)}), 0, 2),
		dialecttest.Miss("bedrock/message-start-repeated", "one messageStart", join(base)),
		// Clients merge the second message into the first: the stream's
		// messageStop ends it.
		dialecttest.Miss("bedrock/message-stop-missing", "messageStart sent twice", join(modeltest.WithEvent(base, 1, base[0], base[1]))),
		dialecttest.Miss("bedrock/message-start-repeated", "no messageStart at all", join(base[1:])),

		dialecttest.Hit("invoke/chunk-invalid", "bytes not base64", join(modeltest.WithEvent(modeltest.InvokeAnthropic(`"{}"`), 2, modeltest.ESEvent("chunk", `{"bytes":"not base64!"}`))), 2),
		dialecttest.Hit("invoke/chunk-invalid", "bytes decode to no object", join(modeltest.WithEvent(modeltest.InvokeAnthropic(`"{}"`), 2, modeltest.ESEvent("chunk", `{"bytes":"WzFd"}`))), 2),
		dialecttest.Miss("invoke/chunk-invalid", "sound chunks", join(modeltest.InvokeAnthropic(`"{}"`))),
		dialecttest.Hit("invoke/unknown-model", "a chunk no family explains", chunks(`{"token":{"text":"Hi"},"generated_text":null}`), 0),
		dialecttest.Hit("invoke/unknown-model", "two Converse members in one chunk", chunks(`{"messageStart":{"role":"assistant"},"messageStop":{"stopReason":"end_turn"}}`), 0),
		dialecttest.Miss("invoke/unknown-model", "Titan", chunks(`{"outputText":"Hi","index":0,"completionReason":"FINISH"}`)),
		// Every family of AWS's model parameter pages is read, with
		// Bedrock's own members beside it.
		dialecttest.Miss("invoke/unknown-model", "Claude Text Completions, typed", chunks(`{"type":"completion","completion":" Hi","stop_reason":null,"stop":null}`,
			`{"type":"completion","completion":"","stop_reason":"stop_sequence","stop":"\n\nHuman:","amazon-bedrock-invocationMetrics":{"inputTokenCount":1}}`)),
		dialecttest.Miss("invoke/unknown-model", "Claude Text Completions, untyped", chunks(`{"completion":" Hi","stop_reason":"stop_sequence","stop":"\n\nHuman:","amazon-bedrock-invocationMetrics":{}}`)),
		dialecttest.Miss("invoke/unknown-model", "Nova's last chunk with the invocation metrics", chunks(`{"messageStart":{"role":"assistant"}}`,
			`{"messageStop":{"stopReason":"end_turn"}}`, `{"metadata":{"usage":{"inputTokens":1,"outputTokens":1}},"amazon-bedrock-invocationMetrics":{"inputTokenCount":1}}`)),
		dialecttest.Miss("invoke/unknown-model", "Nova deltas with a guardrail's action", chunks(`{"messageStart":{"role":"assistant"}}`,
			`{"contentBlockDelta":{"delta":{"text":"Hi"},"contentBlockIndex":0},"amazon-bedrock-guardrailAction":"INTERVENED"}`)),
		dialecttest.Miss("invoke/unknown-model", "Cohere generations by index", chunks(`{"index":0,"is_finished":false,"text":" A"}`, `{"index":1,"is_finished":false,"text":" B"}`,
			`{"finish_reason":"COMPLETE","is_finished":true,"amazon-bedrock-invocationMetrics":{}}`)),
		dialecttest.Miss("invoke/unknown-model", "AI21 Jamba's metrics-only last chunk", chunks(`{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}`,
			`{"amazon-bedrock-invocationMetrics":{"inputTokenCount":1,"outputTokenCount":1}}`)),
		dialecttest.Miss("bedrock/metadata-missing", "Nova's metadata beside the invocation metrics", chunks(`{"messageStart":{"role":"assistant"}}`,
			`{"contentBlockDelta":{"delta":{"text":"Hi"},"contentBlockIndex":0}}`, `{"contentBlockStop":{"contentBlockIndex":0}}`, `{"messageStop":{"stopReason":"end_turn"}}`,
			`{"metadata":{"usage":{"inputTokens":1,"outputTokens":1}},"amazon-bedrock-invocationMetrics":{"inputTokenCount":1}}`)),
		dialecttest.Miss("bedrock/delta-unknown-block", "Nova text blocks opened by their first delta, one a delta, beside a guardrail's action", chunks(`{"messageStart":{"role":"assistant"}}`,
			`{"contentBlockDelta":{"delta":{"text":"On"},"contentBlockIndex":0},"amazon-bedrock-guardrailAction":"INTERVENED"}`, `{"contentBlockStop":{"contentBlockIndex":0}}`,
			`{"contentBlockDelta":{"delta":{"text":" it"},"contentBlockIndex":2},"amazon-bedrock-guardrailAction":"INTERVENED"}`, `{"contentBlockStop":{"contentBlockIndex":2}}`,
			`{"messageStop":{"stopReason":"end_turn"}}`, `{"metadata":{"usage":{}},"amazon-bedrock-invocationMetrics":{}}`)),

		// One implementation: the Anthropic rules judge the Anthropic
		// events InvokeModel chunks wrap.
		dialecttest.Hit("anthropic/tool-input-invalid-json", "Anthropic input cut inside InvokeModel chunks", join(modeltest.InvokeAnthropic(`""`, `"{\"city\":"`)), 1, 4),
		dialecttest.Miss("anthropic/tool-input-invalid-json", "Anthropic input whole inside InvokeModel chunks", join(modeltest.InvokeAnthropic(`""`, `"{\"city\":\"Paris\"}"`))),
	}
}

// chunks is an InvokeModel stream of chunks wrapping each inner event.
func chunks(inner ...string) string {
	var b strings.Builder
	for _, in := range inner {
		b.WriteString(modeltest.InvokeChunk(in))
	}
	return b.String()
}

// TestCapturesClean: the Bedrock streams of ../shared/captures-next, when
// it is there, draw no finding at all (their manifest notes every frame
// sound). The event stream encoding's own test vectors are the checks'
// (TestEventStreamVectors).
func TestCapturesClean(t *testing.T) {
	files := fixtures.SharedGlob("captures-next/bedrock-*.eventstream")
	if len(files) == 0 {
		t.Skip("no Bedrock streams in ../shared/captures-next")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rep := checks.CheckBytes(data, capture.FormatAuto, checks.Strict)
		for _, f := range rep.Findings {
			t.Errorf("%s: %s %s: %s", filepath.Base(path), f.Severity, f.Rule, f.Message)
		}
	}
}

func requestCases() []dialecttest.Case {
	join := func(events []string) string { return strings.Join(events, "") }
	conv := join(modeltest.ConvBase()) // get_weather({"city":"Paris"}) opens at 3, closes at 7
	// convText answers with text only, ending at event 3.
	convText := join([]string{modeltest.ConvBase()[0], modeltest.ConvBase()[1], modeltest.ConvBase()[2],
		modeltest.ESEvent("messageStop", `{"stopReason":"end_turn"}`), modeltest.ConvBase()[9]})
	// convEmpty's call sends only the "" fragment.
	convEmpty := join(slices.Delete(modeltest.ConvBase(), 5, 7))
	invoke := join(modeltest.InvokeAnthropic(`""`, `"{\"city\":\"Paris\"}"`)) // the call opens at 1, closes at 4
	both := modeltest.ConvTool("get_weather", modeltest.CityOnly) + "," + modeltest.ConvTool("get_time", modeltest.CityOnly)
	// The same answers as whole Converse responses: one event each.
	convWhole := `{"output":{"message":{"role":"assistant","content":[{"text":"Let me check."},` +
		`{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}}]}},"stopReason":"tool_use",` +
		`"usage":{"inputTokens":40,"outputTokens":20,"totalTokens":60},"metrics":{"latencyMs":420}}`
	convWholeText := `{"output":{"message":{"role":"assistant","content":[{"text":"Let me check."}]}},"stopReason":"end_turn",` +
		`"usage":{"inputTokens":40,"outputTokens":4,"totalTokens":44},"metrics":{"latencyMs":120}}`
	return []dialecttest.Case{
		// Converse: toolConfig.tools and toolChoice.
		dialecttest.WithRequest(dialecttest.Hit("request/args-schema", "converse units missing", conv, 7), modeltest.ConvReq(modeltest.ConvTool("get_weather", modeltest.NeedUnits), "")),
		dialecttest.WithRequest(dialecttest.Miss("request/args-schema", "converse arguments match", conv), modeltest.ConvReq(modeltest.ConvTool("get_weather", modeltest.CityOnly), "")),
		dialecttest.WithRequest(dialecttest.Hit("request/args-schema", "converse empty input is {}", convEmpty, 5), modeltest.ConvReq(modeltest.ConvTool("get_weather", modeltest.CityOnly), "")),
		dialecttest.WithRequest(dialecttest.Hit("request/tool-undeclared", "converse", conv, 3), modeltest.ConvReq(modeltest.ConvTool("get_time", modeltest.CityOnly), "")),
		dialecttest.WithRequest(dialecttest.Miss("request/tool-undeclared", "converse declared beside a cache point", conv),
			modeltest.ConvReq(`{"cachePoint":{"type":"default"}},`+modeltest.ConvTool("get_weather", modeltest.CityOnly), "")),
		dialecttest.WithRequest(dialecttest.Hit("request/tool-choice-violated", "converse tool choice names another", conv, 3), modeltest.ConvReq(both, `,"toolChoice":{"tool":{"name":"get_time"}}`)),
		dialecttest.WithRequest(dialecttest.Miss("request/tool-choice-violated", "converse tool choice names it", conv), modeltest.ConvReq(both, `,"toolChoice":{"tool":{"name":"get_weather"}}`)),
		dialecttest.WithRequest(dialecttest.Hit("request/tool-choice-violated", "converse any, text only", convText, 3), modeltest.ConvReq(both, `,"toolChoice":{"any":{}}`)),
		dialecttest.WithRequest(dialecttest.Miss("request/tool-choice-violated", "converse auto, text only", convText), modeltest.ConvReq(both, `,"toolChoice":{"auto":{}}`)),

		// A whole Converse response (Converse, not ConverseStream) is held
		// against its request as a stream is.
		dialecttest.WithRequest(dialecttest.Hit("request/args-schema", "whole converse units missing", convWhole, 0), modeltest.ConvReq(modeltest.ConvTool("get_weather", modeltest.NeedUnits), "")),
		dialecttest.WithRequest(dialecttest.Miss("request/args-schema", "whole converse arguments match", convWhole), modeltest.ConvReq(modeltest.ConvTool("get_weather", modeltest.CityOnly), "")),
		dialecttest.WithRequest(dialecttest.Hit("request/tool-undeclared", "whole converse", convWhole, 0), modeltest.ConvReq(modeltest.ConvTool("get_time", modeltest.CityOnly), "")),
		dialecttest.WithRequest(dialecttest.Hit("request/tool-choice-violated", "whole converse any, text only", convWholeText, 0), modeltest.ConvReq(both, `,"toolChoice":{"any":{}}`)),
		dialecttest.WithRequest(dialecttest.Miss("request/tool-choice-violated", "whole converse auto, text only", convWholeText), modeltest.ConvReq(both, `,"toolChoice":{"auto":{}}`)),

		// InvokeModel: Anthropic's tools and tool_choice in the body.
		dialecttest.WithRequest(dialecttest.Hit("request/args-schema", "invoke units missing", invoke, 4), modeltest.InvokeReq(modeltest.AnthTool("get_weather", modeltest.NeedUnits), "")),
		dialecttest.WithRequest(dialecttest.Hit("request/tool-undeclared", "invoke", invoke, 1), modeltest.InvokeReq(modeltest.AnthTool("get_time", modeltest.CityOnly), "")),
		dialecttest.WithRequest(dialecttest.Miss("request/tool-undeclared", "invoke declared", invoke), modeltest.InvokeReq(modeltest.AnthTool("get_weather", modeltest.CityOnly), "")),
		dialecttest.WithRequest(dialecttest.Hit("request/tool-choice-violated", "invoke named tool, another called", invoke, 1),
			modeltest.InvokeReq(modeltest.AnthTool("get_weather", modeltest.CityOnly)+","+modeltest.AnthTool("get_time", modeltest.CityOnly), `,"tool_choice":{"type":"tool","name":"get_time"}`)),
	}
}

// TestBedrockRequestMessages: a Converse call that sends only Claude's
// opening "" is judged as {} (what the SDKs read it as), so the finding
// names the missing property, not a parse failure.
func TestBedrockRequestMessages(t *testing.T) {
	t.Parallel()
	stream := strings.Join(slices.Delete(modeltest.ConvBase(), 5, 7), "")
	got := dialecttest.Findings(dialecttest.CheckWithRequest(stream, modeltest.ConvReq(modeltest.ConvTool("get_weather", modeltest.CityOnly), ""), checks.Strict), "request/args-schema")
	if len(got) != 1 || !strings.Contains(got[0].Message, "missing property 'city'") {
		t.Errorf("findings %v; want one naming the missing property 'city'", got)
	}
}

// TestBedrockConverseCassette: openllmetry's ConverseStream cassette
// declares get_weather in toolConfig and the stream calls it. The call is
// declared (no request/tool-undeclared, which it drew when toolConfig was
// not read) and validated against inputSchema.json: the stream draws no
// finding, and the same stream held to a schema it fails draws one
// args-schema finding, for its one call.
func TestBedrockConverseCassette(t *testing.T) {
	t.Parallel()
	const name = "bedrock-converse-stream-tool-use__openllmetry.yaml #1"
	path := fixtures.Path("model/checks/testdata/requests/bedrock-converse-stream-tool-use__openllmetry.yaml")
	exchange := func(edit func(r *model.Request) *model.Request) dialecttest.Exchange {
		for _, e := range dialecttest.Exchanges(t, path, edit) {
			if e.Name == name {
				return e
			}
		}
		t.Fatalf("no session %s", name)
		return dialecttest.Exchange{}
	}
	a := exchange(func(r *model.Request) *model.Request { return r })
	if d := a.Req.Decl("get_weather"); d == nil || d.Schema == nil {
		t.Fatalf("declarations %+v; want get_weather with its schema", a.Req.Decls)
	}
	if got := a.C.Report(a.S, checks.Strict).Findings; len(got) != 0 {
		t.Errorf("findings %v; want none", got)
	}

	b := exchange(func(r *model.Request) *model.Request {
		if d := r.Decl("get_weather"); d != nil {
			d.Schema = []byte(`{"type":"object","required":["location","units"]}`)
		}
		return r
	})
	got := dialecttest.Findings(b.C.Report(b.S, checks.Strict), "request/args-schema")
	if len(got) != 1 || !strings.Contains(got[0].Message, "missing property 'units'") {
		t.Errorf("args-schema findings %v; want one naming 'units'", got)
	}
}
