package proxy

// Resuming a replayed MCP stream. An MCP client whose SSE stream ended
// without its response (a dropped connection, a server that closed it)
// sends GET with Last-Event-ID, the id of the last event it got, and the
// server's event store sends the events of that stream after it (the
// TypeScript SDK's WebStandardStreamableHTTPServerTransport.replayEvents).
// A session replay holds every event of its recorded streams, so it can
// be that event store: without it a client cut by --fault waits for its
// request's timeout (docs/clients.md).

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/termtext"
)

// resume answers a request that resumes a stream (c.req.lastEvent) no
// recorded request fits: with the recorded SSE stream of recs that holds
// an event with that id, from the event after it, with the recorded
// head, its ids rewritten as for the request it was last served to; or,
// when no stream holds it, 400 with the JSON-RPC error the SDK's server
// sends for an event id its store does not know. Any recorded stream is
// searched, served or not, in the recorded order: a client's resume can
// be tried alone, and the exchange is not taken by it.
func (s *Session) resume(w http.ResponseWriter, r *http.Request, recs []*Recorded, o ReplayOptions, c *choice, what string) {
	id := c.req.lastEvent
	k := -1
	for i, rc := range recs {
		if hasEvent(rc, id) {
			k = i
			break
		}
	}
	if k < 0 {
		type rpcError struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		b, _ := json.Marshal(struct { // the members in the SDK's order
			JSONRPC string   `json:"jsonrpc"`
			Error   rpcError `json:"error"`
			ID      any      `json:"id"`
		}{"2.0", rpcError{-32000, "streamtap replay: no recorded stream has an event with this id (Last-Event-ID)"}, nil})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(b)
		if o.Log != nil {
			o.Log.Printf("request #%d %s resumes after %s → no recorded stream has it: 400", c.id, what, termtext.Safe(strconv.Quote(id)))
		}
		return
	}
	s.mu.Lock()
	live := s.live[k]
	s.mu.Unlock()
	if o.Log != nil {
		o.Log.Printf("request #%d %s resumes after %s → exchange %d of %d, %s, the events after it", c.id, what, termtext.Safe(strconv.Quote(id)), k+1, len(s.recs), termtext.Safe(s.names[k]))
	}
	rest := *recs[k]
	body := rest.body
	rest.body = func() (chunkReader, io.Closer, error) {
		cr, cl, err := body()
		if err != nil {
			return nil, nil, err
		}
		return &afterEvent{r: cr, cut: eventCut{id: []byte(id)}}, cl, nil
	}
	var edit func([]byte) []byte
	if live.ok {
		edit = idEdit(&rest.req.rpc, &live)
	}
	serveRecorded(w, r, &rest, o, c.id, c.start, edit)
}

// hasEvent says whether rc is an SSE stream with an event whose id is id.
func hasEvent(rc *Recorded, id string) bool {
	if rc.refused != nil || rc.body == nil {
		return false
	}
	if mt, _, err := mime.ParseMediaType(rc.header.Get("Content-Type")); err != nil || mt != "text/event-stream" {
		return false
	}
	body, closer, err := rc.body()
	if err != nil {
		return false
	}
	defer closer.Close()
	cut := eventCut{id: []byte(id)}
	for {
		ch, err := body.Next()
		if err != nil {
			return false
		}
		if n, _ := cut.feed(ch.Data); n >= 0 {
			return true
		}
	}
}

// afterEvent is a stream from the event after the one cut names, its
// times counted from the chunk that ended that event: what a resumption
// sends is due at once, the rest as recorded after it.
type afterEvent struct {
	r      chunkReader
	cut    eventCut
	found  bool
	base   time.Duration
	skipLF bool // the event ended with a CR whose LF may start the next chunk
}

func (a *afterEvent) Next() (capture.Chunk, error) {
	for {
		c, err := a.r.Next()
		if err != nil {
			return c, err
		}
		if !a.found {
			n, cr := a.cut.feed(c.Data)
			if n < 0 {
				continue
			}
			a.found, a.base, a.skipLF = true, c.At, cr
			c.Data = c.Data[n:]
		}
		if a.skipLF && len(c.Data) > 0 {
			a.skipLF = false
			c.Data = bytes.TrimPrefix(c.Data, []byte("\n"))
		}
		if c.At != capture.NoTime && a.base != capture.NoTime {
			c.At = max(0, c.At-a.base)
		}
		if len(c.Data) > 0 {
			return c, nil
		}
	}
}

// eventCut finds, in an SSE stream fed to it a piece at a time, the end
// of the event whose id field is id (the SSE rules: lines end with CRLF,
// LF or CR; a blank line ends an event; "id:" with one optional space;
// the last id field of an event is its id).
type eventCut struct {
	id      []byte
	line    []byte // the current line's first bytes: an id line is short
	long    bool   // the current line is longer than an id line for id
	matched bool   // the current event's id is id
	lastCR  bool   // the previous line ended with CR: an LF now is its end
}

// feed reads b and returns the offset in b just after the blank line
// that ends the event with the id, and whether that line ended with a
// CR the next piece may continue with an LF; or -1.
func (e *eventCut) feed(b []byte) (int, bool) {
	for i, ch := range b {
		if ch == '\n' && e.lastCR {
			e.lastCR = false
			continue
		}
		if ch != '\n' && ch != '\r' {
			e.lastCR = false
			if len(e.line) < len("id: ")+len(e.id) {
				e.line = append(e.line, ch)
			} else {
				e.long = true
			}
			continue
		}
		e.lastCR = ch == '\r'
		blank := len(e.line) == 0 && !e.long
		if v, ok := bytes.CutPrefix(e.line, []byte("id:")); ok && bytes.IndexByte(v, 0) < 0 {
			e.matched = !e.long && bytes.Equal(bytes.TrimPrefix(v, []byte(" ")), e.id)
		}
		e.line, e.long = e.line[:0], false
		if !blank {
			continue
		}
		if e.matched {
			end := i + 1
			if ch == '\r' && end < len(b) && b[end] == '\n' {
				return end + 1, false
			}
			return end, ch == '\r'
		}
	}
	return -1, false
}
