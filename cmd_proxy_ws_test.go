package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestProxyWebSocketPassesThrough: an upgrade reaches the upstream with the
// client's handshake headers (the extension offer aside), the 101 reaches
// the client, and every frame crosses byte for byte both ways: text,
// binary, ping/pong, a fragmented message with a ping between its
// fragments, 16-bit and 64-bit lengths, and the close handshake.
func TestProxyWebSocketPassesThrough(t *testing.T) {
	t.Parallel()
	up, peers := wsServer(t, []string{"echo.v1"}, echo)
	proxyURL, done, logs := startProxy(t, up.URL, nil)

	h := http.Header{}
	h.Set("Sec-WebSocket-Protocol", "chat.v2, echo.v1")
	h.Set("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits")
	h.Set("Origin", "http://example.test")
	c, resp := dialWS(t, proxyURL, "/v1/echo?x=1", h)
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d; want 101\n%s", resp.StatusCode, logs)
	}
	if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != "echo.v1" {
		t.Errorf("negotiated subprotocol %q; want echo.v1", got)
	}
	if got := resp.Header.Get("Sec-WebSocket-Extensions"); got != "" {
		t.Errorf("extensions negotiated through the proxy: %q; want none", got)
	}
	if resp.Header.Get("X-Upstream") != "yes" {
		t.Errorf("upstream header lost: %v", resp.Header)
	}
	s := <-peers
	for k, want := range map[string]string{"Sec-WebSocket-Key": c.key, "Sec-WebSocket-Version": "13", "Origin": "http://example.test"} {
		if got := s.header.Get(k); got != want {
			t.Errorf("upstream saw %s %q; want %q", k, got, want)
		}
	}
	if got := s.header.Get("Sec-WebSocket-Protocol"); got != "chat.v2, echo.v1" {
		t.Errorf("upstream saw Sec-WebSocket-Protocol %q", got)
	}
	if got := s.header.Get("Sec-WebSocket-Extensions"); got != "" {
		t.Errorf("upstream saw Sec-WebSocket-Extensions %q; want it removed", got)
	}

	big := bytes.Repeat([]byte("0123456789abcdef"), 70000/16+1)[:70001] // 127-length frame
	mid := bytes.Repeat([]byte{0xfe, 0x00, 0x7f}, 100)                  // 126-length frame
	type step struct {
		send [][]byte
		want []wsFrame
	}
	steps := []step{
		{[][]byte{c.frame(true, opText, []byte(`{"hello":"world"}`))}, []wsFrame{{fin: true, op: opText, payload: []byte(`{"hello":"world"}`)}}},
		{[][]byte{c.frame(true, opBinary, []byte{0, 1, 2, 255})}, []wsFrame{{fin: true, op: opBinary, payload: []byte{0, 1, 2, 255}}}},
		{[][]byte{c.frame(true, opPing, []byte("are you there"))}, []wsFrame{{fin: true, op: opPong, payload: []byte("are you there")}}},
		{
			[][]byte{c.frame(false, opText, []byte("frag-1 ")), c.frame(true, opPing, nil), c.frame(false, opCont, []byte("frag-2 ")), c.frame(true, opCont, []byte("frag-3"))},
			[]wsFrame{
				{op: opText, payload: []byte("frag-1 ")}, {fin: true, op: opPong, payload: []byte{}},
				{op: opCont, payload: []byte("frag-2 ")}, {fin: true, op: opCont, payload: []byte("frag-3")},
			},
		},
		{[][]byte{c.frame(true, opBinary, mid)}, []wsFrame{{fin: true, op: opBinary, payload: mid}}},
		{[][]byte{c.frame(true, opBinary, big)}, []wsFrame{{fin: true, op: opBinary, payload: big}}},
		{[][]byte{c.frame(true, opClose, closePayload(1000, "bye"))}, []wsFrame{{fin: true, op: opClose, payload: closePayload(1000, "bye")}}},
	}
	for i, st := range steps {
		c.send(t, st.send...)
		for j, want := range st.want {
			got := c.mustRead(t)
			if got.fin != want.fin || got.op != want.op || got.masked || !bytes.Equal(got.payload, want.payload) {
				t.Fatalf("step %d frame %d: fin %v op %#x masked %v %d bytes; want fin %v op %#x %d bytes",
					i, j, got.fin, got.op, got.masked, len(got.payload), want.fin, want.op, len(want.payload))
			}
		}
	}
	c.drain(t)
	sess := waitSession(t, done)
	if !bytes.Equal(s.received(), c.sentBytes()) {
		t.Errorf("client → upstream: upstream got %d bytes, client sent %d, or they differ", len(s.received()), len(c.sentBytes()))
	}
	if !bytes.Equal(c.received(), s.sentBytes()) {
		t.Errorf("upstream → client: client got %d bytes, upstream sent %d, or they differ", len(c.received()), len(s.sentBytes()))
	}
	if sess.status != http.StatusSwitchingProtocols {
		t.Errorf("session status %d; want 101", sess.status)
	}
	line := logs.String()
	for _, want := range []string{"GET /v1/echo?x=1 101", "outcome=closed", "close=1000", "close-by=client", "close-reason=bye"} {
		if !strings.Contains(line, want) {
			t.Errorf("log lacks %q:\n%s", want, line)
		}
	}
}

// TestProxyWebSocketResponses: a Responses session in WebSocket mode (two
// turns on one connection, a ping, a binary frame and a non-JSON text
// between events) is assembled like the same events over SSE, and logged
// with its status, model, dialect, calls, outcome and close.
func TestProxyWebSocketResponses(t *testing.T) {
	t.Parallel()
	up, _ := wsServer(t, nil, responsesWS(t))
	proxyURL, done, logs := startProxy(t, up.URL, nil)
	h := http.Header{}
	h.Set("Authorization", "Bearer sk-ws-secret")
	c, resp := dialWS(t, proxyURL, "/v1/responses", h)
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d; want 101", resp.StatusCode)
	}
	responsesTurns(t, c)
	sess := waitSession(t, done)

	got, want := sess.s.Report().Calls, wantCalls(t, "responses-parallel-calls", "responses-single-call")
	if len(got) != len(want) || len(got) != 3 {
		t.Fatalf("%d calls; want %d (3)", len(got), len(want))
	}
	for i := range got {
		if got[i].Name != want[i].Name || got[i].Arguments != want[i].Arguments || *got[i].ID != *want[i].ID || got[i].Status != want[i].Status {
			t.Errorf("call %d = %s(%s) %s; want %s(%s) %s", i, got[i].Name, got[i].Arguments, got[i].Status, want[i].Name, want[i].Arguments, want[i].Status)
		}
	}
	line := logs.String()
	for _, want := range []string{"#1 GET /v1/responses 101", "model=gpt-test", "dialect=openai-responses", "calls=3",
		"outcome=completed", "close=1000", "close-by=client", "close-reason=done"} {
		if !strings.Contains(line, want) {
			t.Errorf("log lacks %q:\n%s", want, line)
		}
	}
	if strings.Contains(line, "sk-ws-secret") {
		t.Errorf("log shows the key:\n%s", line)
	}
}
