package chat_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/dialect/chat"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// TestRules runs the rules' trigger and near-miss cases.
func TestRules(t *testing.T) {
	t.Parallel()
	dialecttest.Run(t, cases())
}

// TestEveryRuleTested: every rule of the dialect has a case that
// triggers it and a near miss.
func TestEveryRuleTested(t *testing.T) {
	dialecttest.EveryRuleTested(t, chat.Rules.Rules, cases())
}

func cases() []dialecttest.Case {
	cont := func(entry string) string { return modeltest.Tcs(entry) }
	withArgs := func(args ...string) func(p []string) []string {
		return func(p []string) []string {
			var mid []string
			for _, a := range args {
				mid = append(mid, cont(`{"index":0,"function":{"arguments":`+a+`}}`))
			}
			return append(append([]string{p[0]}, mid...), p[3:]...)
		}
	}
	finish := func(reason string) func(p []string) []string {
		return func(p []string) []string { p[3] = modeltest.Chunk(modeltest.Choice(`{}`, reason)); return p }
	}
	text := modeltest.Chunk(modeltest.Choice(`{"role":"assistant","content":"Hello"}`, "null"))
	return []dialecttest.Case{
		dialecttest.Hit("chat/identity-changed", "id changes", modeltest.Chat(func(p []string) []string {
			p[2] = strings.Replace(p[2], "chatcmpl-1", "chatcmpl-2", 1)
			return p
		}), 0, 2, 3),
		dialecttest.Hit("chat/identity-changed", "model empty on the first chunk", modeltest.Chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"model":"gpt-4o"`, `"model":""`, 1)
			return p
		}), 0, 1),
		// Azure's prompt-filter chunk: no choice, prompt_filter_results,
		// and an empty id, model and created.
		dialecttest.Miss("chat/identity-changed", "Azure's prompt-filter chunk", modeltest.Chat(func(p []string) []string {
			return append([]string{`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}`}, p...)
		})),
		dialecttest.Miss("chat/created-changed", "Azure's prompt-filter chunk", modeltest.Chat(func(p []string) []string {
			return append([]string{`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}`}, p...)
		})),
		dialecttest.Miss("chat/identity-changed", "Azure's prompt-filter chunk, choices [ ] with white space", modeltest.Chat(func(p []string) []string {
			return append([]string{`{"choices":[ ],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}`}, p...)
		})),
		dialecttest.Hit("chat/identity-changed", "a chunk with a choice and prompt_filter_results is no filter chunk", modeltest.Chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"model":"gpt-4o"`, `"model":""`, 1)
			p[0] = strings.Replace(p[0], `{`, `{"prompt_filter_results":[],`, 1)
			return p
		}), 0, 1),
		dialecttest.Miss("chat/identity-changed", "only created changes", modeltest.Chat(func(p []string) []string {
			p[2] = strings.Replace(p[2], `"created":1`, `"created":2`, 1)
			return p
		})),

		dialecttest.Hit("chat/created-changed", "created changes", modeltest.Chat(func(p []string) []string {
			for i := 2; i < 5; i++ {
				p[i] = strings.Replace(p[i], `"created":1`, `"created":2`, 1)
			}
			return p
		}), 0, 2),
		dialecttest.Miss("chat/created-changed", "created constant", modeltest.Chat(func(p []string) []string { return p })),

		dialecttest.Hit("chat/tool-index-missing", "no index", modeltest.Chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"index":0,"id"`, `"id"`, 1)
			p[1] = strings.Replace(p[1], `{"index":0,`, `{`, 1)
			p[2] = strings.Replace(p[2], `{"index":0,`, `{`, 1)
			return p
		}), 0),
		dialecttest.Miss("chat/tool-index-missing", "index 0", modeltest.Chat(func(p []string) []string { return p })),

		dialecttest.Hit("chat/tool-index-not-dense", "starts at 1", strings.ReplaceAll(modeltest.Chat(func(p []string) []string { return p }),
			`"tool_calls":[{"index":0`, `"tool_calls":[{"index":1`), 0),
		dialecttest.Hit("chat/tool-index-not-dense", "0 then 2", modeltest.Chat(func(p []string) []string {
			return append(p[:3], append([]string{cont(`{"index":2,"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}`)}, p[3:]...)...)
		}), 3),
		dialecttest.Miss("chat/tool-index-not-dense", "0 then 1", modeltest.Chat(func(p []string) []string {
			return append(p[:3], append([]string{cont(`{"index":1,"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}`)}, p[3:]...)...)
		})),

		dialecttest.Hit("chat/tool-index-collision", "two ids at index 0", modeltest.Chat(func(p []string) []string {
			return append(p[:3], append([]string{cont(`{"index":0,"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}`)}, p[3:]...)...)
		}), 0, 3),
		dialecttest.Miss("chat/tool-index-collision", "same id repeated at index 0", modeltest.Chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":"call_1","function":{"arguments":` + modeltest.ArgsDelta1 + `}}`)
			return p
		})),

		dialecttest.Hit("chat/tool-id-missing", "never an id", modeltest.Chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"id":"call_1",`, ``, 1)
			return p
		}), 0),
		dialecttest.Hit("chat/tool-id-missing", "id on the second fragment", modeltest.Chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"id":"call_1",`, ``, 1)
			p[1] = cont(`{"index":0,"id":"call_1","function":{"arguments":` + modeltest.ArgsDelta1 + `}}`)
			return p
		}), 0, 1),
		dialecttest.Miss("chat/tool-id-missing", "id on the first fragment", modeltest.Chat(func(p []string) []string { return p })),

		dialecttest.Hit("chat/tool-name-missing", "name on the second fragment", modeltest.Chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"name":"get_weather",`, ``, 1)
			p[1] = cont(`{"index":0,"function":{"name":"get_weather","arguments":` + modeltest.ArgsDelta1 + `}}`)
			return p
		}), 0, 1),
		dialecttest.Hit("chat/tool-name-missing", "never a name", modeltest.Chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"name":"get_weather",`, ``, 1)
			return p
		}), 0),
		dialecttest.Miss("chat/tool-name-missing", "name first", modeltest.Chat(func(p []string) []string { return p })),

		dialecttest.Hit("chat/tool-name-changed", "renamed", modeltest.Chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"function":{"name":"get_time","arguments":` + modeltest.ArgsDelta1 + `}}`)
			return p
		}), 0, 1),
		dialecttest.Miss("chat/tool-name-changed", "same name again", modeltest.Chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"function":{"name":"get_weather","arguments":` + modeltest.ArgsDelta1 + `}}`)
			return p
		})),

		dialecttest.Hit("chat/tool-id-repeated", "id and name on every fragment", modeltest.Chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":` + modeltest.ArgsDelta1 + `}}`)
			p[2] = cont(`{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":` + modeltest.ArgsDelta2 + `}}`)
			return p
		}), 0, 1, 2),
		dialecttest.Miss("chat/tool-id-repeated", "explicit nulls", modeltest.Chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":null,"type":"function","function":{"name":null,"arguments":` + modeltest.ArgsDelta1 + `}}`)
			return p
		})),

		dialecttest.Hit("chat/tool-id-empty", `"id":"" on continuations`, modeltest.Chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":"","type":"function","function":{"name":"","arguments":` + modeltest.ArgsDelta1 + `}}`)
			return p
		}), 0, 1),
		dialecttest.Miss("chat/tool-id-empty", "explicit nulls", modeltest.Chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":null,"function":{"name":null,"arguments":` + modeltest.ArgsDelta1 + `}}`)
			return p
		})),

		dialecttest.Hit("chat/tool-field-null", `"arguments": null on the opening fragment`, modeltest.Chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"arguments":""`, `"arguments":null`, 1)
			return p
		}), 0),
		dialecttest.Hit("chat/tool-field-null", "id, type and name null on a continuation", modeltest.Chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":null,"type":null,"function":{"name":null,"arguments":` + modeltest.ArgsDelta1 + `}}`)
			return p
		}), 1),
		dialecttest.Miss("chat/tool-field-null", "members left out on continuations", modeltest.DataSSE(modeltest.ChatBase())),
		dialecttest.Miss("chat/tool-field-null", "id and name null on the opening fragment", modeltest.Chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"id":"call_1"`, `"id":null`, 1)
			return p
		})),

		dialecttest.Hit("chat/args-not-string", "arguments object", modeltest.Chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"function":{"arguments":{"city":"Paris"}}}`)
			return p[:2]
		}), 1),
		dialecttest.Miss("chat/args-not-string", "arguments string", modeltest.Chat(func(p []string) []string { return p })),

		dialecttest.Hit("chat/args-resent", "whole again after the deltas", modeltest.Chat(withArgs(modeltest.ArgsDelta1, modeltest.ArgsDelta2, `"{\"city\":\"Paris\"}"`)), 1, 3),
		dialecttest.Hit("chat/args-resent", "cumulative fragments", modeltest.Chat(withArgs(`"{\"city\":"`, `"{\"city\":\"Par"`, `"{\"city\":\"Paris\"}"`)), 1, 2),
		dialecttest.Miss("chat/args-resent", "incremental", modeltest.Chat(func(p []string) []string { return p })),

		dialecttest.Hit("chat/args-invalid-json", "lost brace", modeltest.Chat(withArgs(modeltest.ArgsDelta1, `"\"Paris\""`)), 0, 2),
		dialecttest.Miss("chat/args-invalid-json", "complete", modeltest.Chat(func(p []string) []string { return p })),

		dialecttest.Hit("chat/args-empty", `only ""`, modeltest.Chat(withArgs(`""`)), 0),
		dialecttest.Miss("chat/args-empty", `"{}"`, modeltest.Chat(withArgs(`"{}"`))),

		dialecttest.Hit("chat/args-missing", "no arguments key", modeltest.Chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `,"arguments":""`, ``, 1)
			return append(p[:1], p[3:]...)
		}), 0),
		dialecttest.Miss("chat/args-missing", "arguments sent", modeltest.Chat(func(p []string) []string { return p })),

		dialecttest.Hit("chat/finish-reason-missing", "[DONE] without finish_reason", modeltest.Chat(func(p []string) []string { return append(p[:3], p[4:]...) }), 4),
		dialecttest.Miss("chat/finish-reason-missing", "finish_reason tool_calls", modeltest.Chat(func(p []string) []string { return p })),

		{Rule: "chat/finish-reason-repeated", Name: "tool_calls then stop", Hit: true, Stream: modeltest.Chat(func(p []string) []string {
			return append(p[:4], append([]string{modeltest.Chunk(modeltest.Choice(`{}`, `"stop"`))}, p[4:]...)...)
		}), Events: []int{3, 4}, Sev: dialecttest.Sev(checks.Error)},
		{Rule: "chat/finish-reason-repeated", Name: "tool_calls twice (harmless)", Hit: true, Stream: modeltest.Chat(func(p []string) []string {
			return append(p[:4], append([]string{modeltest.Chunk(modeltest.Choice(`{}`, `"tool_calls"`))}, p[4:]...)...)
		}), Events: []int{3, 4}, Sev: dialecttest.Sev(checks.Info)},
		dialecttest.Miss("chat/finish-reason-repeated", "once", modeltest.Chat(func(p []string) []string { return p })),

		dialecttest.Hit("chat/finish-reason-nonstandard", "end_turn", modeltest.Chat(finish(`"end_turn"`)), 3),
		dialecttest.Hit("chat/finish-reason-nonstandard", "empty string on every chunk", strings.ReplaceAll(modeltest.Chat(func(p []string) []string { return p }),
			`"finish_reason":null`, `"finish_reason":""`), 0, 1, 2),
		dialecttest.Miss("chat/finish-reason-nonstandard", "length", modeltest.Chat(finish(`"length"`))),

		dialecttest.Hit("chat/stop-with-tool-calls", "stop after a call", modeltest.Chat(finish(`"stop"`)), 0, 3),
		dialecttest.Miss("chat/stop-with-tool-calls", "stop after text", modeltest.DataSSE([]string{text, modeltest.Chunk(modeltest.Choice(`{}`, `"stop"`)), "[DONE]"})),

		dialecttest.Hit("chat/tool-calls-without-calls", "tool_calls after text", modeltest.DataSSE([]string{text, modeltest.Chunk(modeltest.Choice(`{}`, `"tool_calls"`)), "[DONE]"}), 1),
		dialecttest.Miss("chat/tool-calls-without-calls", "tool_calls after a call", modeltest.Chat(func(p []string) []string { return p })),

		dialecttest.Hit("chat/delta-after-finish", "arguments after finish_reason", modeltest.Chat(func(p []string) []string {
			p[2], p[3] = p[3], p[2]
			return p
		}), 2, 3),
		dialecttest.Miss("chat/delta-after-finish", "usage chunk with empty content", modeltest.Chat(func(p []string) []string {
			p[4] = strings.Replace(modeltest.UsageChunk, `"choices":[]`, `"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]`, 1)
			return p
		})),

		dialecttest.Hit("chat/message-in-chunk", "message next to delta", modeltest.Chat(func(p []string) []string {
			p[1] = strings.Replace(p[1], `"delta":`, `"message":{"role":"assistant","content":null},"delta":`, 1)
			return p
		}), 1),
		dialecttest.Miss("chat/message-in-chunk", "message null next to delta", modeltest.Chat(func(p []string) []string {
			p[1] = strings.Replace(p[1], `"delta":`, `"message":null,"delta":`, 1)
			return p
		})),
		dialecttest.Miss("chat/message-in-chunk", "a whole completion's message", modeltest.DataSSE([]string{
			`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}`})),

		dialecttest.Hit("chat/done-missing", "no [DONE]", modeltest.Chat(func(p []string) []string { return p[:5] }), 4),
		dialecttest.Miss("chat/done-missing", "error chunk ends the stream", modeltest.Chat(func(p []string) []string {
			return append(p[:2], `{"error":{"message":"overloaded","code":529}}`)
		})),

		dialecttest.Hit("chat/data-after-done", "chunk after [DONE]", modeltest.Chat(func(p []string) []string { return append(p, modeltest.UsageChunk) }), 5, 6),
		dialecttest.Hit("chat/data-after-done", "[DONE] twice", modeltest.Chat(func(p []string) []string { return append(p, "[DONE]") }), 5, 6),
		dialecttest.Miss("chat/data-after-done", "comment after [DONE]", modeltest.Chat(func(p []string) []string { return p })+": bye\n\n"),
	}
}

// TestChatCallsInOpeningOrder: the calls of a choice are judged in the
// order they were opened, not in tool-call index order, so two findings
// that differ only in their later events keep the order of their calls.
func TestChatCallsInOpeningOrder(t *testing.T) {
	chunks := []string{
		`{"index":0,"delta":{"tool_calls":[{"index":1,"id":"x","function":{"name":"f","arguments":""}},{"index":0,"id":"x","function":{"name":"f","arguments":""}}]}}`,
		`{"index":0,"delta":{"tool_calls":[{"index":1,"id":"x","function":{"arguments":"{}"}}]}}`,
		`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"arguments":"{}"}}]}}`,
		`{"index":0,"delta":{},"finish_reason":"tool_calls"}`,
	}
	var in strings.Builder
	for _, c := range chunks {
		in.WriteString("data: " + modeltest.Chunk("["+c+"]") + "\n\n")
	}
	in.WriteString("data: [DONE]\n\n")
	got := dialecttest.Findings(checks.CheckBytes([]byte(in.String()), capture.FormatAuto, checks.Strict), "chat/tool-id-repeated")
	if len(got) != 2 || !slices.Equal(got[0].Events, []int{0, 1}) || !slices.Equal(got[1].Events, []int{0, 2}) {
		t.Fatalf("%s findings = %v; want events [0 1] (the call opened first, at index 1), then [0 2]", "chat/tool-id-repeated", got)
	}
}
