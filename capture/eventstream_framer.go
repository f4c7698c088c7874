package capture

import "time"

// eventStreamFramer cuts an AWS event stream into one frame per message
// (see eventstream.go). Messages do not align with reads: bytes are held
// until the prelude's total_length of them is in.
//
// Every byte still belongs to exactly one frame when the stream is
// damaged. A message whose message CRC fails keeps its length (the
// prelude's own CRC vouches for it) and is flagged MessageCRC. A prelude
// whose CRC fails (PreludeCRC) or whose lengths are impossible
// (BadLength) vouches for nothing: its frame runs to the next offset
// where a valid prelude starts, which is where reading resumes, or to the
// end of the input. Bytes left at the end that do not make a whole message
// are one Truncated frame.
type eventStreamFramer struct {
	buf  []byte // unconsumed input; buf[0] is at stream offset base
	idle int    // see shrink
	base int64
	beg  int // the first byte of the next frame

	// While a bad prelude's frame is being cut: why (PreludeCRC or
	// BadLength), and the offset from which to look for the next valid
	// prelude (bytes before it hold none).
	bad    Flags
	resync int

	// timed says the stream is a recording's body, where a message whose
	// prelude holds is followed by its timing line (recording_body.go):
	// the line joins the message's frame.
	timed bool

	headers []EventStreamHeader // reused for each message
	fields  []Field             // the frame's Header, reused
	text    []byte              // the text of non-string header values
	frame   Frame
}

func newEventStreamFramer(base int64) *eventStreamFramer {
	return &eventStreamFramer{base: base}
}

func (f *eventStreamFramer) feed(p []byte, at time.Duration, emit func(*Frame)) {
	if f.beg > 0 {
		f.buf = shrink(f.buf, f.beg, &f.idle)
		f.base += int64(f.beg)
		f.resync -= f.beg
		f.beg = 0
	}
	f.buf = appendGrow(f.buf, p)
	f.scan(false, at, emit)
}

func (f *eventStreamFramer) finish(at time.Duration, emit func(*Frame)) {
	f.scan(true, at, emit)
}

// scan emits every frame whose bytes are all in; with final set, what is
// left too.
func (f *eventStreamFramer) scan(final bool, at time.Duration, emit func(*Frame)) {
	for f.beg < len(f.buf) {
		if f.bad != 0 {
			if !f.skipBad(final, at, emit) {
				return
			}
			continue
		}
		rest := f.buf[f.beg:]
		if len(rest) < eventStreamPrelude {
			if final {
				f.emitBytes(len(f.buf), Truncated, at, emit)
			}
			return
		}
		total, problem := preludeOf(rest)
		if problem != 0 {
			f.bad, f.resync = problem, f.beg+1
			continue
		}
		if len(rest) < total {
			if final {
				f.emitMessage(rest, at, emit)
			}
			return
		}
		end := total
		if f.timed {
			var ok bool
			if end, ok = timingAfter(rest, total, final); !ok {
				return
			}
		}
		f.emitMessage(rest[:end], at, emit)
	}
}

// skipBad extends the frame of a bad prelude to the next valid prelude and
// emits it. It returns false when it needs more input to find one.
func (f *eventStreamFramer) skipBad(final bool, at time.Duration, emit func(*Frame)) bool {
	last := len(f.buf) - eventStreamPrelude // the last offset a whole prelude fits at
	end := -1
	i := max(f.resync, f.beg+1)
	for ; i <= last; i++ {
		// total_length is at most 16 MiB: a prelude starts with 0 or 1.
		if f.buf[i] <= 1 && validPrelude(f.buf[i:]) {
			end = i
			break
		}
	}
	if end < 0 {
		f.resync = i // no valid prelude starts before i
		switch {
		case final:
			end = len(f.buf)
		case i-f.beg >= MaxEventStreamMessage:
			// No message for 16 MiB: let these bytes go as a frame of their
			// own rather than hold an unbounded run of garbage.
			end = i
		default:
			return false
		}
	}
	why := f.bad
	f.bad = 0
	f.emitBytes(end, why, at, emit)
	return true
}

// emitBytes emits buf[beg:end] as a frame that holds no message: flags say
// why.
func (f *eventStreamFramer) emitBytes(end int, why Flags, at time.Duration, emit func(*Frame)) {
	raw := f.buf[f.beg:end]
	f.frame = Frame{Kind: FrameEvent, Start: f.base + int64(f.beg), End: f.base + int64(end), At: at, Raw: raw,
		Retry: -1, Flags: EventStream | why}
	if len(raw) > MaxFrameSize {
		f.frame.Flags |= TooLarge
	}
	f.beg = end
	emit(&f.frame)
}

// emitMessage emits the message raw (cut short when the input ended
// within it, or followed by a recording's timing line): its headers as the
// frame's Header, the type that names it as its Event and its payload as
// its Data.
func (f *eventStreamFramer) emitMessage(raw []byte, at time.Duration, emit func(*Frame)) {
	m := parseEventStream(raw, f.headers[:0], true) // scan checked the prelude
	f.frame = Frame{Kind: FrameEvent, Start: f.base + int64(f.beg), End: f.base + int64(f.beg+len(raw)), At: at,
		Raw: raw, Retry: -1, Flags: EventStream | m.Problem}
	f.headers = m.Headers
	f.fields, f.text = f.fields[:0], f.text[:0]
	var msgType, event, exception, errorCode []byte
	for _, h := range f.headers {
		value := h.Value
		if h.Type != EventStreamString {
			// The slices of f.text stay valid as it grows: a grown array is
			// new, and the old one keeps what was written to it.
			start := len(f.text)
			f.text = h.AppendText(f.text)
			value = f.text[start:len(f.text):len(f.text)]
		}
		f.fields = append(f.fields, Field{Name: h.Name, Value: value})
		switch string(h.Name) {
		case esMessageType:
			msgType = value
		case esEventType:
			event = value
		case esExceptionType:
			exception = value
		case esErrorCode:
			errorCode = value
		}
	}
	if len(f.fields) > 0 {
		f.frame.Header = f.fields
	}
	switch string(msgType) {
	case "exception":
		f.frame.Flags |= Exception
		event = exception
	case "error":
		f.frame.Flags |= Exception
		event = errorCode
	}
	if event != nil {
		f.frame.Event, f.frame.HasEvent = event, true
	}
	if len(m.Payload) > 0 && m.Problem&Truncated == 0 {
		f.frame.Data, f.frame.HasData, f.frame.DataLines = m.Payload, true, 1
		f.frame.Flags |= contentFlags(m.Payload) &^ TooLarge
	}
	if len(raw) > MaxFrameSize {
		f.frame.Flags |= TooLarge
	}
	f.beg += len(raw)
	emit(&f.frame)
}
