package bedrock

import (
	"encoding/base64"
	"encoding/json"
	"testing"
)

// TestInvokeChunkShapes: chunkShape takes the shapes Bedrock sends and
// leaves near misses to the validator (a line break or an escape in the
// base64, padding of other characters, whitespace, more members). The
// core's TestWrappedChunks checks that what it takes reads as the
// validator would have read it.
func TestInvokeChunkShapes(t *testing.T) {
	inner := base64.StdEncoding.EncodeToString([]byte(`{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[]}}`))
	half := len(inner) / 2
	for _, tt := range []struct {
		payload string
		fast    bool // chunkShape takes it: the shape, whose decoding decides
	}{
		{`{"bytes":"` + inner + `"}`, true},
		{`{"bytes":"` + inner + `","p":"abcXYZ019"}`, true},
		{`{"bytes":"` + inner + `","p":""}`, true},
		{`{"bytes":"` + inner[:half] + "\n" + inner[half:] + `"}`, true},    // the shape; invalid JSON, which StdEncoding would decode, decodeBase64 refuses
		{`{"bytes":"` + inner[:half] + "\\/" + inner[half+1:] + `"}`, true}, // the shape, but an escape fails the decoding: the validator and Unquote
		{`{"bytes":"` + inner + `","p":"a-b ~"}`, true},
		{`{"bytes":"` + inner + `","p":"a\u0001"}`, false},
		{`{"bytes":"` + inner + `","p":"a"b"}`, false},
		{`{"bytes":"` + inner + `","p":"a\\"}`, false},
		{`{"bytes":"` + inner + `","p":"Zürich"}`, false},
		{`{ "bytes":"` + inner + `"}`, false},
		{`{"bytes":"` + inner + `"} `, false},
		{`{"bytes":"` + inner + `","p":"ab","q":1}`, false},
		{`{"bytes":"` + inner + `"`, false},
		{`{"bytes":"not base64!"}`, true}, // the shape; its decoding fails, and the validator takes it
	} {
		if _, ok := chunkShape([]byte(tt.payload)); ok != tt.fast {
			t.Errorf("chunkShape(%.40q…) = %v; want %v", tt.payload, ok, tt.fast)
		}
	}
}

// FuzzChunkShape: a payload taken in the usual shape whose base64
// decodes is valid JSON, whatever its bytes: the promise that lets the
// validator skip it.
func FuzzChunkShape(f *testing.F) {
	inner := base64.StdEncoding.EncodeToString([]byte(`{"type":"ping"}`))
	for _, s := range []string{`{"bytes":"` + inner + `"}`, `{"bytes":"` + inner + `","p":"abcdefgh123"}`, `{"bytes":"` + inner + `","p":"ab\"c"}`,
		`{"bytes":"` + inner + `","p":"\u007f\u00e9"}`, `{"bytes":"QQ==","p":"` + "\x1f" + `"}`, `{"bytes":""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		b64, ok := chunkShape(payload)
		if !ok {
			return
		}
		if _, ok := decodeBase64(nil, b64); ok && !json.Valid(payload) {
			t.Fatalf("%q: taken in the usual shape and decoded, yet not JSON", payload)
		}
	})
}
