package capture

// This file frames the data stream of the Vercel AI SDK before v5 (ai 4.x,
// toDataStreamResponse): one part per line, `CODE:JSON\n`, where CODE is
// one character that names the part (0 text, 9 a tool call, d the finish
// message …) and JSON its value, of any kind: a string, an object, an
// array. It is not SSE (the response is text/plain, with the header
// x-vercel-ai-data-stream: v1) and its values are not all objects, so
// neither the SSE nor the JSON lines framer reads it. The SDK's client
// (processDataStream in @ai-sdk/ui-utils) splits the body on "\n", drops
// empty lines, and parses each line as everything before its first ':'
// (the code) and the JSON after it
// (https://github.com/vercel/ai/blob/v4.3.19/packages/ui-utils/src/data-stream-parts.ts,
// parseDataStreamPart).
//
// Each line is one event, framed as the JSON lines framer frames a line
// (blank lines, a last line without its newline, a BOM, a recording's
// timing lines alike), flagged Coded: Event holds the code, Data the JSON
// after the first ':'. A line without ':' has no code: it keeps its
// whole content as Data, with HasEvent false, for the model to judge.

import (
	"bytes"
	"net/http"
	"strings"
	"time"
)

// DataStreamHeader is the response header that names the AI SDK's data
// stream (value "v1"), whose Content-Type, text/plain, names no format.
const DataStreamHeader = "X-Vercel-Ai-Data-Stream"

// dataStreamFramer frames a data stream: JSON lines, each cut at its
// first ':' into its code and its value.
type dataStreamFramer struct {
	lines *lineFramer
	emit  func(*Frame) // the emit of the feed in progress, for split
	split func(*Frame) // cut, made once: a closure per read costs an allocation
}

func newDataStreamFramer(base int64) *dataStreamFramer {
	f := &dataStreamFramer{lines: newLineFramer(base)}
	f.split = f.cut
	return f
}

// cut makes a line's frame a coded part, and hands it on.
func (f *dataStreamFramer) cut(fr *Frame) {
	if fr.Kind == FrameEvent {
		fr.Flags |= Coded
		if code, value, ok := bytes.Cut(fr.Data, []byte(":")); ok {
			fr.Event, fr.HasEvent, fr.Data = code, true, value
		}
	}
	f.emit(fr)
}

func (f *dataStreamFramer) feed(p []byte, at time.Duration, emit func(*Frame)) {
	f.emit = emit
	f.lines.feed(p, at, f.split)
}

func (f *dataStreamFramer) feedOwned(p []byte, at time.Duration, emit func(*Frame)) {
	f.emit = emit
	f.lines.feedOwned(p, at, f.split)
}

func (f *dataStreamFramer) finish(at time.Duration, emit func(*Frame)) {
	f.emit = emit
	f.lines.finish(at, f.split)
}

// dataStreamStart reports whether b, the start of an input past any blank
// space, starts a data stream: one code character, ':', and the first
// byte of a JSON value. ok is false while b is too short to tell.
func dataStreamStart(b []byte) (yes, ok bool) {
	if len(b) == 0 || !isPartCode(b[0]) {
		return false, true
	}
	if len(b) < 3 {
		return false, false
	}
	return b[1] == ':' && jsonStart(b[2]), true
}

// isPartCode reports whether c may be a data stream part's code: the SDK
// uses 0-9 and a-k; any other letter or digit is a code it does not know,
// which the model says.
func isPartCode(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z'
}

// jsonStart reports whether c may start a JSON value.
func jsonStart(c byte) bool {
	switch c {
	case '"', '{', '[', '-', 't', 'f', 'n':
		return true
	}
	return '0' <= c && c <= '9'
}

// FormatHeader is the head a body of format f is served with (by replay,
// when no head was recorded): its Content-Type (ContentType), and for the
// data stream its own header, which says what text/plain does not.
func FormatHeader(f Format) http.Header {
	h := http.Header{"Content-Type": {ContentType(f)}}
	if f == FormatDataStream {
		h.Set(DataStreamHeader, "v1")
	}
	return h
}

// HeadFormat is the format a response body is framed as, by its head:
// the data stream when the head carries DataStreamHeader (its
// Content-Type, text/plain, names none), else the one its Content-Type
// names (ContentFormat); FormatAuto when the head does not tell, and the
// bytes must.
func HeadFormat(h http.Header) Format {
	if strings.TrimSpace(h.Get(DataStreamHeader)) != "" {
		return FormatDataStream
	}
	return ContentFormat(h.Get("Content-Type"))
}
