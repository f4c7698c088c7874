package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

func responsesCases() []ruleCase {
	noEvents := func(e []revt) []revt {
		for i := range e {
			e[i].name = "-"
		}
		return e
	}
	fcDelta := func(itemID, idx, delta string) revt {
		body := `"output_index":` + idx + `,"delta":` + delta
		if itemID != "" {
			body = `"item_id":"` + itemID + `",` + body
		}
		return revt{typ: "response.function_call_arguments.delta", body: body}
	}
	completed := func(output string) revt {
		return revt{typ: "response.completed", body: `"response":` + respObj("completed", output)}
	}
	message := `{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}`
	allArgs := func(args string) func(e []revt) []revt {
		return func(e []revt) []revt {
			e = del(e, 3, 5)
			e = ins(e, 3, fcDelta("fc_1", "0", args))
			e[4].body = `"item_id":"fc_1","output_index":0,"name":"get_weather","arguments":` + args
			e[5].body = `"output_index":0,"item":` + fc("arguments", args)
			e[6] = completed("[" + fc("arguments", args) + "]")
			return e
		}
	}
	return []ruleCase{
		hit("responses/first-not-created", "starts at output_item.added", resp(func(e []revt) []revt { return e[2:] }), 0),
		hit("responses/first-not-created", "starts at output_item.added numbered 0", resp(func(e []revt) []revt {
			e = e[2:]
			for i := range e {
				e[i].seq = fmt.Sprint(i)
			}
			return e
		}), 0),
		miss("responses/first-not-created", "resumed mid-call (starting_after=3)", resumed(4)),

		hit("responses/resumed-stream", "resumed mid-call (starting_after=3)", resumed(4), 0),
		hit("responses/resumed-stream", "resumed before the first item (starting_after=1)", resumed(2), 0),
		miss("responses/resumed-stream", "from the start", resumed(0)),
		miss("responses/resumed-stream", "starts at output_item.added numbered 2 but for a second response", resp(func(e []revt) []revt {
			second := respBase()[2:]
			for i := range second {
				second[i].body = strings.ReplaceAll(second[i].body, `"resp_1"`, `"resp_2"`)
			}
			return append(e, second...)
		})),
		miss("responses/first-not-created", "an error before any response", respSSE([]revt{
			{typ: "error", body: `"error":{"type":"invalid_request_error","code":"bad","message":"no"}`}})),

		hit("responses/seq-missing", "one event without", resp(func(e []revt) []revt { e[4].seq = "-"; return e }), 4),
		hit("responses/seq-missing", "not an integer", resp(func(e []revt) []revt { e[4].seq = `"4"`; return e }), 4),
		miss("responses/seq-missing", "sequence_number 0 present", resp(func(e []revt) []revt { return e })),

		hit("responses/seq-not-increasing", "repeated", resp(func(e []revt) []revt { e[4].seq = "3"; return e }), 3, 4),
		hit("responses/seq-not-increasing", "backwards", resp(func(e []revt) []revt { e[5].seq = "1"; return e }), 4, 5),
		miss("responses/seq-not-increasing", "reset by a new response.created", resp(func(e []revt) []revt {
			return append(e, revt{typ: "response.created", seq: "0", body: `"response":` + respObj("in_progress", "[]")})
		})),

		hit("responses/seq-gap", "jump", resp(func(e []revt) []revt {
			for i := 4; i < len(e); i++ {
				e[i].seq = strings.Repeat("1", 1) + string(rune('0'+i))
			}
			return e
		}), 3, 4),
		hit("responses/seq-gap", "starts at 1", resp(func(e []revt) []revt {
			for i := range e {
				e[i].seq = string(rune('1' + i))
			}
			return e
		}), 0),
		miss("responses/seq-gap", "consecutive", resp(func(e []revt) []revt { return e })),

		hit("responses/item-not-added", "delta for an unknown item", resp(func(e []revt) []revt {
			return ins(e, 4, fcDelta("fc_9", "3", `"x"`))
		}), 4),
		miss("responses/item-not-added", "delta naming only a known output_index", resp(func(e []revt) []revt {
			e[3] = fcDelta("", "0", argsDelta1)
			return e
		})),

		hit("responses/bad-index", "negative content_index", resp(func(e []revt) []revt {
			return ins(e, 3, revt{typ: "response.content_part.added", body: `"item_id":"fc_1","output_index":0,"content_index":-1,"part":{"type":"output_text","text":""}`})
		}), 3),
		hit("responses/bad-index", "first item at output_index 1", resp(func(e []revt) []revt {
			e[2].body = strings.Replace(e[2].body, `"output_index":0`, `"output_index":1`, 1)
			return e
		}), 2),
		miss("responses/bad-index", "two items 0 and 1", resp(func(e []revt) []revt {
			e = ins(e, 7,
				revt{typ: "response.output_item.added", body: `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`},
				revt{typ: "response.output_item.done", body: `"output_index":1,"item":` + message})
			e[9] = completed("[" + fc() + "," + message + "]")
			return e
		})),

		hit("responses/item-id-changed", "done renames the item", resp(func(e []revt) []revt {
			e[6].body = `"output_index":0,"item":` + fc("id", `"fc_2"`)
			e[7] = completed("[" + fc("id", `"fc_2"`) + "]")
			return e
		}), 2, 6, 7),
		miss("responses/item-id-changed", "same id throughout", resp(func(e []revt) []revt { return e })),
		hit("responses/item-id-changed", "every event renames the item, all in one finding", resp(func(e []revt) []revt {
			e[3] = fcDelta("fc_a", "0", argsDelta1)
			e[4] = fcDelta("fc_b", "0", argsDelta2)
			e[5].body = strings.Replace(e[5].body, `"fc_1"`, `"fc_c"`, 1)
			e[6].body = `"output_index":0,"item":` + fc("id", `"fc_d"`)
			e[7] = completed("[" + fc("id", `"fc_e"`) + "]")
			return e
		}), 2, 3, 4, 5, 6, 7),

		hit("responses/item-id-missing", "argument deltas without item_id", resp(func(e []revt) []revt {
			e[3] = fcDelta("", "0", argsDelta1)
			e[4] = fcDelta("", "0", argsDelta2)
			return e
		}), 3, 4),
		hit("responses/item-id-missing", "output_text.done without item_id", resp(func(e []revt) []revt {
			e = ins(e, 7,
				revt{typ: "response.output_item.added", body: `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`},
				revt{typ: "response.output_text.delta", body: `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi"`},
				revt{typ: "response.output_text.done", body: `"output_index":1,"content_index":0,"text":"Hi"`},
				revt{typ: "response.output_item.done", body: `"output_index":1,"item":` + message})
			e[11] = completed("[" + fc() + "," + message + "]")
			return e
		}), 9),
		miss("responses/item-id-missing", "every event names its item", resp(func(e []revt) []revt { return e })),
		// An item_id that is "", null or not a string names nothing; one
		// that needs decoding names its item (the rule reads the raw
		// value, not a decoded copy).
		hit("responses/item-id-missing", `item_id "" and null`, resp(func(e []revt) []revt {
			e[3].body = strings.Replace(e[3].body, `"item_id":"fc_1"`, `"item_id":""`, 1)
			e[4].body = strings.Replace(e[4].body, `"item_id":"fc_1"`, `"item_id":null`, 1)
			return e
		}), 3, 4),
		hit("responses/item-id-missing", "item_id 0 and true", resp(func(e []revt) []revt {
			e[3].body = strings.Replace(e[3].body, `"item_id":"fc_1"`, `"item_id":0`, 1)
			e[4].body = strings.Replace(e[4].body, `"item_id":"fc_1"`, `"item_id":true`, 1)
			return e
		}), 3, 4),
		miss("responses/item-id-missing", "an escaped item_id", resp(func(e []revt) []revt {
			e[3].body = strings.Replace(e[3].body, `"item_id":"fc_1"`, `"item_id":"\u0066c_1"`, 1)
			return e
		})),
		miss("responses/item-id-missing", "audio transcript deltas name no item", resp(func(e []revt) []revt {
			return ins(e, 7, revt{typ: "response.audio.transcript.delta", body: `"delta":"Hi"`})
		})),

		hit("responses/response-id-changed", "in_progress and completed rename the response", resp(func(e []revt) []revt {
			e[1].body = strings.Replace(e[1].body, `"resp_1"`, `"resp_2"`, 1)
			e[7].body = strings.Replace(e[7].body, `"resp_1"`, `"resp_3"`, 1)
			return e
		}), 0, 1, 7),
		miss("responses/response-id-changed", "a second response after the first one's terminal event", resp(func(e []revt) []revt {
			second := respBase()
			for i := range second {
				second[i].seq = fmt.Sprint(i)
				second[i].body = strings.ReplaceAll(second[i].body, `"resp_1"`, `"resp_2"`)
			}
			return append(e, second...)
		})),

		hit("responses/call-id-changed", "terminal renames the call", resp(func(e []revt) []revt {
			e[7] = completed("[" + fc("call_id", `"call_2"`) + "]")
			return e
		}), 2, 7),
		miss("responses/call-id-changed", "same call_id", resp(func(e []revt) []revt { return e })),
		miss("responses/call-id-changed", "a call never added learns its call_id at output_item.done", resp(func(e []revt) []revt { return del(e, 2, 3) })),

		hit("responses/call-id-missing", "never a call_id", resp(func(e []revt) []revt {
			e[2].body = `"output_index":0,"item":` + fc("status", `"in_progress"`, "arguments", `""`, "call_id", "")
			e[6].body = `"output_index":0,"item":` + fc("call_id", "")
			e[7] = completed("[" + fc("call_id", "") + "]")
			return e
		}), 2),
		hit("responses/call-id-missing", "call_id only from output_item.done", resp(func(e []revt) []revt {
			e[2].body = `"output_index":0,"item":` + fc("status", `"in_progress"`, "arguments", `""`, "call_id", "")
			return e
		}), 2, 6),
		miss("responses/call-id-missing", "call_id at added", resp(func(e []revt) []revt { return e })),

		hit("responses/name-changed", "done names another tool", resp(func(e []revt) []revt {
			e[6].body = `"output_index":0,"item":` + fc("name", `"get_time"`)
			e[7] = completed("[" + fc("name", `"get_time"`) + "]")
			return e
		}), 2, 6, 7),
		miss("responses/name-changed", "name everywhere the same", resp(func(e []revt) []revt { return e })),
		miss("responses/name-changed", "a call never added learns its name at .done", resp(func(e []revt) []revt { return del(e, 2, 3) })),

		hit("responses/name-late", "empty name at added", resp(func(e []revt) []revt {
			e[2].body = `"output_index":0,"item":` + fc("status", `"in_progress"`, "arguments", `""`, "name", `""`)
			return e
		}), 2, 5),
		miss("responses/name-late", "name at added", resp(func(e []revt) []revt { return e })),

		hit("responses/item-type-changed", "done says custom_tool_call", resp(func(e []revt) []revt {
			e[6].body = `"output_index":0,"item":` + fc("type", `"custom_tool_call"`)
			return e
		}), 2, 6),
		hit("responses/item-type-changed", "terminal says tool_call", resp(func(e []revt) []revt {
			e[7] = completed("[" + fc("type", `"tool_call"`) + "]")
			return e
		}), 2, 7),
		miss("responses/item-type-changed", "function_call throughout", resp(func(e []revt) []revt { return e })),

		hit("responses/item-type-nonstandard", "tool_call item", resp(func(e []revt) []revt {
			return ins(e, 7,
				revt{typ: "response.output_item.added", body: `"output_index":1,"item":{"id":"tc_1","type":"tool_call","status":"in_progress"}`},
				revt{typ: "response.output_item.done", body: `"output_index":1,"item":{"id":"tc_1","type":"tool_call","status":"completed"}`})
		}), 7),
		miss("responses/item-type-nonstandard", "tool_search_call item", resp(func(e []revt) []revt {
			e = ins(e, 7,
				revt{typ: "response.output_item.added", body: `"output_index":1,"item":{"id":"tsc_1","type":"tool_search_call","status":"in_progress"}`},
				revt{typ: "response.output_item.done", body: `"output_index":1,"item":{"id":"tsc_1","type":"tool_search_call","status":"completed"}`})
			e[9] = completed("[" + fc() + `,{"id":"tsc_1","type":"tool_search_call","status":"completed"}]`)
			return e
		})),

		hit("responses/item-done-missing", "no output_item.done", resp(func(e []revt) []revt { return del(e, 6, 7) }), 2, 6),
		miss("responses/item-done-missing", "done before completed", resp(func(e []revt) []revt { return e })),

		hit("responses/item-done-twice", "output_item.done twice", resp(func(e []revt) []revt { return ins(e, 7, e[6]) }), 2, 6, 7),
		hit("responses/item-done-twice", "arguments .done twice", resp(func(e []revt) []revt { return ins(e, 6, e[5]) }), 2, 6),
		miss("responses/item-done-twice", "once each", resp(func(e []revt) []revt { return e })),

		hit("responses/item-status", "done says in_progress", resp(func(e []revt) []revt {
			e[6].body = `"output_index":0,"item":` + fc("status", `"in_progress"`)
			e[7] = completed("[" + fc("status", `"in_progress"`) + "]")
			return e
		}), 6),
		hit("responses/item-status", "terminal goes back to in_progress", resp(func(e []revt) []revt {
			e[7] = completed("[" + fc("status", `"in_progress"`) + "]")
			return e
		}), 6, 7),
		miss("responses/item-status", "in_progress then completed", resp(func(e []revt) []revt { return e })),

		hit("responses/response-status", "created says completed", resp(func(e []revt) []revt {
			e[0].body = `"response":` + respObj("completed", "[]")
			return e
		}), 0),
		hit("responses/response-status", "in_progress then queued", resp(func(e []revt) []revt {
			e[1].body = `"response":` + respObj("queued", "[]")
			return e
		}), 0, 1),
		miss("responses/response-status", "queued then in_progress (background)", resp(func(e []revt) []revt {
			e[0].body = `"response":` + respObj("queued", "[]")
			return e
		})),

		hit("responses/terminal-status-mismatch", "completed says incomplete", resp(func(e []revt) []revt {
			e[7].body = `"response":` + respObj("incomplete", "["+fc()+"]")
			return e
		}), 7),
		miss("responses/terminal-status-mismatch", "incomplete says incomplete", resp(func(e []revt) []revt {
			e[7] = revt{typ: "response.incomplete", body: `"response":` + respObj("incomplete", "["+fc()+"]")}
			return e
		})),

		hit("responses/args-done-mismatch", ".done differs from the deltas", resp(func(e []revt) []revt {
			e[5].body = `"item_id":"fc_1","output_index":0,"name":"get_weather","arguments":"{\"city\":\"Rome\"}"`
			return e
		}), 4, 5, 6, 7),
		miss("responses/args-done-mismatch", "terminal differs only in whitespace", resp(func(e []revt) []revt {
			e[7] = completed("[" + fc("arguments", `"{\"city\": \"Paris\"}"`) + "]")
			return e
		})),

		hit("responses/text-done-mismatch", "output_text.done differs from the deltas", resp(withMessage(`"Hi!"`, `"Hi"`)), 8, 9, 10, 11, 12),
		hit("responses/text-done-mismatch", "terminal output[] differs from the deltas", resp(func(e []revt) []revt {
			e = withMessage(`"Hi"`, `"Hi"`)(e)
			e[12] = completed("[" + fc() + "," + strings.Replace(message, `"Hi"`, `"Bye"`, 1) + "]")
			return e
		}), 8, 9, 10, 11, 12),
		miss("responses/text-done-mismatch", "every statement says the deltas' text", resp(withMessage(`"Hi"`, `"Hi"`))),

		hit("responses/args-in-added", "added carries the arguments", resp(func(e []revt) []revt {
			e[2].body = `"output_index":0,"item":` + fc("status", `"in_progress"`)
			return e
		}), 2, 4),
		miss("responses/args-in-added", "added with empty arguments", resp(func(e []revt) []revt { return e })),

		hit("responses/args-done-only", "no deltas", resp(func(e []revt) []revt { return del(e, 3, 5) }), 2, 3),
		miss("responses/args-done-only", "deltas then done", resp(func(e []revt) []revt { return e })),

		hit("responses/args-invalid-json", "lost brace everywhere", resp(allArgs(`"{\"city\":\"Paris\""`)), 2, 6),
		miss("responses/args-invalid-json", "valid everywhere", resp(allArgs(`"{\"city\":\"Paris\"}"`))),

		hit("responses/args-empty", "empty arguments", resp(allArgs(`""`)), 5),
		miss("responses/args-empty", "{} arguments", resp(allArgs(`"{}"`))),

		hit("responses/no-terminal", "cut before completed", resp(func(e []revt) []revt { return e[:7] }), 0, 6),
		miss("responses/no-terminal", "ended by an error event", resp(func(e []revt) []revt {
			e[7] = revt{typ: "error", body: `"error":{"type":"server_error","code":"server_error","message":"boom"}`}
			return e
		})),
		miss("responses/no-terminal", "response.failed", resp(func(e []revt) []revt {
			e[7] = revt{typ: "response.failed", body: `"response":` + respObj("failed", "[]")}
			return e
		})),

		hit("responses/terminal-repeated", "completed twice", resp(func(e []revt) []revt { return append(e, e[7]) }), 7, 8),
		miss("responses/terminal-repeated", "completed once", resp(func(e []revt) []revt { return e })),

		hit("responses/events-after-terminal", "keepalive after completed", resp(func(e []revt) []revt {
			return append(e, revt{typ: "keepalive"})
		}), 7, 8),
		miss("responses/events-after-terminal", "comment after completed", resp(func(e []revt) []revt { return e })+": done\n\n"),

		hit("responses/terminal-output-empty", "output []", resp(func(e []revt) []revt { e[7] = completed("[]"); return e }), 2, 7),
		hit("responses/terminal-output-empty", "output missing", resp(func(e []revt) []revt {
			e[7].body = `"response":{"id":"resp_1","object":"response","status":"completed","reasoning":null}`
			return e
		}), 2, 7),
		miss("responses/terminal-output-empty", "nothing streamed, nothing in output", respSSE([]revt{respBase()[0], respBase()[1], completed("[]")})),

		hit("responses/terminal-output-mismatch", "output lacks the call, adds a message", resp(func(e []revt) []revt {
			e[7] = completed("[" + message + "]")
			return e
		}), 2, 7),
		hit("responses/terminal-output-mismatch", "output in another order", resp(func(e []revt) []revt {
			e = ins(e, 7,
				revt{typ: "response.output_item.added", body: `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`},
				revt{typ: "response.output_item.done", body: `"output_index":1,"item":` + message})
			e[9] = completed("[" + message + "," + fc() + "]")
			return e
		}), 9),
		miss("responses/terminal-output-mismatch", "failed response with partial output", resp(func(e []revt) []revt {
			e[7] = revt{typ: "response.failed", body: `"response":` + respObj("failed", "[]")}
			return e
		})),

		hit("responses/incomplete-open-call", "incomplete mid-arguments", resp(func(e []revt) []revt {
			return append(e[:4], revt{typ: "response.incomplete", body: `"response":` +
				strings.Replace(respObj("incomplete", "["+fc("status", `"incomplete"`, "arguments", `"{\"city\":"`)+"]"),
					`"output"`, `"incomplete_details":{"reason":"max_output_tokens"},"output"`, 1)})
		}), 2, 4),
		miss("responses/incomplete-open-call", "incomplete after the call completed", resp(func(e []revt) []revt {
			e[7] = revt{typ: "response.incomplete", body: `"response":` + respObj("incomplete", "["+fc()+"]")}
			return e
		})),

		hit("responses/non-standard-event", "response.required_action", resp(func(e []revt) []revt {
			return ins(e, 7, revt{typ: "response.required_action", body: `"required_action":{"type":"submit_tool_outputs"}`})
		}), 7),
		miss("responses/non-standard-event", "keepalive", resp(func(e []revt) []revt { return ins(e, 3, revt{typ: "keepalive"}) })),

		hit("responses/done-sentinel", "[DONE] after completed", resp(func(e []revt) []revt {
			return append(noEvents(e), revt{typ: "[DONE]", name: "-"})
		}), 7, 8),
		miss("responses/done-sentinel", "no [DONE]", resp(noEvents)),

		// A gateway that drops every event: line: the OpenAI SDKs read on,
		// clients that dispatch on the event name get nothing.
		hit("responses/event-name-missing", "no event: lines", resp(noEvents), 0, 1, 2, 3, 4, 5, 6, 7),
		hit("responses/event-name-missing", "one event: line lost", resp(func(e []revt) []revt {
			e[4].name = "-"
			return e
		}), 4),
		miss("responses/event-name-missing", "every event named", resp(func(e []revt) []revt { return e })),

		hit("responses/done-before-terminal", "[DONE] before completed", resp(func(e []revt) []revt {
			return ins(e, 7, revt{typ: "[DONE]", name: "-"})
		}), 7, 8),
		miss("responses/done-before-terminal", "[DONE] last", resp(func(e []revt) []revt { return append(e, revt{typ: "[DONE]", name: "-"}) })),

		hit("responses/reasoning-missing", "snapshots without reasoning", strings.ReplaceAll(resp(func(e []revt) []revt { return e }),
			`"reasoning":{"effort":null,"summary":null},`, ""), 0, 1, 7),
		miss("responses/reasoning-missing", "reasoning: null", strings.ReplaceAll(resp(func(e []revt) []revt { return e }),
			`"reasoning":{"effort":null,"summary":null}`, `"reasoning":null`)),
	}
}

// resumed is respBase as a stream resumed with starting_after=from-1 sends
// it: the events from sequence_number from on, numbered as in the whole
// stream, without the ones before.
func resumed(from int) string {
	e := respBase()[from:]
	for i := range e {
		e[i].seq = fmt.Sprint(from + i)
	}
	return respSSE(e)
}

// TestResumedStreamClean: a stream resumed mid-call lacks the events
// before its resume point, legally: its item was opened before it, and its
// deltas are only the tail of the arguments. Nothing in it is a warning.
func TestResumedStreamClean(t *testing.T) {
	t.Parallel()
	for _, from := range []int{1, 2, 3, 4, 5, 6} {
		rep := CheckBytes([]byte(resumed(from)), capture.FormatAuto, Strict)
		for _, f := range rep.Findings {
			if f.Severity >= Warning {
				t.Errorf("resumed at %d: %s %s %v: %s", from, f.Severity, f.Rule, f.Events, f.Message)
			}
		}
		if len(findings(rep, "responses/resumed-stream")) != 1 {
			t.Errorf("resumed at %d: findings %v; want one %s", from, rep.Findings, "responses/resumed-stream")
		}
	}
}

// withMessage adds a message item after the call (events 7–11): one delta
// "Hi" (event 8), output_text.done and content_part.done stating textDone
// and partDone (events 9, 10), output_item.done with "Hi" (event 11); the
// terminal output[] (event 12) holds both items.
func withMessage(textDone, partDone string) func(e []revt) []revt {
	const message = `{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}`
	return func(e []revt) []revt {
		e = ins(e, 7,
			revt{typ: "response.output_item.added", body: `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`},
			revt{typ: "response.output_text.delta", body: `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi"`},
			revt{typ: "response.output_text.done", body: `"item_id":"msg_1","output_index":1,"content_index":0,"text":` + textDone},
			revt{typ: "response.content_part.done", body: `"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"text":` + partDone + `}`},
			revt{typ: "response.output_item.done", body: `"output_index":1,"item":` + message})
		e[12] = revt{typ: "response.completed", body: `"response":` + respObj("completed", "["+fc()+","+message+"]")}
		return e
	}
}
