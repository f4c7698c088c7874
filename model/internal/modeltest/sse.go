package modeltest

import (
	"fmt"
	"slices"
	"strings"
)

// The streams the rules' cases mutate: each dialect's base, sound and
// without a finding, and the builders that write and edit it.

// DataSSE frames payloads as data-only SSE events.
func DataSSE(payloads []string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return b.String()
}

// Revt is one Responses event for RespSSE.
type Revt struct {
	Typ  string
	Body string // the members after type and sequence_number
	Seq  string // "": the event's position; "-": none; else the literal
	Name string // the event: line; "": Typ; "-": none
}

// RespSSE renders Responses events with event: lines and
// sequence_number = position unless told otherwise.
func RespSSE(evs []Revt) string {
	var b strings.Builder
	for i, e := range evs {
		name := e.Name
		if name == "" {
			name = e.Typ
		}
		if name != "-" {
			b.WriteString("event: " + name + "\n")
		}
		if e.Typ == "[DONE]" {
			b.WriteString("data: [DONE]\n\n")
			continue
		}
		fmt.Fprintf(&b, `data: {"type":%q`, e.Typ)
		switch e.Seq {
		case "":
			fmt.Fprintf(&b, `,"sequence_number":%d`, i)
		case "-":
		default:
			b.WriteString(`,"sequence_number":` + e.Seq)
		}
		if e.Body != "" {
			b.WriteString("," + e.Body)
		}
		b.WriteString("}\n\n")
	}
	return b.String()
}

// FC renders a function_call item: defaults overridden by key, value pairs
// of raw JSON ("" drops the key).
func FC(kv ...string) string {
	keys := []string{"id", "type", "status", "call_id", "name", "arguments"}
	vals := map[string]string{"id": `"fc_1"`, "type": `"function_call"`, "status": `"completed"`,
		"call_id": `"call_1"`, "name": `"get_weather"`, "arguments": `"{\"city\":\"Paris\"}"`}
	for i := 0; i+1 < len(kv); i += 2 {
		if _, ok := vals[kv[i]]; !ok {
			keys = append(keys, kv[i])
		}
		vals[kv[i]] = kv[i+1]
	}
	var parts []string
	for _, k := range keys {
		if vals[k] != "" {
			parts = append(parts, fmt.Sprintf("%q:%s", k, vals[k]))
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func RespObj(status, output string) string {
	return `{"id":"resp_1","object":"response","status":"` + status + `","reasoning":{"effort":null,"summary":null},"output":` + output + `}`
}

const ArgsDelta1, ArgsDelta2 = `"{\"city\":"`, `"\"Paris\"}"`

// RespBase is one function call streamed by the book (events 0–7).
func RespBase() []Revt {
	return []Revt{
		{Typ: "response.created", Body: `"response":` + RespObj("in_progress", `[]`)},
		{Typ: "response.in_progress", Body: `"response":` + RespObj("in_progress", `[]`)},
		{Typ: "response.output_item.added", Body: `"output_index":0,"item":` + FC("status", `"in_progress"`, "arguments", `""`)},
		{Typ: "response.function_call_arguments.delta", Body: `"item_id":"fc_1","output_index":0,"delta":` + ArgsDelta1},
		{Typ: "response.function_call_arguments.delta", Body: `"item_id":"fc_1","output_index":0,"delta":` + ArgsDelta2},
		{Typ: "response.function_call_arguments.done", Body: `"item_id":"fc_1","output_index":0,"name":"get_weather","arguments":"{\"city\":\"Paris\"}"`},
		{Typ: "response.output_item.done", Body: `"output_index":0,"item":` + FC()},
		{Typ: "response.completed", Body: `"response":` + RespObj("completed", "["+FC()+"]")},
	}
}

// Resp edits a copy of RespBase and renders it.
func Resp(edit func(e []Revt) []Revt) string {
	return RespSSE(edit(RespBase()))
}

func Ins(e []Revt, i int, add ...Revt) []Revt { return slices.Insert(e, i, add...) }
func Del(e []Revt, i, j int) []Revt           { return slices.Delete(e, i, j) }

// Chunk renders a chat.completion.chunk with the given choices array.
func Chunk(choices string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":` + choices + `}`
}

func Choice(delta, finish string) string {
	return `[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]`
}

// Tcs renders delta.tool_calls entries as a chunk.
func Tcs(entries ...string) string {
	return Chunk(Choice(`{"tool_calls":[`+strings.Join(entries, ",")+`]}`, "null"))
}

const UsageChunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`

// ChatBase is one call streamed by the book (events 0–5).
func ChatBase() []string {
	return []string{
		Chunk(Choice(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "null")),
		Tcs(`{"index":0,"function":{"arguments":` + ArgsDelta1 + `}}`),
		Tcs(`{"index":0,"function":{"arguments":` + ArgsDelta2 + `}}`),
		Chunk(Choice(`{}`, `"tool_calls"`)),
		UsageChunk,
		"[DONE]",
	}
}

func Chat(edit func(p []string) []string) string { return DataSSE(edit(ChatBase())) }

// AnthSSE renders name, data pairs; an empty name writes no event: line.
func AnthSSE(evs [][2]string) string {
	var b strings.Builder
	for _, e := range evs {
		if e[0] != "" {
			b.WriteString("event: " + e[0] + "\n")
		}
		b.WriteString("data: " + e[1] + "\n\n")
	}
	return b.String()
}

func AStart(i int, block string) [2]string {
	return [2]string{"content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, i, block)}
}

func ADelta(i int, delta string) [2]string {
	return [2]string{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, i, delta)}
}

func AJSON(i int, partial string) [2]string {
	return ADelta(i, `{"type":"input_json_delta","partial_json":`+partial+`}`)
}

func AStop(i int) [2]string {
	return [2]string{"content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i)}
}

func AMsgDelta(reason string) [2]string {
	return [2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":` + reason + `,"stop_sequence":null},"usage":{"output_tokens":10}}`}
}

var (
	AMsgStart = [2]string{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`}
	AMsgStop  = [2]string{"message_stop", `{"type":"message_stop"}`}
	APing     = [2]string{"ping", `{"type":"ping"}`}
	AToolUse  = `{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}`
)

// AnthBase is a text block then a tool_use block (events 0–10).
func AnthBase() [][2]string {
	return [][2]string{
		AMsgStart,
		AStart(0, `{"type":"text","text":""}`),
		ADelta(0, `{"type":"text_delta","text":"Checking."}`),
		AStop(0),
		AStart(1, AToolUse),
		AJSON(1, `""`),
		AJSON(1, ArgsDelta1),
		AJSON(1, ArgsDelta2),
		AStop(1),
		AMsgDelta(`"tool_use"`),
		AMsgStop,
	}
}

func Anth(edit func(e [][2]string) [][2]string) string { return AnthSSE(edit(AnthBase())) }

// GemChunk renders a Gemini chunk with the given parts and extra candidate
// members.
func GemChunk(parts, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return `{"candidates":[{"content":{"role":"model","parts":[` + parts + `]}` + extra + `}],"modelVersion":"gemini-3","responseId":"r1"}`
}

func GemBase() []string {
	return []string{
		GemChunk(`{"text":"Checking."}`, ""),
		GemChunk(`{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}`, `"finishReason":"STOP"`),
	}
}

// GemPartial is a call streamed with partialArgs (events 0–2), then the
// given last part and candidate members (event 3).
func GemPartial(last, extra string) []string {
	return []string{
		GemChunk(`{"functionCall":{"name":"get_weather","willContinue":true}}`, ""),
		GemChunk(`{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"Par","willContinue":true}],"willContinue":true}}`, ""),
		GemChunk(`{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"is"}],"willContinue":true}}`, ""),
		GemChunk(last, extra),
	}
}

// OllChat is an /api/chat line whose message holds role and members.
func OllChat(members string) string {
	return `{"model":"qwen3:8b","created_at":"2025-09-18T09:12:03.418273514Z","message":{"role":"assistant"` + members + `},"done":false}`
}

// OllCall is an /api/chat line with one whole call.
func OllCall(id, index, name, args string) string {
	fn := `"name":` + name + `,"arguments":` + args
	if index != "" {
		fn = `"index":` + index + `,` + fn
	}
	entry := `{"function":{` + fn + `}}`
	if id != "" {
		entry = `{"id":"` + id + `","function":{` + fn + `}}`
	}
	return OllChat(`,"content":"","tool_calls":[` + entry + `]`)
}

// OllDone is the done:true line; members follow done.
func OllDone(members string) string {
	return `{"model":"qwen3:8b","created_at":"2025-09-18T09:12:04.290117408Z","message":{"role":"assistant","content":""},"done":true` + members +
		`,"total_duration":1873402115,"eval_count":71}`
}

// OllBase is a clean /api/chat stream: text (events 0, 1), a call (2),
// the done line (3) with done_reason length, so that no info finding
// rides along.
func OllBase() []string {
	return []string{
		OllChat(`,"content":"","thinking":"Checking."`),
		OllChat(`,"content":"One moment."`),
		OllCall("call_k2x7q9ma", "0", `"get_weather"`, `{"city":"Paris"}`),
		OllDone(`,"done_reason":"length"`),
	}
}

// NDJSON joins lines as Ollama writes them: each ended by "\n".
func NDJSON(lines []string) string { return strings.Join(lines, "\n") + "\n" }
