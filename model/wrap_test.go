package model_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// TestWrappedChunks: a Bedrock InvokeModel chunk payload the Batch
// validates by decoding it (Wrapper.UnwrapShaped) reads as the validator
// would have read it: the same events, flags and calls as Add gives, for
// the shapes Bedrock sends and for near misses the validator must judge
// (a line break or an escape in the base64, padding of other characters,
// whitespace, more members). The bedrock package's TestInvokeChunkShapes
// says which are which.
func TestWrappedChunks(t *testing.T) {
	inner := base64.StdEncoding.EncodeToString([]byte(`{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[]}}`))
	half := len(inner) / 2
	for _, payload := range []string{
		`{"bytes":"` + inner + `"}`,
		`{"bytes":"` + inner + `","p":"abcXYZ019"}`,
		`{"bytes":"` + inner + `","p":""}`,
		`{"bytes":"` + inner[:half] + "\n" + inner[half:] + `"}`,
		`{"bytes":"` + inner[:half] + "\\/" + inner[half+1:] + `"}`,
		`{"bytes":"` + inner + `","p":"a-b ~"}`,
		`{"bytes":"` + inner + `","p":"a\u0001"}`,
		`{"bytes":"` + inner + `","p":"a"b"}`,
		`{"bytes":"` + inner + `","p":"a\\"}`,
		`{"bytes":"` + inner + `","p":"Zürich"}`,
		`{ "bytes":"` + inner + `"}`,
		`{"bytes":"` + inner + `"} `,
		`{"bytes":"` + inner + `","p":"ab","q":1}`,
		`{"bytes":"` + inner + `"`,
		`{"bytes":"not base64!"}`,
	} {
		stream := capture.AppendEventStream(nil, []capture.Field{
			{Name: []byte(":event-type"), Value: []byte("chunk")},
			{Name: []byte(":message-type"), Value: []byte("event")},
		}, []byte(payload))
		dialecttest.BatchMatchesAdd(t, stream, model.HoldsBatch)
		// What the validator says of the payload is what the event says.
		ev := model.Assemble(stream, capture.FormatAuto, model.Options{KeepEvents: true}).Events.At(0)
		if invalid := ev.Flags&model.DecodeError != 0; invalid == json.Valid([]byte(payload)) {
			t.Errorf("payload %.40q…: decode error %v; json.Valid says %v", payload, invalid, !invalid)
		}
	}
	sse, _ := modeltest.GenStream("anthropic", 64<<10)
	dialecttest.BatchMatchesAdd(t, modeltest.InvokeOf(sse), model.HoldsBatch)
}
