package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/ingest"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/termtext"
)

// session is one request/response pair, modelled once. Its fields are
// written by the goroutine serving the request, or after a switch of
// protocols by the DuplexTee's sink, which runs one chunk at a time;
// finish runs once.
//
// The frames go through an ingest.Inline, which copies them into a batch
// and adds the batch to the session after each chunk (model) on the same
// goroutine, so the client's stream never waits for another goroutine to
// be scheduled. The session is a model.Live: the Inline, finish and the
// sessions list each hold its lock while they use it.
type session struct {
	p          *Proxy
	id         int
	leg        int // the listener the request came in on (ServeLegs)
	start      time.Time
	in         context.Context // the client's request context
	method     string
	path       string
	url        string
	reqHeader  http.Header
	reqBody    []byte       // the first MaxRequestKept bytes of the request body
	reqSize    int64        // the body's size when reqBody holds only its start: -1 unknown, 0 whole
	reqRead    *requestBody // the request body being read, or nil
	req        model.Request
	prev       int // the session whose turn this request answers, or 0
	unanswered []string
	store      *capture.Store  // the body's bytes, for the sessions list; nil without it
	shown      *model.Request  // built once, then shared read-only with the UI
	checks     *checks.Checker // the protocol checks: the log line's findings and the sessions list's

	live       *model.Live
	status     int
	headAt     time.Duration
	firstByte  time.Duration
	firstEvent time.Duration
	largest    int             // the size of the largest frame, for ingest.CollectAbove
	fr         *capture.Framer // set when the response head arrived
	inline     *ingest.Inline
	rec        *capture.Recorder
	recFile    *capture.Output
	recPath    string
	recWait    *heldRecording    // a recording waiting for the body to tell its format, or nil
	har        *capture.HAREntry // the session's entry in Options.HAR, or nil
	ws         *wsSession        // after a switch of protocols, or nil
	once       sync.Once

	// Set by finish.
	state string
	err   error
	dur   time.Duration
	links legLinks // the turn's other leg, when ServeLegs links it

	reads []byte        // for the spill: each read's length and time (spillBody), or nil
	endAt time.Duration // when the body ended (endModel), or capture.NoTime

	// link says what the request does to prev when it is no turn of it
	// (an MCP GET resumes its stream): see model.Exchange.Link.
	link string
}

// newSession starts the session of a request. The checks observe every
// session, for the findings of its log line. Its model keeps its events
// and its bytes (in a Store) only for the sessions list: without it the
// log needs no more, and a 1 MiB store block per session would dominate
// memory under many streams.
func (p *Proxy) newSession(r *http.Request) *session {
	ps := &session{
		p: p, id: int(p.next.Add(1)), start: time.Now(), in: r.Context(),
		method: r.Method, path: r.URL.RequestURI(),
		status: 0, headAt: capture.NoTime, firstByte: capture.NoTime, firstEvent: capture.NoTime,
	}
	var opts model.Options
	if p.feed != nil {
		ps.store = new(capture.Store)
		opts = model.Options{KeepEvents: true, Raw: ps.store}
	}
	opts, ps.checks = checks.Attach(opts)
	ps.checks.SetConfig(p.o.Rules)
	ps.endAt = capture.NoTime
	ps.live = model.NewLive(model.NewSession(opts))
	p.open.add(1)
	return ps
}

// learnChecks gives the session's checks the request body just read
// (ps.req), so that they hold the calls to its tools, as check does with
// the session's recording, whose header carries the body. (A WebSocket's
// request is its first response.create message, which the checks read
// from the session's frames themselves, as check of its recording does.)
// The sessions list may be reading the session: the request is set under
// its lock.
func (ps *session) learnChecks() {
	if !ps.req.Parsed {
		return
	}
	r := ps.req
	ps.live.Lock()
	ps.checks.SetRequest(&r)
	ps.live.Unlock()
}

// learnExchange gives the session's model the exchange its stream
// answers, request included, and the exchange it continues (an MCP GET
// that resumes a stream carries the responses to that stream's
// requests), before the head arrives: a dialect whose calls are in the
// request (MCP) reads them there. The sessions list may be reading the
// session: they are set under its lock.
func (ps *session) learnExchange(x *capture.Exchange, earlier model.Earlier) {
	s := ps.live.Lock()
	s.SetExchange(x)
	s.SetEarlier(earlier)
	ps.live.Unlock()
}

// respond starts the session's modelling and recording when the head
// arrives.
func (ps *session) respond(resp *http.Response) {
	ps.status = resp.StatusCode
	if ps.headAt == capture.NoTime { // a spilled session's is known already
		ps.headAt = time.Since(ps.start)
	}
	format := capture.HeadFormat(resp.Header)
	if resp.StatusCode == http.StatusSwitchingProtocols {
		format = capture.FormatSSE // the messages are written as SSE blocks
	}
	ps.fr = capture.NewFramer(format)
	ps.inline = ingest.NewInline(ps.live, true) // the checks read Raw
	// The head goes in first, so that an HTTP error status is an error.
	ps.add(headFrame(resp, ps.headAt))
	ps.model()
	ps.publish()
	ps.openRecording(resp, format)
	ps.openHAR(resp)
}

// model ends a read: the frames it completed are added to the session;
// the sessions list hears of it.
func (ps *session) model() {
	if ps.inline.EndRead() && ps.p.feed != nil {
		ps.p.feed.touch(ps.id)
	}
}

// endModel adds the last frames.
func (ps *session) endModel(at time.Duration) {
	ps.endAt = at
	ps.fr.Finish(at, ps.add)
	ps.model()
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

// exchange is what went over the wire, as a recording's header tells it.
func (ps *session) exchange() capture.Exchange {
	return capture.Exchange{
		Started: ps.start, Method: ps.method, URL: ps.url,
		RequestHeader: ps.reqHeader, RequestBody: ps.reqBody, RequestBodySize: ps.reqSize,
		HeadAt: ps.headAt, Status: ps.status,
	}
}

// openRecording starts the session's recording when the head arrives, in
// the format its Content-Type tells. When the type tells none (a body
// without one, application/octet-stream …) the recording waits for the
// body's first bytes: an AWS event stream says what it is by its prelude,
// and is then named and timed as one (heldRecording).
func (ps *session) openRecording(resp *http.Response, format capture.Format) {
	if ps.p.o.Record == "" {
		return
	}
	x := ps.exchange()
	x.Proto, x.Status, x.ResponseHeader = resp.Proto, resp.StatusCode, resp.Header.Clone()
	if format == capture.FormatAuto {
		ps.recWait = &heldRecording{x: x}
		return
	}
	ps.createRecorder(&x, format)
}

// createRecorder creates the recording's file, named after the body's
// format, and its recorder.
func (ps *session) createRecorder(x *capture.Exchange, format capture.Format) {
	f, path, err := createRecording(ps.p.o.Record, ps.start, ps.id, ps.method, ps.path, format)
	if err != nil {
		ps.p.log.Printf("#%d record: %v", ps.id, err)
		return
	}
	format = capture.RecordFormat(format) // timed by event, message or line; anything else verbatim
	ps.recFile, ps.recPath = f, path
	ps.rec = capture.NewRecorder(f, x, capture.RecordOptions{Format: format, KeepSecrets: ps.p.o.KeepSecrets})
}

// heldRecording is a recording whose body's Content-Type did not tell
// its format: the exchange, and the body's first reads (copies, with
// their times) until they hold an event stream prelude's bytes.
type heldRecording struct {
	x     capture.Exchange
	reads [][]byte
	ats   []time.Duration
	n     int
}

// holdRecording keeps a read for a recording that waits for its format,
// and starts the recording once the reads tell it.
func (ps *session) holdRecording(p []byte, at time.Duration) {
	w := ps.recWait
	w.reads, w.ats = append(w.reads, bytes.Clone(p)), append(w.ats, at)
	if w.n += len(p); w.n >= capture.EventStreamPrelude {
		ps.startHeldRecording()
	}
}

// startHeldRecording starts a waiting recording in the format its first
// bytes tell (all the body had, when it ended sooner): an event stream's
// recording is NAME.eventstream and times each message, as one whose
// Content-Type says so; any other body is recorded as before, verbatim
// in NAME.sse. The reads held so far go in with their own times.
func (ps *session) startHeldRecording() {
	w := ps.recWait
	ps.recWait = nil
	format := capture.FormatAuto
	if capture.StartsEventStream(bytes.Join(w.reads, nil)) {
		format = capture.FormatEventStream
	}
	ps.createRecorder(&w.x, format)
	for i, p := range w.reads {
		if ps.rec == nil {
			return
		}
		ps.writeRecording(p, w.ats[i])
	}
}

// writeRecording adds body bytes to the recording; a write that fails
// ends it (the client's stream goes on).
func (ps *session) writeRecording(p []byte, at time.Duration) {
	if err := ps.rec.Write(p, at); err != nil {
		ps.p.log.Printf("#%d %v", ps.id, err)
		ps.closeRecording(at)
	}
}

// openHAR starts the session's HAR entry. A WebSocket's messages are not
// an HTTP body: its session has none.
func (ps *session) openHAR(resp *http.Response) {
	if ps.p.o.HAR == nil || resp.StatusCode == http.StatusSwitchingProtocols {
		return
	}
	x := ps.exchange()
	x.Proto, x.Status, x.ResponseHeader = resp.Proto, resp.StatusCode, resp.Header.Clone()
	ps.har = ps.p.o.HAR.Entry(&x)
}

// closeHAR writes the session's HAR entry, the last body bytes read at
// time at.
func (ps *session) closeHAR(at time.Duration) {
	if ps.har == nil {
		return
	}
	if err := ps.har.Close(at); err != nil {
		ps.p.log.Printf("#%d %v", ps.id, err)
	}
	ps.har = nil
}

// createRecording makes a new file in dir named after the session: its
// start, its id, its method and its path. Each part is bounded and cut to
// letters, digits, '.' and '_' (anything else becomes '-'), so that any
// request (a method is any HTTP token, of any length) gets a file name
// well under the usual 255-byte limit, in dir and nowhere else. Its
// extension says what the body is, as its Content-Type (or, without one
// that tells, its first bytes: see openRecording) tells (format):
// .eventstream for an AWS event stream (binary: no text tool should take
// it for SSE), .ndjson for JSON lines, .datastream for the AI SDK's v4
// data stream (text/plain CODE:JSON lines), .sse for the rest (the
// recording format is SSE comments and the body).
func createRecording(dir string, start time.Time, id int, method, path string, format capture.Format) (*capture.Output, string, error) {
	path, _, _ = strings.Cut(strings.TrimPrefix(path, "/"), "?")
	ext := ".sse"
	switch format {
	case capture.FormatEventStream:
		ext = ".eventstream"
	case capture.FormatJSONL:
		ext = ".ndjson"
	case capture.FormatDataStream:
		ext = ".datastream"
	}
	name := fmt.Sprintf("%s-%04d-%s-%s%s", start.Format("20060102T150405"), id,
		fileNamePart(method, maxNameMethod), fileNamePart(path, maxNamePath), ext)
	full := filepath.Join(dir, name)
	f, err := capture.CreateOutput(full, capture.OutputOptions{New: true})
	return f, full, err
}

// Bounds of the parts of a recording's file name, in bytes.
const (
	maxNameMethod = 20 // the registered methods have at most 17 letters
	maxNamePath   = 60
)

// fileNamePart is s cut to at most max bytes of letters, digits, '.' and
// '_', each other character one '-', without leading or trailing '-'.
func fileNamePart(s string, max int) string {
	var b strings.Builder
	for _, c := range s {
		if b.Len() >= max {
			break
		}
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' {
			b.WriteRune(c)
		} else {
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// chunk takes body bytes from the tee, after the client has them.
func (ps *session) chunk(p []byte, at time.Duration) {
	if ps.firstByte == capture.NoTime {
		ps.firstByte = at
		ps.publish()
	}
	ps.body(p, at)
}

// body adds bytes to the session's body: its store, its recording and its
// model. The frames they complete are due at once.
func (ps *session) body(p []byte, at time.Duration) {
	if ps.store != nil {
		ps.store.Append(p) // before its frames reach the UI
	}
	ps.spillBody(p, at)
	switch {
	case ps.recWait != nil:
		ps.holdRecording(p, at)
	case ps.rec != nil:
		ps.writeRecording(p, at)
	}
	if ps.har != nil {
		_ = ps.har.Write(p, at) // an error is the HAR's, logged when the entry closes
	}
	ps.fr.Feed(p, at, ps.add)
	ps.model()
}

func (ps *session) add(f *capture.Frame) {
	ps.largest = max(ps.largest, len(f.Raw))
	first := f.Kind == capture.FrameEvent && ps.firstEvent == capture.NoTime
	if first {
		ps.firstEvent = f.At
	}
	ps.inline.Frame(f)
	if first {
		ps.publish()
	}
	if len(f.Raw) >= ingest.CollectAbove && ps.p.onBig != nil {
		ps.p.onBig()
	}
}

func (ps *session) closeRecording(at time.Duration) {
	if ps.recWait != nil {
		ps.startHeldRecording() // a body shorter than a prelude, or none
	}
	if ps.rec == nil {
		return
	}
	err := ps.rec.Close(at)
	if cerr := ps.recFile.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		ps.p.log.Printf("#%d record %s: %v", ps.id, ps.recPath, err)
	}
	ps.rec = nil
}

// done ends a session whose response head arrived.
func (ps *session) done(err error, at time.Duration) {
	ps.endModel(at)
	ps.closeRecording(at)
	ps.closeHAR(at)
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
	ps.live.Lock().End(err)
	ps.live.Unlock()
	ps.finish(ps.status, err, state)
}

// finish logs the session's line once. state is empty when the stream
// decides it (the model's outcome).
func (ps *session) finish(status int, err error, state string) {
	ps.once.Do(func() {
		ps.dur = time.Since(ps.start)
		ps.err = err
		if ps.status == 0 {
			ps.status = status
		}
		responded := ps.fr != nil
		if !responded && ps.p.o.Record != "" {
			ps.recordFailure(err)
		}
		if !responded && ps.p.o.HAR != nil {
			ps.harFailure(err)
		}
		s := ps.live.Lock()
		if state == "" {
			state = "empty"
			if responded {
				state = s.Outcome().State
			}
		}
		ps.state = state
		var groups []model.LegGroup
		if responded {
			ps.p.turns.Add(ps.id, s)
			if ps.p.multi {
				sum := model.Summarize(ps.id, ps.leg, ps.start, ps.start.Add(ps.dur), s)
				sum.NotModel = ps.req.Parsed && ps.req.Model == ""
				groups = ps.p.legs.Add(sum)
				ps.links = linksOf(ps.id, groups)
			}
		}
		line := ps.logLine(s)
		ps.live.Unlock()
		ps.p.log.Line(line)
		if ps.p.feed != nil {
			stored, notKept := ps.closeSpill()
			ps.p.feed.end(ps.exchangeInfo(), ps.live, err, stored, notKept)
			ps.p.feed.relink(othersOf(ps.id, groups))
		}
		if ps.p.onDone != nil {
			ps.p.onDone(ps)
		}
		ps.p.open.add(-1)
	})
}

// recordFailure writes a recording of an exchange that got no response.
func (ps *session) recordFailure(err error) {
	f, path, cerr := createRecording(ps.p.o.Record, ps.start, ps.id, ps.method, ps.path, capture.FormatAuto)
	if cerr != nil {
		ps.p.log.Printf("#%d record: %v", ps.id, cerr)
		return
	}
	x := ps.exchange()
	x.HeadAt, x.Status = capture.NoTime, 0
	if err != nil {
		x.Error = err.Error()
	}
	rec := capture.NewRecorder(f, &x, capture.RecordOptions{Format: capture.FormatJSON, KeepSecrets: ps.p.o.KeepSecrets})
	if werr := rec.Close(capture.NoTime); werr != nil {
		ps.p.log.Printf("#%d record %s: %v", ps.id, path, werr)
	}
	f.Close()
	ps.recPath = path
}

// harFailure writes the HAR entry of an exchange that got no response:
// status 0, as browsers write a request that failed, with why in the
// entry's comment.
func (ps *session) harFailure(err error) {
	x := ps.exchange()
	x.HeadAt, x.Status = capture.NoTime, 0
	if err != nil {
		x.Error = err.Error()
	}
	ps.har = ps.p.o.HAR.Entry(&x)
	ps.closeHAR(capture.NoTime)
}

// logLine is the session's one line: key=value pairs, values quoted when
// they hold spaces, terminal-safe. s is the session, locked.
func (ps *session) logLine(s *model.Session) string {
	var b strings.Builder
	path := ps.path
	if !ps.p.o.KeepSecrets {
		path = capture.RedactURL(path) // Gemini takes its key as ?key=
	}
	fmt.Fprintf(&b, "#%d %s %s %d", ps.id, ps.method, termtext.Safe(path), ps.status)
	kv := func(k, v string) {
		if v == "" {
			return
		}
		if strings.ContainsAny(v, " \t\"=") {
			v = strconv.Quote(v)
		}
		b.WriteString(" " + k + "=" + termtext.Safe(v))
	}
	ms := func(d time.Duration) string {
		if d == capture.NoTime {
			return "-"
		}
		return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) + "s"
	}
	kv("model", ps.req.Model)
	kv("rpc", ps.req.RPC)
	responded := ps.fr != nil
	dialect, calls := "-", 0
	var bytesIn int64
	if responded {
		dialect = s.Dialect().String()
		calls = len(s.Calls())
		bytesIn = s.Bytes()
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
		kv("error", ps.p.redactText(ps.err.Error()))
	} else if responded {
		if o := s.Outcome(); o.Detail != "" && ps.state == o.State {
			kv("detail", o.Detail)
		}
	}
	if responded {
		rep := ps.checks.Report(s, checks.Strict)
		kv("findings", findingCounts(rep))
		if len(rep.Findings) > 0 {
			kv("worst", worstRule(rep))
		}
	}
	switch {
	case ps.prev > 0 && ps.link != "":
		kv(ps.link, "#"+strconv.Itoa(ps.prev)) // resumes=#4: an MCP GET that resumes #4's stream
	case ps.prev > 0:
		kv("turn-of", "#"+strconv.Itoa(ps.prev))
	}
	ps.links.logFields(kv)
	if len(ps.unanswered) > 0 {
		kv("unanswered", strings.Join(ps.unanswered, ","))
		kv("finding", "No tool output found for function call "+ps.unanswered[0])
	}
	kv("record", ps.recPath)
	return b.String()
}

// findingCounts is the log line's findings: "1err,2warn,3info", without
// the severities that have none; "" when there are none.
func findingCounts(rep checks.Report) string {
	var parts []string
	for _, c := range []struct {
		sev  checks.Severity
		name string
	}{{checks.Error, "err"}, {checks.Warning, "warn"}, {checks.Info, "info"}} {
		if n := rep.Count(c.sev); n > 0 {
			parts = append(parts, strconv.Itoa(n)+c.name)
		}
	}
	return strings.Join(parts, ",")
}

// worstRule is the rule of the report's worst finding: the first of the
// highest severity, in the report's order.
func worstRule(rep checks.Report) string {
	worst := rep.Findings[0]
	for _, f := range rep.Findings[1:] {
		if f.Severity > worst.Severity {
			worst = f
		}
	}
	return worst.Rule
}

// Log writes whole lines, one writer at a time; it is safe for concurrent
// use.
type Log struct {
	mu sync.Mutex
	w  io.Writer
}

// NewLog returns a Log writing to w.
func NewLog(w io.Writer) *Log { return &Log{w: w} }

// Line writes "streamtap: " and s as one line.
func (l *Log) Line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.w, "streamtap: "+s)
}

// Printf writes one formatted line.
func (l *Log) Printf(format string, args ...any) { l.Line(fmt.Sprintf(format, args...)) }

// publish hands the session's current state to the sessions list, if
// there is one. It runs on the session's own goroutine.
func (ps *session) publish() {
	if ps.p.feed == nil {
		return
	}
	ps.p.feed.update(ps.exchangeInfo(), ps.start, ps.live)
}

// exchangeInfo is a copy of what the sessions list shows of the session,
// with secrets redacted unless KeepSecrets.
func (ps *session) exchangeInfo() model.Exchange {
	body := ps.reqBody
	if ps.ws != nil {
		body = ps.ws.request
	}
	if ps.shown == nil && len(body) > 0 && json.Valid(body) {
		h := ps.reqHeader
		if !ps.p.o.KeepSecrets {
			h = capture.RedactHeaders(h)
		}
		r := ps.req
		ps.shown = &model.Request{
			Header: h, Size: len(body), Tools: slices.Clone(r.Tools), ToolChoice: r.ToolChoice,
			Parallel: r.Parallel, Previous: r.Previous, Outputs: slices.Clone(r.Outputs), RPC: r.RPC,
		}
	}
	path := ps.path
	if !ps.p.o.KeepSecrets {
		path = capture.RedactURL(path)
	}
	x := model.Exchange{
		Exchange: ps.exchange(),
		ID:       ps.id, Path: path, Model: ps.req.Model,
		Dur: time.Since(ps.start), TTFB: ps.firstByte, TFE: ps.firstEvent,
		Outcome: ps.state, TurnOf: ps.prev, Unanswered: slices.Clone(ps.unanswered), Link: ps.link,
		Request: ps.shown, Record: ps.recPath,
	}
	ps.links.set(&x)
	if ps.state == "closed" && ps.ws != nil && ps.ws.parsers[0] != nil {
		x.Outcome += " " + strconv.Itoa(ps.ws.code())
	}
	if ps.state != "" {
		x.Dur = ps.dur
		if ps.err != nil && !errors.Is(ps.err, capture.ErrClosedEarly) {
			x.Err = ps.p.redactText(ps.err.Error())
		}
	}
	return x
}

// redactText hides the credentials of the URLs an error quotes (the
// upstream's userinfo, a ?key=) unless KeepSecrets.
func (p *Proxy) redactText(s string) string {
	if p.o.KeepSecrets {
		return s
	}
	return capture.RedactText(s)
}
