package proxy

// Replaying a session: several recorded exchanges, each request answered
// by the one recorded for it. An agent's turn is several exchanges (the
// AI SDK's tool loop sends a second provider request after it runs a
// tool; an MCP client sends initialize, notifications/initialized,
// tools/list, tools/call on one Mcp-Session-Id), and serving one
// recording to all of them makes such a client loop or fail. Matching is
// mitmproxy's server replay's (method, path, body), made to fit recorded
// sessions: see Session.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/termtext"
)

// matchBody bounds how much of a request body is kept to match it (a
// JSON-RPC message is read from it); the rest is hashed, not kept.
const matchBody = 1 << 20

// replayRequest is what a request is matched by, read from a recording's
// header block or from a request as it comes.
type replayRequest struct {
	// any says the stream was recorded without its request (a plain
	// stream, a recording made from standard input): it answers any
	// request.
	any    bool
	method string
	path   string // without the query
	query  string
	// whole says sum is the hash of the whole body.
	whole bool
	sum   [sha256.Size]byte
	rpc   rpcRequest
	// lastEvent is the Last-Event-ID of a GET, with which an MCP client
	// resumes a stream: only a recorded GET with the same one fits it.
	lastEvent string
}

// rpcRequest is a JSON-RPC 2.0 message a request body holds (MCP).
type rpcRequest struct {
	ok     bool   // the body is one JSON-RPC 2.0 message (not a batch)
	method string // "" for a response (a client's answer to a server's request)
	name   string // params.name: the tool or the prompt
	params string // params without _meta, re-encoded with sorted members
	id     []byte // compact; nil for a notification
	token  []byte // params._meta.progressToken, compact
}

// recordedRequest is the request x recorded, to match requests with.
func recordedRequest(x *capture.Exchange) replayRequest {
	if x.Method == "" && x.URL == "" {
		return replayRequest{any: true}
	}
	req := replayRequest{method: x.Method}
	if x.Method == http.MethodGet {
		req.lastEvent = x.RequestHeader.Get("Last-Event-Id")
	}
	if u, err := url.Parse(x.URL); err == nil {
		req.path, req.query = u.Path, u.RawQuery
	}
	if req.path == "" {
		req.path = "/"
	}
	if x.RequestBodySize == 0 { // the whole body was recorded
		req.whole, req.sum = true, sha256.Sum256(x.RequestBody)
		req.rpc = readRPC(x.RequestBody)
	}
	return req
}

// liveRequest is what r, whose body's first bytes are head and whose
// whole body hashes to sum, is matched by.
func liveRequest(r *http.Request, head []byte, whole bool, sum [sha256.Size]byte) replayRequest {
	req := replayRequest{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, whole: whole, sum: sum}
	if r.Method == http.MethodGet {
		req.lastEvent = r.Header.Get("Last-Event-Id")
	}
	if req.path == "" {
		req.path = "/"
	}
	if whole {
		req.rpc = readRPC(head)
	}
	return req
}

// readRPC reads body as one JSON-RPC 2.0 message.
func readRPC(body []byte) rpcRequest {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  *string         `json:"method"`
		ID      json.RawMessage `json:"id"`
		Params  json.RawMessage `json:"params"`
	}
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) || json.Unmarshal(body, &m) != nil || m.JSONRPC != "2.0" {
		return rpcRequest{}
	}
	rpc := rpcRequest{ok: true, id: compact(m.ID)}
	if m.Method != nil {
		rpc.method = *m.Method
	}
	var params map[string]any
	dec := json.NewDecoder(bytes.NewReader(m.Params))
	dec.UseNumber()
	if len(m.Params) > 0 && dec.Decode(&params) == nil {
		if meta, ok := params["_meta"].(map[string]any); ok {
			if tok, ok := meta["progressToken"]; ok {
				rpc.token, _ = json.Marshal(tok)
			}
		}
		delete(params, "_meta") // the progress token is the request's id, counted by the client
		rpc.name, _ = params["name"].(string)
		b, _ := json.Marshal(params) // members sorted: the same params, the same bytes
		rpc.params = string(b)
	}
	return rpc
}

// compact is raw JSON without its white space; nil for none.
func compact(raw []byte) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return nil
	}
	return b.Bytes()
}

// fits says whether the recorded request rec may answer req: the same
// method and path and Last-Event-ID, and, when both are JSON-RPC
// messages, the same JSON-RPC method. The query is not required to
// match: see closeness.
func fits(rec, req *replayRequest) bool {
	if rec.any {
		return true
	}
	if rec.method != req.method || rec.path != req.path || rec.lastEvent != req.lastEvent {
		return false
	}
	return !rec.rpc.ok || !req.rpc.ok || rec.rpc.method == req.rpc.method
}

// closeness ranks the exchanges that fit a request: the same body (for
// JSON-RPC, the same params, the id and progress token aside) ranks
// first, then the same params name (the tool called, the prompt got),
// then the same query. Among equals, order decides.
func closeness(rec, req *replayRequest) int {
	n := 0
	switch {
	case rec.rpc.ok && req.rpc.ok:
		if rec.rpc.params == req.rpc.params {
			n += 4
		}
		if rec.rpc.name != "" && rec.rpc.name == req.rpc.name {
			n += 2
		}
	case rec.whole && req.whole && rec.sum == req.sum:
		n += 4
	}
	if !rec.any && rec.query == req.query {
		n++
	}
	return n
}

// Session serves several recorded exchanges, each request answered by
// the first exchange not yet served that fits it (fits: method, path,
// JSON-RPC method), the closest first (closeness: body, tool name,
// query). When none is left, the request is answered 404 with what was
// recorded, unless reuse: then the closest served one that fits is
// served again, the latest among equals. A session of one exchange
// answers every request with it, as Replay does a recording. A GET that
// resumes an MCP stream (Last-Event-ID) no recorded request fits gets
// the rest of the recorded stream that holds the event (resume). A
// Session is safe for concurrent use.
type Session struct {
	recs  []*Recorded
	names []string // each exchange as the log names it
	reuse bool

	n      atomic.Int64
	mu     sync.Mutex
	served []bool
	// live is the JSON-RPC request each exchange was last served to: a
	// resumption of its stream rewrites ids as that request's answer did.
	live []rpcRequest
}

// NewSession makes the session of recs, in their recorded order, named
// in the log by names; reuse serves an exchange again when none that
// fits is left.
func NewSession(recs []*Recorded, names []string, reuse bool) *Session {
	return &Session{recs: recs, names: names, reuse: reuse, served: make([]bool, len(recs)), live: make([]rpcRequest, len(recs))}
}

// choose takes the exchange that answers req: its index, whether it was
// served before (Reuse), or ok false when none is left.
func (s *Session) choose(req *replayRequest) (k int, again, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.recs) == 1 && req.lastEvent == "" {
		again = s.served[0]
		s.served[0] = true
		s.live[0] = req.rpc
		return 0, again, true
	}
	best, bestAgain := -1, -1
	for i, rc := range s.recs {
		if !fits(&rc.req, req) {
			continue
		}
		c := closeness(&rc.req, req)
		if !s.served[i] {
			if best < 0 || c > closeness(&s.recs[best].req, req) {
				best = i
			}
		} else if bestAgain < 0 || c >= closeness(&s.recs[bestAgain].req, req) {
			bestAgain = i
		}
	}
	switch {
	case best >= 0:
		s.served[best] = true
		s.live[best] = req.rpc
		return best, false, true
	case s.reuse && bestAgain >= 0:
		s.live[bestAgain] = req.rpc
		return bestAgain, true, true
	}
	return -1, false, false
}

// choice is a request as Session.Handler read it, carried in its
// context to the handler that answers it (Session.Play).
type choice struct {
	id    int64 // the request's number, from 1
	start time.Time
	req   replayRequest
}

type choiceKey struct{}

// RequestNumber is the number (from 1) Session.Handler gave r, or 0 for
// a request it did not number.
func RequestNumber(r *http.Request) int64 {
	if c, ok := r.Context().Value(choiceKey{}).(*choice); ok {
		return c.id
	}
	return 0
}

// Handler numbers each request and reads its body, then passes it to
// next with what it read: Play answers it, behind whatever breaks its
// transport (package inject/fault). A request next answers without Play
// (a status fault) takes no exchange.
func (s *Session) Handler(next http.Handler, o ReplayOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := s.n.Add(1)
		start := time.Now()
		head, whole, sum, state, status, err := readRequest(w, r, o.BodyTimeout)
		if err != nil {
			replayLog(o, id, r)("%d outcome=%s error=%q", status, state, err.Error())
			w.Header().Set("Connection", "close")
			http.Error(w, "streamtap replay: reading the request body failed: "+state, status)
			return
		}
		c := &choice{id: id, start: start, req: liveRequest(r, head, whole, sum)}
		r.Body = http.NoBody
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), choiceKey{}, c)))
	})
}

// Play answers a request Handler read with the exchange the session
// chooses for it, played from recs (the session's exchanges, or the same
// with defects applied, in the same order) as Replay plays a recording;
// or 404 when none is left. It logs which. A JSON-RPC response to the
// recorded request's id is sent with the id of the request that came
// (and a progress notification with its progress token): an MCP client
// numbers its own requests, and drops a response to an id it did not
// send.
func (s *Session) Play(recs []*Recorded, o ReplayOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := r.Context().Value(choiceKey{}).(*choice)
		if !ok {
			http.Error(w, "streamtap replay: a request the session did not read", http.StatusInternalServerError)
			return
		}
		k, again, ok := s.choose(&c.req)
		what := termtext.Safe(r.Method + " " + capture.RedactURL(r.URL.RequestURI()) + rpcWords(&c.req.rpc))
		if !ok && c.req.lastEvent != "" {
			s.resume(w, r, recs, o, c, what)
			return
		}
		if !ok {
			s.refuse(w, &c.req, what)
			if o.Log != nil {
				o.Log.Printf("request #%d %s → no recorded exchange left: 404 (%s)", c.id, what, s.left(&c.req))
			}
			return
		}
		if o.Log != nil {
			again := map[bool]string{true: " (again)"}[again]
			o.Log.Printf("request #%d %s → exchange %d of %d, %s%s", c.id, what, k+1, len(s.recs), termtext.Safe(s.names[k]), again)
		}
		rc := recs[k]
		serveRecorded(w, r, rc, o, c.id, c.start, idEdit(&rc.req.rpc, &c.req.rpc))
	})
}

// rpcWords names a JSON-RPC request's method and tool for the log.
func rpcWords(rpc *rpcRequest) string {
	switch {
	case !rpc.ok:
		return ""
	case rpc.method == "":
		return " (a response)"
	case rpc.name != "":
		return " " + rpc.method + " " + rpc.name
	}
	return " " + rpc.method
}

// left says why no exchange is left for req: how many fit it, all served.
func (s *Session) left(req *replayRequest) string {
	n := 0
	for _, rc := range s.recs {
		if fits(&rc.req, req) {
			n++
		}
	}
	switch {
	case n == 0:
		return fmt.Sprintf("none of the %d recorded fits it", len(s.recs))
	case n == 1:
		return "the 1 that fits it was served; --reuse serves it again"
	}
	return fmt.Sprintf("the %d that fit it were served; --reuse serves one again", n)
}

// maxListed bounds the exchanges a 404's body lists.
const maxListed = 100

// refuse answers a request no exchange is left for: 404, with a JSON
// body that names the request and lists what was recorded, so that a
// client's error says what the replay held.
func (s *Session) refuse(w http.ResponseWriter, req *replayRequest, what string) {
	type listed struct {
		Exchange int    `json:"exchange"`
		Name     string `json:"name"`
		Method   string `json:"method,omitempty"`
		Path     string `json:"path,omitempty"`
		RPC      string `json:"rpc,omitempty"`
		Served   bool   `json:"served"`
	}
	body := struct {
		Error    string   `json:"error"`
		Request  string   `json:"request"`
		Recorded []listed `json:"recorded"`
		More     int      `json:"more,omitempty"`
	}{Error: "streamtap replay: no recorded exchange left for this request (" + s.left(req) + ")", Request: what, Recorded: []listed{}}
	s.mu.Lock()
	for i, rc := range s.recs {
		if i == maxListed {
			body.More = len(s.recs) - i
			break
		}
		l := listed{Exchange: i + 1, Name: s.names[i], Method: rc.req.method, Path: rc.req.path, Served: s.served[i]}
		l.RPC = strings.TrimSpace(rpcWords(&rc.req.rpc))
		body.Recorded = append(body.Recorded, l)
	}
	s.mu.Unlock()
	b, _ := json.MarshalIndent(body, "", "  ")
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write(b)
}

// readRequest reads a request body, MaxRequestBody at most, holding the
// client to MinBodyRate over timeout as the proxy does: its first
// matchBody bytes, whether they are all of it, and the hash of all of it;
// or why the client was cut, with the status to answer.
func readRequest(w http.ResponseWriter, r *http.Request, timeout time.Duration) (head []byte, whole bool, sum [sha256.Size]byte, state string, status int, err error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true, sha256.Sum256(nil), "", 0, nil
	}
	body := newRequestBody(r, w, timeout)
	defer body.release()
	kb := &keptBody{h: sha256.New()}
	n, err := io.Copy(kb, io.LimitReader(body, MaxRequestBody))
	if errors.Is(err, ErrBodyTimeout) {
		return nil, false, sum, "client-timeout", http.StatusRequestTimeout, err
	}
	copy(sum[:], kb.h.Sum(nil))
	whole = err == nil && n <= matchBody && n < MaxRequestBody
	return kb.head, whole, sum, "", 0, nil // a body cut short is no reason not to answer
}

// keptBody keeps the first matchBody bytes written and hashes them all.
type keptBody struct {
	head []byte
	h    hash.Hash
}

func (k *keptBody) Write(p []byte) (int, error) {
	k.h.Write(p)
	if room := matchBody - len(k.head); room > 0 {
		k.head = append(k.head, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
