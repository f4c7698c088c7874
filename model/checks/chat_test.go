package checks

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

func chatCases() []ruleCase {
	cont := func(entry string) string { return tcs(entry) }
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
		return func(p []string) []string { p[3] = chunk(choice(`{}`, reason)); return p }
	}
	text := chunk(choice(`{"role":"assistant","content":"Hello"}`, "null"))
	return []ruleCase{
		hit("chat/identity-changed", "id changes", chat(func(p []string) []string {
			p[2] = strings.Replace(p[2], "chatcmpl-1", "chatcmpl-2", 1)
			return p
		}), 0, 2, 3),
		hit("chat/identity-changed", "model empty on the first chunk", chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"model":"gpt-4o"`, `"model":""`, 1)
			return p
		}), 0, 1),
		// Azure's prompt-filter chunk: no choice, prompt_filter_results,
		// and an empty id, model and created.
		miss("chat/identity-changed", "Azure's prompt-filter chunk", chat(func(p []string) []string {
			return append([]string{`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}`}, p...)
		})),
		miss("chat/created-changed", "Azure's prompt-filter chunk", chat(func(p []string) []string {
			return append([]string{`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}`}, p...)
		})),
		miss("chat/identity-changed", "Azure's prompt-filter chunk, choices [ ] with white space", chat(func(p []string) []string {
			return append([]string{`{"choices":[ ],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}`}, p...)
		})),
		hit("chat/identity-changed", "a chunk with a choice and prompt_filter_results is no filter chunk", chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"model":"gpt-4o"`, `"model":""`, 1)
			p[0] = strings.Replace(p[0], `{`, `{"prompt_filter_results":[],`, 1)
			return p
		}), 0, 1),
		miss("chat/identity-changed", "only created changes", chat(func(p []string) []string {
			p[2] = strings.Replace(p[2], `"created":1`, `"created":2`, 1)
			return p
		})),

		hit("chat/created-changed", "created changes", chat(func(p []string) []string {
			for i := 2; i < 5; i++ {
				p[i] = strings.Replace(p[i], `"created":1`, `"created":2`, 1)
			}
			return p
		}), 0, 2),
		miss("chat/created-changed", "created constant", chat(func(p []string) []string { return p })),

		hit("chat/tool-index-missing", "no index", chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"index":0,"id"`, `"id"`, 1)
			p[1] = strings.Replace(p[1], `{"index":0,`, `{`, 1)
			p[2] = strings.Replace(p[2], `{"index":0,`, `{`, 1)
			return p
		}), 0),
		miss("chat/tool-index-missing", "index 0", chat(func(p []string) []string { return p })),

		hit("chat/tool-index-not-dense", "starts at 1", strings.ReplaceAll(chat(func(p []string) []string { return p }),
			`"tool_calls":[{"index":0`, `"tool_calls":[{"index":1`), 0),
		hit("chat/tool-index-not-dense", "0 then 2", chat(func(p []string) []string {
			return append(p[:3], append([]string{cont(`{"index":2,"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}`)}, p[3:]...)...)
		}), 3),
		miss("chat/tool-index-not-dense", "0 then 1", chat(func(p []string) []string {
			return append(p[:3], append([]string{cont(`{"index":1,"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}`)}, p[3:]...)...)
		})),

		hit("chat/tool-index-collision", "two ids at index 0", chat(func(p []string) []string {
			return append(p[:3], append([]string{cont(`{"index":0,"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}`)}, p[3:]...)...)
		}), 0, 3),
		miss("chat/tool-index-collision", "same id repeated at index 0", chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":"call_1","function":{"arguments":` + argsDelta1 + `}}`)
			return p
		})),

		hit("chat/tool-id-missing", "never an id", chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"id":"call_1",`, ``, 1)
			return p
		}), 0),
		hit("chat/tool-id-missing", "id on the second fragment", chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"id":"call_1",`, ``, 1)
			p[1] = cont(`{"index":0,"id":"call_1","function":{"arguments":` + argsDelta1 + `}}`)
			return p
		}), 0, 1),
		miss("chat/tool-id-missing", "id on the first fragment", chat(func(p []string) []string { return p })),

		hit("chat/tool-name-missing", "name on the second fragment", chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"name":"get_weather",`, ``, 1)
			p[1] = cont(`{"index":0,"function":{"name":"get_weather","arguments":` + argsDelta1 + `}}`)
			return p
		}), 0, 1),
		hit("chat/tool-name-missing", "never a name", chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"name":"get_weather",`, ``, 1)
			return p
		}), 0),
		miss("chat/tool-name-missing", "name first", chat(func(p []string) []string { return p })),

		hit("chat/tool-name-changed", "renamed", chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"function":{"name":"get_time","arguments":` + argsDelta1 + `}}`)
			return p
		}), 0, 1),
		miss("chat/tool-name-changed", "same name again", chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"function":{"name":"get_weather","arguments":` + argsDelta1 + `}}`)
			return p
		})),

		hit("chat/tool-id-repeated", "id and name on every fragment", chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":` + argsDelta1 + `}}`)
			p[2] = cont(`{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":` + argsDelta2 + `}}`)
			return p
		}), 0, 1, 2),
		miss("chat/tool-id-repeated", "explicit nulls", chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":null,"type":"function","function":{"name":null,"arguments":` + argsDelta1 + `}}`)
			return p
		})),

		hit("chat/tool-id-empty", `"id":"" on continuations`, chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":"","type":"function","function":{"name":"","arguments":` + argsDelta1 + `}}`)
			return p
		}), 0, 1),
		miss("chat/tool-id-empty", "explicit nulls", chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":null,"function":{"name":null,"arguments":` + argsDelta1 + `}}`)
			return p
		})),

		hit("chat/tool-field-null", `"arguments": null on the opening fragment`, chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"arguments":""`, `"arguments":null`, 1)
			return p
		}), 0),
		hit("chat/tool-field-null", "id, type and name null on a continuation", chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"id":null,"type":null,"function":{"name":null,"arguments":` + argsDelta1 + `}}`)
			return p
		}), 1),
		miss("chat/tool-field-null", "members left out on continuations", dataSSE(chatBase())),
		miss("chat/tool-field-null", "id and name null on the opening fragment", chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `"id":"call_1"`, `"id":null`, 1)
			return p
		})),

		hit("chat/args-not-string", "arguments object", chat(func(p []string) []string {
			p[1] = cont(`{"index":0,"function":{"arguments":{"city":"Paris"}}}`)
			return p[:2]
		}), 1),
		miss("chat/args-not-string", "arguments string", chat(func(p []string) []string { return p })),

		hit("chat/args-resent", "whole again after the deltas", chat(withArgs(argsDelta1, argsDelta2, `"{\"city\":\"Paris\"}"`)), 1, 3),
		hit("chat/args-resent", "cumulative fragments", chat(withArgs(`"{\"city\":"`, `"{\"city\":\"Par"`, `"{\"city\":\"Paris\"}"`)), 1, 2),
		miss("chat/args-resent", "incremental", chat(func(p []string) []string { return p })),

		hit("chat/args-invalid-json", "lost brace", chat(withArgs(argsDelta1, `"\"Paris\""`)), 0, 2),
		miss("chat/args-invalid-json", "complete", chat(func(p []string) []string { return p })),

		hit("chat/args-empty", `only ""`, chat(withArgs(`""`)), 0),
		miss("chat/args-empty", `"{}"`, chat(withArgs(`"{}"`))),

		hit("chat/args-missing", "no arguments key", chat(func(p []string) []string {
			p[0] = strings.Replace(p[0], `,"arguments":""`, ``, 1)
			return append(p[:1], p[3:]...)
		}), 0),
		miss("chat/args-missing", "arguments sent", chat(func(p []string) []string { return p })),

		hit("chat/finish-reason-missing", "[DONE] without finish_reason", chat(func(p []string) []string { return append(p[:3], p[4:]...) }), 4),
		miss("chat/finish-reason-missing", "finish_reason tool_calls", chat(func(p []string) []string { return p })),

		{rule: "chat/finish-reason-repeated", name: "tool_calls then stop", hit: true, stream: chat(func(p []string) []string {
			return append(p[:4], append([]string{chunk(choice(`{}`, `"stop"`))}, p[4:]...)...)
		}), events: []int{3, 4}, sev: sevp(Error)},
		{rule: "chat/finish-reason-repeated", name: "tool_calls twice (harmless)", hit: true, stream: chat(func(p []string) []string {
			return append(p[:4], append([]string{chunk(choice(`{}`, `"tool_calls"`))}, p[4:]...)...)
		}), events: []int{3, 4}, sev: sevp(Info)},
		miss("chat/finish-reason-repeated", "once", chat(func(p []string) []string { return p })),

		hit("chat/finish-reason-nonstandard", "end_turn", chat(finish(`"end_turn"`)), 3),
		hit("chat/finish-reason-nonstandard", "empty string on every chunk", strings.ReplaceAll(chat(func(p []string) []string { return p }),
			`"finish_reason":null`, `"finish_reason":""`), 0, 1, 2),
		miss("chat/finish-reason-nonstandard", "length", chat(finish(`"length"`))),

		hit("chat/stop-with-tool-calls", "stop after a call", chat(finish(`"stop"`)), 0, 3),
		miss("chat/stop-with-tool-calls", "stop after text", dataSSE([]string{text, chunk(choice(`{}`, `"stop"`)), "[DONE]"})),

		hit("chat/tool-calls-without-calls", "tool_calls after text", dataSSE([]string{text, chunk(choice(`{}`, `"tool_calls"`)), "[DONE]"}), 1),
		miss("chat/tool-calls-without-calls", "tool_calls after a call", chat(func(p []string) []string { return p })),

		hit("chat/delta-after-finish", "arguments after finish_reason", chat(func(p []string) []string {
			p[2], p[3] = p[3], p[2]
			return p
		}), 2, 3),
		miss("chat/delta-after-finish", "usage chunk with empty content", chat(func(p []string) []string {
			p[4] = strings.Replace(usageChunk, `"choices":[]`, `"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]`, 1)
			return p
		})),

		hit("chat/message-in-chunk", "message next to delta", chat(func(p []string) []string {
			p[1] = strings.Replace(p[1], `"delta":`, `"message":{"role":"assistant","content":null},"delta":`, 1)
			return p
		}), 1),
		miss("chat/message-in-chunk", "message null next to delta", chat(func(p []string) []string {
			p[1] = strings.Replace(p[1], `"delta":`, `"message":null,"delta":`, 1)
			return p
		})),
		miss("chat/message-in-chunk", "a whole completion's message", dataSSE([]string{
			`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}`})),

		hit("chat/done-missing", "no [DONE]", chat(func(p []string) []string { return p[:5] }), 4),
		miss("chat/done-missing", "error chunk ends the stream", chat(func(p []string) []string {
			return append(p[:2], `{"error":{"message":"overloaded","code":529}}`)
		})),

		hit("chat/data-after-done", "chunk after [DONE]", chat(func(p []string) []string { return append(p, usageChunk) }), 5, 6),
		hit("chat/data-after-done", "[DONE] twice", chat(func(p []string) []string { return append(p, "[DONE]") }), 5, 6),
		miss("chat/data-after-done", "comment after [DONE]", chat(func(p []string) []string { return p })+": bye\n\n"),
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
		in.WriteString("data: " + chunk("["+c+"]") + "\n\n")
	}
	in.WriteString("data: [DONE]\n\n")
	got := findings(CheckBytes([]byte(in.String()), capture.FormatAuto, Strict), "chat/tool-id-repeated")
	if len(got) != 2 || !slices.Equal(got[0].Events, []int{0, 1}) || !slices.Equal(got[1].Events, []int{0, 2}) {
		t.Fatalf("%s findings = %v; want events [0 1] (the call opened first, at index 1), then [0 2]", "chat/tool-id-repeated", got)
	}
}
