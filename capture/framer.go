package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Format is the shape of an input.
type Format uint8

const (
	// FormatAuto detects the format from the first bytes.
	FormatAuto Format = iota
	// FormatSSE is a text/event-stream.
	FormatSSE
	// FormatJSONL is one JSON value per line, as logs hold streams.
	FormatJSONL
	// FormatHTTP is `curl -i` output: status line, headers, then a body.
	FormatHTTP
	// FormatJSON is one whole JSON document, such as a non-streaming
	// response.
	FormatJSON
	// FormatRecording is a timed recording (see recording.go): an SSE
	// stream that starts with RecordingMagic.
	FormatRecording
	// FormatHAR is an HTTP Archive (har.go): several exchanges, read whole
	// with ReadArchive, never framed as one stream.
	FormatHAR
	// FormatCassette is a VCR cassette (cassette.go), read like FormatHAR.
	FormatCassette
	// FormatChunks is vercel/ai's .chunks.txt (chunks.go): JSON lines that
	// end as its test harness ends them.
	FormatChunks
	// FormatEventStream is an AWS event stream (eventstream.go), as
	// Amazon Bedrock streams responses: binary messages.
	FormatEventStream
	// FormatHTTPRR is a Go httprr trace (httprr.go), read like
	// FormatHAR: raw HTTP/1.1 exchanges, as Go projects record them.
	FormatHTTPRR
	// FormatDataStream is the Vercel AI SDK's data stream before v5
	// (datastream.go): lines CODE:JSON, each one part.
	FormatDataStream
)

var formatNames = []string{"auto", "sse", "jsonl", "http", "json", "recording", "har", "cassette", "chunks", "eventstream", "httprr", "datastream"}

// IsArchive reports whether f is a format of several exchanges, read
// with ReadArchive rather than framed.
func (f Format) IsArchive() bool {
	return f == FormatHAR || f == FormatCassette || f == FormatHTTPRR
}

func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "unknown"
}

// ParseFormat reads a --format value.
func ParseFormat(s string) (Format, error) {
	for i, n := range formatNames {
		if s == n {
			return Format(i), nil
		}
	}
	return FormatAuto, fmt.Errorf("unknown format %q (want %s)", s, strings.Join(formatNames, ", "))
}

// splitter is one format's framing state machine. Implementations keep
// their own buffer and emit frames whose slices stay valid until emit
// returns.
type splitter interface {
	feed(p []byte, at time.Duration, emit func(*Frame))
	finish(at time.Duration, emit func(*Frame))
}

// Framer cuts a byte stream into frames. Feed it bytes as they arrive; it
// emits each frame as soon as its last byte is in, and Finish emits what is
// left at the end of the input. A Framer is not safe for concurrent use.
type Framer struct {
	format  Format
	inner   splitter
	pending []byte // bytes held while the format is being detected
	pendAt  time.Duration
	base    int64 // stream offset of the first byte this framer sees
	// timed says the input is a recording's body (see timed): the
	// splitter of the format detected reads its timing lines.
	timed bool
	det   detector // how far detection has looked into pending
}

// NewFramer returns a framer for the format, or one that detects it when
// format is FormatAuto.
func NewFramer(format Format) *Framer {
	fr := &Framer{format: format}
	if format != FormatAuto {
		fr.inner = newSplitter(format, 0)
	}
	return fr
}

// ContentFormat is the format a body of media type ctype (a Content-Type
// value) is framed as; FormatAuto when the type does not tell, and the
// bytes must.
func ContentFormat(ctype string) Format {
	ctype = strings.ToLower(strings.TrimSpace(ctype))
	switch {
	case strings.HasPrefix(ctype, "text/event-stream"):
		return FormatSSE
	case strings.Contains(ctype, "ndjson") || strings.Contains(ctype, "jsonl"):
		return FormatJSONL
	case strings.HasPrefix(ctype, EventStreamContentType):
		return FormatEventStream
	case strings.Contains(ctype, "json"):
		return FormatJSON
	}
	return FormatAuto
}

// DetectFormat tells the format of a whole input by its bytes, as a
// Framer given FormatAuto does.
func DetectFormat(b []byte) Format {
	f, _ := detect(b, true)
	return f
}

// ContentType is the media type a body of format f is served with (by
// replay): the inverse of ContentFormat, and text/event-stream for
// formats that do not say.
func ContentType(f Format) string {
	switch f {
	case FormatJSONL:
		return "application/x-ndjson"
	case FormatEventStream:
		return EventStreamContentType
	case FormatJSON:
		return "application/json"
	case FormatDataStream:
		return "text/plain; charset=utf-8"
	}
	return "text/event-stream; charset=utf-8"
}

// Format reports the input's format: the one asked for, or the one
// detected (FormatAuto until enough bytes have arrived to tell).
func (fr *Framer) Format() Format { return fr.format }

func newSplitter(format Format, base int64) splitter {
	switch format {
	case FormatJSONL:
		return newLineFramer(base)
	case FormatJSON:
		return &wholeFramer{base: base}
	case FormatHTTP:
		return &httpFramer{base: base}
	case FormatRecording:
		return &recordingFramer{base: base}
	case FormatChunks:
		return newChunksFramer(base)
	case FormatEventStream:
		return newEventStreamFramer(base)
	case FormatDataStream:
		return newDataStreamFramer(base)
	default:
		return newSSEFramer(base)
	}
}

// Feed gives the framer the next bytes of the input, received at time at.
func (fr *Framer) Feed(p []byte, at time.Duration, emit func(*Frame)) {
	if fr.inner != nil {
		fr.inner.feed(p, at, emit)
		return
	}
	fr.pending = appendGrow(fr.pending, p) // doubling: 100 MB of blank start was copied five times over
	fr.pendAt = at
	if f, ok := fr.det.detect(fr.pending, false); ok {
		fr.start(f, emit)
	}
}

// Finish ends the input and emits every byte not yet in a frame.
func (fr *Framer) Finish(at time.Duration, emit func(*Frame)) {
	if fr.inner == nil {
		f, _ := fr.det.detect(fr.pending, true)
		fr.pendAt = at
		fr.start(f, emit)
	}
	fr.inner.finish(at, emit)
}

func (fr *Framer) start(f Format, emit func(*Frame)) {
	fr.format = f
	fr.inner = newSplitter(f, fr.base)
	if fr.timed {
		timed(fr.inner)
	}
	switch in := fr.inner.(type) {
	case owner:
		in.feedOwned(fr.pending, fr.pendAt, emit)
	default:
		if len(fr.pending) > 0 {
			in.feed(fr.pending, fr.pendAt, emit)
		}
	}
	fr.pending = nil
}

// owner is a splitter that can take the bytes held while the format was
// detected as its buffer instead of copying them: after a long blank start
// they are the whole input so far.
type owner interface {
	feedOwned(p []byte, at time.Duration, emit func(*Frame))
}

// detect guesses the format from the first bytes of a whole input, or of
// one that may go on (final false). ok is false while more bytes are
// needed to tell.
func detect(b []byte, final bool) (Format, bool) {
	var d detector
	return d.detect(b, final)
}

// detector tells the format from the first bytes as they arrive. Between
// calls it remembers how far it has looked: the blank space at the start,
// the part of a line known to hold no newline, the blank lines after a
// first line that is no whole value. A Framer calls it after every read
// until it decides, each time with all the bytes so far: looking at them
// all again made 100 MB of newlines (a start of blank space, which tells
// nothing yet) take 20x as long as with --format, quadratic in the input.
// Now every byte is looked at about once.
type detector struct {
	blank  int  // bytes after a BOM known to be blank space
	line   int  // bytes of the first line known to hold no newline
	broken bool // the first line is whole, and neither a value nor an opener
	gap    int  // bytes after the first line known to be blank lines
	line2  int  // bytes of the line after the gap known to hold no newline

	looked int // bytes looked at, for the test of the work done
}

// detect is detect on b, the same bytes as the call before and more.
func (d *detector) detect(b []byte, final bool) (Format, bool) {
	// A head counts only at the very first byte, where httpFramer looks for
	// it: after a BOM or blank space it would hand the bytes to a body framer
	// that detects HTTP again, without end.
	if len(b) < 5 && !final && bytes.HasPrefix([]byte("HTTP/"), b) {
		return FormatAuto, false
	}
	if bytes.HasPrefix(b, []byte("HTTP/")) {
		return FormatHTTP, true
	}
	if len(b) < len(RecordingMagic) && !final && bytes.HasPrefix([]byte(RecordingMagic), b) {
		return FormatAuto, false // these bytes may start a recording
	}
	if bytes.HasPrefix(b, []byte(RecordingMagic)) {
		return FormatRecording, true
	}
	// An event stream starts with a prelude: its first byte, of a length
	// of at most 16 MiB, is 0 or 1, which no text stream starts with. A
	// prelude whose CRC holds says so; so does a NUL followed by lengths a
	// message can have, whose CRC the framer then finds damaged.
	if len(b) > 0 && b[0] <= 1 {
		if len(b) < eventStreamPrelude && !final {
			return FormatAuto, false
		}
		if eventStreamStart(b) {
			return FormatEventStream, true
		}
	}
	if len(b) < len(bom) && !final && bytes.HasPrefix(bom, b) {
		return FormatAuto, false // these bytes may be the start of a BOM
	}
	b = bytes.TrimPrefix(b, bom)
	rest := b[d.blank:]
	t := bytes.TrimLeft(rest, " \t\r\n")
	d.blank += len(rest) - len(t)
	d.looked += len(rest) - len(t)
	if len(t) == 0 {
		return FormatSSE, final
	}
	if yes, ok := dataStreamStart(t); !ok && !final {
		return FormatAuto, false // a code and its ':', or not
	} else if yes {
		return FormatDataStream, true
	}
	if t[0] != '{' && t[0] != '[' {
		return FormatSSE, true
	}
	// JSON: one value per line, or one document spread over lines?
	first, rest, whole := d.cutLine(t, &d.line)
	if !whole && !final {
		return FormatAuto, false
	}
	if !d.broken {
		d.looked += len(first)
		if wholeValue(first) {
			return FormatJSONL, true
		}
		if isOpener(first) {
			return FormatJSON, true // "{" or "[" alone opens a document spread over lines
		}
		d.broken = true
	}
	// The first line starts JSON but is no whole value: a document spread
	// over lines, or JSON lines whose first line is broken (cut off, or
	// invalid). JSON lines go on with a whole object on the next line that
	// holds anything; a document's next line is a piece of it.
	second, whole2 := d.nextLine(rest, final)
	if !whole2 && !final {
		return FormatAuto, false
	}
	if len(second) > 0 && second[0] == '{' && json.Valid(second) {
		return FormatJSONL, true
	}
	return FormatJSON, true
}

// cutLine splits off b's first line (without its newline); whole says the
// newline is in b. *clean is how many bytes of b a call before found
// without a newline, where the search starts; it says how many now.
func (d *detector) cutLine(b []byte, clean *int) (line, rest []byte, whole bool) {
	i := bytes.IndexByte(b[*clean:], '\n')
	if i < 0 {
		d.looked += len(b) - *clean
		*clean = len(b)
		return b, nil, false
	}
	d.looked += i + 1
	i += *clean
	return b[:i], b[i+1:], true
}

// nextLine returns the first line of b that is not blank, trimmed, and
// whether its newline is in b; the blank lines before it are skipped once.
// Until the line is whole it returns nothing, unless b is final.
func (d *detector) nextLine(b []byte, final bool) ([]byte, bool) {
	for {
		line, _, whole := d.cutLine(b[d.gap:], &d.line2)
		if !whole && !final {
			return nil, false
		}
		if t := bytes.TrimSpace(line); len(t) > 0 || !whole {
			return t, whole
		}
		d.gap += len(line) + 1
		d.line2 = 0
	}
}

// validateMax is the longest first line detect validates as JSON. A
// longer one that closes what it opens is taken for a whole value: no
// document spread over lines has a first line that long, and validating a
// 50 MB line cost nine times its framing.
const validateMax = 1 << 20

// wholeValue reports whether a first line that starts a JSON object or
// array is a whole value.
func wholeValue(line []byte) bool {
	if len(line) <= validateMax {
		return json.Valid(line)
	}
	t := bytes.TrimRight(line, " \t\r")
	c := t[len(t)-1]
	return c == '}' && line[0] == '{' || c == ']' && line[0] == '['
}

// isOpener reports whether a line is only "{" or "[": the first line of a
// pretty-printed document.
func isOpener(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) == 1 && (t[0] == '{' || t[0] == '[')
}

// lineFramer frames JSON lines: every non-blank line is an event. Blank
// lines belong to the frame after them (flagged BlankLines), and blank
// lines at the end form a remainder; a last line without its newline is
// flagged NoNewline, unless it is the only one. Nothing is dropped.
type lineFramer struct {
	buf   []byte
	idle  int // see shrink
	base  int64
	pos   int
	beg   int
	bom   Flags // BOM while the first line may start with one, until a frame carries the flag
	first bool  // the first line is still to be read
	// timed says the lines are a recording's body, where a line that ends
	// with its newline is followed by its timing line (recording_body.go):
	// the timing line joins the line's frame.
	timed bool
	// faults are the flags the framer gives a line's layout (NoNewline,
	// BlankLines): all of them for a stream, none for a chunks file,
	// whose layout is the file's, not the wire's.
	faults Flags
	// framed says a line was framed: a last line without its newline is
	// flagged only after others, since a one-line input without one is a
	// whole JSON body (a non-streaming response).
	framed bool
	nl     byteFinder
	frame  Frame
}

// lineFaults are the flags a stream of JSON lines gets for its layout.
const lineFaults = NoNewline | BlankLines

func newLineFramer(base int64) *lineFramer {
	f := &lineFramer{base: base, first: true, faults: lineFaults}
	f.nl.c, f.nl.found = '\n', -1
	return f
}

// feedOwned is feed of bytes the framer may keep as its buffer.
func (f *lineFramer) feedOwned(p []byte, at time.Duration, emit func(*Frame)) {
	if len(f.buf) > 0 {
		f.feed(p, at, emit)
		return
	}
	f.buf, f.beg, f.pos = p, 0, 0
	f.scan(false, at, emit)
}

func (f *lineFramer) feed(p []byte, at time.Duration, emit func(*Frame)) {
	if f.beg > 0 {
		f.buf = shrink(f.buf, f.beg, &f.idle)
		f.base += int64(f.beg)
		f.pos -= f.beg
		f.nl.shift(f.beg)
		f.beg = 0
	}
	f.buf = appendGrow(f.buf, p)
	f.scan(false, at, emit)
}

func (f *lineFramer) scan(final bool, at time.Duration, emit func(*Frame)) {
	for f.pos < len(f.buf) {
		nl := f.nl.index(f.buf, f.pos)
		if f.timed && nl >= 0 {
			if _, ok := timingAfter(f.buf, nl+1, final); !ok {
				return // wait to tell whether a timing line follows
			}
		}
		end, next := nl, nl+1
		var ending Flags = EndsLF
		var layout Flags // the line's faults
		if nl < 0 {
			if !final {
				return
			}
			end, next, ending = len(f.buf), len(f.buf), 0
			if f.framed {
				layout = NoNewline
			}
		}
		content := f.buf[f.pos:end]
		if n := len(content); n > 0 && content[n-1] == '\r' {
			content, ending = content[:n-1], EndsCRLF
		}
		if f.first {
			// Strip a BOM at stream start, as detect and the SSE framer do,
			// so that the first line still decodes as JSON.
			f.first = false
			if bytes.HasPrefix(content, bom) {
				content, f.bom = content[len(bom):], BOM
			}
		}
		if f.pos > f.beg {
			layout |= BlankLines
		}
		f.pos = next
		if len(bytes.TrimSpace(content)) == 0 {
			continue
		}
		if f.timed && nl >= 0 {
			next, _ = timingAfter(f.buf, next, final)
			f.pos = next
		}
		raw := f.buf[f.beg:next]
		f.frame = Frame{
			Kind: FrameEvent, Start: f.base + int64(f.beg), End: f.base + int64(next),
			At: at, Raw: raw, Data: content, HasData: true, DataLines: 1, Retry: -1,
			Flags: contentFlags(raw) | ending | f.bom | layout&f.faults,
		}
		f.bom, f.framed = 0, true
		emit(&f.frame)
		f.beg = next
	}
}

func (f *lineFramer) finish(at time.Duration, emit func(*Frame)) {
	f.scan(true, at, emit)
	if f.beg < len(f.buf) {
		raw := f.buf[f.beg:]
		f.frame = Frame{Kind: FrameRemainder, Start: f.base + int64(f.beg), End: f.base + int64(len(f.buf)),
			At: at, Raw: raw, Retry: -1, Flags: contentFlags(raw) | f.bom | BlankLines&f.faults}
		emit(&f.frame)
	}
}

// wholeFramer holds the whole input and emits it as one event: a
// non-streaming JSON response.
type wholeFramer struct {
	buf   []byte
	base  int64
	frame Frame
}

func (f *wholeFramer) feed(p []byte, _ time.Duration, _ func(*Frame)) { f.buf = append(f.buf, p...) }

func (f *wholeFramer) finish(at time.Duration, emit func(*Frame)) {
	if len(f.buf) == 0 {
		return
	}
	data := bytes.TrimSpace(bytes.TrimPrefix(f.buf, bom))
	f.frame = Frame{Start: f.base, End: f.base + int64(len(f.buf)), At: at, Raw: f.buf, Retry: -1,
		Flags: contentFlags(f.buf)}
	if len(data) == 0 {
		f.frame.Kind = FrameRemainder
	} else {
		f.frame.Kind, f.frame.Data, f.frame.HasData, f.frame.DataLines = FrameEvent, data, true, 1
	}
	emit(&f.frame)
}

// httpFramer frames `curl -i` output: one or more heads (a 100 Continue or
// a proxy's "Connection established" comes before the real one), then the
// body, framed by the format its Content-Type names or by detection.
type httpFramer struct {
	buf   []byte
	base  int64
	body  *Framer
	head  http.Header // the latest head's headers that tell the body's format (HeadFormat)
	frame Frame
}

func (f *httpFramer) feed(p []byte, at time.Duration, emit func(*Frame)) {
	if f.body != nil {
		f.body.Feed(p, at, emit)
		return
	}
	f.buf = append(f.buf, p...)
	f.heads(false, at, emit)
}

func (f *httpFramer) finish(at time.Duration, emit func(*Frame)) {
	if f.body == nil {
		f.heads(true, at, emit)
	}
	if f.body == nil {
		f.startBody(at, emit)
	}
	f.body.Finish(at, emit)
}

// heads emits every complete head at the front of the buffer, then starts
// the body once a head is followed by something that is not another head.
func (f *httpFramer) heads(final bool, at time.Duration, emit func(*Frame)) {
	for f.body == nil {
		if len(f.buf) < 5 && !final {
			return
		}
		if !bytes.HasPrefix(f.buf, []byte("HTTP/")) {
			f.startBody(at, emit)
			return
		}
		end := headEnd(f.buf)
		if end < 0 {
			if !final {
				return
			}
			end = len(f.buf)
		}
		f.emitHead(end, at, emit)
		f.base += int64(end)
		f.buf = f.buf[end:]
	}
}

// headEnd returns the offset just past the blank line that ends a head, or
// -1 if the head is not complete yet.
func headEnd(b []byte) int {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		line := bytes.TrimRight(b[i:i+j], "\r")
		i += j + 1
		if len(line) == 0 {
			return i
		}
	}
	return -1
}

// parseStatus reads an HTTP status code: three digits, 100 to 999 (RFC
// 9110 §15). Anything else is 0, no status: an HTTP server panics on a
// code outside that range, and replay serves the status it read.
func parseStatus(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || len(s) != 3 || n < 100 || n > 999 {
		return 0
	}
	return n
}

func (f *httpFramer) emitHead(end int, at time.Duration, emit func(*Frame)) {
	raw := f.buf[:end]
	f.head = nil // the body follows the last head: only its headers tell its format
	fr := Frame{Kind: FrameHead, Start: f.base, End: f.base + int64(end), At: at, Raw: raw, Retry: -1,
		Flags: contentFlags(raw)}
	lines := strings.Split(strings.TrimRight(string(raw), "\r\n"), "\n")
	if len(lines) > 0 {
		status := strings.Fields(strings.TrimRight(lines[0], "\r"))
		if len(status) >= 2 {
			fr.Proto = status[0]
			fr.Status = parseStatus(status[1])
		}
		for _, l := range lines[1:] {
			l = strings.TrimRight(l, "\r")
			name, value, _ := strings.Cut(l, ":")
			fr.Header = append(fr.Header, Field{Name: []byte(name), Value: []byte(strings.TrimSpace(value))})
			if strings.EqualFold(name, "content-type") || strings.EqualFold(name, DataStreamHeader) {
				if f.head == nil {
					f.head = http.Header{}
				}
				f.head.Set(name, strings.TrimSpace(value))
			}
		}
	}
	f.frame = fr
	emit(&f.frame)
}

func (f *httpFramer) startBody(at time.Duration, emit func(*Frame)) {
	format := HeadFormat(f.head)
	if format == FormatJSON {
		format = FormatAuto // a JSON body may be a stream mislabelled: its bytes tell
	}
	body := &Framer{format: format}
	if format != FormatAuto {
		body.inner = newSplitter(format, f.base)
	} else {
		body.base = f.base
	}
	f.body = body
	if len(f.buf) > 0 {
		body.Feed(f.buf, at, emit)
	}
	f.buf = nil
}
