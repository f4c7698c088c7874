package capture

import (
	"bytes"
	"time"
	"unicode/utf8"
)

// span is a byte range relative to the start of the frame being built, so
// that it survives the buffer being compacted between feeds.
type span struct{ s, e int }

// byteFinder finds the next occurrence of one byte in a growing buffer
// without rescanning bytes it has already searched. Without it a buffer with
// no '\n' at all (a CR-only stream, or a 50 MB line arriving in small reads)
// would be rescanned once per line or per read: quadratic time.
type byteFinder struct {
	c     byte
	found int // index of an occurrence, or -1
	upto  int // when found < 0: buf[:upto] holds no occurrence past the last query
}

func (b *byteFinder) index(buf []byte, from int) int {
	if b.found >= from {
		return b.found
	}
	start := from
	if b.found < 0 && b.upto > start {
		start = b.upto
	}
	if start < len(buf) {
		if i := bytes.IndexByte(buf[start:], b.c); i >= 0 {
			b.found = start + i
			return b.found
		}
	}
	b.found, b.upto = -1, len(buf)
	return -1
}

// shift keeps the finder valid after the first n bytes of the buffer were
// dropped.
func (b *byteFinder) shift(n int) {
	if b.found >= 0 {
		b.found -= n
	}
	b.upto = max(b.upto-n, 0)
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// sseFramer cuts a text/event-stream into frames following the WHATWG
// rules (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
// but keeps everything a browser would drop: comments, an event cut off by
// EOF, ignored fields.
//
// A line that ends in CR as the last byte received is not parsed until the
// next byte shows whether it is a CRLF (the spec's "CRLF split across
// reads"). That keeps frames independent of how the input was split into
// reads.
type sseFramer struct {
	buf  []byte // unconsumed input; buf[0] is at stream offset base
	idle int    // see shrink
	base int64
	pos  int // next byte of buf to parse
	beg  int // first byte of the frame being built
	bom  bool
	nl   byteFinder
	cr   byteFinder

	// The frame being built. Spans are relative to beg.
	fields, comments int
	flags            Flags
	event, id        span
	hasEvent, hasID  bool
	data             span
	dataLines        int
	dataJoined       []byte
	retry            int64
	unknown          []span // pairs: name, value

	frame Frame
}

func newSSEFramer(base int64) *sseFramer {
	f := &sseFramer{base: base, bom: true} // a BOM may open the stream or an HTTP body
	f.nl.c, f.cr.c = '\n', '\r'
	f.nl.found, f.cr.found = -1, -1
	f.reset()
	return f
}

func (f *sseFramer) reset() {
	f.fields, f.comments = 0, 0
	f.flags &= BOM // a BOM flag waits for the first frame
	f.hasEvent, f.hasID = false, false
	f.dataLines = 0
	f.retry = -1
	f.unknown = f.unknown[:0]
}

func (f *sseFramer) feed(p []byte, at time.Duration, emit func(*Frame)) {
	f.compact()
	f.buf = appendGrow(f.buf, p)
	f.parse(false, at, emit)
}

// feedOwned is feed of bytes the framer may keep as its buffer.
func (f *sseFramer) feedOwned(p []byte, at time.Duration, emit func(*Frame)) {
	if len(f.buf) > 0 {
		f.feed(p, at, emit)
		return
	}
	f.buf, f.beg, f.pos = p, 0, 0
	f.parse(false, at, emit)
}

func (f *sseFramer) finish(at time.Duration, emit func(*Frame)) {
	f.parse(true, at, emit)
	end := len(f.buf)
	switch {
	case f.fields > 0:
		f.flags |= Truncated
		f.emitEvent(end, at, emit)
	case f.comments > 0:
		f.emitPlain(FrameComment, end, at, emit)
	case f.beg < end:
		f.emitPlain(FrameRemainder, end, at, emit)
	}
}

// compact drops the bytes of frames already emitted.
func (f *sseFramer) compact() {
	if f.beg == 0 {
		return
	}
	f.buf = shrink(f.buf, f.beg, &f.idle)
	f.base += int64(f.beg)
	f.pos -= f.beg
	f.nl.shift(f.beg)
	f.cr.shift(f.beg)
	f.beg = 0
}

func (f *sseFramer) parse(final bool, at time.Duration, emit func(*Frame)) {
	if f.bom && f.pos == 0 {
		if len(f.buf) < len(bom) && bytes.HasPrefix(bom, f.buf) && !final {
			return // wait: these bytes may be the start of a BOM
		}
		if bytes.HasPrefix(f.buf, bom) {
			f.pos = len(bom)
			f.flags |= BOM
		}
		f.bom = false
	}
	for f.pos < len(f.buf) {
		nl := f.nl.index(f.buf, f.pos)
		cr := f.cr.index(f.buf, f.pos)
		var end, next int // end of the line's content; start of the next line
		var ending Flags
		switch {
		case cr >= 0 && (nl < 0 || cr < nl):
			end = cr
			switch {
			case cr+1 < len(f.buf) && f.buf[cr+1] == '\n':
				next, ending = cr+2, EndsCRLF
			case cr+1 < len(f.buf) || final:
				next, ending = cr+1, EndsCR
			default:
				return // a CR at the end of the input may be half a CRLF
			}
		case nl >= 0:
			end, next, ending = nl, nl+1, EndsLF
		default:
			if !final {
				return
			}
			end, next = len(f.buf), len(f.buf) // unterminated last line
		}
		f.line(f.pos, end, next, ending, at, emit)
		f.pos = next
	}
}

// line handles one line: buf[ls:le] is its content and le:next its ending.
func (f *sseFramer) line(ls, le, next int, ending Flags, at time.Duration, emit func(*Frame)) {
	if ls == le && ending != 0 { // blank line: dispatch
		f.flags |= ending
		switch {
		case f.fields > 0:
			f.emitEvent(next, at, emit)
		case f.comments > 0:
			f.emitPlain(FrameComment, next, at, emit)
		}
		// A blank line with nothing before it stays in front of the next
		// frame, so that it belongs to exactly one frame.
		return
	}
	line := f.buf[ls:le]
	if line[0] == ':' {
		if f.fields > 0 {
			f.flags |= HasComment
		}
		f.comments++
		f.flags |= ending
		return
	}
	if f.fields == 0 && f.comments > 0 {
		// Comments before the first field line stand on their own.
		f.emitPlain(FrameComment, ls, at, emit)
	}
	f.flags |= ending
	f.fields++
	name, value := line, line[len(line):]
	if i := fieldColon(line); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	vs := ls - f.beg + (len(line) - len(value))
	v := span{vs, vs + len(value)}
	switch string(name) {
	case "data":
		f.dataLines++
		switch f.dataLines {
		case 1:
			f.data = v
		case 2:
			f.dataJoined = append(f.dataJoined[:0], f.buf[f.beg+f.data.s:f.beg+f.data.e]...)
			fallthrough
		default:
			f.dataJoined = append(f.dataJoined, '\n')
			f.dataJoined = append(f.dataJoined, value...)
		}
	case "event":
		f.event, f.hasEvent = v, true
	case "id":
		if bytes.IndexByte(value, 0) >= 0 {
			f.flags |= IDHasNUL
		} else {
			f.id, f.hasID = v, true
		}
	case "retry":
		if n, ok := parseDigits(value); ok {
			f.retry = n
		} else {
			f.flags |= BadRetry
		}
	default:
		f.flags |= UnknownField
		trimmed := bytes.TrimLeft(name, " \t")
		if len(trimmed) < len(name) && isKnownField(trimmed) {
			f.flags |= LeadingSpaceField
		}
		ns := ls - f.beg
		f.unknown = append(f.unknown, span{ns, ns + len(name)}, v)
	}
}

// fieldColon returns the index of the colon ending a line's field name,
// or -1. Nearly every line is "data:" or "event:", so those are tested
// before searching.
func fieldColon(line []byte) int {
	switch {
	case len(line) > 4 && line[4] == ':' && string(line[:4]) == "data":
		return 4
	case len(line) > 5 && line[5] == ':' && string(line[:5]) == "event":
		return 5
	}
	return bytes.IndexByte(line, ':')
}

func isKnownField(name []byte) bool {
	switch string(name) {
	case "data", "event", "id", "retry":
		return true
	}
	return false
}

func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func (f *sseFramer) emitEvent(end int, at time.Duration, emit func(*Frame)) {
	fr := f.start(FrameEvent, end, at)
	rel := func(s span) []byte { return fr.Raw[s.s:s.e] }
	if f.hasEvent {
		fr.Event, fr.HasEvent = rel(f.event), true
	}
	if f.hasID {
		fr.ID, fr.HasID = rel(f.id), true
	}
	switch f.dataLines {
	case 0:
		fr.Flags |= NoData
	case 1:
		fr.Data, fr.HasData = rel(f.data), true
	default:
		fr.Data, fr.HasData = f.dataJoined, true
	}
	fr.DataLines = f.dataLines
	fr.Retry = f.retry
	for i := 0; i+1 < len(f.unknown); i += 2 {
		fr.Unknown = append(fr.Unknown, Field{Name: rel(f.unknown[i]), Value: rel(f.unknown[i+1])})
	}
	fr.Comments = f.comments
	emit(fr)
	f.done(end)
}

func (f *sseFramer) emitPlain(kind FrameKind, end int, at time.Duration, emit func(*Frame)) {
	fr := f.start(kind, end, at)
	fr.Comments = f.comments
	fr.Flags &^= Truncated
	emit(fr)
	f.done(end)
}

// start fills the fields every frame has, and clears the others.
//
// It sets the frame field by field rather than assigning a new Frame: a
// frame is mostly slices, and while the collector marks, every pointer
// stored costs a write barrier, which for fields that stay nil frame
// after frame (the head's, the SSE fields a frame lacks) is work for
// nothing. Assigning the whole struct for every event cost 5% of calls.
func (f *sseFramer) start(kind FrameKind, end int, at time.Duration) *Frame {
	raw := f.buf[f.beg:end]
	fr := &f.frame
	fr.Kind, fr.Start, fr.End, fr.At = kind, f.base+int64(f.beg), f.base+int64(end), at
	fr.Flags = f.flags | contentFlags(raw)
	fr.Raw = raw
	fr.Retry = -1
	fr.Unknown = fr.Unknown[:0]
	fr.HasEvent, fr.HasID, fr.HasData, fr.DataLines, fr.Comments, fr.Status = false, false, false, 0, 0, 0
	clearBytes(&fr.Event)
	clearBytes(&fr.ID)
	clearBytes(&fr.Data)
	if fr.Proto != "" {
		fr.Proto = ""
	}
	if fr.Header != nil {
		fr.Header = nil
	}
	return fr
}

// clearBytes sets *b to nil, storing nothing when it is nil already.
func clearBytes(b *[]byte) {
	if *b != nil {
		*b = nil
	}
}

func (f *sseFramer) done(end int) {
	f.beg = end
	f.flags = 0
	f.reset()
}

// contentFlags reports properties of the bytes themselves.
func contentFlags(raw []byte) Flags {
	var fl Flags
	if !utf8.Valid(raw) {
		fl |= InvalidUTF8
	}
	if bytes.IndexByte(raw, 0) >= 0 {
		fl |= NULByte
	}
	if len(raw) > MaxFrameSize {
		fl |= TooLarge
	}
	return fl
}

// keptBuffer is the capacity a framer keeps between frames. A buffer grown
// for huge frames (a 50 MB data line) is released once the stream has
// gone on with small frames for as many bytes as the buffer holds: a
// Responses call of 50 MB comes in its delta, its .done and its
// output_item.done events, and growing the buffer again from keptBuffer to
// 64 MB for each of them allocated (and faulted in) 128 MB every time.
const keptBuffer = 4 * readChunk

// shrink drops buf[:drop], the bytes of frames already emitted, moving the
// rest to the front. idle counts the bytes dropped in small steps while
// buf had grown past keptBuffer; when they reach buf's capacity, the rest
// moves into a buffer of keptBuffer.
func shrink(buf []byte, drop int, idle *int) []byte {
	rest := buf[drop:]
	switch {
	case cap(buf) <= keptBuffer || drop >= keptBuffer/2 || len(rest) >= keptBuffer/2:
		*idle = 0 // small, or big and in use
	case *idle+drop >= cap(buf):
		*idle = 0
		return append(make([]byte, 0, keptBuffer), rest...)
	default:
		*idle += drop
	}
	n := copy(buf, rest)
	return buf[:n]
}

// appendGrow appends p to buf, doubling the capacity when it must grow.
// append grows large slices by only a quarter, so a 50 MB line arriving in
// 256 KiB reads would be copied into some twenty ever larger buffers; with
// doubling the copies add up to about the line's own size.
func appendGrow(buf, p []byte) []byte {
	if need := len(buf) + len(p); need > cap(buf) {
		grown := make([]byte, len(buf), max(need, 2*cap(buf)))
		copy(grown, buf)
		buf = grown
	}
	return append(buf, p...)
}
