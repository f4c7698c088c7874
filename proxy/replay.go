package proxy

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
)

// replayHeaders are the recorded response headers not sent back: they
// describe the recorded connection, not this one.
var replayHeaders = map[string]bool{
	"Content-Length": true, "Transfer-Encoding": true, "Connection": true, "Keep-Alive": true,
	"Date": true, "Trailer": true, "Upgrade": true, "Proxy-Connection": true,
}

// Replay serving, all of it in this file: loading what is served
// (LoadReplay, ReplayData), the handler that plays it to each request
// (Replay), and the server with its bounds (ServeReplay). A recording is
// read through once when it is loaded, to check it, and then again from
// its start for each request, a chunk at a time: memory stays at one
// chunk per request whatever the recording's size. Holding it parsed
// took 6.5 times its size (561 MB: 3.68 GB, 22.6 s to start).

// Recorded is what replay serves: a recording's status and headers,
// checked, and how to read its body from the start. It holds no body.
type Recorded struct {
	Name     string
	status   int
	header   http.Header
	warnings []string
	refused  error
	body     func() (chunkReader, io.Closer, error)
	// outcome is how the recorded stream ends (completed, truncated, …),
	// modelled once as it is loaded: what a request that was sent all of
	// it logs, as the proxy logs a stream it passed on.
	outcome string
	// req is the recorded request, what a session's requests are matched
	// with (replay_session.go); a stream recorded without its request
	// answers any.
	req replayRequest
}

// chunkReader gives a body a chunk at a time, each with its recorded
// time; a chunk's Data is valid until the next call. io.EOF ends it.
type chunkReader interface {
	Next() (capture.Chunk, error)
}

// Warnings are what Replay changes in the recording (CheckReplay).
func (rc *Recorded) Warnings() []string { return rc.warnings }

// Err is why the recording cannot be served (CheckReplay), or nil.
func (rc *Recorded) Err() error { return rc.refused }

// LoadReplay opens path as a recording, or as a plain stream without
// timing (served all at once, as what its bytes are: see ReplayData). A
// recording is read through once to check it, which gives way to ctx;
// the file is opened again for each request.
func LoadReplay(ctx context.Context, path string) (*Recorded, error) {
	return loadReplay(ctx, path, func() (io.ReadCloser, error) { return os.Open(path) })
}

// LoadReplayFrom is LoadReplay for a recording that open gives from its
// start each time it is called: an archive's entry, written as a
// recording when a request asks for it (capture.Entry.WriteRecording).
func LoadReplayFrom(ctx context.Context, name string, open func() (io.ReadCloser, error)) (*Recorded, error) {
	return loadReplay(ctx, name, open)
}

// ReplayData is LoadReplay for bytes held in memory (a sample). A plain
// stream is served as what its bytes are: an AWS event stream as
// application/vnd.amazon.eventstream, JSON lines as
// application/x-ndjson, the AI SDK's v4 data stream as text/plain with its
// x-vercel-ai-data-stream header, SSE (and anything else) as
// text/event-stream.
func ReplayData(name string, data []byte) (*Recorded, error) {
	return loadReplay(context.Background(), name, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
}

func loadReplay(ctx context.Context, name string, open func() (io.ReadCloser, error)) (*Recorded, error) {
	f, err := open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rr, err := capture.NewRecordingReader(f)
	if errors.Is(err, capture.ErrNotRecording) {
		return plainReplay(name, open)
	}
	if err != nil {
		return nil, err
	}
	var ob outcomeOf
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := rr.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		ob.feed(rr.Format(), c.Data)
	}
	rec := &capture.Recording{Exchange: *rr.Exchange(), Format: rr.Format(), BadTimes: rr.BadTimes()}
	rc := &Recorded{Name: name, outcome: ob.state(rr.Format()), req: recordedRequest(rr.Exchange())}
	rc.warnings, rc.refused = CheckReplay(rec)
	rc.status, rc.header, _, _ = replayHead(rec)
	rc.body = func() (chunkReader, io.Closer, error) {
		f, err := open()
		if err != nil {
			return nil, nil, err
		}
		rr, err := capture.NewRecordingReader(f)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return rr, f, nil
	}
	return rc, nil
}

// plainPeek is how much of a plain stream tells its format.
const plainPeek = 64 << 10

// plainReplay serves a stream that is not a recording: status 200, the
// media type of its format, its bytes at once.
func plainReplay(name string, open func() (io.ReadCloser, error)) (*Recorded, error) {
	f, err := open()
	if err != nil {
		return nil, err
	}
	head, err := io.ReadAll(io.LimitReader(f, plainPeek))
	f.Close()
	if err != nil {
		return nil, err
	}
	format := capture.DetectFormat(head)
	rc := &Recorded{Name: name, status: http.StatusOK, header: capture.FormatHeader(format), req: replayRequest{any: true}}
	if rc.outcome, err = plainOutcome(format, open); err != nil {
		return nil, err
	}
	rc.body = func() (chunkReader, io.Closer, error) {
		f, err := open()
		if err != nil {
			return nil, nil, err
		}
		return &rawChunks{r: f, buf: make([]byte, plainPeek)}, f, nil
	}
	return rc, nil
}

// rawChunks reads a plain stream in untimed chunks.
type rawChunks struct {
	r   io.Reader
	buf []byte
}

func (c *rawChunks) Next() (capture.Chunk, error) {
	n, err := c.r.Read(c.buf)
	if n > 0 {
		return capture.Chunk{At: capture.NoTime, Data: c.buf[:n]}, nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return capture.Chunk{}, err
}

// ReplayOptions configure Replay and ServeReplay.
type ReplayOptions struct {
	// Speed divides the recorded times (2 plays twice as fast); 0 is 1.
	Speed float64
	// Log gets one line per request served, or nil.
	Log *Log
	// BodyTimeout cuts a client that sends its request body at under
	// MinBodyRate over this long, as the proxy does (0: never).
	BodyTimeout time.Duration
	// Limits bound the server's clients (ServeReplay).
	Limits Limits
}

// ServeReplay serves rc on ln until ctx ends, within o.Limits; then it
// stops, giving open requests ShutdownGrace.
func ServeReplay(ctx context.Context, ln net.Listener, rc *Recorded, o ReplayOptions) error {
	return serve(ctx, ln, Replay(rc, o), o.Limits, ShutdownGrace, nil)
}

// ServeReplayHandler is ServeReplay for a handler built of Replay's:
// streamtap replay --fault and --inject choose, request by request, which
// stream is played and how its transport breaks (package inject/fault).
func ServeReplayHandler(ctx context.Context, ln net.Listener, h http.Handler, o ReplayOptions) error {
	return serve(ctx, ln, h, o.Limits, ShutdownGrace, nil)
}

// Replay serves the recording to every request, whatever its method and
// path: the recorded status and headers (as CheckReplay cleans them),
// then each chunk of the body when its recorded time, divided by speed,
// has come. A recording CheckReplay refuses is answered 502 with why.
func Replay(rc *Recorded, o ReplayOptions) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := n.Add(1)
		start := time.Now()
		if state, status, err := discardBody(w, r, o.BodyTimeout); err != nil {
			replayLog(o, id, r)("%d outcome=%s error=%q", status, state, err.Error())
			w.Header().Set("Connection", "close")
			http.Error(w, "streamtap replay: reading the request body failed: "+state, status)
			return
		}
		serveRecorded(w, r, rc, o, id, start, nil)
	})
}

// replayLog returns what logs a line of request id, r, to o.Log.
func replayLog(o ReplayOptions, id int64, r *http.Request) func(format string, args ...any) {
	return func(format string, args ...any) {
		if o.Log != nil {
			o.Log.Printf("replay #%d %s %s "+format, append([]any{id, r.Method, termtext.Safe(capture.RedactURL(r.URL.RequestURI()))}, args...)...)
		}
	}
}

// serveRecorded answers request id (r, its body read) with rc, each
// chunk of the body passed through edit when edit is not nil, and logs
// the line that ends with its outcome.
func serveRecorded(w http.ResponseWriter, r *http.Request, rc *Recorded, o ReplayOptions, id int64, start time.Time, edit func([]byte) []byte) {
	logf := replayLog(o, id, r)
	if rc.refused != nil {
		http.Error(w, "streamtap replay: "+rc.refused.Error(), http.StatusBadGateway)
		logf("%d outcome=refused", http.StatusBadGateway)
		return
	}
	if r.Method == http.MethodHead { // the head alone: no body to read through
		for k, vs := range rc.header {
			w.Header()[k] = slices.Clone(vs)
		}
		w.WriteHeader(rc.status)
		logf("%d bytes=0 dur=%.3fs outcome=head", rc.status, time.Since(start).Seconds())
		return
	}
	body, closer, err := rc.body()
	if err != nil {
		http.Error(w, "streamtap replay: "+err.Error(), http.StatusInternalServerError)
		logf("%d outcome=unreadable error=%q", http.StatusInternalServerError, err.Error())
		return
	}
	defer closer.Close()
	sent, outcome := play(r.Context(), w, rc, body, start, cmp.Or(o.Speed, 1), edit)
	logf("%d bytes=%d dur=%.3fs outcome=%s", rc.status, sent, time.Since(start).Seconds(), outcome)
}

// play writes the head and the body's chunks, each at its time. Chunks
// already due go out together: the response is flushed before each wait
// and at the end, not after every chunk (a recording without times is
// written at once, not an event per write).
func play(ctx context.Context, w http.ResponseWriter, rc *Recorded, body chunkReader, start time.Time, speed float64, edit func([]byte) []byte) (sent int64, outcome string) {
	for k, vs := range rc.header {
		w.Header()[k] = slices.Clone(vs)
	}
	rec, _ := body.(*capture.RecordingReader)
	if rec != nil && rec.Exchange().HeadAt != capture.NoTime {
		if Wait(ctx, start, rec.Exchange().HeadAt, speed) != nil {
			return 0, "client-canceled"
		}
	}
	w.WriteHeader(rc.status)
	rctl := http.NewResponseController(w)
	if rctl.Flush() != nil {
		return 0, "client-canceled"
	}
	pending := false // written, not flushed
	for {
		c, err := body.Next()
		if err == io.EOF {
			if pending && rctl.Flush() != nil {
				return sent, "client-canceled"
			}
			return sent, cmp.Or(rc.outcome, "done")
		}
		if err != nil {
			return sent, "unreadable"
		}
		if c.At != capture.NoTime && due(start, c.At, speed).After(time.Now()) {
			if pending && rctl.Flush() != nil {
				return sent, "client-canceled"
			}
			if Wait(ctx, start, c.At, speed) != nil {
				return sent, "client-canceled"
			}
		}
		data := c.Data
		if edit != nil {
			data = edit(data)
		}
		k, err := w.Write(data)
		sent += int64(k)
		if err != nil {
			return sent, "client-canceled"
		}
		pending = true
	}
}

// discardBody reads and drops a request body, MaxRequestBody at most,
// holding the client to MinBodyRate over timeout as the proxy does. It
// returns why the client was cut, with the status to answer.
func discardBody(w http.ResponseWriter, r *http.Request, timeout time.Duration) (state string, status int, err error) {
	if r.Body == nil || r.Body == http.NoBody {
		return "", 0, nil
	}
	body := newRequestBody(r, w, timeout)
	defer body.release()
	_, err = io.Copy(io.Discard, io.LimitReader(body, MaxRequestBody))
	if errors.Is(err, ErrBodyTimeout) {
		return "client-timeout", http.StatusRequestTimeout, err
	}
	return "", 0, nil // a body cut short is no reason not to answer
}

// CheckReplay says what Replay will change in rec before serving it, one
// warning per change, and returns an error when rec cannot be served: a
// recorded 1xx (a 101 Switching Protocols is a WebSocket session, and a
// client sent an informational status waits on for the final one).
func CheckReplay(rec *capture.Recording) (warnings []string, err error) {
	_, _, warnings, err = replayHead(rec)
	if rec.BadTimes > 0 {
		times := fmt.Sprintf("%d recorded times are", rec.BadTimes)
		if rec.BadTimes == 1 {
			times = "1 recorded time is"
		}
		warnings = append(warnings, fmt.Sprintf("%s not a number of seconds from 0 to %s (NaN, negative, too large): "+
			"each such event is sent right after the one before it", times, capture.MaxRecordedTime))
	}
	return warnings, err
}

// replayHead is the status and headers Replay sends for rec, with a
// warning for each header it cleaned or dropped, or why rec cannot be
// served. A header value holding control characters (NUL, ESC, BEL…:
// RFC 9110 §5.5 allows none but tab) has each replaced by a space, as the
// RFC lets a recipient do with NUL, CR and LF, since Go's server would
// send it raw and a client such as curl refuses the response; a header
// whose name is not a token is dropped.
func replayHead(rec *capture.Recording) (status int, h http.Header, warnings []string, err error) {
	h = http.Header{}
	for _, k := range slices.Sorted(maps.Keys(rec.ResponseHeader)) {
		if replayHeaders[k] {
			continue
		}
		if !validHeaderName(k) {
			warnings = append(warnings, fmt.Sprintf("response header %q is not a valid header name: not sent", termtext.Safe(k)))
			continue
		}
		cleaned := false
		for _, v := range rec.ResponseHeader[k] {
			if v == capture.Redacted {
				continue // a redacted cookie is worth nothing to the client
			}
			if c := cleanHeaderValue(v); c != v {
				v, cleaned = c, true
			}
			h.Add(k, v)
		}
		if cleaned {
			warnings = append(warnings, fmt.Sprintf("response header %s: control characters replaced by spaces", termtext.Safe(k)))
		}
	}
	status = rec.Status
	switch {
	case status >= 100 && status < 200:
		return status, h, warnings, fmt.Errorf("the recorded status %d is informational, not a response (a 101 is a WebSocket session, which replay does not serve)", status)
	case status == 0 && rec.Error != "":
		status = http.StatusBadGateway // the recorded exchange got no response
	case status == 0:
		// A stream recorded from stdin: no head was seen. Serve it as
		// what its bytes are.
		status = http.StatusOK
		for k, v := range capture.FormatHeader(rec.Format) {
			if h.Get(k) == "" {
				h[k] = v
			}
		}
	}
	return status, h, warnings, nil
}

// validHeaderName reports whether k is an RFC 9110 token.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// cleanHeaderValue replaces each control character of v but tab (and
// DEL) with a space, and trims the spaces that leaves at either end.
func cleanHeaderValue(v string) string {
	if !strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
		return v
	}
	b := []byte(v)
	for i, c := range b {
		if c < 0x20 && c != '\t' || c == 0x7f {
			b[i] = ' '
		}
	}
	return strings.Trim(string(b), " \t")
}

// Wait waits until the recorded time at, divided by speed, has passed
// since start, or until ctx ends (then it returns ctx's error). Replays
// keep a recording's pace with it.
func Wait(ctx context.Context, start time.Time, at time.Duration, speed float64) error {
	d := time.Until(due(start, at, speed))
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// due is when the recorded time at, divided by speed, comes after start.
func due(start time.Time, at time.Duration, speed float64) time.Time {
	wait := float64(at) / speed
	if wait >= math.MaxInt64 { // a slow --speed: wait, do not wrap around to now
		wait = math.MaxInt64
	}
	return start.Add(time.Duration(wait))
}

// outcomeOf models a recorded body as it is read through, for its
// outcome (Recorded.outcome). The session keeps no events and no bytes:
// what the outcome needs is gathered as the events are added.
type outcomeOf struct {
	s  *model.Session
	fr *capture.Framer
}

func (o *outcomeOf) feed(format capture.Format, data []byte) {
	if o.s == nil {
		o.s, o.fr = model.NewSession(model.Options{}), capture.NewFramer(format)
	}
	o.fr.Feed(data, capture.NoTime, func(f *capture.Frame) { o.s.Add(f) })
}

// state is the outcome of what was fed: empty when nothing was.
func (o *outcomeOf) state(format capture.Format) string {
	if o.s == nil {
		o.feed(format, nil)
	}
	o.fr.Finish(capture.NoTime, func(f *capture.Frame) { o.s.Add(f) })
	o.s.End(nil)
	return o.s.Outcome().State
}

// plainOutcome reads a plain stream through once for its outcome.
func plainOutcome(format capture.Format, open func() (io.ReadCloser, error)) (string, error) {
	f, err := open()
	if err != nil {
		return "", err
	}
	defer f.Close()
	var o outcomeOf
	rc := &rawChunks{r: f, buf: make([]byte, plainPeek)}
	for {
		c, err := rc.Next()
		if err == io.EOF {
			return o.state(format), nil
		}
		if err != nil {
			return "", err
		}
		o.feed(format, c.Data)
	}
}
