package main

import (
	"bufio"
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui"
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

// TestProxyWebSocketRecording: --record writes a WebSocket session as a
// timed recording that streamtap reads back to the same calls, with every
// message kept: the client's and the control frames as comments, the
// non-JSON text as a flagged event. The path is not a Responses one: the
// first response.create tells it is.
func TestProxyWebSocketRecording(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	up, _ := wsServer(t, nil, responsesWS(t))
	proxyURL, done, _ := startProxy(t, up.URL, func(o *proxyOptions) { o.record = dir })
	h := http.Header{}
	h.Set("Authorization", "Bearer sk-ws-secret")
	c, _ := dialWS(t, proxyURL, "/gateway/ws", h)
	responsesTurns(t, c)
	sess := waitSession(t, done)
	if sess.recPath == "" {
		t.Fatal("no recording")
	}
	data, err := os.ReadFile(sess.recPath)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := capture.ParseRecording(data)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != http.StatusSwitchingProtocols || rec.Method != "GET" || rec.RequestHeader.Get("Authorization") != capture.Redacted ||
		rec.RequestHeader.Get("Sec-WebSocket-Key") != c.key || !strings.EqualFold(rec.ResponseHeader.Get("Upgrade"), "websocket") {
		t.Errorf("recorded exchange: %s %s %d, headers %v → %v", rec.Method, rec.URL, rec.Status, rec.RequestHeader, rec.ResponseHeader)
	}
	if bytes.Contains(data, []byte("sk-ws-secret")) {
		t.Error("the recording holds the key")
	}

	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"calls", "--json", sess.recPath}, nil, &out, &errb); code != 0 {
		t.Fatalf("calls --json = %d: %s", code, errb.String())
	}
	var rep model.CallsReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	want := wantCalls(t, "responses-parallel-calls", "responses-single-call")
	if len(rep.Calls) != len(want) {
		t.Fatalf("the recording gives %d calls; want %d", len(rep.Calls), len(want))
	}
	for i := range want {
		if rep.Calls[i].Name != want[i].Name || rep.Calls[i].Arguments != want[i].Arguments {
			t.Errorf("call %d = %s(%s); want %s(%s)", i, rep.Calls[i].Name, rep.Calls[i].Arguments, want[i].Name, want[i].Arguments)
		}
	}

	out.Reset()
	if code := run(context.Background(), []string{"events", sess.recPath}, nil, &out, &errb); code != 0 {
		t.Fatalf("events = %d: %s", code, errb.String())
	}
	var lines []ui.EventLine
	for l := range bytes.Lines(out.Bytes()) {
		var e ui.EventLine
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		lines = append(lines, e)
	}
	comment := func(prefix string) int {
		n := 0
		for _, e := range lines {
			if e.Comment != nil && strings.HasPrefix(*e.Comment, prefix) {
				n++
			}
		}
		return n
	}
	for prefix, n := range map[string]int{
		`: ws client text utf8 {"type":"response.create"`: 2, ": ws server ping utf8 hb": 2, ": ws client pong utf8 hb": 2,
		": ws server binary base64 3q2+7w==": 2, ": ws client close code=1000 utf8 done": 1, ": ws server close code=1000 utf8 done": 1,
	} {
		if got := comment(prefix); got != n {
			t.Errorf("%d comments %q; want %d", got, prefix, n)
		}
	}
	invalid, timed := 0, 0
	for _, e := range lines {
		if e.Text != nil && *e.Text == extraText && slices.Contains(e.Flags, "invalid-json") {
			invalid++
		}
		if e.Time != nil {
			timed++
		}
	}
	if invalid != 2 || timed != len(lines) {
		t.Errorf("%d flagged non-JSON events (want 2), %d of %d events timed", invalid, timed, len(lines))
	}
	if lines[0].Status != http.StatusSwitchingProtocols {
		t.Errorf("first event %+v; want the 101 head", lines[0])
	}

	out.Reset()
	if code := run(context.Background(), []string{sess.recPath}, nil, &out, &errb); code != 0 {
		t.Fatalf("streamtap FILE = %d: %s", code, errb.String())
	}
	for _, want := range []string{"HTTP/1.1 101", `comment "ws client text utf8`, "response.completed", "completed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the timeline lacks %q:\n%s", want, out.String())
		}
	}
}

// TestProxyWebSocketSessionsList: WebSocket sessions reach the sessions
// list like streams: a Responses one with status 101, its dialect, calls
// and outcome, and its first response.create in the request pane; one
// that carries no Responses events as closed with its close code.
func TestProxyWebSocketSessionsList(t *testing.T) {
	t.Parallel()
	answer := responsesWS(t)
	up, _ := wsServer(t, nil, func(p *wsPeer) {
		if p.path == "/echo" {
			echo(p)
			return
		}
		answer(p)
	})
	type batch struct {
		msg   tea.Msg
		ended bool
	}
	msgs := make(chan batch, 64)
	m := ui.NewSessions(ui.Options{Source: "proxy test", NewSession: newUISession})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	u, _ := url.Parse(up.URL)
	p := newProxy(proxyOptions{upstream: u, headTimeout: defaultHeadTimeout}, io.Discard)
	p.feed = newProxyFeed(func(b []ui.SessionUpdate) {
		ended := slices.ContainsFunc(b, func(u ui.SessionUpdate) bool { return u.Ended })
		msgs <- batch{ui.Sessions(b), ended}
	})
	t.Cleanup(p.feed.abort)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	for _, path := range []string{"/v1/responses", "/echo"} {
		h := http.Header{}
		h.Set("Authorization", "Bearer sk-ws-secret")
		c, _ := dialWS(t, srv.URL, path, h)
		if path == "/echo" {
			c.send(t, c.frame(true, opText, []byte("hi")), c.frame(true, opClose, closePayload(4001, "app done")))
			c.drain(t)
		} else {
			responsesTurns(t, c)
		}
		deadline := time.After(10 * time.Second)
		for ended := false; !ended; {
			select {
			case b := <-msgs:
				m.Update(b.msg)
				ended = b.ended
			case <-deadline:
				t.Fatalf("the session did not end:\n%s", ansi.Strip(m.View().Content))
			}
		}
	}
	v := ansi.Strip(m.View().Content)
	rows := strings.Split(v, "\n")
	var resp, closed string
	for _, r := range rows {
		switch {
		case strings.Contains(r, "✓ completed"):
			resp = r
		case strings.Contains(r, "closed 4001"):
			closed = r
		}
	}
	for _, want := range []string{"GET", "/v1/responses", "101", "gpt-test", "responses", " 3 "} {
		if !strings.Contains(resp, want) {
			t.Errorf("the Responses row lacks %q: %q\n%s", want, resp, v)
		}
	}
	// # method path st dialect dur ttfb tfe calls …: messages, but no
	// events, so no first event and no calls.
	if f := strings.Fields(closed); len(f) < 12 || f[3] != "101" || f[7] != "-" || f[8] != "0" {
		t.Errorf("the echo row %q should show 101, no first event, no calls, closed 4001:\n%s", closed, v)
	}

	m.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	m.Update(tea.KeyPressMsg{Code: '3', Text: "3"})
	v = ansi.Strip(m.View().Content)
	for _, want := range []string{"get_weather", "get_local_time", "ended: completed"} {
		if !strings.Contains(v, want) {
			t.Errorf("the opened session lacks %q:\n%s", want, v)
		}
	}
	m.Update(tea.KeyPressMsg{Code: '6', Text: "6"})
	m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	v = ansi.Strip(m.View().Content)
	if !strings.Contains(v, "tools declared (2)") || !strings.Contains(v, "Authorization: [redacted]") || strings.Contains(v, "sk-ws-secret") {
		t.Errorf("the request pane should show the first response.create's tools and the key redacted:\n%s", v)
	}
}

// TestProxyWebSocketCompressedFrame: a server that compresses although no
// extension was negotiated gets its frame through unchanged; the session
// keeps the payload as sent, marked rsv=1, and assembles nothing from it.
func TestProxyWebSocketCompressedFrame(t *testing.T) {
	t.Parallel()
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, flate.BestSpeed)
	fw.Write([]byte(`{"type":"response.created","response":{"id":"resp_z"}}`))
	fw.Flush()
	deflated := bytes.TrimSuffix(z.Bytes(), []byte{0, 0, 0xff, 0xff}) // RFC 7692 §7.2.1
	frame := wsEncode(true, 4, opText, deflated, nil)
	up, _ := wsServer(t, nil, func(p *wsPeer) {
		p.send(t, frame, wsEncode(true, 0, opClose, closePayload(1000, ""), nil))
		_, _ = p.read() // the client's close; then hang up
	})
	dir := t.TempDir()
	proxyURL, done, logs := startProxy(t, up.URL, func(o *proxyOptions) { o.record = dir })
	h := http.Header{}
	h.Set("Sec-WebSocket-Extensions", "permessage-deflate")
	c, resp := dialWS(t, proxyURL, "/v1/responses", h)
	if resp.Header.Get("Sec-WebSocket-Extensions") != "" {
		t.Fatalf("an extension was negotiated: %q", resp.Header.Get("Sec-WebSocket-Extensions"))
	}
	if f := c.mustRead(t); f.rsv != 4 || !bytes.Equal(f.payload, deflated) {
		t.Fatalf("got rsv %d, %d bytes; want the compressed frame unchanged", f.rsv, len(f.payload))
	}
	c.mustRead(t)
	c.send(t, c.frame(true, opClose, closePayload(1000, "")))
	c.drain(t)
	sess := waitSession(t, done)
	data, _ := os.ReadFile(sess.recPath)
	want := ": ws server text rsv=1 base64 " + base64.StdEncoding.EncodeToString(deflated) + "\n"
	if !bytes.Contains(data, []byte(want)) {
		t.Errorf("the recording lacks %q:\n%s", want, data)
	}
	if len(sess.s.Responses) != 0 || !strings.Contains(logs.String(), "outcome=closed close=1000 close-by=server") {
		t.Errorf("%d responses assembled from a compressed frame; log:\n%s", len(sess.s.Responses), logs)
	}
}

// TestProxyUpgradeOtherProtocols: a switch to another protocol than the
// one asked for is refused with 502; a protocol that is not WebSocket
// passes through as bytes, and its session ends closed when the
// connection does.
func TestProxyUpgradeOtherProtocols(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		proto := r.Header.Get("Upgrade")
		if r.URL.Path == "/wrong" {
			proto = "websocket"
		}
		fmt.Fprintf(conn, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: %s\r\n\r\n", proto)
		_, _ = io.Copy(conn, brw) // an echo of raw bytes
	}))
	t.Cleanup(up.Close)
	proxyURL, done, logs := startProxy(t, up.URL, nil)
	dial := func(path string) (net.Conn, *bufio.Reader, *http.Response) {
		conn, err := net.Dial("tcp", strings.TrimPrefix(proxyURL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp-echo\r\n\r\n", path)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		return conn, br, resp
	}
	if _, _, resp := dial("/wrong"); resp.StatusCode != http.StatusBadGateway {
		t.Errorf("a switch to another protocol: status %d; want 502", resp.StatusCode)
	}
	if s := waitSession(t, done); s.state != "upstream-error" {
		t.Errorf("outcome %q; want upstream-error\n%s", s.state, logs)
	}
	conn, br, resp := dial("/echo")
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d; want 101", resp.StatusCode)
	}
	fmt.Fprint(conn, "ping\x00\xff")
	got := make([]byte, 6)
	if _, err := io.ReadFull(br, got); err != nil || string(got) != "ping\x00\xff" {
		t.Fatalf("echo %q, %v", got, err)
	}
	conn.Close()
	s := waitSession(t, done)
	if s.state != "closed" || strings.Contains(logs.String(), "close=") || !strings.Contains(logs.String(), "bytes=6") {
		t.Errorf("outcome %q; log:\n%s", s.state, logs)
	}
}

// TestProxyStopClosesWebSockets: stopping the proxy closes the WebSockets
// still open (Shutdown does not see hijacked connections); their sessions
// end with close code 1006.
func TestProxyStopClosesWebSockets(t *testing.T) {
	t.Parallel()
	up, _ := wsServer(t, nil, func(p *wsPeer) {
		p.send(t, wsEncode(true, 0, opText, []byte("ready"), nil))
		_ = p.conn.SetReadDeadline(time.Now().Add(time.Minute)) // longer than the client waits
		_, _ = io.Copy(io.Discard, p.r)
	})
	u, _ := url.Parse(up.URL)
	logs := &syncBuffer{}
	p := newProxy(proxyOptions{upstream: u, headTimeout: defaultHeadTimeout}, logs)
	done := make(chan *proxySession, 1)
	p.onDone = func(s *proxySession) { done <- s }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.serve(ctx, ln) }()
	c, _ := dialWS(t, "http://"+ln.Addr().String(), "/v1/responses", nil)
	c.mustRead(t)
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	c.drain(t) // the proxy hangs up
	if s := waitSession(t, done); s.state != "closed" || !strings.Contains(logs.String(), "close=1006") {
		t.Errorf("outcome %q; log:\n%s", s.state, logs)
	}
}
