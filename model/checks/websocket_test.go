package checks

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
)

// wsMsg is one message of a test WebSocket session.
type wsMsg struct {
	dir     capture.WSDir
	op      capture.WSOpcode
	payload string
}

// wsRecording renders messages as the proxy records a WebSocket session: a
// recording whose head is the 101 that switched protocols to upgrade, then
// each message's SSE block (capture.WSMessage.AppendSSE), timed. events
// says the connection carries Responses events, so that server text
// messages are written as data.
func wsRecording(t testing.TB, upgrade string, events bool, msgs []wsMsg) string {
	t.Helper()
	var buf bytes.Buffer
	x := &capture.Exchange{Method: "GET", URL: "https://api.openai.com/v1/responses", Proto: "HTTP/1.1",
		Status: http.StatusSwitchingProtocols, HeadAt: time.Millisecond,
		ResponseHeader: http.Header{"Upgrade": {upgrade}, "Connection": {"Upgrade"}}}
	rec := capture.NewRecorder(&buf, x, capture.RecordOptions{Format: capture.FormatSSE})
	var block []byte
	for i, m := range msgs {
		wm := capture.WSMessage{Dir: m.dir, Opcode: m.op, Payload: []byte(m.payload), Frames: 1}
		block = wm.AppendSSE(block[:0], events)
		if err := rec.Write(block, time.Duration(i+2)*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(time.Duration(len(msgs)+2) * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// revtJSON renders a Responses event as the JSON a WebSocket message
// carries (no event: line), numbered seq unless it says otherwise.
func revtJSON(e revt, seq int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":%q`, e.Typ)
	switch e.Seq {
	case "":
		fmt.Fprintf(&b, `,"sequence_number":%d`, seq)
	case "-":
	default:
		b.WriteString(`,"sequence_number":` + e.Seq)
	}
	if e.Body != "" {
		b.WriteString("," + e.Body)
	}
	return b.String() + "}"
}

// wsTurn is one turn of a Responses WebSocket session: the client's
// response.create (declaring the get_weather the base stream calls), then
// the server's events, numbered from 0.
func wsTurn(evs []revt) []wsMsg {
	create := `{"type":"response.create","model":"gpt-test","input":"weather?","tools":[` + respFn("get_weather", cityOnly, false) + `]}`
	out := []wsMsg{{capture.WSClient, capture.WSText, create}}
	for i, e := range evs {
		out = append(out, wsMsg{capture.WSServer, capture.WSText, revtJSON(e, i)})
	}
	return out
}

// secondResponse is respBase for a second response: resp_2, with call
// fc_2/call_2.
func secondResponse() []revt {
	e := respBase()
	r := strings.NewReplacer(`"resp_1"`, `"resp_2"`, `"fc_1"`, `"fc_2"`, `"call_1"`, `"call_2"`)
	for i := range e {
		e[i].Body = r.Replace(e[i].Body)
	}
	return e
}

// wsSession joins turns and closes the connection from the client.
func wsSession(turns ...[]wsMsg) []wsMsg {
	var out []wsMsg
	for _, t := range turns {
		out = append(out, t...)
	}
	return append(out,
		wsMsg{capture.WSClient, capture.WSClose, "\x03\xe8done"},
		wsMsg{capture.WSServer, capture.WSClose, "\x03\xe8done"})
}

// TestWebSocketTurns: on a Responses WebSocket one connection carries one
// response per response.create, so a response.created after a terminal
// event starts the next response. Each response is still judged on its
// own, and the same events as one SSE stream still repeat the terminal.
func TestWebSocketTurns(t *testing.T) {
	t.Parallel()
	twoTurns := wsRecording(t, "websocket", true, wsSession(wsTurn(respBase()), wsTurn(secondResponse())))
	rep := CheckBytes([]byte(twoTurns), capture.FormatAuto, Strict)
	for _, f := range rep.Findings {
		if f.Severity >= Warning {
			t.Errorf("two turns: %s %s %v: %s", f.Severity, f.Rule, f.Events, f.Message)
		}
	}
	if rep.Outcome.State != "completed" {
		t.Errorf("two turns: outcome %+v; want completed", rep.Outcome)
	}

	sse := CheckBytes([]byte(respSSE(append(respBase(), secondResponse()...))), capture.FormatAuto, Strict)
	for _, rule := range []string{"responses/terminal-repeated", "responses/events-after-terminal"} {
		if len(findings(sse, rule)) == 0 {
			t.Errorf("two responses in one SSE stream: no %s; got %v", rule, sse.Findings)
		}
	}
}

// TestWebSocketTurnRules: the rules about one response's end still hold
// for each response on a WebSocket. Events are numbered as the recording
// frames them: 0 is the head, then one event per message.
func TestWebSocketTurnRules(t *testing.T) {
	t.Parallel()
	first := wsTurn(respBase())        // events 1 (response.create) and 2–9
	second := wsTurn(secondResponse()) // then 10 (response.create) and 11–18
	tests := []struct {
		name   string
		msgs   []wsMsg
		rule   string
		events []int // nil: the rule must not fire
	}{
		{"first turn cut short", wsSession(first[:8], second), "responses/no-terminal", []int{2, 8}},
		{"last turn cut short", wsSession(first, second[:8]), "responses/no-terminal", []int{11, 17}},
		{"a terminal repeated", wsSession(first, first[len(first)-1:], second), "responses/terminal-repeated", []int{9, 10}},
		{"an event between turns", wsSession(first, []wsMsg{{capture.WSServer, capture.WSText, `{"type":"keepalive","sequence_number":8}`}}, second),
			"responses/events-after-terminal", []int{9, 10}},
		{"an error answers a turn", wsSession(first, []wsMsg{
			{capture.WSClient, capture.WSText, `{"type":"response.create","previous_response_id":"resp_0"}`},
			{capture.WSServer, capture.WSText, `{"type":"error","sequence_number":0,"error":{"type":"invalid_request_error","code":"previous_response_not_found","message":"not found"}}`},
		}, second), "responses/events-after-terminal", nil},
		{"a turn ends in an error", wsSession(first[:6], []wsMsg{
			{capture.WSServer, capture.WSText, `{"type":"error","sequence_number":5,"error":{"type":"server_error","code":"server_error","message":"boom"}}`},
		}, second), "responses/no-terminal", nil},
		{"the turn after an error starts with response.created", wsSession(first[:6], []wsMsg{
			{capture.WSServer, capture.WSText, `{"type":"error","sequence_number":5,"error":{"type":"server_error","code":"server_error","message":"boom"}}`},
		}, second), "responses/first-not-created", nil},
		{"two clean turns", wsSession(first, second), "responses/terminal-repeated", nil},
		{"two clean turns, nothing after a terminal", wsSession(first, second), "responses/events-after-terminal", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := CheckBytes([]byte(wsRecording(t, "websocket", true, tc.msgs)), capture.FormatAuto, Strict)
			got := findings(rep, tc.rule)
			switch {
			case tc.events == nil && len(got) > 0:
				t.Errorf("%s: %v; want none", tc.rule, got)
			case tc.events != nil && len(got) != 1:
				t.Errorf("%s: %v; want one finding at %v (all: %v)", tc.rule, got, tc.events, rep.Findings)
			case tc.events != nil && !slices.Equal(got[0].Events, tc.events):
				t.Errorf("%s events %v; want %v: %s", tc.rule, got[0].Events, tc.events, got[0].Message)
			}
		})
	}
}

// TestWebSocketWithoutEvents: a WebSocket that carries no Responses
// events (its messages are all comments), or a switch to another protocol
// (no messages at all), is not a stream without data: the session ended
// closed.
func TestWebSocketWithoutEvents(t *testing.T) {
	t.Parallel()
	echo := wsRecording(t, "websocket", false, wsSession([]wsMsg{
		{capture.WSClient, capture.WSText, "hello"},
		{capture.WSServer, capture.WSText, "hello"},
		{capture.WSServer, capture.WSPing, "hb"},
		{capture.WSClient, capture.WSPong, "hb"},
	}))
	other := wsRecording(t, "h2c", false, nil)
	for name, rec := range map[string]string{"echo": echo, "another protocol": other} {
		rep := CheckBytes([]byte(rec), capture.FormatAuto, Strict)
		if len(rep.Findings) > 0 {
			t.Errorf("%s: findings %v; want none", name, rep.Findings)
		}
		if rep.Outcome.State != "closed" {
			t.Errorf("%s: outcome %+v; want closed", name, rep.Outcome)
		}
	}
	// The same messages read as a plain stream still carry no data.
	plain := strings.SplitN(echo, "\n\n", 2)[1]
	if rep := CheckBytes([]byte(plain), capture.FormatAuto, Strict); len(findings(rep, fNoData)) == 0 {
		t.Errorf("the messages without the 101 head: %v; want %s", rep.Findings, fNoData)
	}
}
