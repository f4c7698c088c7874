package model

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// wsHead is the header block of a recorded WebSocket session.
const wsHead = capture.RecordingMagic + "\n: request GET https://api.openai.com/v1/responses\n" +
	": response HTTP/1.1 101 Switching Protocols\n: response-header Upgrade: websocket\n\n"

// wsEvents writes JSON payloads as the proxy writes a Responses
// WebSocket's server messages: data, then the message's comment line.
func wsEvents(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n: ws server text\n\n")
	}
	return b.String()
}

// TestUpgradedOutcome: a session whose head switched protocols carries
// response after response; its outcome is the last one's, an error that
// answered an earlier request aside, and one with no response at all
// ended closed. A plain stream with the same events keeps its error.
func TestUpgradedOutcome(t *testing.T) {
	t.Parallel()
	refused := wsEvents(`{"type":"error","sequence_number":0,"error":{"code":"previous_response_not_found","message":"no"}}`)
	turn := wsEvents(`{"type":"response.created","sequence_number":0,"response":{"id":"resp_2","status":"in_progress"}}`,
		`{"type":"response.completed","sequence_number":1,"response":{"id":"resp_2","status":"completed","output":[]}}`)
	tests := []struct {
		name, in, state string
		upgraded        bool
	}{
		{"refused, then a turn", wsHead + refused + turn, "completed", true},
		{"a turn, then refused", wsHead + turn + refused, "error", true},
		{"the same as a plain stream", refused + turn, "error", false},
		{"comments only", wsHead + ": ws client text utf8 hello\n\n: ws server text utf8 hello\n\n", "closed", true},
		{"no message", wsHead, "closed", true},
		{"a plain stream of comments", ": ws client text utf8 hello\n\n", "truncated", false},
	}
	for _, tc := range tests {
		s := Assemble([]byte(tc.in), capture.FormatAuto, Options{})
		if o := s.Outcome(); o.State != tc.state || s.Upgraded() != tc.upgraded {
			t.Errorf("%s: outcome %+v, upgraded %v; want %s, %v", tc.name, o, s.Upgraded(), tc.state, tc.upgraded)
		}
	}
}
