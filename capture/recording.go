package capture

// This file holds the timed recording format: an SSE stream that also keeps
// the HTTP exchange it came from and when each event arrived.
//
// A recording starts with a block of SSE comment lines, ended by a blank
// line, that describes the exchange:
//
//	: streamtap-recording v1
//	: started 2026-11-21T20:00:00.123456Z
//	: request POST https://api.example.com/v1/responses
//	: request-header Authorization: [redacted]
//	: request-body {"model":"gpt-4.1","stream":true}
//	: response HTTP/1.1 200 OK
//	: response-header Content-Type: text/event-stream; charset=utf-8
//	: response-t 0.231000
//
// The body follows exactly as received, except that every SSE event and
// comment block gains one comment line, `: t=<seconds since the request>`,
// just before the blank line that ends it (the time the block's last byte
// arrived; `: t=-` when it is unknown). SSE readers skip comment lines
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
// so any SSE tool reads a recording as the original stream plus one
// comment frame in front. A body that is not SSE (a whole JSON response,
// JSON lines) is written verbatim, without per-chunk times.
//
// Reading a recording (FormatRecording, detected from the first line), the
// header block becomes one FrameHead frame (or a FrameComment when no
// response was recorded), and each timing line stays inside the bytes of
// the frame it times, so every byte still belongs to exactly one frame; it
// is hidden from the frame's fields: the frame is stamped with the recorded
// time, its Comments count excludes the line and HasComment is cleared when
// it was the only comment in an event.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// RecordingMagic is the first line of every timed recording.
const RecordingMagic = ": streamtap-recording v1"

// timingPrefix starts the comment line that times a frame.
const timingPrefix = ": t="

// ErrNotRecording is returned by ParseRecording for input that does not
// start with RecordingMagic.
var ErrNotRecording = errors.New("not a streamtap recording")

// Exchange is the HTTP exchange a recording holds: the request and the
// response head. Zero values mean "not recorded".
type Exchange struct {
	Started       time.Time
	Method        string
	URL           string
	RequestHeader http.Header
	RequestBody   []byte
	// RequestBodySize is the request body's size when RequestBody holds
	// only its start (the proxy keeps a bounded prefix): -1 when the size
	// is unknown, 0 when RequestBody is the whole body.
	RequestBodySize int64
	Proto           string // "HTTP/1.1"
	Status          int    // 0 when no response was received
	ResponseHeader  http.Header
	// HeadAt is when the response head arrived, relative to the request,
	// or NoTime.
	HeadAt time.Duration
	// Error says why the exchange failed before a response, if it did.
	Error string
	// Source names a recording's origin when it is not an HTTP exchange,
	// e.g. "stdin".
	Source string
}

// takeHead takes a response head frame (a `curl -i` head) into the
// exchange: its status, protocol and headers, and its time when the
// exchange has none.
func (x *Exchange) takeHead(f *Frame) {
	x.Proto, x.Status = f.Proto, f.Status
	x.ResponseHeader = http.Header{}
	for _, h := range f.Header {
		x.ResponseHeader.Add(string(h.Name), string(h.Value))
	}
	if x.HeadAt == NoTime {
		x.HeadAt = f.At
	}
}

// writeHeader writes the header block, redacting secrets unless keep.
func (x *Exchange) writeHeader(w *bytes.Buffer, keep bool) {
	cp := *x
	x = &cp
	redactExchange(x, keep)
	w.WriteString(RecordingMagic + "\n")
	line := func(key, value string) {
		// Header values cannot hold CR or LF (net/http rejects them); guard
		// anyway, since one would end the comment line early.
		value = strings.NewReplacer("\r", " ", "\n", " ").Replace(value)
		w.WriteString(": " + key + " " + value + "\n")
	}
	if !x.Started.IsZero() {
		line("started", x.Started.UTC().Format(time.RFC3339Nano))
	}
	if x.Source != "" {
		line("source", x.Source)
	}
	if x.Method != "" || x.URL != "" {
		line("request", x.Method+" "+x.URL)
	}
	headers := func(key string, h http.Header) {
		for _, k := range slices.Sorted(maps.Keys(h)) {
			for _, v := range h[k] {
				line(key, k+": "+v)
			}
		}
	}
	headers("request-header", x.RequestHeader)
	if len(x.RequestBody) > 0 {
		switch b := x.RequestBody; {
		case utf8.Valid(b) && !bytes.ContainsAny(b, "\r\n"):
			line("request-body", string(b))
		case utf8.Valid(b):
			q, _ := json.Marshal(string(b))
			line("request-body-json", string(q))
		default:
			line("request-body-base64", base64.StdEncoding.EncodeToString(b))
		}
		if x.RequestBodySize != 0 {
			line("request-body-size", strconv.FormatInt(x.RequestBodySize, 10)) // the body above is cut
		}
	}
	if x.Status > 0 {
		proto := x.Proto
		if proto == "" {
			proto = "HTTP/1.1"
		}
		line("response", proto+" "+strconv.Itoa(x.Status)+" "+http.StatusText(x.Status))
		headers("response-header", x.ResponseHeader)
	}
	if x.HeadAt != NoTime && x.HeadAt != 0 {
		line("response-t", formatSeconds(x.HeadAt))
	}
	if x.Error != "" {
		line("error", x.Error)
	}
	w.WriteString("\n")
}

// parseHeader reads a header block (without its final blank line). It
// also returns how many of its times were not times (parseSeconds).
func parseHeader(block []byte) (x *Exchange, badTimes int, err error) {
	x = &Exchange{HeadAt: NoTime, RequestHeader: http.Header{}, ResponseHeader: http.Header{}}
	lines := strings.Split(strings.TrimRight(string(block), "\r\n"), "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], "\r") != RecordingMagic {
		return nil, 0, ErrNotRecording
	}
	for _, l := range lines[1:] {
		l = strings.TrimRight(l, "\r")
		l, ok := strings.CutPrefix(l, ": ")
		if !ok {
			continue // an unknown or empty comment: ignore, as SSE does
		}
		key, value, _ := strings.Cut(l, " ")
		switch key {
		case "started":
			x.Started, _ = time.Parse(time.RFC3339Nano, value)
		case "source":
			x.Source = value
		case "request":
			x.Method, x.URL, _ = strings.Cut(value, " ")
		case "request-header", "response-header":
			name, v, _ := strings.Cut(value, ":")
			h := x.RequestHeader
			if key == "response-header" {
				h = x.ResponseHeader
			}
			h[http.CanonicalHeaderKey(name)] = append(h[http.CanonicalHeaderKey(name)], strings.TrimPrefix(v, " "))
		case "request-body":
			x.RequestBody = []byte(value)
		case "request-body-json":
			var s string
			if err := json.Unmarshal([]byte(value), &s); err != nil {
				return nil, badTimes, fmt.Errorf("recording request-body-json: %w", err)
			}
			x.RequestBody = []byte(s)
		case "request-body-base64":
			b, err := base64.StdEncoding.DecodeString(value)
			if err != nil {
				return nil, badTimes, fmt.Errorf("recording request-body-base64: %w", err)
			}
			x.RequestBody = b
		case "request-body-size":
			x.RequestBodySize, _ = strconv.ParseInt(value, 10, 64)
		case "response":
			f := strings.Fields(value)
			if len(f) >= 2 {
				x.Proto = f[0]
				x.Status = parseStatus(f[1])
			}
		case "response-t":
			var ok bool
			if x.HeadAt, ok = parseSeconds(value); !ok {
				badTimes++
			}
		case "error":
			x.Error = value
		}
	}
	return x, badTimes, nil
}

// formatSeconds prints a duration as seconds with microsecond precision.
func formatSeconds(d time.Duration) string {
	if d == NoTime {
		return "-"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 6, 64)
}

// MaxRecordedTime is the latest time a recording may state, from the
// request: a day, far more than any exchange streamtap records lasts.
const MaxRecordedTime = 24 * time.Hour

// parseSeconds reads formatSeconds' output: seconds, or "-" for NoTime.
// Anything else (not a number, NaN, infinite, negative, over
// MaxRecordedTime) is not a time: it returns NoTime and ok false, and the
// reader treats every such value one way (see recordingFramer.wrap).
func parseSeconds(s string) (at time.Duration, ok bool) {
	s = strings.TrimSpace(s)
	if s == "-" {
		return NoTime, true
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > MaxRecordedTime.Seconds() {
		return NoTime, false
	}
	return time.Duration(v*1e6+0.5) * time.Microsecond, true
}

// RecordOptions tune a Recorder.
type RecordOptions struct {
	// Format is the body's format: FormatSSE times every event,
	// FormatEventStream every message and FormatJSONL every line
	// (recording_body.go), FormatAuto detects it (and takes a `curl -i`
	// head into the header block), any other format writes the body
	// verbatim.
	Format Format
	// KeepSecrets writes credentials unredacted.
	KeepSecrets bool
}

// Recorder writes a timed recording. Give it the exchange (or none), then
// body bytes with their arrival times as they come, then Close. The header
// is written with the first body frame, so that a `curl -i` head read from
// stdin can still join it. Errors are sticky. A Recorder is not safe for
// concurrent use.
type Recorder struct {
	w    io.Writer
	opt  RecordOptions
	x    Exchange
	fr   *Framer
	head bool // the header block is written
	buf  bytes.Buffer
	err  error
}

// NewRecorder returns a recorder writing to w. x may be nil.
func NewRecorder(w io.Writer, x *Exchange, opt RecordOptions) *Recorder {
	r := &Recorder{w: w, opt: opt}
	if x != nil {
		r.x = *x
	} else {
		r.x.HeadAt = NoTime
	}
	switch opt.Format {
	case FormatSSE, FormatAuto, FormatEventStream, FormatJSONL, FormatDataStream:
		r.fr = NewFramer(opt.Format)
	}
	return r
}

// Write records body bytes p that arrived at time at (relative to the
// request), or NoTime.
func (r *Recorder) Write(p []byte, at time.Duration) error {
	if r.err != nil {
		return r.err
	}
	if r.fr == nil {
		r.writeHead()
		r.buf.Write(p)
	} else {
		r.fr.Feed(p, at, r.frame)
	}
	return r.flush()
}

// Close frames what is left (time at) and flushes. It does not close the
// underlying writer.
func (r *Recorder) Close(at time.Duration) error {
	if r.err != nil {
		return r.err
	}
	if r.fr != nil {
		r.fr.Finish(at, r.frame)
	}
	r.writeHead()
	return r.flush()
}

func (r *Recorder) flush() error {
	if r.buf.Len() == 0 || r.err != nil {
		return r.err
	}
	_, r.err = r.w.Write(r.buf.Bytes())
	r.buf.Reset()
	if r.err != nil {
		r.err = fmt.Errorf("record: %w", r.err)
	}
	return r.err
}

func (r *Recorder) writeHead() {
	if r.head {
		return
	}
	r.head = true
	r.x.writeHeader(&r.buf, r.opt.KeepSecrets)
}

// bodyFormat reports the format of the body being framed: the framer's,
// or the format of the body after a `curl -i` head.
func (r *Recorder) bodyFormat() Format {
	f := r.fr.Format()
	if f == FormatHTTP {
		if h, ok := r.fr.inner.(*httpFramer); ok && h.body != nil {
			return h.body.Format()
		}
	}
	return f
}

func (r *Recorder) frame(f *Frame) {
	if f.Kind == FrameHead && !r.head {
		// A `curl -i` head: keep it in the header block instead.
		r.x.takeHead(f)
		return
	}
	r.writeHead()
	format := r.bodyFormat()
	if timesBody(format) {
		r.writeTimed(f)
		return
	}
	if format != FormatSSE || (f.Kind != FrameEvent && f.Kind != FrameComment) {
		r.buf.Write(f.Raw)
		return
	}
	content, blank := splitBlank(f.Raw)
	term := lastTerminator(content)
	if term == nil {
		r.buf.Write(f.Raw) // cut mid-line: a comment here would join the line
		return
	}
	if blank != nil {
		term = blank
	}
	r.buf.Write(content)
	r.buf.WriteString(timingPrefix + formatSeconds(f.At))
	r.buf.Write(term)
	r.buf.Write(blank)
}

// splitBlank splits a frame's bytes into its content and the terminator of
// the blank line that dispatched it (nil when there is none).
func splitBlank(raw []byte) (content, blank []byte) {
	t := lastTerminator(raw)
	if t == nil {
		return raw, nil
	}
	rest := raw[:len(raw)-len(t)]
	if lastTerminator(rest) == nil {
		return raw, nil // the last line has content: no blank line
	}
	return rest, raw[len(rest):]
}

// lastTerminator returns the line terminator b ends with: CRLF, LF or CR,
// or nil.
func lastTerminator(b []byte) []byte {
	switch {
	case bytes.HasSuffix(b, []byte("\r\n")):
		return b[len(b)-2:]
	case len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r'):
		return b[len(b)-1:]
	}
	return nil
}

// timingLine finds the timing line of a recorded frame: the last line of
// its content. It returns the line's range in raw and the time (valid
// false when the line states no time, see parseSeconds), or ok false.
func timingLine(raw []byte) (start, end int, at time.Duration, valid, ok bool) {
	content, _ := splitBlank(raw)
	term := lastTerminator(content)
	if term == nil {
		return 0, 0, 0, false, false
	}
	body := content[:len(content)-len(term)]
	start = max(bytes.LastIndexByte(body, '\n'), bytes.LastIndexByte(body, '\r')) + 1
	line := body[start:]
	v, isTiming := bytes.CutPrefix(line, []byte(timingPrefix))
	if !isTiming {
		return 0, 0, 0, false, false
	}
	at, valid = parseSeconds(string(v))
	return start, len(content), at, valid, true
}

// recordingFramer reads a recording: the header block, then the body
// framed by its own format, with each frame stamped by its timing line.
type recordingFramer struct {
	buf   []byte // header bytes until the header is complete
	base  int64
	x     *Exchange
	body  *Framer
	last  time.Duration
	frame Frame
	// onBody, when set, receives each body frame's original bytes (the
	// timing line removed) and its time.
	onBody func(at time.Duration, parts ...[]byte)
	// onHead, when set, receives the parsed header.
	onHead func(*Exchange)
	err    error
	// badTimes counts the times that were not times (parseSeconds).
	badTimes int
}

func (f *recordingFramer) feed(p []byte, at time.Duration, emit func(*Frame)) {
	if f.body != nil {
		f.body.Feed(p, at, f.wrap(emit))
		return
	}
	f.buf = append(f.buf, p...)
	f.header(false, at, emit)
}

func (f *recordingFramer) finish(at time.Duration, emit func(*Frame)) {
	if f.body == nil {
		f.header(true, at, emit)
	}
	f.body.Finish(at, f.wrap(emit))
}

// header emits the header block once its blank line is in.
func (f *recordingFramer) header(final bool, at time.Duration, emit func(*Frame)) {
	end := headEnd(f.buf)
	if end < 0 {
		if !final {
			return
		}
		end = len(f.buf)
	}
	raw := f.buf[:end]
	x, bad, err := parseHeader(raw)
	f.badTimes += bad
	if err != nil {
		f.err = err
		x = &Exchange{HeadAt: NoTime}
	}
	f.x = x
	if f.onHead != nil {
		f.onHead(x)
	}
	f.last = x.HeadAt
	fr := Frame{Kind: FrameComment, Start: f.base, End: f.base + int64(end), At: x.HeadAt, Raw: raw,
		Retry: -1, Flags: contentFlags(raw), Comments: bytes.Count(raw, []byte("\n:")) + 1}
	if x.Status > 0 {
		fr.Kind, fr.Proto, fr.Status, fr.Comments = FrameHead, x.Proto, x.Status, 0
		for _, k := range slices.Sorted(maps.Keys(x.ResponseHeader)) {
			for _, v := range x.ResponseHeader[k] {
				fr.Header = append(fr.Header, Field{Name: []byte(k), Value: []byte(v)})
			}
		}
	}
	f.frame = fr
	emit(&f.frame)

	format := HeadFormat(x.ResponseHeader)
	rest := f.buf[end:]
	f.base += int64(end)
	if format == FormatAuto {
		// A stdin recording: detect the body's format as it comes, so the
		// frames do not depend on how the input was split into reads.
		f.body = &Framer{base: f.base, timed: true}
	} else {
		f.body = &Framer{format: format, inner: newSplitter(format, f.base)}
		if s, ok := f.body.inner.(*sseFramer); ok {
			s.bom = true // the body is a stream of its own: a BOM may start it
		}
		timed(f.body.inner)
	}
	f.buf = nil
	if len(rest) > 0 {
		f.body.Feed(rest, at, f.wrap(emit))
	}
}

// wrap stamps body frames with their recorded time and hides the timing
// line from their fields. A timing line that states no valid time (see
// parseSeconds) still goes, and the frame takes the last time before it.
func (f *recordingFramer) wrap(emit func(*Frame)) func(*Frame) {
	return func(fr *Frame) {
		if format := f.body.Format(); timesBody(format) {
			f.wrapTimed(format, fr, emit)
			return
		}
		if f.body.Format() != FormatSSE || (fr.Kind != FrameEvent && fr.Kind != FrameComment) {
			fr.At = f.last
			if f.onBody != nil {
				f.onBody(fr.At, fr.Raw)
			}
			emit(fr)
			return
		}
		s, e, at, valid, ok := timingLine(fr.Raw)
		if !valid && ok {
			// Not a time (NaN, negative, over MaxRecordedTime, not a
			// number): the frame takes the time of the one before, as
			// a frame without a timing line does, so a replay sends it
			// right after that one instead of never or at once.
			f.badTimes++
			at = f.last
		}
		if !ok {
			fr.At = f.last
			if f.onBody != nil {
				f.onBody(fr.At, fr.Raw)
			}
			emit(fr)
			return
		}
		if at != NoTime {
			f.last = at
		}
		fr.At = at
		if fr.Comments > 0 {
			fr.Comments--
		}
		if fr.Kind == FrameEvent && fr.Comments == 0 {
			fr.Flags &^= HasComment
		}
		if f.onBody != nil {
			f.onBody(at, fr.Raw[:s], fr.Raw[e:])
		}
		emit(fr)
	}
}

// Chunk is a piece of a recorded body and the time its last byte arrived.
type Chunk struct {
	At   time.Duration
	Data []byte
}

// Recording is a parsed recording: the exchange and the body as it was
// received, timing lines removed, cut at frame boundaries.
type Recording struct {
	Exchange
	Body []Chunk
	// Format is the body's format, as its Content-Type or its first bytes
	// tell it (FormatAuto for an empty body).
	Format Format
	// BadTimes counts the times the recording states that are not times
	// (not a number, NaN, infinite, negative, over MaxRecordedTime):
	// each such frame took the time of the frame before it, and the head
	// none.
	BadTimes int
}

// ParseRecording reads a whole recording held in memory. It returns
// ErrNotRecording when data does not start with RecordingMagic.
func ParseRecording(data []byte) (*Recording, error) {
	rr, err := NewRecordingReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	rec := &Recording{Exchange: *rr.Exchange()}
	for {
		c, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(c.Data) == 0 {
			c.Data = nil
		} else {
			c.Data = bytes.Clone(c.Data)
		}
		rec.Body = append(rec.Body, c)
	}
	rec.BadTimes, rec.Format = rr.BadTimes(), rr.Format()
	return rec, nil
}

// Bytes returns the recorded body, as it was received.
func (r *Recording) Bytes() []byte {
	var b []byte
	for _, c := range r.Body {
		b = append(b, c.Data...)
	}
	return b
}
