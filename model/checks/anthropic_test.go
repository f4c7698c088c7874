package checks

import "strings"

func anthropicCases() []ruleCase {
	thinking := func(sig bool) func(e [][2]string) [][2]string {
		return func(e [][2]string) [][2]string {
			block := [][2]string{
				aStart(0, `{"type":"thinking","thinking":"","signature":""}`),
				aDelta(0, `{"type":"thinking_delta","thinking":"Let me look."}`),
			}
			if sig {
				block = append(block, aDelta(0, `{"type":"signature_delta","signature":"EqQBCkYIBxgCKkB"}`))
			}
			block = append(block, aStop(0))
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
			e[7] = aJSON(1, `"\"Paris\""`)
			e[9] = aMsgDelta(reason)
			return e
		}
	}
	// prefilled is message_start already holding a finished tool_use
	// block and its stop_reason (programmatic tool calling), then
	// message_stop: events 0 and 1.
	prefilled := func(stop string, more ...[2]string) string {
		start := [2]string{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[` +
			`{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":` + stop + `,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`}
		return anthSSE(append(append([][2]string{start}, more...), aMsgStop))
	}
	return []ruleCase{
		hit("anthropic/first-not-message-start", "starts with a block", anth(func(e [][2]string) [][2]string { return e[1:] }), 0),
		miss("anthropic/first-not-message-start", "a ping before message_start", anth(func(e [][2]string) [][2]string {
			return append([][2]string{aPing}, e...)
		})),

		hit("anthropic/event-name-missing", "no event: lines", anth(func(e [][2]string) [][2]string {
			for i := range e {
				e[i][0] = ""
			}
			return e
		})),
		miss("anthropic/event-name-missing", "event: lines", anth(func(e [][2]string) [][2]string { return e })),

		hit("anthropic/event-name-mismatch", "stop sent as a delta", anth(func(e [][2]string) [][2]string {
			e[3][0] = "content_block_delta"
			return e
		}), 3),
		miss("anthropic/event-name-mismatch", "names match", anth(func(e [][2]string) [][2]string { return e })),

		hit("anthropic/delta-unknown-block", "delta for a block never started", anth(func(e [][2]string) [][2]string {
			e[2] = aDelta(5, `{"type":"text_delta","text":"Checking."}`)
			return e
		}), 2),
		hit("anthropic/delta-unknown-block", "delta after its stop", anth(func(e [][2]string) [][2]string {
			return append(e[:4], append([][2]string{aDelta(0, `{"type":"text_delta","text":"late"}`)}, e[4:]...)...)
		}), 3, 4),
		miss("anthropic/delta-unknown-block", "deltas inside the block", anth(func(e [][2]string) [][2]string { return e })),

		hit("anthropic/delta-type-mismatch", "text_delta on tool_use", anth(func(e [][2]string) [][2]string {
			e[5] = aDelta(1, `{"type":"text_delta","text":"{}"}`)
			return e
		}), 4, 5),
		// A delta that repeats its type is judged by the first, as the
		// delta's Get finds it (Session.Memo).
		hit("anthropic/delta-type-mismatch", "a repeated type, the first a text_delta on tool_use", anth(func(e [][2]string) [][2]string {
			e[5] = aDelta(1, `{"type":"text_delta","type":"input_json_delta","partial_json":""}`)
			return e
		}), 4, 5),
		miss("anthropic/delta-type-mismatch", "a repeated type, the first fits", anth(func(e [][2]string) [][2]string {
			e[5] = aDelta(1, `{"type":"input_json_delta","type":"text_delta","partial_json":""}`)
			return e
		})),
		// A delta for a block other than the open one is judged by its own
		// block, not the open one.
		miss("anthropic/delta-type-mismatch", "text_delta on a text block while a tool_use block is open", anth(func(e [][2]string) [][2]string {
			return append(e[:2], aStart(1, aToolUse), aDelta(0, `{"type":"text_delta","text":"Checking."}`), aStop(0),
				aJSON(1, `""`), aJSON(1, argsDelta1), aJSON(1, argsDelta2), aStop(1), aMsgDelta(`"tool_use"`), aMsgStop)
		})),
		miss("anthropic/delta-type-mismatch", "citations_delta on text", anth(func(e [][2]string) [][2]string {
			return append(e[:3], append([][2]string{aDelta(0, `{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"x","url":"u","title":"t","encrypted_index":"e"}}`)}, e[3:]...)...)
		})),

		hit("anthropic/blocks-overlap", "tool_use starts before text stops", anth(func(e [][2]string) [][2]string {
			e[3], e[4] = e[4], e[3]
			return e
		}), 1, 3),
		miss("anthropic/blocks-overlap", "sequential blocks", anth(func(e [][2]string) [][2]string { return e })),

		hit("anthropic/index-not-dense", "first block at index 1", strings.NewReplacer(`"index":1`, `"index":2`, `"index":0`, `"index":1`).
			Replace(anth(func(e [][2]string) [][2]string { return e })), 1),
		hit("anthropic/index-not-dense", "index reused", strings.ReplaceAll(anth(func(e [][2]string) [][2]string { return e }), `"index":1`, `"index":0`), 1, 4),
		miss("anthropic/index-not-dense", "0 then 1", anth(func(e [][2]string) [][2]string { return e })),
		miss("anthropic/index-not-dense", "block 1 after message_start's block 0", prefilled(`null`,
			aStart(1, `{"type":"text","text":""}`), aDelta(1, `{"type":"text_delta","text":"Done."}`), aStop(1), aMsgDelta(`"tool_use"`))),
		hit("anthropic/index-not-dense", "block 0 again after message_start's block 0", prefilled(`null`,
			aStart(0, `{"type":"text","text":""}`), aStop(0), aMsgDelta(`"tool_use"`)), 0, 1),

		hit("anthropic/block-not-stopped", "message_delta with the tool block open", anth(func(e [][2]string) [][2]string { return append(e[:8], e[9:]...) }), 4, 8),
		miss("anthropic/block-not-stopped", "stopped first", anth(func(e [][2]string) [][2]string { return e })),

		hit("anthropic/tool-input-invalid-json", "lost brace", anth(invalidJSON(`"tool_use"`)), 4, 8),
		{rule: "anthropic/tool-input-invalid-json", name: "lost brace at max_tokens", hit: true, stream: anth(invalidJSON(`"max_tokens"`)),
			events: []int{4, 8}, sev: sevp(Warning)},
		miss("anthropic/tool-input-invalid-json", `empty input means {}`, anth(func(e [][2]string) [][2]string { return append(e[:6], e[8:]...) })),

		hit("anthropic/thinking-signature-missing", "thinking without signature", anth(thinking(false)), 1, 3),
		miss("anthropic/thinking-signature-missing", "thinking with signature", anth(thinking(true))),

		hit("anthropic/stop-reason-missing", "stop_reason null", anth(func(e [][2]string) [][2]string { e[9] = aMsgDelta("null"); return e }), 0, 10),
		hit("anthropic/stop-reason-missing", "no message_delta", anth(func(e [][2]string) [][2]string { return append(e[:9], e[10]) }), 0, 9),
		miss("anthropic/stop-reason-missing", "stop_reason tool_use", anth(func(e [][2]string) [][2]string { return e })),
		miss("anthropic/stop-reason-missing", "stop_reason in message_start", prefilled(`"tool_use"`)),
		hit("anthropic/stop-reason-missing", "message_start's stop_reason null", prefilled(`null`), 0, 1),

		hit("anthropic/stop-reason-tool-mismatch", "end_turn after tool_use", anth(func(e [][2]string) [][2]string { e[9] = aMsgDelta(`"end_turn"`); return e }), 4, 9),
		hit("anthropic/stop-reason-tool-mismatch", "tool_use without a tool block", anth(func(e [][2]string) [][2]string { return append(e[:4], e[9:]...) }), 4),
		hit("anthropic/stop-reason-tool-mismatch", "end_turn after message_start's tool_use", prefilled(`"end_turn"`), 0),
		miss("anthropic/stop-reason-tool-mismatch", "tool_use in message_start", prefilled(`"tool_use"`)),
		miss("anthropic/stop-reason-tool-mismatch", "end_turn after a server tool", strings.Replace(anth(func(e [][2]string) [][2]string {
			e[9] = aMsgDelta(`"end_turn"`)
			return e
		}), `"type":"tool_use","id":"toolu_1","name":"get_weather"`, `"type":"server_tool_use","id":"srvtoolu_1","name":"web_search"`, 1)),

		hit("anthropic/message-stop-missing", "no message_stop", anth(func(e [][2]string) [][2]string { return e[:10] }), 9),
		miss("anthropic/message-stop-missing", "error event ends the stream", anth(func(e [][2]string) [][2]string {
			return append(e[:6], [2]string{"error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`})
		})),

		hit("anthropic/events-after-stop", "ping after message_stop", anth(func(e [][2]string) [][2]string { return append(e, aPing) }), 10, 11),
		miss("anthropic/events-after-stop", "ping before message_stop", anth(func(e [][2]string) [][2]string {
			return append(e[:10], aPing, e[10])
		})),

		hit("anthropic/unknown-event", "content_block_heartbeat", anth(func(e [][2]string) [][2]string {
			return append(e[:3], append([][2]string{{"content_block_heartbeat", `{"type":"content_block_heartbeat"}`}}, e[3:]...)...)
		}), 3),
		miss("anthropic/unknown-event", "ping", anth(func(e [][2]string) [][2]string { return append(e[:3], append([][2]string{aPing}, e[3:]...)...) })),
	}
}

func geminiCases() []ruleCase {
	return []ruleCase{
		hit("gemini/finish-reason-nonstandard", "finishReason outside the enum", dataSSE([]string{gemBase()[0],
			gemChunk(`{"text":"Done."}`, `"finishReason":"FAKE_ENUM"`)}), 1),
		miss("gemini/finish-reason-nonstandard", "MODEL_ARMOR, Vertex's own", dataSSE([]string{gemBase()[0],
			gemChunk(`{"text":""}`, `"finishReason":"MODEL_ARMOR"`)})),
		miss("gemini/finish-reason-nonstandard", "a prompt's blockReason", dataSSE([]string{`{"promptFeedback":{"blockReason":"JAILBREAK"},"modelVersion":"gemini-3","responseId":"r1"}`})),

		hit("gemini/args-not-object", "args as a string", dataSSE([]string{gemBase()[0],
			gemChunk(`{"functionCall":{"name":"get_weather","args":"{\"city\":\"Paris\"}"}}`, `"finishReason":"STOP"`)}), 1),
		miss("gemini/args-not-object", "args object", dataSSE(gemBase())),

		hit("gemini/partial-args-unterminated", "still continuing at finishReason", dataSSE(gemPartial(`{"text":""}`, `"finishReason":"STOP"`)), 0, 2, 3),
		hit("gemini/partial-args-unterminated", "still continuing at EOF", dataSSE(gemPartial(`{"text":""}`, "")[:3]), 0, 2),
		miss("gemini/partial-args-unterminated", "end marker", dataSSE(gemPartial(`{"functionCall":{}}`, `"finishReason":"STOP"`))),

		hit("gemini/partial-args-no-end-marker", "last fragment says stop, no marker", dataSSE(append(gemPartial(
			`{"functionCall":{"partialArgs":[{"jsonPath":"$.unit","stringValue":"c"}]}}`, ""),
			gemChunk(`{"text":""}`, `"finishReason":"STOP"`))), 0, 3, 4),
		miss("gemini/partial-args-no-end-marker", "last fragment, then the marker", dataSSE(append(gemPartial(
			`{"functionCall":{"partialArgs":[{"jsonPath":"$.unit","stringValue":"c"}]}}`, ""),
			gemChunk(`{"functionCall":{}}`, `"finishReason":"STOP"`)))),
		// A bare {"willContinue":true} part keeps the call open; it is no
		// end marker.
		hit("gemini/partial-args-no-end-marker", "bare willContinue part, then no marker", dataSSE(append(gemPartial(
			`{"functionCall":{"willContinue":true}}`, ""),
			gemChunk(`{"functionCall":{"partialArgs":[{"jsonPath":"$.unit","stringValue":"c"}]}}`, ""),
			gemChunk(`{"text":""}`, `"finishReason":"STOP"`))), 0, 4, 5),
		miss("gemini/partial-args-no-end-marker", "bare willContinue part, then the marker", dataSSE(append(gemPartial(
			`{"functionCall":{"willContinue":true}}`, ""),
			gemChunk(`{"functionCall":{"partialArgs":[{"jsonPath":"$.unit","stringValue":"c"}]}}`, ""),
			gemChunk(`{"functionCall":{}}`, `"finishReason":"STOP"`)))),
	}
}
