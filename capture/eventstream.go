package capture

// This file reads AWS event streams (application/vnd.amazon.eventstream),
// the binary framing of Amazon Bedrock's ConverseStream and
// InvokeModelWithResponseStream responses (and of Transcribe, Lex, S3
// Select …). The layout
// (https://docs.aws.amazon.com/transcribe/latest/dg/event-stream.html;
// reference decoders: aws-sdk-go-v2 aws/protocol/eventstream, botocore
// eventstream.py):
//
//	total_length:u32be | headers_length:u32be | prelude_crc:u32be
//	headers (headers_length bytes) | payload | message_crc:u32be
//
// The prelude CRC is the CRC32 (IEEE) of the first 8 bytes, the message CRC
// that of every byte before it. A header is name_len:u8, name, type:u8 and
// a value whose form the type gives (see EventStreamType).
//
// The decoding is our own rather than aws-sdk-go-v2's Decoder: that one
// reports a prelude and a message CRC failure alike (one ChecksumError),
// returns nothing of a message that fails, leaves its reader in the middle
// of the bad message with no way to find the next one, and does not bound
// the lengths (a corrupted total_length of 4 GiB is read). Here a message
// that fails a check is still a frame, flagged with the check it failed,
// and reading goes on at the next message whose prelude holds.

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"strconv"
	"time"
)

// EventStreamContentType is the media type of an AWS event stream.
const EventStreamContentType = "application/vnd.amazon.eventstream"

// The bounds of an event stream message. Clients refuse a message past
// them (botocore raises InvalidPayloadLength and InvalidHeadersLength), so
// a prelude that claims more is taken for a corrupted one.
const (
	eventStreamPrelude    = 12 // total_length, headers_length, prelude_crc
	eventStreamOverhead   = 16 // the prelude and the message CRC
	MaxEventStreamMessage = 16 << 20
	MaxEventStreamHeaders = 128 << 10
)

// EventStreamType is the wire type of an event stream header's value.
type EventStreamType uint8

const (
	EventStreamTrue      EventStreamType = iota // no value bytes
	EventStreamFalse                            // no value bytes
	EventStreamByte                             // int8
	EventStreamShort                            // int16, big-endian
	EventStreamInt                              // int32
	EventStreamLong                             // int64
	EventStreamBytes                            // u16 length, then the bytes
	EventStreamString                           // u16 length, then UTF-8
	EventStreamTimestamp                        // int64 milliseconds since the Unix epoch
	EventStreamUUID                             // 16 bytes
)

var eventStreamTypeNames = [...]string{"bool", "bool", "byte", "short", "int", "long", "bytes", "string", "timestamp", "uuid"}

func (t EventStreamType) String() string {
	if int(t) < len(eventStreamTypeNames) {
		return eventStreamTypeNames[t]
	}
	return "type " + strconv.Itoa(int(t))
}

// eventStreamFixed is the value size of each fixed-size type; -1 for the
// types whose value carries its own u16 length.
var eventStreamFixed = [...]int{0, 0, 1, 2, 4, 8, -1, -1, 8, 16}

// EventStreamHeader is one decoded header. Name and Value point into the
// message's bytes: Value holds the value as it is on the wire (a string's
// or a byte array's bytes without their length, a number's big-endian
// bytes).
type EventStreamHeader struct {
	Name  []byte
	Type  EventStreamType
	Value []byte
}

// AppendText appends the value as text: a string as it is, a number in
// decimal, a byte array in base64, a timestamp in RFC 3339 (UTC,
// milliseconds), a UUID in its 8-4-4-4-12 hex form.
func (h EventStreamHeader) AppendText(dst []byte) []byte {
	v := h.Value
	switch h.Type {
	case EventStreamTrue:
		return append(dst, "true"...)
	case EventStreamFalse:
		return append(dst, "false"...)
	case EventStreamByte:
		return strconv.AppendInt(dst, int64(int8(v[0])), 10)
	case EventStreamShort:
		return strconv.AppendInt(dst, int64(int16(binary.BigEndian.Uint16(v))), 10)
	case EventStreamInt:
		return strconv.AppendInt(dst, int64(int32(binary.BigEndian.Uint32(v))), 10)
	case EventStreamLong:
		return strconv.AppendInt(dst, int64(binary.BigEndian.Uint64(v)), 10)
	case EventStreamBytes:
		return base64.StdEncoding.AppendEncode(dst, v)
	case EventStreamTimestamp:
		ms := int64(binary.BigEndian.Uint64(v))
		return time.UnixMilli(ms).UTC().AppendFormat(dst, "2006-01-02T15:04:05.000Z07:00")
	case EventStreamUUID:
		for i, b := range v {
			if i == 4 || i == 6 || i == 8 || i == 10 {
				dst = append(dst, '-')
			}
			dst = hex.AppendEncode(dst, []byte{b})
		}
		return dst
	}
	return append(dst, v...) // EventStreamString
}

// EventStreamMessage is one message of an event stream, decoded by
// ParseEventStream. Its slices point into the bytes it was decoded from.
type EventStreamMessage struct {
	Total, HeadersLen      uint32 // the prelude's lengths
	PreludeCRC, MessageCRC uint32 // the CRCs as received
	Headers                []EventStreamHeader
	Payload                []byte
	// Problem holds the checks the message failed: PreludeCRC,
	// MessageCRC, BadLength (impossible lengths, or headers that do not
	// decode within their length), Truncated (fewer bytes than the
	// prelude's total_length).
	Problem Flags
}

// Header returns the value of the header named name, and whether the
// message has one.
func (m *EventStreamMessage) Header(name string) (EventStreamHeader, bool) {
	for _, h := range m.Headers {
		if string(h.Name) == name {
			return h, true
		}
	}
	return EventStreamHeader{}, false
}

// ErrEventStreamShort is returned by ParseEventStream for fewer bytes than
// a prelude.
var ErrEventStreamShort = errors.New("event stream: shorter than a message prelude")

// ParseEventStream decodes the event stream message that starts raw, as
// far as its bytes allow: the lengths and CRCs of its prelude, and, unless
// the prelude fails, its headers and payload. The checks it fails are in
// Problem; only input shorter than a prelude is an error. It is how a view
// shows a frame's decoded headers from the frame's bytes.
func ParseEventStream(raw []byte) (EventStreamMessage, error) {
	if len(raw) < eventStreamPrelude {
		return EventStreamMessage{}, ErrEventStreamShort
	}
	return parseEventStream(raw, nil, false), nil
}

// parseEventStream is ParseEventStream for at least a prelude's bytes,
// appending the headers to headers: the framer reuses one slice for every
// message. sound says the prelude is known to hold (the framer checked it
// to find the message's length).
func parseEventStream(raw []byte, headers []EventStreamHeader, sound bool) EventStreamMessage {
	var m EventStreamMessage
	m.Total = binary.BigEndian.Uint32(raw)
	m.HeadersLen = binary.BigEndian.Uint32(raw[4:])
	m.PreludeCRC = binary.BigEndian.Uint32(raw[8:])
	switch {
	case sound:
	case crc32.ChecksumIEEE(raw[:8]) != m.PreludeCRC:
		m.Problem |= PreludeCRC
		return m
	case !possibleLengths(m.Total, m.HeadersLen):
		m.Problem |= BadLength
		return m
	}
	total := int(m.Total)
	if len(raw) < total {
		m.Problem |= Truncated
		total = len(raw)
	} else {
		m.MessageCRC = binary.BigEndian.Uint32(raw[total-4:])
		if crc32.ChecksumIEEE(raw[:total-4]) != m.MessageCRC {
			m.Problem |= MessageCRC
		}
	}
	hEnd := eventStreamPrelude + int(m.HeadersLen)
	if hEnd > total {
		return m // cut short within the headers
	}
	var ok bool
	if m.Headers, ok = appendEventStreamHeaders(headers, raw[eventStreamPrelude:hEnd]); !ok {
		m.Problem |= BadLength
	}
	m.Payload = raw[hEnd:min(total, int(m.Total)-4)]
	return m
}

// possibleLengths reports whether a prelude's lengths can describe a
// message: room for the overhead and the headers, within the bounds.
func possibleLengths(total, headers uint32) bool {
	return total >= eventStreamOverhead && total <= MaxEventStreamMessage &&
		headers <= MaxEventStreamHeaders && headers <= total-eventStreamOverhead
}

// validPrelude reports whether b starts with a prelude whose CRC holds and
// whose lengths are possible: how a stream is told to be an event stream,
// and where reading resumes after a bad message.
func validPrelude(b []byte) bool {
	if len(b) < eventStreamPrelude {
		return false
	}
	_, problem := preludeOf(b)
	return problem == 0
}

// EventStreamPrelude is how many bytes of a body StartsEventStream needs
// to tell: a message's prelude.
const EventStreamPrelude = eventStreamPrelude

// StartsEventStream reports whether b, the first bytes of a body, start an
// AWS event stream, as a Framer given no format tells one: a valid
// prelude, or a NUL and lengths a message can have. What names and times
// a body by its bytes when no Content-Type says what it is (the proxy's
// recordings, the inspector's w) asks it.
func StartsEventStream(b []byte) bool { return eventStreamStart(b) }

// eventStreamStart reports whether b, the first bytes of a stream, start
// an event stream: a valid prelude, or a NUL and lengths a message can
// have behind a damaged CRC.
func eventStreamStart(b []byte) bool {
	if len(b) < eventStreamPrelude {
		return false
	}
	return validPrelude(b) || b[0] == 0 && possibleLengths(binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:]))
}

// appendEventStreamHeaders decodes a header block. ok is false when a
// header runs past the block, has an empty name or an unknown type; the
// headers before it are kept.
func appendEventStreamHeaders(dst []EventStreamHeader, b []byte) (_ []EventStreamHeader, ok bool) {
	for len(b) > 0 {
		n := int(b[0])
		if n == 0 || len(b) < 1+n+1 {
			return dst, false
		}
		h := EventStreamHeader{Name: b[1 : 1+n], Type: EventStreamType(b[1+n])}
		b = b[2+n:]
		if int(h.Type) >= len(eventStreamFixed) {
			return dst, false
		}
		size := eventStreamFixed[h.Type]
		if size < 0 {
			if len(b) < 2 {
				return dst, false
			}
			size = int(binary.BigEndian.Uint16(b))
			b = b[2:]
		}
		if len(b) < size {
			return dst, false
		}
		h.Value, b = b[:size], b[size:]
		dst = append(dst, h)
	}
	return dst, true
}

// AppendEventStream appends one event stream message holding headers,
// each a string header (name, value), and payload, with both CRCs. It is
// how tests and generators write Bedrock streams. A name over 255 bytes
// or a value over 65535 is cut to fit.
func AppendEventStream(dst []byte, headers []Field, payload []byte) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, eventStreamPrelude)...)
	for _, h := range headers {
		dst = AppendEventStreamHeader(dst, string(h.Name[:min(len(h.Name), 255)]), EventStreamString, h.Value[:min(len(h.Value), 65535)])
	}
	headersLen := len(dst) - start - eventStreamPrelude
	return finishEventStream(append(dst, payload...), start, headersLen)
}

// The headers of the AWS event stream RPC protocol that say what a
// message is.
const (
	esMessageType   = ":message-type"   // event, exception or error
	esEventType     = ":event-type"     // an event's type
	esExceptionType = ":exception-type" // a modelled exception's type
	esErrorCode     = ":error-code"     // an unmodelled error's code
)

// preludeOf reads the prelude that starts b (at least eventStreamPrelude
// bytes): the message's total length, or the check it fails (PreludeCRC,
// or BadLength for lengths no message can have).
func preludeOf(b []byte) (total int, problem Flags) {
	t, headers := binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])
	switch {
	case crc32.ChecksumIEEE(b[:8]) != binary.BigEndian.Uint32(b[8:]):
		return 0, PreludeCRC
	case !possibleLengths(t, headers):
		return 0, BadLength
	}
	return int(t), 0
}

// AppendEventStreamHeader appends one header to an event stream header
// block: its name, its type and value, the value as EventStreamHeader
// holds it (a number's big-endian bytes; a string's or a byte array's
// bytes, whose u16 length it writes before them). It is the one encoder
// of headers the tools that write messages (inject, scripts/gencapture)
// and the tests share.
func AppendEventStreamHeader(dst []byte, name string, typ EventStreamType, value []byte) []byte {
	dst = append(dst, byte(len(name)))
	dst = append(dst, name...)
	dst = append(dst, byte(typ))
	if typ == EventStreamBytes || typ == EventStreamString {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(value)))
	}
	return append(dst, value...)
}

// AppendEventStreamMessage appends one event stream message of the
// header block headers (AppendEventStreamHeader's, or a message's kept
// byte for byte) and payload, with its lengths and both CRCs.
func AppendEventStreamMessage(dst, headers, payload []byte) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, eventStreamPrelude)...)
	dst = append(dst, headers...)
	return finishEventStream(append(dst, payload...), start, len(headers))
}

// finishEventStream fills in the prelude of the message that starts at
// dst[start] (its headers and payload written after a prelude's room)
// and appends its message CRC.
func finishEventStream(dst []byte, start, headersLen int) []byte {
	msg := dst[start:]
	binary.BigEndian.PutUint32(msg, uint32(len(msg)+4))
	binary.BigEndian.PutUint32(msg[4:], uint32(headersLen))
	binary.BigEndian.PutUint32(msg[8:], crc32.ChecksumIEEE(msg[:8]))
	return binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(msg))
}
