package capture

// This file holds how a timed recording times a body that is not SSE.
// An AWS event stream (Bedrock's) and JSON lines (Ollama's NDJSON) have no
// comment syntax to hide a timing line in, but a recording is not read by
// their own readers anyway (its header block comes first), so the
// recording writes the same line, `: t=<seconds>`, after each message or
// line, where the reader knows to look for it:
//
//   - an event stream message whose prelude holds is followed by its
//     timing line: its total_length says where the message ends, and a
//     message cannot start with ':' (a prelude's first byte is 0 or 1), so
//     the line is told apart from the next message. A message whose
//     prelude fails, or that the input cut short, has none: its bytes run
//     to the next valid prelude or to the end, and it takes the time of
//     the frame before it.
//   - a JSON line that ends with its newline is followed by its timing
//     line; a last line without its newline has none.
//
// As in an SSE recording, the timing line stays inside the bytes of the
// frame it times (after the message or the line), so every byte belongs to
// exactly one frame and a frame's offsets still cover its message, and it
// is hidden from the frame's fields; ParseRecording gives the body back
// without the lines, exactly as received. Recordings written before bodies
// were timed have no such lines and read as before.

import (
	"bytes"
	"encoding/binary"
	"time"
)

// maxTimingLine bounds a timing line after a message or line: ": t=",
// seconds up to MaxRecordedTime with six decimals, and the newline fit in
// far less. A longer run is not a timing line.
const maxTimingLine = 64

// timingAfter returns where a recorded frame ends whose own bytes end at
// b[end]: after the timing line that starts there, or at end when none
// does. ok is false while b holds too little to tell and more may come.
func timingAfter(b []byte, end int, final bool) (int, bool) {
	rest := b[end:]
	n := min(len(rest), len(timingPrefix))
	if string(rest[:n]) != timingPrefix[:n] {
		return end, true
	}
	if n < len(timingPrefix) {
		return end, final // the start of a timing line, or not
	}
	nl := bytes.IndexByte(rest[:min(len(rest), maxTimingLine)], '\n')
	switch {
	case nl >= 0:
		return end + nl + 1, true
	case len(rest) < maxTimingLine && !final:
		return end, false
	}
	return end, true
}

// timed makes a body splitter read the timing lines a recording adds to
// its format; formats without them (SSE, whose timing lines are comments)
// are left as they are.
func timed(s splitter) {
	switch s := s.(type) {
	case *eventStreamFramer:
		s.timed = true
	case *lineFramer:
		s.timed = true
	case *dataStreamFramer:
		s.lines.timed = true
	}
}

// bodyTiming finds the timing line a recording added to a frame of an
// event stream or JSON lines body (see timingAfter): the frame's own bytes
// end at own, and at is the time the line states (valid false when it
// states none, see parseSeconds). ok is false when the frame has no
// timing line.
func bodyTiming(format Format, fr *Frame) (own int, at time.Duration, valid, ok bool) {
	raw := fr.Raw
	switch format {
	case FormatEventStream:
		if fr.Flags&(PreludeCRC|BadLength) != 0 || len(raw) < eventStreamPrelude {
			return 0, 0, false, false
		}
		own = int(binary.BigEndian.Uint32(raw))
		if own >= len(raw) {
			return 0, 0, false, false
		}
	case FormatJSONL, FormatDataStream:
		if fr.Kind != FrameEvent {
			return 0, 0, false, false
		}
		s, _, _, _, found := timingLine(raw)
		if !found || s == 0 {
			return 0, 0, false, false // a line of the stream that looks like one
		}
		own = s
	default:
		return 0, 0, false, false
	}
	line, isLine := bytes.CutSuffix(raw[own:], []byte("\n"))
	v, isTiming := bytes.CutPrefix(line, []byte(timingPrefix))
	if !isLine || !isTiming {
		return 0, 0, false, false
	}
	at, valid = parseSeconds(string(v))
	return own, at, valid, true
}

// timesBody reports whether a recording adds a timing line after each
// frame of a body of this format.
func timesBody(format Format) bool {
	return format == FormatEventStream || format == FormatJSONL || format == FormatDataStream
}

// writeTimed writes a frame of an event stream or JSON lines body and, when
// the reader can find it (see the file comment), its timing line.
func (r *Recorder) writeTimed(f *Frame) {
	r.buf.Write(f.Raw)
	switch {
	case f.Kind != FrameEvent:
		return
	case f.Flags&EventStream != 0:
		if f.Flags&(PreludeCRC|BadLength|Truncated) != 0 {
			return
		}
	case !bytes.HasSuffix(f.Raw, []byte("\n")):
		return // a last line without its newline
	}
	r.buf.WriteString(timingPrefix + formatSeconds(f.At) + "\n")
}

// wrapTimed is recordingFramer.wrap for an event stream or JSON lines
// body: a frame with a timing line is stamped with its time, the line
// hidden from onBody; a frame without one takes the time of the frame
// before it.
func (f *recordingFramer) wrapTimed(format Format, fr *Frame, emit func(*Frame)) {
	own, at, valid, ok := bodyTiming(format, fr)
	if !ok {
		fr.At = f.last
		if f.onBody != nil {
			f.onBody(fr.At, fr.Raw)
		}
		emit(fr)
		return
	}
	if !valid {
		f.badTimes++ // not a time: the frame is sent right after the one before
		at = f.last
	}
	if at != NoTime {
		f.last = at
	}
	fr.At = at
	if f.onBody != nil {
		f.onBody(at, fr.Raw[:own])
	}
	emit(fr)
}

// RecordFormat is the Format to give a Recorder for a body of format f:
// f itself when the recording times each of its frames (SSE, event
// streams, JSON lines), else FormatJSON, which keeps the body verbatim.
func RecordFormat(f Format) Format {
	if f == FormatSSE || timesBody(f) {
		return f
	}
	return FormatJSON
}
