package model_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// TestPathArgsQuoteLikeEncodingJSON holds the arguments rebuilt from
// Gemini's partialArgs to what encoding/json writes for the same value
// (HTML escaping off) with jsonscan.AppendSafe's escapes: the project has
// one JSON string quoter, jsonscan.AppendQuote, and rebuilt arguments use
// it too, so that U+2028, U+2029, \b, \f, DEL, C1 controls and bidi runes
// are escaped alike in every report.
func TestPathArgsQuoteLikeEncodingJSON(t *testing.T) {
	value := "line\u2028para\u2029bell\bform\f<tag>&\"q\"\\ \x01 ünï \u009b\x7f\u202e"
	key := "k\u2028ey"
	data, _ := json.Marshal(map[string]any{"functionCall": map[string]any{
		"partialArgs":  []any{map[string]any{"jsonPath": "$['" + key + "']", "stringValue": value}},
		"willContinue": true,
	}})
	in := sse(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[`+string(data)+`]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`)
	it := onlyCall(t, assemble(t, in))
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]string{key: value}); err != nil {
		t.Fatal(err)
	}
	if got := it.FinalArgs(); got != string(jsonscan.AppendSafe(nil, bytes.TrimSuffix(want.Bytes(), []byte("\n")))) {
		t.Errorf("rebuilt arguments = %q;\nencoding/json writes %q", got, want.Bytes())
	}
}
