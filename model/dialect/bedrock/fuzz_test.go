package bedrock_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// bedrockFuzzTypes are the :event-types FuzzBedrock gives its messages.
var bedrockFuzzTypes = []string{"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata", "chunk", "exception"}

// FuzzBedrock runs fuzzed Bedrock payloads through the event stream
// framing and the Bedrock assembly. Byte mutations of a whole stream
// (FuzzAssemble) almost never keep a CRC sound, so here the fuzzer's
// payloads are encoded into sound messages: split at NUL, each piece is
// one message whose :event-type the next byte of types picks, sent bare
// (ConverseStream) or base64-wrapped in chunks (InvokeModel), and, with
// wrapNova, each piece as Nova's {"type": body} inside a chunk. It never
// panics, the events tile the stream, the batched path equals Add, every
// call's arguments as of any event are consistent, and the report
// marshals.
func FuzzBedrock(f *testing.F) {
	f.Add([]byte(`{"role":"assistant"}`+"\x00"+`{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t","name":"f"}}}`+"\x00"+
		`{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"a\":1}"}}}`+"\x00"+`{"contentBlockIndex":0}`+"\x00"+`{"stopReason":"tool_use"}`),
		[]byte{0, 1, 2, 3, 4}, uint8(0))
	f.Add([]byte(`{"type":"message_start","message":{"content":[]}}`+"\x00"+`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{"}}`+
		"\x00"+`{"outputText":"x","completionReason":"LENGTH"}`+"\x00"+`{"message":"boom"}`), []byte{6, 6, 6, 7}, uint8(0))
	f.Add([]byte(`{"contentBlockIndex":0,"delta":{"text":"hi"}}`+"\x00"+`{"stopReason":"max_tokens"}`), []byte{2, 4}, uint8(1))
	f.Fuzz(func(t *testing.T, payloads, types []byte, mode uint8) {
		var stream []byte
		for i, p := range bytes.Split(payloads, []byte{0}) {
			typ := bedrockFuzzTypes[0]
			if i < len(types) {
				typ = bedrockFuzzTypes[int(types[i])%len(bedrockFuzzTypes)]
			}
			switch {
			case typ == "exception":
				stream = append(stream, modeltest.ESException("modelStreamErrorException", p)...)
			case mode%3 == 1 && typ != "chunk":
				stream = append(stream, modeltest.ESChunk(`{"`+typ+`":`+string(p)+`}`)...)
			case mode%3 == 2 || typ == "chunk":
				stream = append(stream, modeltest.ESChunk(string(p))...)
			default:
				stream = append(stream, modeltest.ESMessage(typ, string(p))...)
			}
		}
		s := dialecttest.AssembleWithin(t, stream, model.Options{KeepEvents: true, Raw: bytes.NewReader(stream)})
		dialecttest.CheckTiling(t, s, stream)
		dialecttest.CheckArgsAsOf(t, s, len(stream))
		dialecttest.CheckOutputs(t, s)
		if _, err := json.Marshal(s.Report()); err != nil {
			t.Fatalf("json.Marshal(Report()) = %v", err)
		}
		for i := range s.Events.All() {
			ev := s.Events.At(i)
			s.Shape(ev, i, nil)
		}
		dialecttest.CheckSourcesAsOf(t, s)
		dialecttest.BatchMatchesAdd(t, stream, nil)
	})
}
