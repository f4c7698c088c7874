package proxy

// WebSocket sessions through the proxy.
//
// httputil.ReverseProxy passes a protocol switch (101) through by itself
// since Go 1.12: it hijacks the client's connection and copies bytes both
// ways between it and the response body, which must therefore be an
// io.ReadWriteCloser. The proxy wraps that body in a capture.DuplexTee,
// which hands each direction's bytes to the session after they are on
// their way, so nothing about the bytes or their timing changes.
//
// A WebSocket's messages are cut out of those bytes (capture.WSParser)
// and written as SSE blocks (capture.WSMessage.AppendSSE) into the
// session's body: the model, the sessions list and a recording read them
// like any stream. OpenAI's Responses API has such a WebSocket mode
// (https://developers.openai.com/api/docs/guides/websocket-mode, events at
// https://developers.openai.com/api/reference/resources/responses/websocket-events):
// the client opens wss://api.openai.com/v1/responses (GET with
// Upgrade: websocket on the path it would POST to, authenticated by the
// usual Authorization header, no subprotocol), then sends one JSON text
// message {"type":"response.create", …} per turn, with the top-level
// fields of a POST /v1/responses body (stream is implicit), usually
// previous_response_id and only the new input items; the server answers
// each with the same events as the SSE stream, one JSON object per text
// message (response.created … response.completed, or an error event such
// as previous_response_not_found). One connection carries many responses,
// one at a time, for up to 60 minutes. So on a Responses WebSocket (its
// path has a "responses" segment, or the client sent a response.create)
// each server text message becomes one event and is assembled like an SSE
// event; every other message, and every message of another WebSocket, is
// a comment block, shown in the timeline and never assembled. The first
// response.create is read like a request body (model, tools, outputs).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// The close codes RFC 6455 §7.1.5 and §7.4.1 designate for a connection
// closed without a code, and without any close frame.
const (
	closeNoStatus = 1005
	closeAbnormal = 1006
)

// maxKeptBlock is the transcription buffer size a session keeps between
// messages.
const maxKeptBlock = 1 << 20

// wsSession is the upgraded part of a proxied session. Its methods run
// under the DuplexTee's lock, one at a time.
type wsSession struct {
	tee     *capture.DuplexTee
	parsers [2]*capture.WSParser // by capture.WSDir; nil when the protocol is not WebSocket
	block   []byte               // the SSE block of the message being added
	events  bool                 // the server's text messages are JSON events: a Responses session
	wire    [2]int64             // bytes each way, by capture.WSDir
	request []byte               // the first response.create, read like a request body

	// The first close frame, from either side.
	closed      bool
	closeBy     capture.WSDir
	closeCode   int
	closeReason string
}

// upgrade starts the session of a switched protocol: the head goes to the
// model, and the connection is wrapped so that its bytes reach the
// session. A switch to another protocol than the one asked for is refused
// here, so that the connection is closed (the ReverseProxy refuses it too,
// but leaves it open).
func (ps *session) upgrade(resp *http.Response) error {
	asked, got := resp.Request.Header.Get("Upgrade"), resp.Header.Get("Upgrade")
	if !strings.EqualFold(asked, got) {
		return fmt.Errorf("upstream switched to protocol %q when %q was asked for", got, asked)
	}
	rw, ok := resp.Body.(io.ReadWriteCloser)
	if !ok {
		return nil // the ReverseProxy reports it
	}
	ps.respond(resp)
	ws := &wsSession{}
	if strings.EqualFold(asked, "websocket") {
		ws.parsers = [2]*capture.WSParser{capture.NewWSParser(capture.WSClient), capture.NewWSParser(capture.WSServer)}
		ws.events = responsesPath(resp.Request.URL.Path)
	}
	ws.tee = capture.NewDuplexTee(rw, ps.start, ps.wsChunk, ps.wsDone)
	ps.ws = ws
	ps.p.track(ws.tee, true)
	resp.Body = ws.tee
	return nil
}

// wsChunk takes bytes one side sent, after they were passed on.
func (ps *session) wsChunk(from capture.WSDir, p []byte, at time.Duration) {
	ws := ps.ws
	ws.wire[from] += int64(len(p))
	if from == capture.WSServer && ps.firstByte == capture.NoTime {
		ps.firstByte = at
		ps.publish()
	}
	if pr := ws.parsers[from]; pr != nil {
		pr.Feed(p, at, ps.wsMessage)
	}
}

// wsMessage adds one message to the session as its SSE block.
func (ps *session) wsMessage(m *capture.WSMessage) {
	ws := ps.ws
	if m.Opcode == capture.WSClose && !ws.closed {
		ws.closed, ws.closeBy, ws.closeCode = true, m.Dir, closeNoStatus
		if code, reason, ok := m.CloseCode(); ok {
			ws.closeCode, ws.closeReason = code, string(reason)
		}
	}
	if m.Dir == capture.WSClient && m.Opcode == capture.WSText && ws.request == nil {
		ps.learnRequest(m.Payload)
	}
	ws.block = m.AppendSSE(ws.block[:0], ws.events)
	ps.body(ws.block, m.At)
	if cap(ws.block) > maxKeptBlock {
		ws.block = nil
	}
}

// learnRequest reads the first response.create a client sends as the
// session's request: the model, the tools, the outputs and the turn it
// continues.
func (ps *session) learnRequest(msg []byte) {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(msg, &head) != nil || head.Type != "response.create" {
		return
	}
	ps.ws.request = append([]byte(nil), msg...)
	ps.ws.events = true
	ps.req = model.ParseRequest(msg, ps.path)
	ps.prev, ps.unanswered = ps.p.turns.Link(ps.req)
	ps.publish()
}

// responsesPath reports whether a WebSocket's path is a Responses
// endpoint: /v1/responses, and gateways' variants such as
// /openai/v1/responses or /v1/responses/ws.
func responsesPath(path string) bool {
	return slices.Contains(strings.Split(path, "/"), "responses")
}

// wsDone ends the session when the connection closes.
func (ps *session) wsDone(err error, at time.Duration) {
	ws := ps.ws
	for _, pr := range ws.parsers {
		if pr != nil {
			pr.Finish(at, ps.wsMessage)
		}
	}
	ps.endModel(at)
	ps.closeRecording(at)
	ps.p.track(ws.tee, false)
	var end error
	if !ws.closed && ws.parsers[0] != nil {
		end = errNoCloseFrame
	}
	if err != nil && errors.Is(err, capture.ErrClosedEarly) {
		err = nil // either side may hang up first once the session is over
	}
	state := ""
	s := ps.live.Lock()
	s.End(end)
	if len(s.Responses) == 0 && len(s.Errors) == 0 {
		state = "closed" // no Responses events to tell the outcome
	}
	ps.live.Unlock()
	ps.finish(ps.status, err, state)
}

// errNoCloseFrame ends a WebSocket session whose connection closed without
// a close frame.
var errNoCloseFrame = errors.New("the connection closed without a close frame")

// code is the close code the log shows: the first close frame's, 1005
// for one without a code, 1006 for none at all (RFC 6455 §7.1.5).
func (ws *wsSession) code() int {
	if !ws.closed {
		return closeAbnormal
	}
	return ws.closeCode
}

// logFields adds the close handshake to the session's log line.
func (ws *wsSession) logFields(kv func(k, v string)) {
	if ws.parsers[0] == nil {
		return
	}
	kv("close", strconv.Itoa(ws.code()))
	if ws.closed {
		kv("close-by", ws.closeBy.String())
		kv("close-reason", ws.closeReason)
	}
}

// track adds or removes an upgraded connection; serve closes the ones
// still open when it stops, since http.Server.Shutdown does not see
// hijacked connections.
func (p *Proxy) track(t *capture.DuplexTee, open bool) {
	p.upMu.Lock()
	defer p.upMu.Unlock()
	if p.upgraded == nil {
		p.upgraded = map[*capture.DuplexTee]struct{}{}
	}
	if open {
		p.upgraded[t] = struct{}{}
	} else {
		delete(p.upgraded, t)
	}
}

// closeUpgraded closes every upgraded connection still open.
func (p *Proxy) closeUpgraded() {
	p.upMu.Lock()
	open := make([]*capture.DuplexTee, 0, len(p.upgraded))
	for t := range p.upgraded {
		open = append(open, t)
	}
	p.upMu.Unlock()
	for _, t := range open {
		_ = t.Close() // its session ends and untracks it
	}
}
