package model

import (
	"encoding/base64"
	"strconv"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// esMessage is one Bedrock event stream message of :event-type typ.
func esMessage(typ, payload string) []byte {
	return capture.AppendEventStream(nil, []capture.Field{
		{Name: []byte(":event-type"), Value: []byte(typ)},
		{Name: []byte(":content-type"), Value: []byte("application/json")},
		{Name: []byte(":message-type"), Value: []byte("event")},
	}, []byte(payload))
}

// esChunk is an InvokeModel chunk wrapping inner.
func esChunk(inner string) []byte {
	return esMessage("chunk", `{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(inner))+`"}`)
}

// esException is an exception message carrying payload.
func esException(typ string, payload []byte) []byte {
	return capture.AppendEventStream(nil, []capture.Field{
		{Name: []byte(":exception-type"), Value: []byte(typ)},
		{Name: []byte(":content-type"), Value: []byte("application/json")},
		{Name: []byte(":message-type"), Value: []byte("exception")},
	}, payload)
}

// TestExplainEveryBedrockType: every event type, start union and delta
// member the Bedrock handlers know has its explanation, found as
// TestExplainEveryKnownType finds the SSE dialects' (an SSE probe never
// reaches them: they claim only event stream messages): every string of
// the source is offered as an :event-type, as the type of an Anthropic or
// the member of a Nova event inside an InvokeModel chunk, and as the
// member of a Converse start or delta.
func TestExplainEveryBedrockType(t *testing.T) {
	t.Parallel() // reads only its own inputs
	claimed := map[string]bool{}
	for _, lit := range sourceLiterals(t) {
		q := strconv.Quote(lit)
		streams := [][]byte{
			append(esMessage("messageStart", `{}`), esMessage(lit, `{"contentBlockIndex":0}`)...),
			append(esMessage("messageStart", `{}`), esMessage("contentBlockStart", `{"contentBlockIndex":0,"start":{`+q+`:{}}}`)...),
			append(esMessage("messageStart", `{}`), esMessage("contentBlockDelta", `{"contentBlockIndex":0,"delta":{`+q+`:"x"}}`)...),
			esChunk(`{"type":` + q + `}`),
			esChunk(`{` + q + `:{}}`),
			esChunk(`{` + q + `:"x"}`),
		}
		for _, data := range streams {
			s, evs := shapeStream(data, capture.FormatAuto)
			ev := evs[len(evs)-1]
			if ev.ev.Dialect == DialectUnknown || ev.ev.Kind == KindUnknown || ev.ev.Flags&(NonStandard|DecodeError) != 0 {
				continue
			}
			claimed[s.TypeName(ev.ev.Type)] = true
			for _, sh := range []Shape{ev.withData, ev.bare} {
				if _, ok := Explain(sh); !ok {
					t.Errorf("%q (%s %s %s): no explanation for shape %v", lit, ev.ev.Dialect, ev.ev.Kind, s.TypeName(ev.ev.Type), sh)
				}
			}
		}
	}
	for _, typ := range []string{"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop",
		"metadata", "message_start", "content_block_delta", "chunk"} {
		if !claimed[typ] {
			t.Errorf("the probe did not find %q among the Bedrock handlers' types", typ)
		}
	}
}

// TestShapeBedrock names the shapes of the text families' chunks, a
// guardrail's and an exception, from their data and from the session
// alone (TestShape names the Bedrock samples' events).
func TestShapeBedrock(t *testing.T) {
	titan := func(body string) []byte { return esChunk(body) }
	stream := append(append(titan(`{"outputText":"Hel","index":0}`), titan(`{"outputText":"lo","index":0,"completionReason":"FINISH","amazon-bedrock-invocationMetrics":{}}`)...),
		titan(`{"outputText":"Input blocked","amazon-bedrock-guardrailAction":"INTERVENED"}`)...)
	stream = append(stream, capture.AppendEventStream(nil, []capture.Field{
		{Name: []byte(":exception-type"), Value: []byte("throttlingException")},
		{Name: []byte(":message-type"), Value: []byte("exception")},
	}, []byte(`{"message":"slow down"}`))...)
	_, evs := shapeStream(stream, capture.FormatAuto)
	for i, want := range []string{"chunk/text", "chunk/end", "chunk/guardrail", "exception"} {
		if e := evs[i]; e.withData.String() != want || e.bare.String() != want {
			t.Errorf("chunk %d: Shape = %v (from data), %v (bare); want %s", i, e.withData, e.bare, want)
		}
	}
}

// The fuzz targets' seeds (dialectSeeds) take Bedrock streams too: Nova
// and Titan inside InvokeModel chunks, a damaged message, an exception,
// a chunk whose bytes is no base64.
func init() {
	join := func(parts ...[]byte) string {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return string(b)
	}
	bad := esMessage("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"lost"}}`)
	bad[len(bad)-6] ^= 1
	dialectSeeds = append(dialectSeeds,
		join(esMessage("messageStart", `{"role":"assistant"}`),
			esMessage("contentBlockStart", `{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}}`),
			esMessage("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"a\":"}}}`),
			bad,
			esMessage("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"hi"}}`),
			esMessage("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"text":"wrong block"}}`),
			esMessage("contentBlockDelta", `{"contentBlockIndex":2,"delta":{"reasoningContent":{"signature":"sig"}}}`),
			esException("throttlingException", []byte(`{"message":"slow"}`))),
		join(esChunk(`{"messageStart":{"role":"assistant"}}`),
			esChunk(`{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"x\":1}"}}}}`),
			esChunk(`{"outputText":"Hi","completionReason":null}`),
			esMessage("chunk", `{"bytes":"!!"}`),
			esChunk(`{"generation":"there","stop_reason":"length","amazon-bedrock-invocationMetrics":{}}`)),
	)
}
