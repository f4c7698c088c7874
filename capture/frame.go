// Package capture reads bytes from a source (a pipe, a file, an HTTP
// exchange) and cuts them into frames: SSE events, comments, JSON lines,
// AWS event stream messages, HTTP heads and the remainders that fit none
// of those. Every byte it reads
// belongs to exactly one frame, so nothing received is ever lost.
//
// It knows nothing about LLM dialects, tool calls or the UI: turning frames
// into meaning is the job of package model.
package capture

import "time"

// NoTime marks a frame whose arrival was not observed, such as one read from
// a file recorded without timing.
const NoTime time.Duration = -1

// FrameKind says what a frame holds.
type FrameKind uint8

const (
	// FrameEvent is an SSE event block, a JSON line, a whole JSON body or
	// an event stream message.
	FrameEvent FrameKind = iota
	// FrameComment is a run of SSE comment lines (":" lines), such as
	// keep-alives. Browsers drop them; we keep them.
	FrameComment
	// FrameHead is the status line and headers of an HTTP response, as
	// printed by `curl -i`.
	FrameHead
	// FrameRemainder holds bytes that belong to no event: blank lines left at
	// the end of a stream.
	FrameRemainder
)

func (k FrameKind) String() string {
	switch k {
	case FrameEvent:
		return "event"
	case FrameComment:
		return "comment"
	case FrameHead:
		return "head"
	case FrameRemainder:
		return "remainder"
	}
	return "unknown"
}

// Flags records what a frame did that a browser's EventSource would hide or
// reject. They are facts about the bytes, not judgements: package model
// decides what they mean.
type Flags uint32

const (
	// Truncated: the input ended before the blank line that completes the
	// frame. A browser discards such an event; we keep it.
	Truncated Flags = 1 << iota
	// LeadingSpaceField: a line such as " data: {...}" whose field name
	// starts with a space. The spec treats " data" as an unknown field and
	// ignores it.
	LeadingSpaceField
	// UnknownField: a field other than event, data, id and retry.
	UnknownField
	// InvalidUTF8: the frame's bytes are not valid UTF-8. They are kept as
	// received and shown escaped.
	InvalidUTF8
	// IDHasNUL: an id field containing NUL, which the spec ignores.
	IDHasNUL
	// BadRetry: a retry field that is not all ASCII digits, which the spec
	// ignores.
	BadRetry
	// EndsLF, EndsCRLF and EndsCR record which line endings the frame uses.
	EndsLF
	EndsCRLF
	EndsCR
	// HasComment: an event block with comment lines among its fields.
	HasComment
	// BOM: the frame starts the stream with a byte order mark, stripped
	// before parsing as the spec says.
	BOM
	// NULByte: the frame contains a NUL byte.
	NULByte
	// NoData: an event block without any data field. Browsers dispatch
	// nothing for it.
	NoData
	// TooLarge: the frame is larger than MaxFrameSize. It is still kept
	// whole; the flag lets the UI warn before rendering it.
	TooLarge
	// Implied: the frame is not in the input; its format implies it, as
	// the data: [DONE] that vercel/ai's test harness appends to the chunks
	// of a .chunks.txt file. It covers no bytes.
	Implied
	// BlankLines: a JSON line preceded by blank lines, which belong to it,
	// or a remainder made only of blank lines. In SSE a blank line ends an
	// event; between JSON lines it is a line that holds no JSON, and
	// line-by-line decoders (ollama-python's json.loads) raise on it.
	BlankLines
	// NoNewline: the last of several JSON lines has no newline before
	// EOF. Unlike an SSE event cut off (Truncated), the line may be whole:
	// line readers still yield it; whether its JSON is whole is the
	// model's to say.
	NoNewline
	// EventStream: the frame is a message of an AWS event stream
	// (eventstream.go), or bytes of one that hold no message. Raw is
	// binary; Header holds the message's headers (values as text), Event
	// the :event-type (:exception-type, :error-code) that names it and Data
	// its payload.
	EventStream
	// PreludeCRC: an event stream message whose prelude CRC fails. Its
	// lengths cannot be trusted, so its frame runs to the next valid
	// prelude.
	PreludeCRC
	// MessageCRC: an event stream message whose message CRC fails. Its
	// headers and payload are decoded as they are.
	MessageCRC
	// BadLength: an event stream prelude whose lengths no message can have
	// (under 16 bytes, headers past the message, over the 16 MiB and 128
	// KiB bounds), or headers that do not decode within their length.
	BadLength
	// Exception: an event stream message whose :message-type is
	// exception or error: the service reports a failure in the stream.
	Exception
	// Coded: a line of the AI SDK's data stream (datastream.go), CODE:JSON.
	// Event holds its code and Data the JSON after the first ':', a value
	// of any kind; a line without ':' has no Event and keeps its whole
	// content as Data.
	Coded
)

// MaxFrameSize is the size above which a frame is flagged TooLarge. It is a
// warning threshold, not a limit: larger frames are framed and kept like any
// other, because a 50 MB data line is a real thing to debug.
const MaxFrameSize = 16 << 20

// Field is a field line the spec does not know (or ignores), kept so that the
// UI can show it.
type Field struct {
	Name  []byte
	Value []byte
}

// Frame is one unit of the input. Its byte slices point into the framer's
// buffer and are valid only until the callback that received the frame
// returns; copy what must outlive it.
type Frame struct {
	Kind  FrameKind
	Start int64         // offset of the frame's first byte in the stream
	End   int64         // offset just past its last byte
	At    time.Duration // arrival time of the byte that completed it, or NoTime
	Flags Flags

	// Raw is every byte of the frame, exactly as received.
	Raw []byte

	// SSE fields. HasEvent/HasID/HasData distinguish an absent field from an
	// empty one.
	Event     []byte
	HasEvent  bool
	ID        []byte
	HasID     bool
	Data      []byte
	HasData   bool
	DataLines int
	Retry     int64 // -1 when absent or invalid
	Unknown   []Field
	Comments  int // comment lines in the frame

	// HTTP head fields, for FrameHead. Header also holds an event stream
	// message's headers (flag EventStream), values as text.
	Status int
	Proto  string
	Header []Field
}

// Detach returns a copy of f whose slices no longer point into the framer's
// buffer, so it may outlive the callback that received f (for example to be
// handed to another goroutine). Raw is left out: it is the largest part and
// can be read back by offset (Start, End) from wherever the stream's bytes
// are kept; so are an event stream message's headers, which lie within it
// (see DetachInto). All copied slices share one allocation.
func (f *Frame) Detach() Frame {
	n := len(f.Event) + len(f.ID) + len(f.Data)
	for _, u := range f.Unknown {
		n += len(u.Name) + len(u.Value)
	}
	for _, h := range f.Header {
		n += len(h.Name) + len(h.Value)
	}
	var g Frame
	f.DetachInto(&g, make([]byte, 0, n), false)
	return g
}

// DetachInto is Detach into *g, with the copies appended to arena, so
// that a batch of frames shares one buffer that is reused from batch to
// batch. With raw set, Raw is copied too, and the fields that lie within
// it point into its copy instead of being copied again. It returns the
// grown arena; when the arena grows, the frames copied before keep the old
// one.
func (f *Frame) DetachInto(g *Frame, arena []byte, raw bool) []byte {
	*g = *f
	g.Raw = nil
	rawAt := -1
	if raw && f.Raw != nil {
		rawAt = len(arena)
		arena = append(arena, f.Raw...)
		g.Raw = arena[rawAt:len(arena):len(arena)]
	}
	cp := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		if off, ok := within(f.Raw, b); ok && rawAt >= 0 {
			return g.Raw[off : off+len(b) : off+len(b)]
		}
		start := len(arena)
		arena = append(arena, b...)
		return arena[start:len(arena):len(arena)]
	}
	g.Event, g.ID, g.Data = cp(f.Event), cp(f.ID), cp(f.Data)
	if f.Unknown != nil {
		g.Unknown = make([]Field, len(f.Unknown))
		for i, u := range f.Unknown {
			g.Unknown[i] = Field{Name: cp(u.Name), Value: cp(u.Value)}
		}
	}
	switch {
	case f.Header == nil:
	case !raw && f.Flags&(EventStream|Exception) == EventStream:
		// An event stream message's headers are kept with its Raw bytes
		// (they lie within them) and for an exception (whose :error-message
		// the model reads); else they are left out, as Raw is: they would
		// cost an allocation for every message of a stream read only for
		// its calls, and ParseEventStream reads them back from the bytes.
		g.Header = nil
	default:
		g.Header = make([]Field, len(f.Header))
		for i, h := range f.Header {
			g.Header[i] = Field{Name: cp(h.Name), Value: cp(h.Value)}
		}
	}
	return arena
}

// within reports where b lies in outer, when b is a slice of it. Slices of
// one array end at the same capacity, so the capacities give the offset; the
// address check rules out a slice of another array that happens to fit.
func within(outer, b []byte) (int, bool) {
	if len(b) == 0 || len(outer) == 0 {
		return 0, false
	}
	off := cap(outer) - cap(b)
	if off < 0 || off+len(b) > len(outer) || &outer[off] != &b[0] {
		return 0, false
	}
	return off, true
}
