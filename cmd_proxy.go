package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui"
)

// Proxy bounds. A request body is read whole before it is forwarded, to
// learn the model and tools; maxRequestBody keeps a runaway upload from
// exhausting memory (a larger body is forwarded but not inspected).
const (
	maxRequestBody     = 64 << 20
	dialTimeout        = 10 * time.Second
	defaultHeadTimeout = 10 * time.Minute // reasoning models can think for minutes before the head
	shutdownGrace      = 5 * time.Second
)

type proxyOptions struct {
	listen      string
	upstream    *url.URL
	record      string
	noTUI       bool
	logFile     string // with the TUI: where the session lines go
	keepSecrets bool
	headTimeout time.Duration
	idle        time.Duration
}

// proxyFlags defines the proxy's flags into o; the upstream URL, parsed
// after, goes to the returned string.
func proxyFlags(o *proxyOptions) (*flag.FlagSet, *string) {
	fs := newFlagSet("proxy")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8787", "listen on `ADDR` (host:port); point the client's base URL here")
	up := fs.String("upstream", "", "forward to the http(s) `URL` of the API, e.g. https://api.openai.com (required)")
	fs.StringVar(&o.record, "record", "", "write a timed recording of every session into `DIR`")
	fs.BoolVar(&o.noTUI, "no-tui", false, "log one line per session on stderr instead of the live sessions list")
	fs.StringVar(&o.logFile, "log", "", "with the sessions list, write the one-line session log to `FILE` (without it the log goes nowhere)")
	fs.BoolVar(&o.keepSecrets, "keep-secrets", false, "do not redact credentials (Authorization, API keys, cookies) in recordings, the log and the sessions list")
	fs.DurationVar(&o.headTimeout, "timeout", defaultHeadTimeout, "give up on an upstream that sends no response head within `DURATION` (504 to the client)")
	fs.DurationVar(&o.idle, "idle-timeout", 0, "cut a stream that sends no bytes for `DURATION` (0: never)")
	return fs, up
}

func parseProxyArgs(args []string) (proxyOptions, error) {
	var o proxyOptions
	fs, up := proxyFlags(&o)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return o, err
	}
	if len(positional) > 0 {
		return o, fmt.Errorf("proxy takes no arguments (got %s)", strings.Join(positional, " "))
	}
	if *up == "" {
		return o, errors.New("proxy needs --upstream URL, e.g. --upstream https://api.openai.com")
	}
	u, err := url.Parse(*up)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return o, fmt.Errorf("--upstream %q: want an http:// or https:// URL", *up)
	}
	o.upstream = u
	return o, nil
}

// runProxy runs `streamtap proxy` until ctx is cancelled.
func runProxy(ctx context.Context, args []string, _ *os.File, stdout, stderr io.Writer) int {
	o, err := parseProxyArgs(args)
	if err != nil {
		return parseFailed("proxy", err, stdout, stderr)
	}
	if o.record != "" {
		if err := os.MkdirAll(o.record, 0o755); err != nil {
			fmt.Fprintf(stderr, "streamtap: record: %v\n", err)
			return 2
		}
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		fmt.Fprintf(stderr, "streamtap: %v — is another proxy already on %s?\n", err, o.listen)
		return 2
	}
	if !o.noTUI {
		if tty := terminalOf(stdout, stderr); tty != nil {
			return runProxyTUI(ctx, o, ln, tty, stderr)
		}
	}
	p := newProxy(o, stderr)
	fmt.Fprintf(stderr, "streamtap: proxy on http://%s → %s (point the client's base URL here)\n", ln.Addr(), o.upstream)
	if err := p.serve(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "streamtap: %v\n", err)
		return 2
	}
	return 0
}

// terminalOf returns the first of ws that is a terminal, or nil: the
// sessions list is drawn on stdout, or on stderr when stdout is piped.
func terminalOf(ws ...io.Writer) *os.File {
	for _, w := range ws {
		if f, ok := w.(*os.File); ok && term.IsTerminal(f.Fd()) {
			return f
		}
	}
	return nil
}

// proxy is the recording reverse proxy. It is safe for concurrent use:
// every request is a session of its own, and only the turn registry and
// the log are shared.
type proxy struct {
	o      proxyOptions
	rp     *httputil.ReverseProxy
	log    *lineLog
	next   atomic.Int64
	turns  turns
	feed   *proxyFeed          // the sessions list's feed, or nil without the TUI
	onDone func(*proxySession) // for tests: called after a session's line is logged

	upMu     sync.Mutex
	upgraded map[*capture.DuplexTee]struct{} // connections that switched protocols, still open
}

func newProxy(o proxyOptions, logw io.Writer) *proxy {
	p := &proxy{o: o, log: &lineLog{w: logw}}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   dialTimeout,
		ResponseHeaderTimeout: o.headTimeout,
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

func (p *proxy) serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close() // streams still open after the grace period are cut
	}
	p.closeUpgraded()
	return nil
}

func (p *proxy) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(p.o.upstream)
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

// ServeHTTP reads the request body (the model, the tools and the tool
// outputs sent back are in it), then forwards the request.
func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sess := &proxySession{
		p: p, id: int(p.next.Add(1)), start: time.Now(), in: r.Context(),
		method: r.Method, path: r.URL.RequestURI(),
		status: 0, headAt: capture.NoTime, firstByte: capture.NoTime, firstEvent: capture.NoTime,
	}
	if r.Body != nil && r.Body != http.NoBody {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
		sess.reqBody = body
		if err != nil {
			sess.finish(0, fmt.Errorf("read request body: %w", err), "client-error")
			http.Error(w, "streamtap: reading the request body failed", http.StatusBadRequest)
			return
		}
		// The forwarded body must not read the inbound one again: the
		// server closes it once the response head is written, and the
		// transport's final read of a closed body would tear down the
		// upstream connection mid-stream (golang/go#40747).
		var fwd io.Reader = bytes.NewReader(body)
		if len(body) > maxRequestBody {
			sess.reqBody = body[:maxRequestBody]
			fwd = io.MultiReader(fwd, r.Body) // too large to inspect: stream the rest
		}
		r.Body = io.NopCloser(fwd)
	}
	sess.req = parseRequest(sess.reqBody, r.URL.Path)
	sess.prev, sess.unanswered = p.turns.link(sess.req)
	u := *p.o.upstream
	u.Path, u.RawPath = singleJoin(u.Path, r.URL.Path), ""
	u.RawQuery = r.URL.RawQuery
	sess.url = u.String()
	sess.reqHeader = r.Header.Clone()
	sess.publish()
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, sess)))
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

func (p *proxy) modifyResponse(resp *http.Response) error {
	sess, _ := resp.Request.Context().Value(sessionKey{}).(*proxySession)
	if sess == nil {
		return nil
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return sess.upgrade(resp)
	}
	sess.respond(resp)
	resp.Body = capture.NewTee(resp.Body, sess.start, p.o.idle, sess.chunk, sess.done)
	return nil
}

// errorHandler answers when no response came: the upstream is unreachable,
// timed out before its head, or the client went away first.
func (p *proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	sess, _ := r.Context().Value(sessionKey{}).(*proxySession)
	if sess != nil && sess.ws != nil {
		return // the connection is the client's now; the session ends when it closes
	}
	state, status := classify(r.Context(), err)
	if sess != nil {
		sess.finish(status, err, state)
	}
	if state == "client-canceled" {
		return // nobody is listening
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "streamtap proxy: %s: %v\n", state, err)
}

// classify names why an exchange failed and the status the proxy answers.
func classify(in context.Context, err error) (string, int) {
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

// proxySession is one request/response pair. Its fields are written by
// the goroutine serving the request, or after a switch of protocols by
// the DuplexTee's sink, which runs one chunk at a time; finish runs once.
type proxySession struct {
	p          *proxy
	id         int
	start      time.Time
	in         context.Context // the client's request context
	method     string
	path       string
	url        string
	reqHeader  http.Header
	reqBody    []byte
	req        requestInfo
	prev       int // the session whose turn this request answers, or 0
	unanswered []string
	store      *capture.Store // the body's bytes, for the sessions list; nil without it
	uiReq      *ui.Request    // built once, then shared read-only with the UI

	status     int
	headAt     time.Duration
	firstByte  time.Duration
	firstEvent time.Duration
	fr         *capture.Framer
	s          *model.Session
	rec        *capture.Recorder
	recFile    *os.File
	recPath    string
	ws         *wsSession // after a switch of protocols, or nil
	once       sync.Once

	// Set by finish.
	state string
	err   error
	dur   time.Duration
}

// respond starts the session's model and recording when the head arrives.
func (ps *proxySession) respond(resp *http.Response) {
	ps.status = resp.StatusCode
	ps.headAt = time.Since(ps.start)
	format := bodyFormat(resp.Header.Get("Content-Type"))
	if resp.StatusCode == http.StatusSwitchingProtocols {
		format = capture.FormatSSE // the messages are written as SSE blocks
	}
	ps.fr = capture.NewFramer(format)
	// No Raw store: the log needs only the assembly, and a 1 MiB store
	// block per session would dominate memory under many streams.
	ps.s = model.NewSession(model.Options{})
	// The head goes in first, so that an HTTP error status is an error.
	head := headFrame(resp, ps.headAt)
	ps.s.Add(head)
	if ps.p.feed != nil {
		ps.p.feed.frame(ps.id, head.Detach())
		ps.publish()
	}
	ps.openRecording(resp, format)
}

func bodyFormat(ctype string) capture.Format {
	ctype = strings.ToLower(ctype)
	switch {
	case strings.HasPrefix(ctype, "text/event-stream"):
		return capture.FormatSSE
	case strings.Contains(ctype, "ndjson") || strings.Contains(ctype, "jsonl"):
		return capture.FormatJSONL
	case strings.Contains(ctype, "json"):
		return capture.FormatJSON
	}
	return capture.FormatAuto
}

// headFrame makes a head frame for the model. It covers no bytes of the
// body: its offsets are empty.
func headFrame(resp *http.Response, at time.Duration) *capture.Frame {
	f := &capture.Frame{Kind: capture.FrameHead, At: at, Retry: -1, Proto: resp.Proto, Status: resp.StatusCode}
	for k, vs := range resp.Header {
		for _, v := range vs {
			f.Header = append(f.Header, capture.Field{Name: []byte(k), Value: []byte(v)})
		}
	}
	return f
}

func (ps *proxySession) exchange() *capture.Exchange {
	return &capture.Exchange{
		Started: ps.start, Method: ps.method, URL: ps.url,
		RequestHeader: ps.reqHeader, RequestBody: ps.reqBody,
		HeadAt: ps.headAt,
	}
}

func (ps *proxySession) openRecording(resp *http.Response, format capture.Format) {
	if ps.p.o.record == "" {
		return
	}
	f, path, err := createRecording(ps.p.o.record, ps.start, ps.id, ps.method, ps.path)
	if err != nil {
		ps.p.log.printf("#%d record: %v", ps.id, err)
		return
	}
	x := ps.exchange()
	x.Proto, x.Status, x.ResponseHeader = resp.Proto, resp.StatusCode, resp.Header.Clone()
	if format != capture.FormatSSE {
		format = capture.FormatJSON // anything else is kept verbatim
	}
	ps.recFile, ps.recPath = f, path
	ps.rec = capture.NewRecorder(f, x, capture.RecordOptions{Format: format, KeepSecrets: ps.p.o.keepSecrets})
}

// createRecording makes a new file in dir named after the session.
func createRecording(dir string, start time.Time, id int, method, path string) (*os.File, string, error) {
	var b strings.Builder
	for _, c := range strings.TrimPrefix(path, "/") {
		if b.Len() >= 60 {
			break
		}
		if c == '?' {
			break
		}
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' {
			b.WriteRune(c)
		} else {
			b.WriteByte('-')
		}
	}
	name := fmt.Sprintf("%s-%04d-%s-%s.sse", start.Format("20060102T150405"), id, method, strings.Trim(b.String(), "-"))
	full := filepath.Join(dir, name)
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	return f, full, err
}

// chunk takes body bytes from the tee, after the client has them.
func (ps *proxySession) chunk(p []byte, at time.Duration) {
	if ps.firstByte == capture.NoTime {
		ps.firstByte = at
		ps.publish()
	}
	ps.body(p, at)
}

// body adds bytes to the session's body: its store, its recording and its
// model.
func (ps *proxySession) body(p []byte, at time.Duration) {
	if ps.store != nil {
		ps.store.Append(p) // before its frames reach the UI
	}
	if ps.rec != nil {
		if err := ps.rec.Write(p, at); err != nil {
			ps.p.log.printf("#%d %v", ps.id, err)
			ps.closeRecording(at)
		}
	}
	ps.fr.Feed(p, at, ps.add)
}

func (ps *proxySession) add(f *capture.Frame) {
	first := f.Kind == capture.FrameEvent && ps.firstEvent == capture.NoTime
	if first {
		ps.firstEvent = f.At
	}
	ps.s.Add(f)
	if ps.p.feed != nil {
		ps.p.feed.frame(ps.id, f.Detach())
		if first {
			ps.publish()
		}
	}
}

func (ps *proxySession) closeRecording(at time.Duration) {
	if ps.rec == nil {
		return
	}
	err := ps.rec.Close(at)
	if cerr := ps.recFile.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		ps.p.log.printf("#%d record %s: %v", ps.id, ps.recPath, err)
	}
	ps.rec = nil
}

// done ends a session whose response head arrived.
func (ps *proxySession) done(err error, at time.Duration) {
	ps.fr.Finish(at, ps.add)
	ps.closeRecording(at)
	state := ""
	if err != nil {
		switch {
		case errors.Is(err, capture.ErrIdle):
			state = "idle-timeout"
		case ps.in.Err() != nil, errors.Is(err, capture.ErrClosedEarly):
			// ReverseProxy closes the body early only when writing to the
			// client failed.
			state = "client-canceled"
		default:
			state = "upstream-failed"
		}
	}
	ps.s.End(err)
	ps.finish(ps.status, err, state)
}

// finish logs the session's line once. state is empty when the stream
// decides it (the model's outcome).
func (ps *proxySession) finish(status int, err error, state string) {
	ps.once.Do(func() {
		ps.dur = time.Since(ps.start)
		ps.err = err
		if ps.status == 0 {
			ps.status = status
		}
		if ps.s == nil && ps.p.o.record != "" {
			ps.recordFailure(err)
		}
		if state == "" {
			state = "empty"
			if ps.s != nil {
				state = ps.s.Outcome().State
			}
		}
		ps.state = state
		if ps.s != nil {
			ps.p.turns.register(ps.id, ps.s)
		}
		ps.p.log.line(ps.logLine())
		if ps.p.feed != nil {
			ps.p.feed.end(ps.exchangeInfo(), ps.rawStore(), err)
		}
		if ps.p.onDone != nil {
			ps.p.onDone(ps)
		}
	})
}

// recordFailure writes a recording of an exchange that got no response.
func (ps *proxySession) recordFailure(err error) {
	f, path, cerr := createRecording(ps.p.o.record, ps.start, ps.id, ps.method, ps.path)
	if cerr != nil {
		ps.p.log.printf("#%d record: %v", ps.id, cerr)
		return
	}
	x := ps.exchange()
	x.HeadAt = capture.NoTime
	if err != nil {
		x.Error = err.Error()
	}
	rec := capture.NewRecorder(f, x, capture.RecordOptions{Format: capture.FormatJSON, KeepSecrets: ps.p.o.keepSecrets})
	if werr := rec.Close(capture.NoTime); werr != nil {
		ps.p.log.printf("#%d record %s: %v", ps.id, path, werr)
	}
	f.Close()
	ps.recPath = path
}

// logLine is the session's one line: key=value pairs, values quoted when
// they hold spaces, terminal-safe.
func (ps *proxySession) logLine() string {
	var b strings.Builder
	path := ps.path
	if !ps.p.o.keepSecrets {
		path = capture.RedactURL(path) // Gemini takes its key as ?key=
	}
	fmt.Fprintf(&b, "#%d %s %s %d", ps.id, ps.method, ui.Safe(path), ps.status)
	kv := func(k, v string) {
		if v == "" {
			return
		}
		if strings.ContainsAny(v, " \t\"=") {
			v = strconv.Quote(v)
		}
		b.WriteString(" " + k + "=" + ui.Safe(v))
	}
	ms := func(d time.Duration) string {
		if d == capture.NoTime {
			return "-"
		}
		return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) + "s"
	}
	kv("model", ps.req.model)
	dialect, calls := "-", 0
	var bytesIn int64
	if ps.s != nil {
		dialect = ps.s.Dialect().String()
		calls = len(ps.s.Calls())
		bytesIn = ps.s.Bytes()
	}
	if ps.ws != nil {
		bytesIn = ps.ws.wire[capture.WSServer] // the body holds the messages as SSE blocks
	}
	kv("dialect", dialect)
	kv("dur", ms(ps.dur))
	kv("ttfb", ms(ps.firstByte))
	kv("tfe", ms(ps.firstEvent))
	kv("calls", strconv.Itoa(calls))
	kv("bytes", strconv.FormatInt(bytesIn, 10))
	kv("outcome", ps.state)
	if ps.ws != nil {
		ps.ws.logFields(kv)
	}
	if ps.err != nil && !errors.Is(ps.err, capture.ErrClosedEarly) {
		kv("error", ps.err.Error())
	} else if ps.s != nil {
		if o := ps.s.Outcome(); o.Detail != "" && ps.state == o.State {
			kv("detail", o.Detail)
		}
	}
	if ps.prev > 0 {
		kv("turn-of", "#"+strconv.Itoa(ps.prev))
	}
	if len(ps.unanswered) > 0 {
		kv("unanswered", strings.Join(ps.unanswered, ","))
		kv("finding", "No tool output found for function call "+ps.unanswered[0])
	}
	kv("record", ps.recPath)
	return b.String()
}

// lineLog writes whole lines, one writer at a time.
type lineLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineLog) line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.w, "streamtap: "+s)
}

func (l *lineLog) printf(format string, args ...any) { l.line(fmt.Sprintf(format, args...)) }

// publish hands the session's current state to the sessions list, if
// there is one. It runs on the session's own goroutine.
func (ps *proxySession) publish() {
	if ps.p.feed == nil {
		return
	}
	ps.p.feed.update(ps.exchangeInfo(), ps.start, ps.rawStore())
}

// rawStore returns the store the UI reads the body back from, making it
// on first use.
func (ps *proxySession) rawStore() *capture.Store {
	if ps.store == nil {
		ps.store = new(capture.Store)
	}
	return ps.store
}

// exchangeInfo is a copy of what the sessions list shows of the session,
// with secrets redacted unless --keep-secrets.
func (ps *proxySession) exchangeInfo() ui.Exchange {
	body := ps.reqBody
	if ps.ws != nil {
		body = ps.ws.request
	}
	if ps.uiReq == nil && len(body) > 0 && json.Valid(body) {
		h := ps.reqHeader
		if !ps.p.o.keepSecrets {
			h = capture.RedactHeaders(h)
		}
		r := ps.req
		ps.uiReq = &ui.Request{
			Header: h, Size: len(body), Tools: slices.Clone(r.tools), ToolChoice: r.toolChoice,
			Parallel: r.parallel, Previous: r.previous, Outputs: slices.Clone(r.outputs),
		}
	}
	path := ps.path
	if !ps.p.o.keepSecrets {
		path = capture.RedactURL(path)
	}
	x := ui.Exchange{
		ID: ps.id, Method: ps.method, Path: path, Status: ps.status, Model: ps.req.model,
		Dur: time.Since(ps.start), TTFB: ps.firstByte, TFE: ps.firstEvent,
		Outcome: ps.state, TurnOf: ps.prev, Unanswered: slices.Clone(ps.unanswered),
		Request: ps.uiReq, Record: ps.recPath,
	}
	if ps.state == "closed" && ps.ws != nil && ps.ws.parsers[0] != nil {
		x.Outcome += " " + strconv.Itoa(ps.ws.code())
	}
	if ps.state != "" {
		x.Dur = ps.dur
		if ps.err != nil && !errors.Is(ps.err, capture.ErrClosedEarly) {
			x.Err = ps.err.Error()
		}
	}
	return x
}
