package checks

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// FuzzRequest: any request bytes, against a stream of each dialect, never
// panic, and every finding is well formed.
func FuzzRequest(f *testing.F) {
	for _, tc := range requestCases() {
		if tc.request != "" {
			f.Add([]byte(tc.request))
		}
	}
	// Bedrock's requests: Converse's toolConfig and choices, InvokeModel's
	// Anthropic body.
	both := modeltest.ConvTool("get_weather", cityOnly) + "," + modeltest.ConvTool("get_time", cityOnly)
	for _, req := range []string{
		modeltest.ConvReq(modeltest.ConvTool("get_weather", needUnits), ""),
		modeltest.ConvReq(`{"cachePoint":{"type":"default"}},`+modeltest.ConvTool("get_weather", cityOnly), ""),
		modeltest.ConvReq(both, `,"toolChoice":{"tool":{"name":"get_time"}}`),
		modeltest.ConvReq(both, `,"toolChoice":{"any":{}}`),
		modeltest.ConvReq(both, `,"toolChoice":{"auto":{}}`),
		modeltest.InvokeReq(anthTool("get_weather", needUnits), ""),
		modeltest.InvokeReq(anthTool("get_weather", cityOnly)+","+anthTool("get_time", cityOnly), `,"tool_choice":{"type":"tool","name":"get_time"}`),
	} {
		f.Add([]byte(req))
	}
	f.Add([]byte(`{"tools":[{"type":"function","name":"get_weather","parameters":{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}}]}`))
	f.Add([]byte(`{"tools":[{"type":"function","name":"get_weather","parameters":{"$schema":"http://example.com/x"}}]}`))
	f.Add([]byte(`{"tools":[{"functionDeclarations":[{"name":"get_weather","parameters":{"type":"OBJECT","nullable":true,"anyOf":[{"type":"STRING"}],"items":{"type":"ARRAY","minItems":"x"}}}]}]}`))
	streams := []string{
		respSSE(respBase()), respCustom("555-123"), chatTwo, chatText(`"stop"`),
		anthTwo, anthServer, dataSSE(gemBase()),
		strings.Join(modeltest.ConvBase(), ""), strings.Join(modeltest.InvokeAnthropic(`""`, `"{\"city\":\"Paris\"}"`), ""),
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		for _, s := range streams {
			rep := checkWithRequest(s, string(req), Strict)
			for _, x := range rep.Findings {
				if strings.HasPrefix(x.Rule, "request/") && (x.Message == "" || len(x.Events) == 0) {
					t.Fatalf("finding %v: want a message and events", x)
				}
			}
		}
	})
}
