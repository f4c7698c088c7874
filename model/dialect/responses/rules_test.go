package responses_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/dialect/responses"
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
	dialecttest.EveryRuleTested(t, responses.Rules.Rules, cases())
}

func cases() []dialecttest.Case {
	noEvents := func(e []modeltest.Revt) []modeltest.Revt {
		for i := range e {
			e[i].Name = "-"
		}
		return e
	}
	fcDelta := func(itemID, idx, delta string) modeltest.Revt {
		body := `"output_index":` + idx + `,"delta":` + delta
		if itemID != "" {
			body = `"item_id":"` + itemID + `",` + body
		}
		return modeltest.Revt{Typ: "response.function_call_arguments.delta", Body: body}
	}
	completed := func(output string) modeltest.Revt {
		return modeltest.Revt{Typ: "response.completed", Body: `"response":` + modeltest.RespObj("completed", output)}
	}
	message := `{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}`
	allArgs := func(args string) func(e []modeltest.Revt) []modeltest.Revt {
		return func(e []modeltest.Revt) []modeltest.Revt {
			e = modeltest.Del(e, 3, 5)
			e = modeltest.Ins(e, 3, fcDelta("fc_1", "0", args))
			e[4].Body = `"item_id":"fc_1","output_index":0,"name":"get_weather","arguments":` + args
			e[5].Body = `"output_index":0,"item":` + modeltest.FC("arguments", args)
			e[6] = completed("[" + modeltest.FC("arguments", args) + "]")
			return e
		}
	}
	return []dialecttest.Case{
		dialecttest.Hit("responses/first-not-created", "starts at output_item.added", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e[2:] }), 0),
		dialecttest.Hit("responses/first-not-created", "starts at output_item.added numbered 0", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e = e[2:]
			for i := range e {
				e[i].Seq = fmt.Sprint(i)
			}
			return e
		}), 0),
		dialecttest.Miss("responses/first-not-created", "resumed mid-call (starting_after=3)", resumed(4)),

		dialecttest.Hit("responses/resumed-stream", "resumed mid-call (starting_after=3)", resumed(4), 0),
		dialecttest.Hit("responses/resumed-stream", "resumed before the first item (starting_after=1)", resumed(2), 0),
		dialecttest.Miss("responses/resumed-stream", "from the start", resumed(0)),
		dialecttest.Miss("responses/resumed-stream", "starts at output_item.added numbered 2 but for a second response", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			second := modeltest.RespBase()[2:]
			for i := range second {
				second[i].Body = strings.ReplaceAll(second[i].Body, `"resp_1"`, `"resp_2"`)
			}
			return append(e, second...)
		})),
		dialecttest.Miss("responses/first-not-created", "an error before any response", modeltest.RespSSE([]modeltest.Revt{
			{Typ: "error", Body: `"error":{"type":"invalid_request_error","code":"bad","message":"no"}`}})),

		dialecttest.Hit("responses/seq-missing", "one event without", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { e[4].Seq = "-"; return e }), 4),
		dialecttest.Hit("responses/seq-missing", "not an integer", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { e[4].Seq = `"4"`; return e }), 4),
		dialecttest.Miss("responses/seq-missing", "sequence_number 0 present", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),

		dialecttest.Hit("responses/seq-not-increasing", "repeated", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { e[4].Seq = "3"; return e }), 3, 4),
		dialecttest.Hit("responses/seq-not-increasing", "backwards", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { e[5].Seq = "1"; return e }), 4, 5),
		dialecttest.Miss("responses/seq-not-increasing", "reset by a new response.created", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			return append(e, modeltest.Revt{Typ: "response.created", Seq: "0", Body: `"response":` + modeltest.RespObj("in_progress", "[]")})
		})),

		dialecttest.Hit("responses/seq-gap", "jump", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			for i := 4; i < len(e); i++ {
				e[i].Seq = strings.Repeat("1", 1) + string(rune('0'+i))
			}
			return e
		}), 3, 4),
		dialecttest.Hit("responses/seq-gap", "starts at 1", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			for i := range e {
				e[i].Seq = string(rune('1' + i))
			}
			return e
		}), 0),
		dialecttest.Miss("responses/seq-gap", "consecutive", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),

		dialecttest.Hit("responses/item-not-added", "delta for an unknown item", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			return modeltest.Ins(e, 4, fcDelta("fc_9", "3", `"x"`))
		}), 4),
		dialecttest.Miss("responses/item-not-added", "delta naming only a known output_index", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[3] = fcDelta("", "0", modeltest.ArgsDelta1)
			return e
		})),

		dialecttest.Hit("responses/bad-index", "negative content_index", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			return modeltest.Ins(e, 3, modeltest.Revt{Typ: "response.content_part.added", Body: `"item_id":"fc_1","output_index":0,"content_index":-1,"part":{"type":"output_text","text":""}`})
		}), 3),
		dialecttest.Hit("responses/bad-index", "first item at output_index 1", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[2].Body = strings.Replace(e[2].Body, `"output_index":0`, `"output_index":1`, 1)
			return e
		}), 2),
		dialecttest.Miss("responses/bad-index", "two items 0 and 1", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e = modeltest.Ins(e, 7,
				modeltest.Revt{Typ: "response.output_item.added", Body: `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`},
				modeltest.Revt{Typ: "response.output_item.done", Body: `"output_index":1,"item":` + message})
			e[9] = completed("[" + modeltest.FC() + "," + message + "]")
			return e
		})),

		dialecttest.Hit("responses/item-id-changed", "done renames the item", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[6].Body = `"output_index":0,"item":` + modeltest.FC("id", `"fc_2"`)
			e[7] = completed("[" + modeltest.FC("id", `"fc_2"`) + "]")
			return e
		}), 2, 6, 7),
		dialecttest.Miss("responses/item-id-changed", "same id throughout", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),
		dialecttest.Hit("responses/item-id-changed", "every event renames the item, all in one finding", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[3] = fcDelta("fc_a", "0", modeltest.ArgsDelta1)
			e[4] = fcDelta("fc_b", "0", modeltest.ArgsDelta2)
			e[5].Body = strings.Replace(e[5].Body, `"fc_1"`, `"fc_c"`, 1)
			e[6].Body = `"output_index":0,"item":` + modeltest.FC("id", `"fc_d"`)
			e[7] = completed("[" + modeltest.FC("id", `"fc_e"`) + "]")
			return e
		}), 2, 3, 4, 5, 6, 7),

		dialecttest.Hit("responses/item-id-missing", "argument deltas without item_id", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[3] = fcDelta("", "0", modeltest.ArgsDelta1)
			e[4] = fcDelta("", "0", modeltest.ArgsDelta2)
			return e
		}), 3, 4),
		dialecttest.Hit("responses/item-id-missing", "output_text.done without item_id", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e = modeltest.Ins(e, 7,
				modeltest.Revt{Typ: "response.output_item.added", Body: `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`},
				modeltest.Revt{Typ: "response.output_text.delta", Body: `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi"`},
				modeltest.Revt{Typ: "response.output_text.done", Body: `"output_index":1,"content_index":0,"text":"Hi"`},
				modeltest.Revt{Typ: "response.output_item.done", Body: `"output_index":1,"item":` + message})
			e[11] = completed("[" + modeltest.FC() + "," + message + "]")
			return e
		}), 9),
		dialecttest.Miss("responses/item-id-missing", "every event names its item", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),
		// An item_id that is "", null or not a string names nothing; one
		// that needs decoding names its item (the rule reads the raw
		// value, not a decoded copy).
		dialecttest.Hit("responses/item-id-missing", `item_id "" and null`, modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[3].Body = strings.Replace(e[3].Body, `"item_id":"fc_1"`, `"item_id":""`, 1)
			e[4].Body = strings.Replace(e[4].Body, `"item_id":"fc_1"`, `"item_id":null`, 1)
			return e
		}), 3, 4),
		dialecttest.Hit("responses/item-id-missing", "item_id 0 and true", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[3].Body = strings.Replace(e[3].Body, `"item_id":"fc_1"`, `"item_id":0`, 1)
			e[4].Body = strings.Replace(e[4].Body, `"item_id":"fc_1"`, `"item_id":true`, 1)
			return e
		}), 3, 4),
		dialecttest.Miss("responses/item-id-missing", "an escaped item_id", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[3].Body = strings.Replace(e[3].Body, `"item_id":"fc_1"`, `"item_id":"\u0066c_1"`, 1)
			return e
		})),
		dialecttest.Miss("responses/item-id-missing", "audio transcript deltas name no item", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			return modeltest.Ins(e, 7, modeltest.Revt{Typ: "response.audio.transcript.delta", Body: `"delta":"Hi"`})
		})),

		dialecttest.Hit("responses/response-id-changed", "in_progress and completed rename the response", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[1].Body = strings.Replace(e[1].Body, `"resp_1"`, `"resp_2"`, 1)
			e[7].Body = strings.Replace(e[7].Body, `"resp_1"`, `"resp_3"`, 1)
			return e
		}), 0, 1, 7),
		dialecttest.Miss("responses/response-id-changed", "a second response after the first one's terminal event", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			second := modeltest.RespBase()
			for i := range second {
				second[i].Seq = fmt.Sprint(i)
				second[i].Body = strings.ReplaceAll(second[i].Body, `"resp_1"`, `"resp_2"`)
			}
			return append(e, second...)
		})),

		dialecttest.Hit("responses/call-id-changed", "terminal renames the call", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7] = completed("[" + modeltest.FC("call_id", `"call_2"`) + "]")
			return e
		}), 2, 7),
		dialecttest.Miss("responses/call-id-changed", "same call_id", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),
		dialecttest.Miss("responses/call-id-changed", "a call never added learns its call_id at output_item.done", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return modeltest.Del(e, 2, 3) })),

		dialecttest.Hit("responses/call-id-missing", "never a call_id", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[2].Body = `"output_index":0,"item":` + modeltest.FC("status", `"in_progress"`, "arguments", `""`, "call_id", "")
			e[6].Body = `"output_index":0,"item":` + modeltest.FC("call_id", "")
			e[7] = completed("[" + modeltest.FC("call_id", "") + "]")
			return e
		}), 2),
		dialecttest.Hit("responses/call-id-missing", "call_id only from output_item.done", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[2].Body = `"output_index":0,"item":` + modeltest.FC("status", `"in_progress"`, "arguments", `""`, "call_id", "")
			return e
		}), 2, 6),
		dialecttest.Miss("responses/call-id-missing", "call_id at added", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),

		dialecttest.Hit("responses/name-changed", "done names another tool", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[6].Body = `"output_index":0,"item":` + modeltest.FC("name", `"get_time"`)
			e[7] = completed("[" + modeltest.FC("name", `"get_time"`) + "]")
			return e
		}), 2, 6, 7),
		dialecttest.Miss("responses/name-changed", "name everywhere the same", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),
		dialecttest.Miss("responses/name-changed", "a call never added learns its name at .done", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return modeltest.Del(e, 2, 3) })),

		dialecttest.Hit("responses/name-late", "empty name at added", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[2].Body = `"output_index":0,"item":` + modeltest.FC("status", `"in_progress"`, "arguments", `""`, "name", `""`)
			return e
		}), 2, 5),
		dialecttest.Miss("responses/name-late", "name at added", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),
		// A name that arrives late and is then stated again (output_item.done,
		// the terminal output[]) is late, not changed.
		dialecttest.Miss("responses/name-changed", "a late name stated again the same", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[2].Body = `"output_index":0,"item":` + modeltest.FC("status", `"in_progress"`, "arguments", `""`, "name", `""`)
			return e
		})),
		dialecttest.Hit("responses/name-changed", "a late name, then another", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[2].Body = `"output_index":0,"item":` + modeltest.FC("status", `"in_progress"`, "arguments", `""`, "name", `""`)
			e[7] = completed("[" + modeltest.FC("name", `"get_time"`) + "]")
			return e
		}), 2, 7),
		dialecttest.Miss("responses/call-id-changed", "a late call_id stated again the same", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[2].Body = `"output_index":0,"item":` + modeltest.FC("status", `"in_progress"`, "arguments", `""`, "call_id", "")
			return e
		})),

		dialecttest.Hit("responses/item-type-changed", "done says custom_tool_call", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[6].Body = `"output_index":0,"item":` + modeltest.FC("type", `"custom_tool_call"`)
			return e
		}), 2, 6),
		dialecttest.Hit("responses/item-type-changed", "terminal says tool_call", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7] = completed("[" + modeltest.FC("type", `"tool_call"`) + "]")
			return e
		}), 2, 7),
		dialecttest.Miss("responses/item-type-changed", "function_call throughout", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),

		dialecttest.Hit("responses/item-type-nonstandard", "tool_call item", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			return modeltest.Ins(e, 7,
				modeltest.Revt{Typ: "response.output_item.added", Body: `"output_index":1,"item":{"id":"tc_1","type":"tool_call","status":"in_progress"}`},
				modeltest.Revt{Typ: "response.output_item.done", Body: `"output_index":1,"item":{"id":"tc_1","type":"tool_call","status":"completed"}`})
		}), 7),
		dialecttest.Miss("responses/item-type-nonstandard", "tool_search_call item", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e = modeltest.Ins(e, 7,
				modeltest.Revt{Typ: "response.output_item.added", Body: `"output_index":1,"item":{"id":"tsc_1","type":"tool_search_call","status":"in_progress"}`},
				modeltest.Revt{Typ: "response.output_item.done", Body: `"output_index":1,"item":{"id":"tsc_1","type":"tool_search_call","status":"completed"}`})
			e[9] = completed("[" + modeltest.FC() + `,{"id":"tsc_1","type":"tool_search_call","status":"completed"}]`)
			return e
		})),

		dialecttest.Hit("responses/item-done-missing", "no output_item.done", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return modeltest.Del(e, 6, 7) }), 2, 6),
		dialecttest.Miss("responses/item-done-missing", "done before completed", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),

		dialecttest.Hit("responses/item-done-twice", "output_item.done twice", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return modeltest.Ins(e, 7, e[6]) }), 2, 6, 7),
		dialecttest.Hit("responses/item-done-twice", "arguments .done twice", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return modeltest.Ins(e, 6, e[5]) }), 2, 6),
		dialecttest.Miss("responses/item-done-twice", "once each", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),

		dialecttest.Hit("responses/item-status", "done says in_progress", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[6].Body = `"output_index":0,"item":` + modeltest.FC("status", `"in_progress"`)
			e[7] = completed("[" + modeltest.FC("status", `"in_progress"`) + "]")
			return e
		}), 6),
		dialecttest.Hit("responses/item-status", "terminal goes back to in_progress", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7] = completed("[" + modeltest.FC("status", `"in_progress"`) + "]")
			return e
		}), 6, 7),
		dialecttest.Miss("responses/item-status", "in_progress then completed", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),

		dialecttest.Hit("responses/response-status", "created says completed", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[0].Body = `"response":` + modeltest.RespObj("completed", "[]")
			return e
		}), 0),
		dialecttest.Hit("responses/response-status", "in_progress then queued", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[1].Body = `"response":` + modeltest.RespObj("queued", "[]")
			return e
		}), 0, 1),
		dialecttest.Miss("responses/response-status", "queued then in_progress (background)", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[0].Body = `"response":` + modeltest.RespObj("queued", "[]")
			return e
		})),

		dialecttest.Hit("responses/terminal-status-mismatch", "completed says incomplete", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7].Body = `"response":` + modeltest.RespObj("incomplete", "["+modeltest.FC()+"]")
			return e
		}), 7),
		dialecttest.Miss("responses/terminal-status-mismatch", "incomplete says incomplete", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7] = modeltest.Revt{Typ: "response.incomplete", Body: `"response":` + modeltest.RespObj("incomplete", "["+modeltest.FC()+"]")}
			return e
		})),

		dialecttest.Hit("responses/args-done-mismatch", ".done differs from the deltas", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[5].Body = `"item_id":"fc_1","output_index":0,"name":"get_weather","arguments":"{\"city\":\"Rome\"}"`
			return e
		}), 4, 5, 6, 7),
		dialecttest.Miss("responses/args-done-mismatch", "terminal differs only in whitespace", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7] = completed("[" + modeltest.FC("arguments", `"{\"city\": \"Paris\"}"`) + "]")
			return e
		})),

		dialecttest.Hit("responses/text-done-mismatch", "output_text.done differs from the deltas", modeltest.Resp(withMessage(`"Hi!"`, `"Hi"`)), 8, 9, 10, 11, 12),
		dialecttest.Hit("responses/text-done-mismatch", "terminal output[] differs from the deltas", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e = withMessage(`"Hi"`, `"Hi"`)(e)
			e[12] = completed("[" + modeltest.FC() + "," + strings.Replace(message, `"Hi"`, `"Bye"`, 1) + "]")
			return e
		}), 8, 9, 10, 11, 12),
		dialecttest.Miss("responses/text-done-mismatch", "every statement says the deltas' text", modeltest.Resp(withMessage(`"Hi"`, `"Hi"`))),

		dialecttest.Hit("responses/args-in-added", "added carries the arguments", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[2].Body = `"output_index":0,"item":` + modeltest.FC("status", `"in_progress"`)
			return e
		}), 2, 4),
		dialecttest.Miss("responses/args-in-added", "added with empty arguments", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),

		dialecttest.Hit("responses/args-done-only", "no deltas", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return modeltest.Del(e, 3, 5) }), 2, 3),
		dialecttest.Miss("responses/args-done-only", "deltas then done", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),

		dialecttest.Hit("responses/args-invalid-json", "lost brace everywhere", modeltest.Resp(allArgs(`"{\"city\":\"Paris\""`)), 2, 6),
		dialecttest.Miss("responses/args-invalid-json", "valid everywhere", modeltest.Resp(allArgs(`"{\"city\":\"Paris\"}"`))),

		dialecttest.Hit("responses/args-empty", "empty arguments", modeltest.Resp(allArgs(`""`)), 5),
		dialecttest.Miss("responses/args-empty", "{} arguments", modeltest.Resp(allArgs(`"{}"`))),

		dialecttest.Hit("responses/no-terminal", "cut before completed", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e[:7] }), 0, 6),
		dialecttest.Miss("responses/no-terminal", "ended by an error event", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7] = modeltest.Revt{Typ: "error", Body: `"error":{"type":"server_error","code":"server_error","message":"boom"}`}
			return e
		})),
		dialecttest.Miss("responses/no-terminal", "response.failed", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7] = modeltest.Revt{Typ: "response.failed", Body: `"response":` + modeltest.RespObj("failed", "[]")}
			return e
		})),

		dialecttest.Hit("responses/terminal-repeated", "completed twice", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return append(e, e[7]) }), 7, 8),
		dialecttest.Miss("responses/terminal-repeated", "completed once", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),
		// The same response.completed again is the response told twice,
		// not a second response that lacks its response.created.
		dialecttest.Miss("responses/first-not-created", "completed twice", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return append(e, e[7]) })),

		dialecttest.Hit("responses/events-after-terminal", "keepalive after completed", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			return append(e, modeltest.Revt{Typ: "keepalive"})
		}), 7, 8),
		dialecttest.Miss("responses/events-after-terminal", "comment after completed", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })+": done\n\n"),

		dialecttest.Hit("responses/terminal-output-empty", "output []", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { e[7] = completed("[]"); return e }), 2, 7),
		dialecttest.Hit("responses/terminal-output-empty", "output missing", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7].Body = `"response":{"id":"resp_1","object":"response","status":"completed","reasoning":null}`
			return e
		}), 2, 7),
		dialecttest.Miss("responses/terminal-output-empty", "nothing streamed, nothing in output", modeltest.RespSSE([]modeltest.Revt{modeltest.RespBase()[0], modeltest.RespBase()[1], completed("[]")})),

		dialecttest.Hit("responses/terminal-output-mismatch", "output lacks the call, adds a message", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7] = completed("[" + message + "]")
			return e
		}), 2, 7),
		dialecttest.Hit("responses/terminal-output-mismatch", "output in another order", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e = modeltest.Ins(e, 7,
				modeltest.Revt{Typ: "response.output_item.added", Body: `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`},
				modeltest.Revt{Typ: "response.output_item.done", Body: `"output_index":1,"item":` + message})
			e[9] = completed("[" + message + "," + modeltest.FC() + "]")
			return e
		}), 9),
		// The call was streamed, though never added (item-not-added says
		// so): output[] holds it, as it should.
		dialecttest.Miss("responses/terminal-output-mismatch", "a call streamed without output_item.added", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e = modeltest.Ins(e, 7,
				modeltest.Revt{Typ: "response.output_item.added", Body: `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`},
				modeltest.Revt{Typ: "response.output_item.done", Body: `"output_index":1,"item":` + message})
			e[9] = completed("[" + modeltest.FC() + "," + message + "]")
			return modeltest.Del(e, 2, 3)
		})),
		dialecttest.Miss("responses/terminal-output-mismatch", "failed response with partial output", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7] = modeltest.Revt{Typ: "response.failed", Body: `"response":` + modeltest.RespObj("failed", "[]")}
			return e
		})),

		dialecttest.Hit("responses/incomplete-open-call", "incomplete mid-arguments", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			return append(e[:4], modeltest.Revt{Typ: "response.incomplete", Body: `"response":` +
				strings.Replace(modeltest.RespObj("incomplete", "["+modeltest.FC("status", `"incomplete"`, "arguments", `"{\"city\":"`)+"]"),
					`"output"`, `"incomplete_details":{"reason":"max_output_tokens"},"output"`, 1)})
		}), 2, 4),
		dialecttest.Miss("responses/incomplete-open-call", "incomplete after the call completed", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[7] = modeltest.Revt{Typ: "response.incomplete", Body: `"response":` + modeltest.RespObj("incomplete", "["+modeltest.FC()+"]")}
			return e
		})),

		dialecttest.Hit("responses/non-standard-event", "response.required_action", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			return modeltest.Ins(e, 7, modeltest.Revt{Typ: "response.required_action", Body: `"required_action":{"type":"submit_tool_outputs"}`})
		}), 7),
		dialecttest.Miss("responses/non-standard-event", "keepalive", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			return modeltest.Ins(e, 3, modeltest.Revt{Typ: "keepalive"})
		})),

		dialecttest.Hit("responses/done-sentinel", "[DONE] after completed", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			return append(noEvents(e), modeltest.Revt{Typ: "[DONE]", Name: "-"})
		}), 7, 8),
		dialecttest.Miss("responses/done-sentinel", "no [DONE]", modeltest.Resp(noEvents)),

		// A gateway that drops every event: line: the OpenAI SDKs read on,
		// clients that dispatch on the event name get nothing.
		dialecttest.Hit("responses/event-name-missing", "no event: lines", modeltest.Resp(noEvents), 0, 1, 2, 3, 4, 5, 6, 7),
		dialecttest.Hit("responses/event-name-missing", "one event: line lost", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			e[4].Name = "-"
			return e
		}), 4),
		dialecttest.Miss("responses/event-name-missing", "every event named", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e })),

		dialecttest.Hit("responses/done-before-terminal", "[DONE] before completed", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt {
			return modeltest.Ins(e, 7, modeltest.Revt{Typ: "[DONE]", Name: "-"})
		}), 7, 8),
		dialecttest.Miss("responses/done-before-terminal", "[DONE] last", modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return append(e, modeltest.Revt{Typ: "[DONE]", Name: "-"}) })),

		dialecttest.Hit("responses/reasoning-missing", "snapshots without reasoning", strings.ReplaceAll(modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e }),
			`"reasoning":{"effort":null,"summary":null},`, ""), 0, 1, 7),
		dialecttest.Miss("responses/reasoning-missing", "reasoning: null", strings.ReplaceAll(modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return e }),
			`"reasoning":{"effort":null,"summary":null}`, `"reasoning":null`)),
	}
}

// resumed is respBase as a stream resumed with starting_after=from-1 sends
// it: the events from sequence_number from on, numbered as in the whole
// stream, without the ones before.
func resumed(from int) string {
	e := modeltest.RespBase()[from:]
	for i := range e {
		e[i].Seq = fmt.Sprint(from + i)
	}
	return modeltest.RespSSE(e)
}

// TestResumedStreamClean: a stream resumed mid-call lacks the events
// before its resume point, legally: its item was opened before it, and its
// deltas are only the tail of the arguments. Nothing in it is a warning.
func TestResumedStreamClean(t *testing.T) {
	t.Parallel()
	for _, from := range []int{1, 2, 3, 4, 5, 6} {
		rep := checks.CheckBytes([]byte(resumed(from)), capture.FormatAuto, checks.Strict)
		for _, f := range rep.Findings {
			if f.Severity >= checks.Warning {
				t.Errorf("resumed at %d: %s %s %v: %s", from, f.Severity, f.Rule, f.Events, f.Message)
			}
		}
		if len(dialecttest.Findings(rep, "responses/resumed-stream")) != 1 {
			t.Errorf("resumed at %d: findings %v; want one %s", from, rep.Findings, "responses/resumed-stream")
		}
	}
}

// withMessage adds a message item after the call (events 7–11): one delta
// "Hi" (event 8), output_text.done and content_part.done stating textDone
// and partDone (events 9, 10), output_item.done with "Hi" (event 11); the
// terminal output[] (event 12) holds both items.
func withMessage(textDone, partDone string) func(e []modeltest.Revt) []modeltest.Revt {
	const message = `{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}`
	return func(e []modeltest.Revt) []modeltest.Revt {
		e = modeltest.Ins(e, 7,
			modeltest.Revt{Typ: "response.output_item.added", Body: `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`},
			modeltest.Revt{Typ: "response.output_text.delta", Body: `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi"`},
			modeltest.Revt{Typ: "response.output_text.done", Body: `"item_id":"msg_1","output_index":1,"content_index":0,"text":` + textDone},
			modeltest.Revt{Typ: "response.content_part.done", Body: `"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"text":` + partDone + `}`},
			modeltest.Revt{Typ: "response.output_item.done", Body: `"output_index":1,"item":` + message})
		e[12] = modeltest.Revt{Typ: "response.completed", Body: `"response":` + modeltest.RespObj("completed", "["+modeltest.FC()+","+message+"]")}
		return e
	}
}

// TestTerminalRepeatedOneResponse: a response.completed sent twice is
// one response, whose calls are told once, as the SDKs keep them (the
// second ends nothing new).
func TestTerminalRepeatedOneResponse(t *testing.T) {
	t.Parallel()
	stream := modeltest.Resp(func(e []modeltest.Revt) []modeltest.Revt { return append(e, e[7]) })
	s := model.Assemble([]byte(stream), capture.FormatAuto, model.Options{})
	if n, calls := len(s.Responses), len(s.Calls()); n != 1 || calls != 1 || s.Responses[0].Terminal != 7 {
		t.Errorf("completed twice: %d responses, %d calls; want 1 response (terminal at event 7), 1 call", n, calls)
	}
}
