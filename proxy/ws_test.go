package proxy

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
	"github.com/streamtap/streamtap/ingest"
	"github.com/streamtap/streamtap/internal/wstest"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui"
	"github.com/streamtap/streamtap/ui/plain"
)

// TestProxyWebSocketPassesThrough: an upgrade reaches the upstream with the
// client's handshake headers (the extension offer aside), the 101 reaches
// the client, and every frame crosses byte for byte both ways: text,
// binary, ping/pong, a fragmented message with a ping between its
// fragments, 16-bit and 64-bit lengths, and the close handshake.
func TestProxyWebSocketPassesThrough(t *testing.T) {
	t.Parallel()
	up, peers := wstest.Server(t, []string{"echo.v1"}, wstest.Echo)
	proxyURL, done, logs := startProxy(t, up.URL, nil)

	h := http.Header{}
	h.Set("Sec-WebSocket-Protocol", "chat.v2, echo.v1")
	h.Set("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits")
	h.Set("Origin", "http://example.test")
	c, resp := wstest.Dial(t, proxyURL, "/v1/echo?x=1", h)
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
	for k, want := range map[string]string{"Sec-WebSocket-Key": c.Key, "Sec-WebSocket-Version": "13", "Origin": "http://example.test"} {
		if got := s.Header.Get(k); got != want {
			t.Errorf("upstream saw %s %q; want %q", k, got, want)
		}
	}
	if got := s.Header.Get("Sec-WebSocket-Protocol"); got != "chat.v2, echo.v1" {
		t.Errorf("upstream saw Sec-WebSocket-Protocol %q", got)
	}
	if got := s.Header.Get("Sec-WebSocket-Extensions"); got != "" {
		t.Errorf("upstream saw Sec-WebSocket-Extensions %q; want it removed", got)
	}

	big := bytes.Repeat([]byte("0123456789abcdef"), 70000/16+1)[:70001] // 127-length frame
	mid := bytes.Repeat([]byte{0xfe, 0x00, 0x7f}, 100)                  // 126-length frame
	type step struct {
		send [][]byte
		want []wstest.Frame
	}
	steps := []step{
		{[][]byte{c.Frame(true, wstest.OpText, []byte(`{"hello":"world"}`))}, []wstest.Frame{{Fin: true, Op: wstest.OpText, Payload: []byte(`{"hello":"world"}`)}}},
		{[][]byte{c.Frame(true, wstest.OpBinary, []byte{0, 1, 2, 255})}, []wstest.Frame{{Fin: true, Op: wstest.OpBinary, Payload: []byte{0, 1, 2, 255}}}},
		{[][]byte{c.Frame(true, wstest.OpPing, []byte("are you there"))}, []wstest.Frame{{Fin: true, Op: wstest.OpPong, Payload: []byte("are you there")}}},
		{
			[][]byte{c.Frame(false, wstest.OpText, []byte("frag-1 ")), c.Frame(true, wstest.OpPing, nil), c.Frame(false, wstest.OpCont, []byte("frag-2 ")), c.Frame(true, wstest.OpCont, []byte("frag-3"))},
			[]wstest.Frame{
				{Op: wstest.OpText, Payload: []byte("frag-1 ")}, {Fin: true, Op: wstest.OpPong, Payload: []byte{}},
				{Op: wstest.OpCont, Payload: []byte("frag-2 ")}, {Fin: true, Op: wstest.OpCont, Payload: []byte("frag-3")},
			},
		},
		{[][]byte{c.Frame(true, wstest.OpBinary, mid)}, []wstest.Frame{{Fin: true, Op: wstest.OpBinary, Payload: mid}}},
		{[][]byte{c.Frame(true, wstest.OpBinary, big)}, []wstest.Frame{{Fin: true, Op: wstest.OpBinary, Payload: big}}},
		{[][]byte{c.Frame(true, wstest.OpClose, wstest.ClosePayload(1000, "bye"))}, []wstest.Frame{{Fin: true, Op: wstest.OpClose, Payload: wstest.ClosePayload(1000, "bye")}}},
	}
	for i, st := range steps {
		c.Send(t, st.send...)
		for j, want := range st.want {
			got := c.MustRead(t)
			if got.Fin != want.Fin || got.Op != want.Op || got.Masked || !bytes.Equal(got.Payload, want.Payload) {
				t.Fatalf("step %d frame %d: fin %v op %#x masked %v %d bytes; want fin %v op %#x %d bytes",
					i, j, got.Fin, got.Op, got.Masked, len(got.Payload), want.Fin, want.Op, len(want.Payload))
			}
		}
	}
	c.Drain(t)
	sess := waitSession(t, done)
	if !bytes.Equal(s.Received(), c.SentBytes()) {
		t.Errorf("client → upstream: upstream got %d bytes, client sent %d, or they differ", len(s.Received()), len(c.SentBytes()))
	}
	if !bytes.Equal(c.Received(), s.SentBytes()) {
		t.Errorf("upstream → client: client got %d bytes, upstream sent %d, or they differ", len(c.Received()), len(s.SentBytes()))
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
	up, _ := wstest.Server(t, nil, wstest.Responses(t))
	proxyURL, done, logs := startProxy(t, up.URL, nil)
	h := http.Header{}
	h.Set("Authorization", "Bearer sk-ws-secret")
	c, resp := wstest.Dial(t, proxyURL, "/v1/responses", h)
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d; want 101", resp.StatusCode)
	}
	wstest.ResponsesTurns(t, c)
	sess := waitSession(t, done)

	got, want := sess.live.Session().Report().Calls, wstest.WantCalls(t, "responses-parallel-calls", "responses-single-call")
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
	up, _ := wstest.Server(t, nil, wstest.Responses(t))
	proxyURL, done, _ := startProxy(t, up.URL, func(o *Options) { o.Record = dir })
	h := http.Header{}
	h.Set("Authorization", "Bearer sk-ws-secret")
	c, _ := wstest.Dial(t, proxyURL, "/gateway/ws", h)
	wstest.ResponsesTurns(t, c)
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
		rec.RequestHeader.Get("Sec-WebSocket-Key") != c.Key || !strings.EqualFold(rec.ResponseHeader.Get("Upgrade"), "websocket") {
		t.Errorf("recorded exchange: %s %s %d, headers %v → %v", rec.Method, rec.URL, rec.Status, rec.RequestHeader, rec.ResponseHeader)
	}
	if bytes.Contains(data, []byte("sk-ws-secret")) {
		t.Error("the recording holds the key")
	}

	rep, lines, timeline := readRecording(t, sess.recPath)
	want := wstest.WantCalls(t, "responses-parallel-calls", "responses-single-call")
	if len(rep.Calls) != len(want) {
		t.Fatalf("the recording gives %d calls; want %d", len(rep.Calls), len(want))
	}
	for i := range want {
		if rep.Calls[i].Name != want[i].Name || rep.Calls[i].Arguments != want[i].Arguments {
			t.Errorf("call %d = %s(%s); want %s(%s)", i, rep.Calls[i].Name, rep.Calls[i].Arguments, want[i].Name, want[i].Arguments)
		}
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
		if e.Text != nil && *e.Text == wstest.ExtraText && slices.Contains(e.Flags, "invalid-json") {
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

	for _, want := range []string{"HTTP/1.1 101", `comment "ws client text utf8`, "response.completed", "completed"} {
		if !strings.Contains(timeline, want) {
			t.Errorf("the timeline lacks %q:\n%s", want, timeline)
		}
	}
}

// readRecording reads a recording file the way `streamtap calls --json`,
// `streamtap events` and the plain timeline do, through the same library
// calls, and returns what each gives.
func readRecording(t *testing.T, path string) (model.CallsReport, []plain.EventLine, string) {
	t.Helper()
	src, err := capture.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	s := model.NewSession(model.Options{Raw: src.ReaderAt()})
	var lines []plain.EventLine
	var timeline bytes.Buffer
	prev := capture.NoTime
	err = ingest.Session(t.Context(), src, capture.ReadOptions{}, s, nil, func(ev *model.Event, ord int, f *capture.Frame) error {
		l := plain.NewEventLine(s, ev, ord, f, false)
		b, err := json.Marshal(l) // as events prints it, and back
		if err != nil {
			return err
		}
		var back plain.EventLine
		if err := json.Unmarshal(b, &back); err != nil {
			return err
		}
		lines = append(lines, back)
		err = plain.WriteTimelineLine(&timeline, s, ev, ord, prev, f.Raw)
		prev = ev.At
		return err
	}, true, false)
	s.End(err)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := s.WriteReportJSON(&out); err != nil {
		t.Fatal(err)
	}
	var rep model.CallsReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	return rep, lines, timeline.String()
}

// TestProxyWebSocketSessionsList: WebSocket sessions reach the sessions
// list like streams: a Responses one with status 101, its dialect, calls
// and outcome, and its first response.create in the request pane; one
// that carries no Responses events as closed with its close code.
func TestProxyWebSocketSessionsList(t *testing.T) {
	t.Parallel()
	answer := wstest.Responses(t)
	up, _ := wstest.Server(t, nil, func(p *wstest.Peer) {
		if p.Path == "/echo" {
			wstest.Echo(p)
			return
		}
		answer(p)
	})
	type batch struct {
		msg   tea.Msg
		ended bool
	}
	msgs := make(chan batch, 64)
	m := ui.NewSessions(ui.Options{Source: "proxy test", Checks: ui.StrictChecks})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	u, _ := url.Parse(up.URL)
	p := New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout}, io.Discard)
	p.feed = NewFeed(func(b []model.SessionUpdate) {
		ended := slices.ContainsFunc(b, func(u model.SessionUpdate) bool { return u.Ended })
		msgs <- batch{ui.Sessions(b), ended}
	})
	t.Cleanup(p.feed.Abort)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	for _, path := range []string{"/v1/responses", "/echo"} {
		h := http.Header{}
		h.Set("Authorization", "Bearer sk-ws-secret")
		c, _ := wstest.Dial(t, srv.URL, path, h)
		if path == "/echo" {
			c.Send(t, c.Frame(true, wstest.OpText, []byte("hi")), c.Frame(true, wstest.OpClose, wstest.ClosePayload(4001, "app done")))
			c.Drain(t)
		} else {
			wstest.ResponsesTurns(t, c)
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
		case strings.Contains(r, "GET") && strings.Contains(r, "completed"):
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
	m.Update(tea.KeyPressMsg{Code: '7', Text: "7"})
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
	frame := wstest.Encode(true, 4, wstest.OpText, deflated, nil)
	up, _ := wstest.Server(t, nil, func(p *wstest.Peer) {
		p.Send(t, frame, wstest.Encode(true, 0, wstest.OpClose, wstest.ClosePayload(1000, ""), nil))
		_, _ = p.Read() // the client's close; then hang up
	})
	dir := t.TempDir()
	proxyURL, done, logs := startProxy(t, up.URL, func(o *Options) { o.Record = dir })
	h := http.Header{}
	h.Set("Sec-WebSocket-Extensions", "permessage-deflate")
	c, resp := wstest.Dial(t, proxyURL, "/v1/responses", h)
	if resp.Header.Get("Sec-WebSocket-Extensions") != "" {
		t.Fatalf("an extension was negotiated: %q", resp.Header.Get("Sec-WebSocket-Extensions"))
	}
	if f := c.MustRead(t); f.Rsv != 4 || !bytes.Equal(f.Payload, deflated) {
		t.Fatalf("got rsv %d, %d bytes; want the compressed frame unchanged", f.Rsv, len(f.Payload))
	}
	c.MustRead(t)
	c.Send(t, c.Frame(true, wstest.OpClose, wstest.ClosePayload(1000, "")))
	c.Drain(t)
	sess := waitSession(t, done)
	data, _ := os.ReadFile(sess.recPath)
	want := ": ws server text rsv=1 base64 " + base64.StdEncoding.EncodeToString(deflated) + "\n"
	if !bytes.Contains(data, []byte(want)) {
		t.Errorf("the recording lacks %q:\n%s", want, data)
	}
	if len(sess.live.Session().Responses) != 0 || !strings.Contains(logs.String(), "outcome=closed close=1000 close-by=server") {
		t.Errorf("%d responses assembled from a compressed frame; log:\n%s", len(sess.live.Session().Responses), logs)
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
	up, _ := wstest.Server(t, nil, func(p *wstest.Peer) {
		p.Send(t, wstest.Encode(true, 0, wstest.OpText, []byte("ready"), nil))
		_ = p.Conn.SetReadDeadline(time.Now().Add(time.Minute)) // longer than the client waits
		p.Discard()
	})
	u, _ := url.Parse(up.URL)
	logs := &syncBuffer{}
	p := New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout}, logs)
	done := make(chan *session, 1)
	p.onDone = func(s *session) { done <- s }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, ln) }()
	c, _ := wstest.Dial(t, "http://"+ln.Addr().String(), "/v1/responses", nil)
	c.MustRead(t)
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	c.Drain(t) // the proxy hangs up
	if s := waitSession(t, done); s.state != "closed" || !strings.Contains(logs.String(), "close=1006") {
		t.Errorf("outcome %q; log:\n%s", s.state, logs)
	}
}

// TestProxyWebSocketKeepsBigMessagesCut: a message far over MaxWSKept
// crosses the proxy whole both ways, while the session keeps only its
// first MaxWSKept bytes (its block says size= and kept=): the proxy held
// a whole message about five times over (500 MB: 2.7 GB).
func TestProxyWebSocketKeepsBigMessagesCut(t *testing.T) {
	t.Parallel()
	up, peers := wstest.Server(t, nil, wstest.Echo)
	proxyURL, done, logs := startProxy(t, up.URL, func(o *Options) {
		o.Feed = NewFeed(func([]model.SessionUpdate) {}) // the sessions list keeps its bytes
	})
	c, resp := wstest.Dial(t, proxyURL, "/v1/echo", nil)
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d; want 101\n%s", resp.StatusCode, logs)
	}
	s := <-peers
	big := bytes.Repeat([]byte("0123456789abcdef"), 3*capture.MaxWSKept/16)
	c.Send(t, c.Frame(true, wstest.OpBinary, big))
	if got := c.MustRead(t); got.Op != wstest.OpBinary || !bytes.Equal(got.Payload, big) {
		t.Fatalf("the echo of %d bytes came back as %d bytes (op %#x)", len(big), len(got.Payload), got.Op)
	}
	c.Send(t, c.Frame(true, wstest.OpClose, wstest.ClosePayload(1000, "")))
	c.MustRead(t)
	c.Drain(t)
	sess := waitSession(t, done)
	if !bytes.Equal(s.Received(), c.SentBytes()) || !bytes.Equal(c.Received(), s.SentBytes()) {
		t.Fatal("the bytes did not cross the proxy unchanged")
	}
	// Two blocks of a cut message (one each way), at most 4/3 of the kept
	// bytes each (base64), and the close frames.
	if held, most := sess.store.Size(), int64(2*capture.MaxWSKept*4/3+1<<10); held > most {
		t.Errorf("the session holds %d bytes for two messages of %d; want their first %d kept (at most %d in all)", held, len(big), capture.MaxWSKept, most)
	}
	var blocks int
	for _, p := range bytes.Split(readStore(sess.store), []byte("\n\n")) {
		if bytes.Contains(p, []byte(fmt.Sprintf(" binary size=%d kept=%d utf8 ", len(big), capture.MaxWSKept))) {
			blocks++
		}
	}
	if blocks != 2 {
		t.Errorf("%d blocks say the message was cut; want 2 (client and server)", blocks)
	}
}

// readStore reads a Store whole.
func readStore(s *capture.Store) []byte {
	b := make([]byte, s.Size())
	n, _ := s.ReadAt(b, 0)
	return b[:n]
}
