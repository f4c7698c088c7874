package checks

import (
	"strings"
	"testing"
)

// FuzzRequest: any request bytes, against a stream of each dialect, never
// panic, and every finding is well formed.
func FuzzRequest(f *testing.F) {
	for _, tc := range append(requestCases(), bedrockRequestCases()...) {
		if tc.request != "" {
			f.Add([]byte(tc.request))
		}
	}
	f.Add([]byte(`{"tools":[{"type":"function","name":"get_weather","parameters":{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}}]}`))
	f.Add([]byte(`{"tools":[{"type":"function","name":"get_weather","parameters":{"$schema":"http://example.com/x"}}]}`))
	f.Add([]byte(`{"tools":[{"functionDeclarations":[{"name":"get_weather","parameters":{"type":"OBJECT","nullable":true,"anyOf":[{"type":"STRING"}],"items":{"type":"ARRAY","minItems":"x"}}}]}]}`))
	streams := []string{
		respSSE(respBase()), respCustom("555-123"), chatTwo, chatText(`"stop"`),
		anthTwo, anthServer, dataSSE(gemBase()),
		strings.Join(convBase(), ""), strings.Join(invokeAnthropic(`""`, `"{\"city\":\"Paris\"}"`), ""),
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
