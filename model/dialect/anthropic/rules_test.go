package anthropic_test

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/dialect/anthropic"
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
	dialecttest.EveryRuleTested(t, anthropic.Rules.Rules, cases())
}

func cases() []dialecttest.Case {
	thinking := func(sig bool) func(e [][2]string) [][2]string {
		return func(e [][2]string) [][2]string {
			block := [][2]string{
				modeltest.AStart(0, `{"type":"thinking","thinking":"","signature":""}`),
				modeltest.ADelta(0, `{"type":"thinking_delta","thinking":"Let me look."}`),
			}
			if sig {
				block = append(block, modeltest.ADelta(0, `{"type":"signature_delta","signature":"EqQBCkYIBxgCKkB"}`))
			}
			block = append(block, modeltest.AStop(0))
			rest := strings.NewReplacer(`"index":1`, `"index":2`, `"index":0`, `"index":1`)
			var tail [][2]string
			for _, ev := range e[1:] {
				tail = append(tail, [2]string{ev[0], rest.Replace(ev[1])})
			}
			return append(append([][2]string{e[0]}, block...), tail...)
		}
	}
	invalidJSON := func(reason string) func(e [][2]string) [][2]string {
		return func(e [][2]string) [][2]string {
			e[7] = modeltest.AJSON(1, `"\"Paris\""`)
			e[9] = modeltest.AMsgDelta(reason)
			return e
		}
	}
	// prefilled is message_start already holding a finished tool_use
	// block and its stop_reason (programmatic tool calling), then
	// message_stop: events 0 and 1.
	prefilled := func(stop string, more ...[2]string) string {
		start := [2]string{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[` +
			`{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":` + stop + `,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`}
		return modeltest.AnthSSE(append(append([][2]string{start}, more...), modeltest.AMsgStop))
	}
	return []dialecttest.Case{
		dialecttest.Hit("anthropic/first-not-message-start", "starts with a block", modeltest.Anth(func(e [][2]string) [][2]string { return e[1:] }), 0),
		dialecttest.Miss("anthropic/first-not-message-start", "a ping before message_start", modeltest.Anth(func(e [][2]string) [][2]string {
			return append([][2]string{modeltest.APing}, e...)
		})),

		dialecttest.Hit("anthropic/event-name-missing", "no event: lines", modeltest.Anth(func(e [][2]string) [][2]string {
			for i := range e {
				e[i][0] = ""
			}
			return e
		})),
		dialecttest.Miss("anthropic/event-name-missing", "event: lines", modeltest.Anth(func(e [][2]string) [][2]string { return e })),

		dialecttest.Hit("anthropic/event-name-mismatch", "stop sent as a delta", modeltest.Anth(func(e [][2]string) [][2]string {
			e[3][0] = "content_block_delta"
			return e
		}), 3),
		dialecttest.Miss("anthropic/event-name-mismatch", "names match", modeltest.Anth(func(e [][2]string) [][2]string { return e })),

		dialecttest.Hit("anthropic/delta-unknown-block", "delta for a block never started", modeltest.Anth(func(e [][2]string) [][2]string {
			e[2] = modeltest.ADelta(5, `{"type":"text_delta","text":"Checking."}`)
			return e
		}), 2),
		dialecttest.Hit("anthropic/delta-unknown-block", "delta after its stop", modeltest.Anth(func(e [][2]string) [][2]string {
			return append(e[:4], append([][2]string{modeltest.ADelta(0, `{"type":"text_delta","text":"late"}`)}, e[4:]...)...)
		}), 3, 4),
		dialecttest.Miss("anthropic/delta-unknown-block", "deltas inside the block", modeltest.Anth(func(e [][2]string) [][2]string { return e })),

		dialecttest.Hit("anthropic/delta-type-mismatch", "text_delta on tool_use", modeltest.Anth(func(e [][2]string) [][2]string {
			e[5] = modeltest.ADelta(1, `{"type":"text_delta","text":"{}"}`)
			return e
		}), 4, 5),
		// A delta that repeats its type is judged by the first, as the
		// delta's Get finds it (Session.Memo).
		dialecttest.Hit("anthropic/delta-type-mismatch", "a repeated type, the first a text_delta on tool_use", modeltest.Anth(func(e [][2]string) [][2]string {
			e[5] = modeltest.ADelta(1, `{"type":"text_delta","type":"input_json_delta","partial_json":""}`)
			return e
		}), 4, 5),
		dialecttest.Miss("anthropic/delta-type-mismatch", "a repeated type, the first fits", modeltest.Anth(func(e [][2]string) [][2]string {
			e[5] = modeltest.ADelta(1, `{"type":"input_json_delta","type":"text_delta","partial_json":""}`)
			return e
		})),
		// A delta for a block other than the open one is judged by its own
		// block, not the open one.
		dialecttest.Miss("anthropic/delta-type-mismatch", "text_delta on a text block while a tool_use block is open", modeltest.Anth(func(e [][2]string) [][2]string {
			return append(e[:2], modeltest.AStart(1, modeltest.AToolUse), modeltest.ADelta(0, `{"type":"text_delta","text":"Checking."}`), modeltest.AStop(0),
				modeltest.AJSON(1, `""`), modeltest.AJSON(1, modeltest.ArgsDelta1), modeltest.AJSON(1, modeltest.ArgsDelta2), modeltest.AStop(1), modeltest.AMsgDelta(`"tool_use"`), modeltest.AMsgStop)
		})),
		dialecttest.Miss("anthropic/delta-type-mismatch", "citations_delta on text", modeltest.Anth(func(e [][2]string) [][2]string {
			return append(e[:3], append([][2]string{modeltest.ADelta(0, `{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"x","url":"u","title":"t","encrypted_index":"e"}}`)}, e[3:]...)...)
		})),

		dialecttest.Hit("anthropic/blocks-overlap", "tool_use starts before text stops", modeltest.Anth(func(e [][2]string) [][2]string {
			e[3], e[4] = e[4], e[3]
			return e
		}), 1, 3),
		dialecttest.Miss("anthropic/blocks-overlap", "sequential blocks", modeltest.Anth(func(e [][2]string) [][2]string { return e })),

		dialecttest.Hit("anthropic/index-not-dense", "first block at index 1", strings.NewReplacer(`"index":1`, `"index":2`, `"index":0`, `"index":1`).
			Replace(modeltest.Anth(func(e [][2]string) [][2]string { return e })), 1),
		dialecttest.Hit("anthropic/index-not-dense", "index reused", strings.ReplaceAll(modeltest.Anth(func(e [][2]string) [][2]string { return e }), `"index":1`, `"index":0`), 1, 4),
		dialecttest.Miss("anthropic/index-not-dense", "0 then 1", modeltest.Anth(func(e [][2]string) [][2]string { return e })),
		dialecttest.Miss("anthropic/index-not-dense", "block 1 after message_start's block 0", prefilled(`null`,
			modeltest.AStart(1, `{"type":"text","text":""}`), modeltest.ADelta(1, `{"type":"text_delta","text":"Done."}`), modeltest.AStop(1), modeltest.AMsgDelta(`"tool_use"`))),
		dialecttest.Hit("anthropic/index-not-dense", "block 0 again after message_start's block 0", prefilled(`null`,
			modeltest.AStart(0, `{"type":"text","text":""}`), modeltest.AStop(0), modeltest.AMsgDelta(`"tool_use"`)), 0, 1),

		dialecttest.Hit("anthropic/block-not-stopped", "message_delta with the tool block open", modeltest.Anth(func(e [][2]string) [][2]string { return append(e[:8], e[9:]...) }), 4, 8),
		dialecttest.Miss("anthropic/block-not-stopped", "stopped first", modeltest.Anth(func(e [][2]string) [][2]string { return e })),

		dialecttest.Hit("anthropic/tool-input-invalid-json", "lost brace", modeltest.Anth(invalidJSON(`"tool_use"`)), 4, 8),
		{Rule: "anthropic/tool-input-invalid-json", Name: "lost brace at max_tokens", Hit: true, Stream: modeltest.Anth(invalidJSON(`"max_tokens"`)),
			Events: []int{4, 8}, Sev: dialecttest.Sev(checks.Warning)},
		dialecttest.Miss("anthropic/tool-input-invalid-json", `empty input means {}`, modeltest.Anth(func(e [][2]string) [][2]string { return append(e[:6], e[8:]...) })),

		dialecttest.Hit("anthropic/thinking-signature-missing", "thinking without signature", modeltest.Anth(thinking(false)), 1, 3),
		dialecttest.Miss("anthropic/thinking-signature-missing", "thinking with signature", modeltest.Anth(thinking(true))),

		dialecttest.Hit("anthropic/stop-reason-missing", "stop_reason null", modeltest.Anth(func(e [][2]string) [][2]string { e[9] = modeltest.AMsgDelta("null"); return e }), 0, 10),
		dialecttest.Hit("anthropic/stop-reason-missing", "no message_delta", modeltest.Anth(func(e [][2]string) [][2]string { return append(e[:9], e[10]) }), 0, 9),
		dialecttest.Miss("anthropic/stop-reason-missing", "stop_reason tool_use", modeltest.Anth(func(e [][2]string) [][2]string { return e })),
		dialecttest.Miss("anthropic/stop-reason-missing", "stop_reason in message_start", prefilled(`"tool_use"`)),
		dialecttest.Hit("anthropic/stop-reason-missing", "message_start's stop_reason null", prefilled(`null`), 0, 1),

		dialecttest.Hit("anthropic/stop-reason-tool-mismatch", "end_turn after tool_use", modeltest.Anth(func(e [][2]string) [][2]string { e[9] = modeltest.AMsgDelta(`"end_turn"`); return e }), 4, 9),
		dialecttest.Hit("anthropic/stop-reason-tool-mismatch", "tool_use without a tool block", modeltest.Anth(func(e [][2]string) [][2]string { return append(e[:4], e[9:]...) }), 4),
		dialecttest.Hit("anthropic/stop-reason-tool-mismatch", "end_turn after message_start's tool_use", prefilled(`"end_turn"`), 0),
		dialecttest.Miss("anthropic/stop-reason-tool-mismatch", "tool_use in message_start", prefilled(`"tool_use"`)),
		dialecttest.Miss("anthropic/stop-reason-tool-mismatch", "end_turn after a server tool", strings.Replace(modeltest.Anth(func(e [][2]string) [][2]string {
			e[9] = modeltest.AMsgDelta(`"end_turn"`)
			return e
		}), `"type":"tool_use","id":"toolu_1","name":"get_weather"`, `"type":"server_tool_use","id":"srvtoolu_1","name":"web_search"`, 1)),

		dialecttest.Hit("anthropic/message-stop-missing", "no message_stop", modeltest.Anth(func(e [][2]string) [][2]string { return e[:10] }), 9),
		dialecttest.Miss("anthropic/message-stop-missing", "error event ends the stream", modeltest.Anth(func(e [][2]string) [][2]string {
			return append(e[:6], [2]string{"error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`})
		})),

		dialecttest.Hit("anthropic/events-after-stop", "ping after message_stop", modeltest.Anth(func(e [][2]string) [][2]string { return append(e, modeltest.APing) }), 10, 11),
		dialecttest.Miss("anthropic/events-after-stop", "ping before message_stop", modeltest.Anth(func(e [][2]string) [][2]string {
			return append(e[:10], modeltest.APing, e[10])
		})),

		dialecttest.Hit("anthropic/unknown-event", "content_block_heartbeat", modeltest.Anth(func(e [][2]string) [][2]string {
			return append(e[:3], append([][2]string{{"content_block_heartbeat", `{"type":"content_block_heartbeat"}`}}, e[3:]...)...)
		}), 3),
		dialecttest.Miss("anthropic/unknown-event", "ping", modeltest.Anth(func(e [][2]string) [][2]string {
			return append(e[:3], append([][2]string{modeltest.APing}, e[3:]...)...)
		})),
	}
}
