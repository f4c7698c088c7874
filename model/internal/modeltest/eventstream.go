package modeltest

import (
	"bytes"
	"encoding/base64"

	"github.com/streamtap/streamtap/capture"
)

// ESMessage is one AWS event stream message of :event-type typ, as
// Bedrock's ConverseStream sends its events.
func ESMessage(typ, payload string) []byte {
	return capture.AppendEventStream(nil, []capture.Field{
		{Name: []byte(":event-type"), Value: []byte(typ)},
		{Name: []byte(":content-type"), Value: []byte("application/json")},
		{Name: []byte(":message-type"), Value: []byte("event")},
	}, []byte(payload))
}

// ESChunk is an InvokeModel chunk wrapping inner (base64 in its bytes).
func ESChunk(inner string) []byte {
	return ESMessage("chunk", `{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(inner))+`"}`)
}

// ESException is an exception message of :exception-type typ carrying
// payload.
func ESException(typ string, payload []byte) []byte {
	return capture.AppendEventStream(nil, []capture.Field{
		{Name: []byte(":exception-type"), Value: []byte(typ)},
		{Name: []byte(":content-type"), Value: []byte("application/json")},
		{Name: []byte(":message-type"), Value: []byte("exception")},
	}, payload)
}

// InvokeOf wraps each data event of an Anthropic SSE stream (pings
// aside: Bedrock sends none) in an InvokeModel chunk, with the random
// padding Bedrock adds to every payload.
func InvokeOf(sse []byte) []byte {
	const pad = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123"
	headers := []capture.Field{
		{Name: []byte(":event-type"), Value: []byte("chunk")},
		{Name: []byte(":content-type"), Value: []byte("application/json")},
		{Name: []byte(":message-type"), Value: []byte("event")},
	}
	var out, payload []byte
	n := 0
	for block := range bytes.SplitSeq(sse, []byte("\n\n")) {
		_, data, ok := bytes.Cut(block, []byte("data: "))
		if !ok || bytes.Contains(data, []byte(`"ping"`)) {
			continue
		}
		n++
		payload = append(payload[:0], `{"bytes":"`...)
		payload = base64.StdEncoding.AppendEncode(payload, data)
		payload = append(payload, `","p":"`...)
		payload = append(payload, pad[:1+n*7%len(pad)]...)
		payload = append(payload, `"}`...)
		out = capture.AppendEventStream(out, headers, payload)
	}
	return out
}

// BedrockSeeds are Bedrock streams for the fuzz targets' seeds: Nova and
// Titan inside InvokeModel chunks, a damaged message, an exception, a
// chunk whose bytes is no base64.
func BedrockSeeds() []string {
	join := func(parts ...[]byte) string {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return string(b)
	}
	bad := ESMessage("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"lost"}}`)
	bad[len(bad)-6] ^= 1
	return []string{
		join(ESMessage("messageStart", `{"role":"assistant"}`),
			ESMessage("contentBlockStart", `{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}}`),
			ESMessage("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"a\":"}}}`),
			bad,
			ESMessage("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"hi"}}`),
			ESMessage("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"text":"wrong block"}}`),
			ESMessage("contentBlockDelta", `{"contentBlockIndex":2,"delta":{"reasoningContent":{"signature":"sig"}}}`),
			ESException("throttlingException", []byte(`{"message":"slow"}`))),
		join(ESChunk(`{"messageStart":{"role":"assistant"}}`),
			ESChunk(`{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"x\":1}"}}}}`),
			ESChunk(`{"outputText":"Hi","completionReason":null}`),
			ESMessage("chunk", `{"bytes":"!!"}`),
			ESChunk(`{"generation":"there","stop_reason":"length","amazon-bedrock-invocationMetrics":{}}`)),
	}
}

// ESEvent is ESMessage as a string, for the checks' cases.
func ESEvent(typ, payload string) string { return string(ESMessage(typ, payload)) }

// InvokeChunk is an InvokeModel chunk wrapping inner, with padding.
func InvokeChunk(inner string) string {
	return ESEvent("chunk", `{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(inner))+`","p":"abc"}`)
}

// ConvBase is a sound ConverseStream: a text block with no start, then a
// tool call; event i is element i.
func ConvBase() []string {
	return []string{
		ESEvent("messageStart", `{"p":"abc","role":"assistant"}`),
		ESEvent("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Let me check."},"p":"ab"}`),
		ESEvent("contentBlockStop", `{"contentBlockIndex":0,"p":"abcd"}`),
		ESEvent("contentBlockStart", `{"contentBlockIndex":1,"p":"a","start":{"toolUse":{"name":"get_weather","toolUseId":"tooluse_1"}}}`),
		ESEvent("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":""}},"p":"abc"}`),
		ESEvent("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"city\":"}},"p":"ab"}`),
		ESEvent("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"\"Paris\"}"}},"p":"a"}`),
		ESEvent("contentBlockStop", `{"contentBlockIndex":1,"p":"abcdef"}`),
		ESEvent("messageStop", `{"p":"ab","stopReason":"tool_use"}`),
		ESEvent("metadata", `{"metrics":{"latencyMs":420},"p":"abc","usage":{"inputTokens":40,"outputTokens":20,"totalTokens":60}}`),
	}
}

// InvokeAnthropic is a sound InvokeModel stream of Claude: Anthropic
// Messages events in chunks, the call's input in the fragments given.
func InvokeAnthropic(input ...string) []string {
	out := []string{
		InvokeChunk(`{"type":"message_start","message":{"id":"msg_bdrk_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`),
		InvokeChunk(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`),
	}
	for _, p := range input {
		out = append(out, InvokeChunk(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+p+`}}`))
	}
	return append(out,
		InvokeChunk(`{"type":"content_block_stop","index":0}`),
		InvokeChunk(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":15}}`),
		InvokeChunk(`{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":10,"outputTokenCount":15}}`))
}

// ESExceptionOf is an exception message of :exception-type typ whose
// payload carries message, as a string for the checks' cases.
func ESExceptionOf(typ, message string) string {
	return string(ESException(typ, []byte(`{"message":"`+message+`"}`)))
}

// WithEvent returns events with element i replaced by repl (none:
// removed).
func WithEvent(events []string, i int, repl ...string) []string {
	out := append([]string(nil), events[:i]...)
	out = append(out, repl...)
	return append(out, events[i+1:]...)
}

// FlipByte is msg with the byte at at changed (a damaged message).
func FlipByte(msg string, at int) string {
	b := []byte(msg)
	b[at] ^= 0x20
	return string(b)
}
