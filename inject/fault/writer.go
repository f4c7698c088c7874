package fault

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// Options tune Handler.
type Options struct {
	// Dialect chooses the error bodies of Status faults (ErrorAnswer).
	Dialect model.Dialect
	// Log, when set, gets a line for each request that has faults or
	// defects.
	Log func(format string, args ...any)
	// Done, when closed, ends every stall at once and cuts its
	// connection: the server is stopping, and a stall of minutes must not
	// hold it (nor a hijacked connection, which the server no longer
	// sees).
	Done <-chan struct{}
	// Number, when set, gives a request's number (from 1) when a handler
	// in front of Handler numbers the requests (replay of a session), so
	// that the plan's steps and the log count as it does; 0 leaves the
	// count to Handler.
	Number func(*http.Request) int64
}

// ErrCut is what a write returns once a fault cut the connection: the
// handler stops as it would for a client gone.
var ErrCut = errors.New("fault: the connection was cut")

// Handler serves request n (from 1) with the handler next gives for its
// step, its transport broken as the step's faults say; a Status fault
// answers instead of next. next is asked once per request.
func Handler(p Plan, next func(Step) http.Handler, opt Options) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := n.Add(1)
		if opt.Number != nil {
			if m := opt.Number(r); m > 0 {
				k = m
			}
		}
		step := p.For(int(k))
		if opt.Log != nil && !step.IsZero() {
			opt.Log("request #%d: %s", k, describe(step))
		}
		if len(step.Faults) == 0 {
			next(step).ServeHTTP(w, r)
			return
		}
		fw := newWriter(w, r.Context(), step.Faults)
		fw.done = opt.Done
		if f, ok := step.status(); ok {
			_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
			h, body := ErrorAnswer(opt.Dialect, f.Status)
			for k, v := range h {
				fw.Header()[k] = v
			}
			if f.Status == http.StatusTooManyRequests {
				fw.Header().Set("Retry-After", "1")
			}
			for _, ra := range step.Faults {
				if ra.Kind == RetryAfter {
					fw.Header().Set("Retry-After", ra.Value)
				}
			}
			fw.Header().Set("Content-Length", strconv.Itoa(len(body)))
			fw.WriteHeader(f.Status)
			_, _ = fw.Write(body)
		} else {
			next(step).ServeHTTP(fw, r)
		}
		fw.finish()
	})
}

// describe names a step's faults and defects for the log.
func describe(s Step) string {
	var parts []string
	for _, f := range s.Faults {
		parts = append(parts, f.String())
	}
	if len(s.Inject) > 0 {
		parts = append(parts, "inject "+strings.Join(s.Inject, ","))
	}
	return strings.Join(parts, " ")
}

// writer is the http.ResponseWriter a faulted response is written
// through: it frames what the handler writes, and sends each frame as
// the faults say. It is used by one handler goroutine.
type writer struct {
	w      http.ResponseWriter
	ctx    context.Context
	done   <-chan struct{} // Options.Done
	faults []Fault
	fr     *capture.Framer
	queue  []frame // frames framed, not yet sent

	wroteHeader bool
	events      int64 // data events sent
	sent        int64 // stream bytes sent
	cut         bool
	err         error // the first write or flush error, sticky

	dst   io.Writer    // where stream bytes go: w, the hijacked connection, or a gzip writer over either
	base  func() error // flushes what dst's writer sits on
	gz    *gzip.Writer
	conn  net.Conn // the connection, once hijacked
	bufw  *bufio.Writer
	http1 bool // answering as HTTP/1.0
}

type frame struct {
	event bool
	raw   []byte
}

func newWriter(w http.ResponseWriter, ctx context.Context, faults []Fault) *writer {
	return &writer{w: w, ctx: ctx, faults: faults}
}

func (fw *writer) Header() http.Header { return fw.w.Header() }

// has returns the faults of kind k.
func (fw *writer) has(k Kind) []Fault {
	var out []Fault
	for _, f := range fw.faults {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

func (fw *writer) WriteHeader(code int) {
	if fw.wroteHeader {
		return
	}
	fw.wroteHeader = true
	h := fw.w.Header()
	for _, f := range fw.has(ContentType) {
		h.Set("Content-Type", f.Value)
	}
	fw.fr = capture.NewFramer(capture.ContentFormat(h.Get("Content-Type")))
	if len(fw.has(Gzip)) > 0 {
		h.Set("Content-Encoding", "gzip")
		h.Del("Content-Length")
	}
	fw.dst, fw.base = fw.w, http.NewResponseController(fw.w).Flush
	if len(fw.has(HTTP10)) > 0 {
		fw.answer10(code)
	} else {
		fw.w.WriteHeader(code)
		fw.fail(fw.base())
	}
	if len(fw.has(Gzip)) > 0 && fw.err == nil {
		fw.gz = gzip.NewWriter(fw.dst)
		fw.dst = fw.gz
	}
	for _, f := range fw.faults {
		if (f.Kind == Cut || f.Kind == Reset) && f.N == 0 {
			fw.cutNow(f.Kind == Reset)
		}
	}
}

// answer10 takes the connection over and writes an HTTP/1.0 head: no
// chunked encoding and no length, so the body ends when the connection
// closes.
func (fw *writer) answer10(code int) {
	conn, bufrw, err := http.NewResponseController(fw.w).Hijack()
	if err != nil {
		fw.fail(fmt.Errorf("fault http10: %w", err))
		return
	}
	fw.conn, fw.bufw, fw.http1 = conn, bufrw.Writer, true
	h := fw.w.Header().Clone()
	h.Del("Content-Length")
	h.Del("Transfer-Encoding")
	h.Set("Connection", "close")
	fmt.Fprintf(fw.bufw, "HTTP/1.0 %d %s\r\n", code, statusText(code))
	_ = h.Write(fw.bufw)
	_, _ = fw.bufw.WriteString("\r\n")
	fw.dst, fw.base = fw.bufw, fw.bufw.Flush
	fw.fail(fw.base())
}

func (fw *writer) fail(err error) {
	if err != nil && fw.err == nil {
		fw.err = err
	}
}

// Write frames p and sends every frame it completes.
func (fw *writer) Write(p []byte) (int, error) {
	if !fw.wroteHeader {
		fw.WriteHeader(http.StatusOK)
	}
	if fw.cut {
		return 0, ErrCut
	}
	if fw.err != nil {
		return 0, fw.err
	}
	fw.fr.Feed(p, capture.NoTime, fw.enqueue)
	fw.drain()
	if fw.cut {
		return len(p), ErrCut
	}
	return len(p), fw.err
}

func (fw *writer) enqueue(f *capture.Frame) {
	fw.queue = append(fw.queue, frame{event: f.Kind == capture.FrameEvent, raw: append([]byte(nil), f.Raw...)})
}

// FlushError is what http.ResponseController's Flush calls: every frame
// is flushed as it is sent, so there is nothing more to do.
func (fw *writer) FlushError() error {
	if fw.cut {
		return ErrCut
	}
	return fw.err
}

// Unwrap lets http.ResponseController reach the response's own methods
// (deadlines).
func (fw *writer) Unwrap() http.ResponseWriter { return fw.w }

// drain sends the queued frames.
func (fw *writer) drain() {
	for len(fw.queue) > 0 && !fw.cut && fw.err == nil {
		f := fw.queue[0]
		fw.queue = fw.queue[1:]
		fw.sendFrame(f)
	}
	fw.queue = fw.queue[:0]
}

// sendFrame sends one frame: a stall before it, or inside it, when its
// place says so; a cut after it when it is the Nth event.
func (fw *writer) sendFrame(f frame) {
	raw := f.raw
	if f.event {
		for _, s := range fw.has(Stall) {
			if s.N == fw.events && !fw.wait(s.Wait) {
				return
			}
		}
		for _, s := range fw.has(StallInside) {
			if s.N == fw.events && len(raw) > 1 {
				half := len(raw) / 2
				if !fw.send(raw[:half]) || !fw.wait(s.Wait) {
					return
				}
				raw = raw[half:]
			}
		}
	}
	if !fw.send(raw) {
		return
	}
	if f.event {
		fw.events++
		for _, c := range fw.faults {
			if (c.Kind == Cut || c.Kind == Reset) && !c.Bytes && c.N == fw.events {
				fw.cutNow(c.Kind == Reset)
				return
			}
		}
	}
}

// send writes b as the faults pace it: a byte a write, a drip, or whole;
// each piece flushed. It cuts the connection at a byte count. It
// reports false once the response is cut or broken.
func (fw *writer) send(b []byte) bool {
	piece := len(b)
	var perByte time.Duration
	if len(fw.has(Bytewise)) > 0 {
		piece = 1
	}
	for _, d := range fw.has(Drip) {
		// Ten writes a second, or one a byte for a rate under ten.
		piece = max(1, min(piece, d.Rate/10))
		perByte = time.Second / time.Duration(d.Rate)
	}
	for len(b) > 0 {
		n := min(piece, len(b))
		for _, c := range fw.faults {
			if (c.Kind == Cut || c.Kind == Reset) && c.Bytes {
				n = int(min(int64(n), c.N-fw.sent))
			}
		}
		if n > 0 {
			if perByte > 0 && !fw.wait(time.Duration(n)*perByte) {
				return false
			}
			if _, err := fw.dst.Write(b[:n]); err != nil {
				fw.fail(err)
				return false
			}
			if !fw.flush() {
				return false
			}
			fw.sent += int64(n)
			b = b[n:]
		}
		for _, c := range fw.faults {
			if (c.Kind == Cut || c.Kind == Reset) && c.Bytes && fw.sent >= c.N {
				fw.cutNow(c.Kind == Reset)
				return false
			}
		}
	}
	return true
}

// flush pushes what was written to the client.
func (fw *writer) flush() bool {
	if fw.gz != nil {
		fw.fail(fw.gz.Flush())
	}
	fw.fail(fw.base())
	return fw.err == nil
}

// wait waits d, or until the client is gone.
func (fw *writer) wait(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-fw.ctx.Done():
		fw.fail(fw.ctx.Err())
		return false
	case <-fw.done:
		fw.cutNow(false)
		return false
	}
}

// cutNow ends the connection here: what was sent is flushed, then the
// connection is closed (the chunked body never gets its last chunk) or,
// with reset, reset (SO_LINGER 0: the peer reads ECONNRESET).
func (fw *writer) cutNow(reset bool) {
	if fw.cut {
		return
	}
	fw.cut = true
	if fw.gz != nil {
		_ = fw.gz.Flush() // not Close: a cut stream has no gzip trailer
	}
	_ = fw.base()
	if fw.conn == nil {
		conn, _, err := http.NewResponseController(fw.w).Hijack()
		if err != nil {
			fw.fail(fmt.Errorf("fault cut: %w", err))
			return
		}
		fw.conn = conn
	}
	if tc := tcpConn(fw.conn); tc != nil && reset {
		_ = tc.SetLinger(0)
	}
	_ = fw.conn.Close()
}

// finish sends what the framer held back, ends a gzip body and closes an
// HTTP/1.0 answer's connection.
func (fw *writer) finish() {
	if !fw.wroteHeader {
		fw.WriteHeader(http.StatusOK)
	}
	if !fw.cut && fw.err == nil {
		fw.fr.Finish(capture.NoTime, fw.enqueue)
		fw.drain()
	}
	if fw.cut {
		return
	}
	if fw.gz != nil {
		fw.fail(fw.gz.Close())
		fw.fail(fw.base())
	}
	if fw.http1 {
		_ = fw.bufw.Flush()
		_ = fw.conn.Close()
	}
}

// tcpConn finds the TCP connection under c, through the wrappers that
// expose it as NetConn (a server's connection limits and deadlines,
// crypto/tls), or nil.
func tcpConn(c net.Conn) *net.TCPConn {
	for range 8 {
		switch v := c.(type) {
		case *net.TCPConn:
			return v
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil
		}
	}
	return nil
}
