// Package proxy is streamtap's recording reverse proxy: it passes each
// request to the upstream and its response back to the client byte for
// byte, and models every exchange on the side: one session per exchange,
// modelled once, which the log line, the turn links, a recording and the
// sessions list all read. It knows nothing about flags or terminals; the
// sessions list gets the exchanges through a Feed.
package proxy

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/ingest"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// Proxy bounds. MaxRequestBody is how much of a request body replay
// reads (and discards) before it answers; the proxy keeps MaxRequestKept.
const (
	MaxRequestBody     = 64 << 20
	dialTimeout        = 10 * time.Second
	DefaultHeadTimeout = 10 * time.Minute // reasoning models can think for minutes before the head
	// ShutdownGrace is how long the proxy and replay let open exchanges
	// finish once told to stop: a stream about to end is kept whole, and
	// with cutWait and the files written the process ends within 2s of the
	// signal, however its upstream stalls.
	ShutdownGrace = time.Second
	// DefaultBodyTimeout is Options.BodyTimeout's default: a client
	// must send its request body at MinBodyRate on average over 30s.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultClientIdle closes a client's keep-alive connection that
	// sends no new request for this long (Options.ClientIdle). Clients
	// drop their own idle connections sooner (4-5 s for Node and
	// Python's httpx), so they rarely race the close.
	DefaultClientIdle = 30 * time.Second
)

// Options configure a Proxy.
type Options struct {
	Upstream *url.URL // the API, e.g. https://api.openai.com
	Record   string   // a directory for a timed recording of every exchange, or ""
	// HAR, when set, gets an entry for every HTTP exchange (not the
	// WebSockets: --record keeps those). The caller closes it.
	HAR         *capture.HAR
	KeepSecrets bool          // do not redact credentials in recordings, the log and the sessions list
	HeadTimeout time.Duration // give up on an upstream that sends no response head for this long (504)
	Idle        time.Duration // cut a stream that sends no bytes for this long (0: never)
	// BodyTimeout cuts a client that sends its request body at under
	// MinBodyRate on average over this long (408); the time the upstream
	// takes to accept the bytes does not count (0: never). See
	// MinBodyRate and requestBody.
	BodyTimeout time.Duration
	// ClientIdle closes a client's keep-alive connection after this long
	// without a new request (0: never).
	ClientIdle time.Duration
	// ClientHeadTimeout bounds the time a client takes to send a
	// request's head (0: DefaultClientHeadTimeout); a head is at most
	// MaxHeadBytes.
	ClientHeadTimeout time.Duration
	// ClientWriteTimeout cuts a client that takes none of the response's
	// bytes for this long: its session ends and the upstream connection
	// is closed (0: never).
	ClientWriteTimeout time.Duration
	// MaxConns is how many client connections may be open at once; past
	// it new ones wait to be accepted (0: no bound).
	MaxConns int
	// Feed, when set, receives every exchange for the sessions list; its
	// sessions then keep their events and bytes for the panes, and the
	// protocol checks observe them.
	Feed *Feed
	// Grace is how long Serve lets open exchanges finish when it stops
	// before it cuts them (0: ShutdownGrace).
	Grace time.Duration
	// Rules is what the user changed of the protocol rules (a config
	// file's disable and severity), applied to the findings of the log
	// line and of the sessions list.
	Rules checks.Config
	// Spill, with Feed, is a directory where each ended session's bytes
	// are kept (compressed), so that the sessions list can let the
	// session go and load it again when it is opened (model.StoredSession). The
	// caller makes it, and removes it when the proxy stopped. "": the list
	// keeps every session in memory.
	Spill string
}

// Proxy is the recording reverse proxy, an http.Handler. It is safe for
// concurrent use: every request is a session of its own, and only the
// turn registry, the log and the feed are shared.
type Proxy struct {
	o      Options
	rp     *httputil.ReverseProxy
	log    *Log
	next   atomic.Int64
	turns  model.Turns
	feed   *Feed          // the sessions list's feed, or nil
	onDone func(*session) // for tests: called after a session's line is logged
	onBig  func()         // for tests: called after a frame of ingest.CollectAbove or more is modelled

	upMu     sync.Mutex
	upgraded map[*capture.DuplexTee]struct{} // connections that switched protocols, still open
	open     openSessions                    // sessions not finished yet
	spill    *spillDir                       // where ended sessions wait for the sessions list, or nil
	loop     *loopGuard                      // the proxy's own listeners and hop name

	// multi says the proxy serves several listeners (ServeLegs), whose
	// sessions legs links.
	multi bool
	legs  model.Legs
}

// New returns a proxy to o.Upstream that writes one line per exchange to
// logw.
func New(o Options, logw io.Writer) *Proxy {
	p := &Proxy{o: o, log: NewLog(logw), feed: o.Feed, loop: newLoopGuard()}
	if o.Feed != nil && o.Spill != "" {
		p.spill = &spillDir{dir: o.Spill}
	}
	tr := &http.Transport{
		Proxy:                 p.upstreamProxy, // the environment's, never this proxy (loop.go)
		DialContext:           (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   dialTimeout,
		ResponseHeaderTimeout: o.HeadTimeout,
		// The body must reach the model as the upstream sent it; the
		// client's Accept-Encoding is replaced (see rewrite).
		DisableCompression: true,
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      tr,
		FlushInterval:  -1, // flush every write: a stream is passed on as it arrives
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
		ErrorLog:       log.New(io.Discard, "", 0), // each session logs its own outcome
	}
	return p
}

// Serve answers requests on ln until ctx ends, then stops: open
// exchanges get Options.Grace to finish, WebSockets are closed, and
// Serve returns once every session has ended (its log line and HAR entry
// written), or cutWait after cutting them.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	return p.ServeLegs(ctx, []Leg{{Listener: ln, Upstream: p.o.Upstream}})
}

// Leg is a listener of the proxy and the upstream it forwards to.
type Leg struct {
	Listener net.Listener
	Upstream *url.URL
}

// ServeLegs is Serve on several listeners, each forwarding to its own
// upstream, their sessions numbered, logged, recorded and listed as one
// proxy's. With two or more, the sessions of an application and of the
// provider it calls (one listener in front of each) are linked: a
// provider session to the application session it was a model call of
// (model.Legs). It returns when every listener has stopped, with the
// first error (which stops the others).
func (p *Proxy) ServeLegs(ctx context.Context, legs []Leg) error {
	p.multi = len(legs) > 1
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l := Limits{MaxConns: p.o.MaxConns, HeadTimeout: p.o.ClientHeadTimeout, Idle: p.o.ClientIdle, WriteTimeout: p.o.ClientWriteTimeout}
	errs := make([]error, len(legs))
	var wg sync.WaitGroup
	for i, leg := range legs {
		p.listening(leg.Listener)
		wg.Go(func() {
			if errs[i] = serve(ctx, leg.Listener, p.legHandler(i, leg.Upstream), l, p.o.Grace, nil); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	p.closeUpgraded()
	// Close does not wait for the handlers: the sessions it cut end
	// moments later, and their log lines and HAR entries must be written
	// before the caller closes the files.
	p.open.wait(cutWait)
	return errors.Join(errs...)
}

// cutWait bounds how long Serve waits for the sessions it cut to end:
// cutting a client's connection cancels the exchange's request upstream,
// so they end at once.
const cutWait = 500 * time.Millisecond

// openSessions counts the sessions that have not finished: Serve waits
// for them when it stops. (A sync.WaitGroup cannot be used: a request
// that starts while Serve waits would be an Add concurrent with Wait.)
type openSessions struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n comes back to 0, while someone waits
}

func (o *openSessions) add(delta int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n += delta
	if o.n == 0 && o.zero != nil {
		close(o.zero)
		o.zero = nil
	}
}

// wait waits until no session is open, or for d at most.
func (o *openSessions) wait(d time.Duration) {
	o.mu.Lock()
	if o.n == 0 {
		o.mu.Unlock()
		return
	}
	if o.zero == nil {
		o.zero = make(chan struct{})
	}
	zero := o.zero
	o.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-zero:
	case <-t.C:
	}
}

func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	up := p.o.Upstream
	if l, ok := pr.In.Context().Value(legKey{}).(legOf); ok {
		up = l.upstream
	}
	pr.SetURL(up)
	pr.Out.Header.Add("Via", p.loop.via(pr.In)) // a request that comes back is refused (loop.go)
	// A compressed stream could not be shown; ask for identity. Clients
	// accept an uncompressed response to any Accept-Encoding.
	pr.Out.Header.Set("Accept-Encoding", "identity")
	// Likewise a WebSocket: without the extension offer the server cannot
	// negotiate permessage-deflate (RFC 7692), and its messages stay
	// readable. Extensions are optional; the client sees none accepted.
	if strings.EqualFold(pr.In.Header.Get("Upgrade"), "websocket") {
		pr.Out.Header.Del("Sec-WebSocket-Extensions")
	}
}

type sessionKey struct{}

// ServeHTTP reads the first MaxRequestKept bytes of the request body (the
// model, the tools and the tool outputs sent back are in it), then
// forwards the request to Options.Upstream, the rest of the body streamed
// as it arrives.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.serve(w, r, legOf{upstream: p.o.Upstream})
}

// legOf is the listener a request came in on: its index, and the upstream
// it forwards to.
type legOf struct {
	leg      int
	upstream *url.URL
}

type legKey struct{}

// legHandler serves the requests of listener i, forwarding to up.
func (p *Proxy) legHandler(i int, up *url.URL) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.serve(w, r, legOf{leg: i, upstream: up})
	})
}

// serve is ServeHTTP for a request that came in on leg l.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request, l legOf) {
	r = r.WithContext(context.WithValue(r.Context(), legKey{}, l))
	sess := p.newSession(r)
	sess.leg = l.leg
	if p.loop.looped(r) {
		sess.url = p.upstreamURL(r)
		sess.finish(http.StatusLoopDetected, errLoop, "loop")
		w.Header().Set("Connection", "close")
		http.Error(w, "streamtap proxy: loop: "+errLoop.Error(), http.StatusLoopDetected)
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		body := newRequestBody(r, w, p.o.BodyTimeout)
		defer body.release()
		sess.reqRead = body
		kept, whole, err := body.readPrefix(r.ContentLength)
		sess.reqBody = kept
		if err != nil {
			state, status := "client-error", 0
			if errors.Is(err, ErrBodyTimeout) {
				state, status = "client-timeout", http.StatusRequestTimeout
			}
			sess.finish(status, fmt.Errorf("read request body: %w", err), state)
			w.Header().Set("Connection", "close")
			http.Error(w, "streamtap: reading the request body failed: "+state, cmp.Or(status, http.StatusBadRequest))
			return
		}
		if whole {
			// The forwarded body must not read the inbound one again
			// (see requestBody.Read).
			r.Body = io.NopCloser(bytes.NewReader(kept))
		} else {
			// Too large to keep: the rest is streamed, and may still be
			// on its way when the response starts.
			sess.reqSize = r.ContentLength
			_ = http.NewResponseController(w).EnableFullDuplex()
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(kept), body), body}
		}
	}
	sess.url = p.upstreamURL(r)
	sess.reqHeader = r.Header.Clone()
	sess.req = model.ParseRequest(sess.reqBody, r.URL.Path)
	sess.learnChecks()
	sess.prev, sess.unanswered = p.turns.Link(sess.req)
	x := sess.exchange()
	link := p.turns.LinkExchange(&x)
	if sess.prev == 0 && link.Prev > 0 {
		sess.prev, sess.link = link.Prev, link.Verb
	}
	sess.learnExchange(&x, link.Earlier)
	sess.publish()
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, sess)))
	if sess.largest >= ingest.CollectAbove {
		// The session leaves its framer's buffer and its model's copies
		// of the frame behind (112 MiB after a 50 MB event): the heap
		// limit follows what the last collection found live, which was
		// the session at its largest, so the next stream's buffers were
		// allocated beside them. On a goroutine of its own, it runs once
		// serve has returned, when nothing holds the session any more.
		go runtime.GC()
	}
}

// upstreamURL is the URL a request is forwarded to: on the upstream of
// the listener it came in on (ServeLegs), else Options.Upstream.
func (p *Proxy) upstreamURL(r *http.Request) string {
	u := *p.o.Upstream
	if l, ok := r.Context().Value(legKey{}).(legOf); ok {
		u = *l.upstream
	}
	u.Path, u.RawPath = singleJoin(u.Path, r.URL.Path), ""
	u.RawQuery = r.URL.RawQuery
	return u.String()
}

func singleJoin(a, b string) string {
	switch {
	case a == "":
		return b
	case strings.HasSuffix(a, "/") && strings.HasPrefix(b, "/"):
		return a + b[1:]
	case !strings.HasSuffix(a, "/") && !strings.HasPrefix(b, "/"):
		return a + "/" + b
	}
	return a + b
}

func (p *Proxy) modifyResponse(resp *http.Response) error {
	sess, _ := resp.Request.Context().Value(sessionKey{}).(*session)
	if sess == nil {
		return nil
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return sess.upgrade(resp)
	}
	sess.respond(resp)
	resp.Body = capture.NewTee(resp.Body, sess.start, p.o.Idle, sess.chunk, sess.done)
	return nil
}

// errorHandler answers when no response came: the upstream is unreachable,
// timed out before its head, or the client went away first.
func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	sess, _ := r.Context().Value(sessionKey{}).(*session)
	if sess != nil && sess.ws != nil {
		return // the connection is the client's now; the session ends when it closes
	}
	state, status := Classify(r.Context(), err)
	if sess != nil && sess.reqRead != nil {
		// A client too slow with its body caused the failure (the
		// context was canceled by the failed read, too).
		if berr := sess.reqRead.readErr(); errors.Is(berr, ErrBodyTimeout) {
			err, state, status = berr, "client-timeout", http.StatusRequestTimeout
			w.Header().Set("Connection", "close")
		}
	}
	if sess != nil {
		sess.finish(status, err, state)
	}
	if state == "client-canceled" {
		return // nobody is listening
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "streamtap proxy: %s: %s\n", state, p.redactText(err.Error()))
}

// Classify names why an exchange failed (client-canceled, idle-timeout,
// timeout, unreachable, upstream-error) and the status the proxy answers.
func Classify(in context.Context, err error) (string, int) {
	var ne net.Error
	var op *net.OpError
	switch {
	case in.Err() != nil || errors.Is(err, context.Canceled):
		return "client-canceled", 499
	case errors.Is(err, capture.ErrIdle):
		return "idle-timeout", http.StatusGatewayTimeout
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return "timeout", http.StatusGatewayTimeout
	case errors.As(err, &op) && op.Op == "dial":
		return "unreachable", http.StatusBadGateway
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "unreachable", http.StatusBadGateway
	}
	return "upstream-error", http.StatusBadGateway
}
