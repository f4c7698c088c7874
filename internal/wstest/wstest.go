// Package wstest is a minimal RFC 6455 client and server for the proxy's
// WebSocket tests (package proxy's, and the end-to-end test of the built
// binary), written by hand so that the tests depend on no WebSocket
// library: the opening handshake (§4), frames with and without a mask
// (§5.2, §5.3), and nothing else. Each peer keeps every byte it sent and
// received after the handshake, so a test can check that the proxy
// changed none. Only tests import it.
package wstest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// wsGUID is the constant of the accept key (RFC 6455 §1.3).
const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// Opcodes (RFC 6455 §5.2).
const (
	OpCont   byte = 0x0
	OpText   byte = 0x1
	OpBinary byte = 0x2
	OpClose  byte = 0x8
	OpPing   byte = 0x9
	OpPong   byte = 0xA
)

func Accept(key string) string {
	h := sha1.Sum([]byte(key + wsGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

// Encode builds one frame. A nil mask sends it unmasked; rsv holds the
// RSV1–3 bits in the low three bits (4 is RSV1).
func Encode(fin bool, rsv, op byte, payload, mask []byte) []byte {
	b0 := op | rsv<<4
	if fin {
		b0 |= 0x80
	}
	out := []byte{b0}
	var mbit byte
	if mask != nil {
		mbit = 0x80
	}
	switch n := len(payload); {
	case n < 126:
		out = append(out, mbit|byte(n))
	case n < 1<<16:
		out = append(out, mbit|126)
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	default:
		out = append(out, mbit|127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	if mask == nil {
		return append(out, payload...)
	}
	out = append(out, mask...)
	for i, c := range payload {
		out = append(out, c^mask[i%4])
	}
	return out
}

func ClosePayload(code uint16, reason string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, code), reason...)
}

// Frame is a frame a peer read, unmasked.
type Frame struct {
	Fin     bool
	Rsv, Op byte
	Masked  bool
	Payload []byte
}

// Peer is one end of a test connection. A client masks what it sends.
type Peer struct {
	Conn   net.Conn
	r      *bufio.Reader
	client bool
	Key    string      // a client's Sec-WebSocket-Key
	Path   string      // a server's request path
	Header http.Header // the other side's handshake headers

	mu   sync.Mutex
	sent bytes.Buffer
	raw  *bytes.Buffer // every byte read from conn
	skip int           // handshake bytes at the start of raw
}

// newPeer wraps conn, whose handshake is still to be read (a client) or
// is done (a server).
func newPeer(conn net.Conn, client bool) *Peer {
	p := &Peer{Conn: conn, client: client, raw: &bytes.Buffer{}}
	p.r = bufio.NewReader(io.TeeReader(conn, lockedWriter{&p.mu, p.raw}))
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// Send writes frames as they are (already masked or not).
func (p *Peer) Send(t testing.TB, frames ...[]byte) {
	t.Helper()
	for _, f := range frames {
		p.mu.Lock()
		p.sent.Write(f)
		p.mu.Unlock()
		if _, err := p.Conn.Write(f); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
}

// Frame encodes a frame the way this peer must send it: masked from a
// client, with a fresh key each time.
func (p *Peer) Frame(fin bool, op byte, payload []byte) []byte {
	var mask []byte
	if p.client {
		mask = make([]byte, 4)
		_, _ = rand.Read(mask)
	}
	return Encode(fin, 0, op, payload, mask)
}

// Read reads one frame.
func (p *Peer) Read() (Frame, error) {
	var f Frame
	var h [2]byte
	if _, err := io.ReadFull(p.r, h[:]); err != nil {
		return f, err
	}
	f.Fin, f.Rsv, f.Op = h[0]&0x80 != 0, h[0]>>4&7, h[0]&0xF
	f.Masked = h[1]&0x80 != 0
	n := uint64(h[1] & 0x7F)
	switch n {
	case 126:
		var e [2]byte
		if _, err := io.ReadFull(p.r, e[:]); err != nil {
			return f, err
		}
		n = uint64(binary.BigEndian.Uint16(e[:]))
	case 127:
		var e [8]byte
		if _, err := io.ReadFull(p.r, e[:]); err != nil {
			return f, err
		}
		n = binary.BigEndian.Uint64(e[:])
	}
	var key [4]byte
	if f.Masked {
		if _, err := io.ReadFull(p.r, key[:]); err != nil {
			return f, err
		}
	}
	if n > 1<<30 {
		return f, fmt.Errorf("frame of %d bytes", n)
	}
	f.Payload = make([]byte, n)
	if _, err := io.ReadFull(p.r, f.Payload); err != nil {
		return f, err
	}
	if f.Masked {
		for i := range f.Payload {
			f.Payload[i] ^= key[i%4]
		}
	}
	return f, nil
}

// MustRead reads one frame within a generous deadline.
func (p *Peer) MustRead(t testing.TB) Frame {
	t.Helper()
	_ = p.Conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	f, err := p.Read()
	if err != nil {
		t.Fatalf("read frame: %v", err)
	}
	return f
}

// Drain reads until the other side closes the connection, then closes
// this side.
func (p *Peer) Drain(t testing.TB) {
	t.Helper()
	_ = p.Conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, p.r); err != nil && !errors.Is(err, net.ErrClosed) {
		t.Fatalf("drain: %v", err)
	}
	p.Conn.Close()
}

// Received returns every byte read after the handshake.
func (p *Peer) Received() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.raw.Bytes()[p.skip:])
}

func (p *Peer) SentBytes() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.sent.Bytes())
}

// Dial opens a WebSocket through base (an http:// URL) with extra
// handshake headers, and checks the accept key.
func Dial(t testing.TB, base, path string, h http.Header) (*Peer, *http.Response) {
	t.Helper()
	addr := strings.TrimPrefix(base, "http://")
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	kb := make([]byte, 16)
	_, _ = rand.Read(kb)
	key := base64.StdEncoding.EncodeToString(kb)
	var req bytes.Buffer
	fmt.Fprintf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n", path, addr)
	fmt.Fprintf(&req, "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n", key)
	for k, vs := range h {
		for _, v := range vs {
			fmt.Fprintf(&req, "%s: %s\r\n", k, v)
		}
	}
	req.WriteString("\r\n")
	if _, err := conn.Write(req.Bytes()); err != nil {
		t.Fatal(err)
	}
	p := newPeer(conn, true)
	p.Key = key
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(p.r, nil)
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	p.mu.Lock()
	p.skip = p.raw.Len() - p.r.Buffered()
	p.mu.Unlock()
	p.Header = resp.Header
	if resp.StatusCode == http.StatusSwitchingProtocols && resp.Header.Get("Sec-WebSocket-Accept") != Accept(key) {
		t.Fatalf("Sec-WebSocket-Accept = %q; want %q", resp.Header.Get("Sec-WebSocket-Accept"), Accept(key))
	}
	return p, resp
}

// Server runs handle on every WebSocket accepted by a test server. The
// server picks the first subprotocol it knows from the client's list, and
// accepts permessage-deflate when offered (so a test can see whether the
// offer reached it). Each server-side peer is sent on peers.
func Server(t testing.TB, protocols []string, handle func(p *Peer)) (*httptest.Server, chan *Peer) {
	t.Helper()
	peers := make(chan *Peer, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") || r.Header.Get("Sec-WebSocket-Version") != "13" {
			http.Error(w, "not a websocket handshake", http.StatusBadRequest)
			return
		}
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		defer conn.Close()
		if n := brw.Reader.Buffered(); n > 0 {
			t.Errorf("client sent %d bytes before the handshake ended", n)
		}
		var resp bytes.Buffer
		resp.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n")
		fmt.Fprintf(&resp, "Sec-WebSocket-Accept: %s\r\n", Accept(r.Header.Get("Sec-WebSocket-Key")))
		if proto := pickProtocol(r.Header.Values("Sec-WebSocket-Protocol"), protocols); proto != "" {
			fmt.Fprintf(&resp, "Sec-WebSocket-Protocol: %s\r\n", proto)
		}
		if strings.Contains(r.Header.Get("Sec-WebSocket-Extensions"), "permessage-deflate") {
			resp.WriteString("Sec-WebSocket-Extensions: permessage-deflate\r\n")
		}
		resp.WriteString("X-Upstream: yes\r\n\r\n")
		if _, err := conn.Write(resp.Bytes()); err != nil {
			return
		}
		p := newPeer(conn, false)
		p.Header, p.Path = r.Header.Clone(), r.URL.Path
		peers <- p
		handle(p)
	}))
	t.Cleanup(srv.Close)
	return srv, peers
}

func pickProtocol(offered, known []string) string {
	for _, line := range offered {
		for o := range strings.SplitSeq(line, ",") {
			for _, k := range known {
				if strings.TrimSpace(o) == k {
					return k
				}
			}
		}
	}
	return ""
}

// Echo is a server loop: it answers a ping with a pong, sends each data
// frame back unmasked as it came (fragments stay fragments), and answers a
// close with the same close, then hangs up.
func Echo(p *Peer) {
	for {
		_ = p.Conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		f, err := p.Read()
		if err != nil {
			return
		}
		out := f.Op
		switch f.Op {
		case OpPing:
			out = OpPong
		case OpPong:
			continue
		}
		b := Encode(f.Fin, f.Rsv, out, f.Payload, nil)
		p.mu.Lock()
		p.sent.Write(b)
		p.mu.Unlock()
		if _, err := p.Conn.Write(b); err != nil {
			return
		}
		if f.Op == OpClose {
			return
		}
	}
}

// SampleMessages returns the data of each event of a sample: what a
// Responses WebSocket server sends for it, one text message per event.
func SampleMessages(t testing.TB, name string) [][]byte {
	t.Helper()
	data, err := samples.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	fr := capture.NewFramer(capture.FormatSSE)
	emit := func(f *capture.Frame) {
		if f.Kind == capture.FrameEvent && f.HasData {
			out = append(out, bytes.Clone(f.Data))
		}
	}
	fr.Feed(data, 0, emit)
	fr.Finish(0, emit)
	return out
}

// Extras a Responses server sends after the third event of each
// response: a ping, a binary frame and a text message that is not JSON.
// The proxy must keep them, and assemble none.
var (
	ExtraBinary = []byte{0xde, 0xad, 0xbe, 0xef}
	ExtraText   = "not json: keep me"
)

// Responses is a server loop for the Responses WebSocket mode: it
// answers each response.create with the events of the sample named in its
// metadata.sample, one text message each, with the extras after the third;
// it answers a close with the same close and hangs up.
func Responses(t testing.TB) func(p *Peer) {
	return func(p *Peer) {
		for {
			_ = p.Conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			f, err := p.Read()
			if err != nil {
				return
			}
			switch f.Op {
			case OpClose:
				p.Send(t, Encode(true, 0, OpClose, f.Payload, nil))
				return
			case OpText:
				var req struct {
					Type     string            `json:"type"`
					Metadata map[string]string `json:"metadata"`
				}
				if json.Unmarshal(f.Payload, &req) != nil || req.Type != "response.create" {
					continue
				}
				for i, m := range SampleMessages(t, req.Metadata["sample"]) {
					p.Send(t, Encode(true, 0, OpText, m, nil))
					if i == 2 {
						p.Send(t, Encode(true, 0, OpPing, []byte("hb"), nil),
							Encode(true, 0, OpBinary, ExtraBinary, nil),
							Encode(true, 0, OpText, []byte(ExtraText), nil))
					}
				}
			}
		}
	}
}

// UntilCompleted reads server messages until a response.completed,
// answering pings, and returns the text messages read.
func (p *Peer) UntilCompleted(t testing.TB) [][]byte {
	t.Helper()
	var texts [][]byte
	for {
		f := p.MustRead(t)
		switch f.Op {
		case OpPing:
			p.Send(t, p.Frame(true, OpPong, f.Payload))
		case OpText:
			texts = append(texts, f.Payload)
			if bytes.Contains(f.Payload, []byte(`"type":"response.completed"`)) {
				return texts
			}
		case OpClose:
			t.Fatalf("server closed before response.completed")
		}
	}
}

// ResponsesTurns runs two turns over c (a response with two calls, then
// one answering a call with another call) and closes the connection with
// 1000 "done".
func ResponsesTurns(t testing.TB, c *Peer) {
	t.Helper()
	first := `{"type":"response.create","model":"gpt-test","tools":[{"type":"function","name":"get_weather"},{"type":"function","name":"get_local_time"}],` +
		`"input":"weather in Paris and Tokyo?","metadata":{"sample":"responses-parallel-calls"}}`
	c.Send(t, c.Frame(true, OpText, []byte(first)))
	c.UntilCompleted(t)
	second := `{"type":"response.create","model":"gpt-test","previous_response_id":"resp_1",` +
		`"input":[{"type":"function_call_output","call_id":"call_8E6LCTeZiLmFxMTmuMdInLuI","output":"sunny"}],"metadata":{"sample":"responses-single-call"}}`
	c.Send(t, c.Frame(true, OpText, []byte(second)))
	c.UntilCompleted(t)
	c.Send(t, c.Frame(true, OpClose, ClosePayload(1000, "done")))
	if f := c.MustRead(t); f.Op != OpClose {
		t.Fatalf("got op %#x; want the close echoed", f.Op)
	}
	c.Drain(t)
}

// WantCalls is the calls the SSE streams of the samples assemble to, in
// order: what the same events over a WebSocket must give.
func WantCalls(t testing.TB, names ...string) []model.CallReport {
	t.Helper()
	s := model.NewSession(model.Options{})
	fr := capture.NewFramer(capture.FormatSSE)
	for _, n := range names {
		data, _ := samples.Open(n)
		fr.Feed(data, 0, func(f *capture.Frame) { s.Add(f) })
	}
	fr.Finish(0, func(f *capture.Frame) { s.Add(f) })
	return s.Report().Calls
}

// Discard reads and drops everything until the connection ends, however
// it ends.
func (p *Peer) Discard() { _, _ = io.Copy(io.Discard, p.r) }
