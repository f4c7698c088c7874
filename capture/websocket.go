package capture

// This file reads the WebSocket protocol (RFC 6455,
// https://www.rfc-editor.org/rfc/rfc6455) as a proxy sees it: the bytes of
// one direction of an upgraded connection, cut into messages, and each
// message written as one SSE block, so that the rest of streamtap (the
// framer, the model, recordings) reads a WebSocket session like a stream.
//
// What is read: the base framing of §5.2 (FIN, RSV1–3, opcode, the 7-,
// 16- and 64-bit lengths, the masking key), unmasking (§5.3),
// fragmentation with control frames between fragments (§5.4), the control
// frames close, ping and pong (§5.5), and the close code and reason
// (§5.5.1, §7.4). Violations are kept as facts on the message (WSProblem),
// never a reason to drop bytes. Extensions (§9, e.g. permessage-deflate,
// RFC 7692) are not undone: a frame with RSV bits set is kept with its
// payload as sent, and marked by its RSV bits.
//
// The SSE block of a message (AppendSSE) holds one comment line that
// describes it:
//
//	: ws <dir> <kind>[ <attr>=<value>...][ <enc> <payload>]
//
// dir is client or server (who sent it); kind is text, binary, close,
// ping, pong, continuation, or opN for a reserved opcode; attrs are
// frames=N (more than one frame), rsv=1,2,3 (the RSV bits set), code=N (a
// close code), problem=a,b (WSProblem names). On a connection that
// carries JSON events (the caller knows: a Responses session), a text
// message from the server whose payload is UTF-8 without CR, and not
// compressed or cut, is one such event: its payload comes first as SSE
// data lines, one per line of the payload, and the comment line follows
// them, so that SSE readers see an event whose data is the message
// (comment lines before the first field would stand as a frame of their
// own). Every other message is the comment line alone, its payload on it:
// enc is utf8 (UTF-8 text without control characters, as it is), json (a
// JSON string of UTF-8 text with line breaks or control characters) or
// base64 (anything else); a close frame's payload there is its reason. A
// blank line ends the block. Client messages are comments only, so no SSE
// reader, and no assembly, can take them for server events:
//
//	data: {"type":"response.output_text.delta","delta":"Hi"}
//	: ws server text
//
//	: ws client text utf8 {"type":"response.create","model":"gpt-5"}
//
//	: ws client close code=1000 utf8 done

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// WSDir says who sent a message.
type WSDir uint8

const (
	// WSClient: the client sent it, to the server. Its frames must be
	// masked (§5.1).
	WSClient WSDir = iota
	// WSServer: the server sent it. Its frames must not be masked.
	WSServer
)

func (d WSDir) String() string {
	if d == WSClient {
		return "client"
	}
	return "server"
}

// WSOpcode is a frame's opcode (§5.2, §11.8).
type WSOpcode uint8

const (
	WSContinuation WSOpcode = 0x0
	WSText         WSOpcode = 0x1
	WSBinary       WSOpcode = 0x2
	WSClose        WSOpcode = 0x8
	WSPing         WSOpcode = 0x9
	WSPong         WSOpcode = 0xA
)

func (o WSOpcode) String() string {
	switch o {
	case WSContinuation:
		return "continuation"
	case WSText:
		return "text"
	case WSBinary:
		return "binary"
	case WSClose:
		return "close"
	case WSPing:
		return "ping"
	case WSPong:
		return "pong"
	}
	return "op" + strconv.Itoa(int(o))
}

// Control reports whether o is a control opcode (§5.5): its frames stand
// alone, even between the fragments of a message.
func (o WSOpcode) Control() bool { return o&0x8 != 0 }

func (o WSOpcode) reserved() bool { return o > WSBinary && o < WSClose || o > WSPong }

// WSProblem records what a message did that RFC 6455 forbids. Like Flags,
// these are facts about the bytes, not judgements.
type WSProblem uint16

const (
	// WSUnmasked: a client frame without a mask (§5.1).
	WSUnmasked WSProblem = 1 << iota
	// WSMasked: a server frame with a mask (§5.1).
	WSMasked
	// WSReservedOpcode: opcode 3–7 or 0xB–0xF (§5.2).
	WSReservedOpcode
	// WSOrphanContinuation: a continuation frame with no message to
	// continue (§5.4).
	WSOrphanContinuation
	// WSInterrupted: a new text or binary frame came before this message's
	// final fragment (§5.4); the message is kept as far as it got.
	WSInterrupted
	// WSBadControl: a control frame that is fragmented or longer than 125
	// bytes (§5.5).
	WSBadControl
	// WSNonMinimalLength: a payload length not in its shortest encoding
	// (§5.2).
	WSNonMinimalLength
	// WSBadLength: a 64-bit length with its most significant bit set
	// (§5.2). Framing cannot go on: this message holds every later byte.
	WSBadLength
	// WSInvalidUTF8: a text message or close reason that is not UTF-8
	// (§5.6, §8.1). A compressed (RSV1) message is not checked.
	WSInvalidUTF8
	// WSBadClose: a close payload of one byte, or a close code that must
	// not be sent (§5.5.1, §7.4).
	WSBadClose
	// WSTruncated: the connection ended inside this message. A frame cut
	// inside its header keeps the header bytes as its payload.
	WSTruncated
)

var wsProblemNames = [...]string{
	"unmasked", "masked", "reserved-opcode", "orphan-continuation", "interrupted",
	"bad-control", "non-minimal-length", "bad-length", "invalid-utf8", "bad-close", "truncated",
}

// Names lists the problems set in p, in a fixed order.
func (p WSProblem) Names() []string {
	var out []string
	for i, n := range wsProblemNames {
		if p&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// RSV1 is the RSV bit permessage-deflate sets on a compressed message
// (RFC 7692 §6), as held in WSMessage.RSV.
const RSV1 = 0x4

// wsMaxControl is the largest control frame payload (§5.5).
const wsMaxControl = 125

// wsKeptPayload is the payload buffer size a parser keeps between
// messages; a larger one, grown for one big message, is released.
const wsKeptPayload = 1 << 20

// MaxWSKept bounds how much of one message's payload a WSParser keeps:
// the first MaxWSKept bytes. The rest of a longer message is counted
// (WSMessage.Size) but not kept: its bytes have passed on to the other
// side already, and a message of 500 MB, or a frame that declares 2^62
// bytes, would otherwise be held whole, several times over, by whoever
// reads it. Every event an API sends fits many times over.
const MaxWSKept = 16 << 20

// WSMessage is one WebSocket message: a data message (text or binary,
// its fragments joined) or a single control frame, or a frame that fits
// neither (an orphan continuation, a reserved opcode).
type WSMessage struct {
	Dir    WSDir
	Opcode WSOpcode // the first frame's opcode
	// RSV holds the first frame's RSV1–3 bits, RSV1 as 0x4.
	RSV uint8
	// Payload is the unmasked payload, fragments joined: its first
	// MaxWSKept bytes (Cut). It is valid only until the callback that
	// received the message returns.
	Payload []byte
	// Size is the payload's length, all of it: more than len(Payload)
	// when the message was cut.
	Size     int64
	Frames   int
	Problems WSProblem
	// Start and End are the offsets, in this direction's bytes, of the
	// message's first byte and just past its last (control frames sent
	// between its fragments lie within).
	Start, End int64
	// At is when its last byte arrived.
	At time.Duration
}

// Cut reports whether Payload holds only the start of the message (see
// MaxWSKept).
func (m *WSMessage) Cut() bool { return m.Size > int64(len(m.Payload)) }

// CloseCode returns a close frame's status code and reason. ok is false
// when the frame carries no code (§5.5.1 allows an empty body).
func (m *WSMessage) CloseCode() (code int, reason []byte, ok bool) {
	if m.Opcode != WSClose || len(m.Payload) < 2 {
		return 0, nil, false
	}
	return int(binary.BigEndian.Uint16(m.Payload)), m.Payload[2:], true
}

// validCloseCode reports whether an endpoint may send code (§7.4.1,
// §7.4.2, and the IANA registry's 1012–1014).
func validCloseCode(code int) bool {
	switch {
	case code >= 1000 && code <= 1003, code >= 1007 && code <= 1014, code >= 3000 && code <= 4999:
		return true
	}
	return false
}

// WSParser cuts one direction of a WebSocket connection into messages.
// Feed it bytes as they arrive; it emits each message when its last byte
// is in, and Finish emits what the end of the connection cut short. No
// byte is dropped: a protocol violation is recorded on the message, and a
// length that makes further framing impossible sends every later byte to
// one last message. A WSParser is not safe for concurrent use.
type WSParser struct {
	dir WSDir
	off int64 // offset of the next byte

	hdr  [14]byte // the frame header being read
	nhdr int

	// The frame being read, once its header is in.
	inFrame bool
	fin     bool
	masked  bool
	key     [4]byte
	left    uint64 // payload bytes still to come
	pos     int    // payload bytes read, for the mask
	cur     *WSMessage

	data   WSMessage // the text or binary message being joined
	inData bool
	ctl    WSMessage // a control or stray frame
	broken bool      // framing lost: every byte goes to cur
}

// NewWSParser returns a parser for the bytes dir sends.
func NewWSParser(dir WSDir) *WSParser { return &WSParser{dir: dir} }

// Feed parses the next bytes of the direction, received at time at.
func (p *WSParser) Feed(b []byte, at time.Duration, emit func(*WSMessage)) {
	for len(b) > 0 {
		switch {
		case p.broken:
			p.keep(p.cur, b)
			p.off += int64(len(b))
			return
		case !p.inFrame:
			n := min(p.headerLen()-p.nhdr, len(b))
			copy(p.hdr[p.nhdr:], b[:n])
			p.nhdr += n
			p.off += int64(n)
			b = b[n:]
			if p.nhdr == p.headerLen() {
				p.startFrame(at, emit)
			}
		default:
			n := int(min(p.left, uint64(len(b))))
			p.payload(b[:n])
			p.off += int64(n)
			b = b[n:]
		}
		if p.inFrame && p.left == 0 && !p.broken {
			p.endFrame(at, emit)
		}
	}
}

// headerLen is the length of the header being read, as far as its bytes
// so far tell (§5.2).
func (p *WSParser) headerLen() int {
	if p.nhdr < 2 {
		return 2
	}
	n := 2
	switch p.hdr[1] & 0x7F {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if p.hdr[1]&0x80 != 0 {
		n += 4
	}
	return n
}

// startFrame reads a complete header and picks the message the payload
// belongs to.
func (p *WSParser) startFrame(at time.Duration, emit func(*WSMessage)) {
	h := p.hdr[:p.nhdr]
	start := p.off - int64(p.nhdr)
	p.fin, p.masked = h[0]&0x80 != 0, h[1]&0x80 != 0
	rsv, op := h[0]>>4&0x7, WSOpcode(h[0]&0xF)
	var probs WSProblem
	n, rest := uint64(h[1]&0x7F), h[2:]
	switch n {
	case 126:
		n, rest = uint64(binary.BigEndian.Uint16(rest)), rest[2:]
		if n < 126 {
			probs |= WSNonMinimalLength
		}
	case 127:
		n, rest = binary.BigEndian.Uint64(rest), rest[8:]
		if n < 1<<16 {
			probs |= WSNonMinimalLength
		}
	}
	if p.masked {
		copy(p.key[:], rest)
	}
	switch {
	case p.dir == WSClient && !p.masked:
		probs |= WSUnmasked
	case p.dir == WSServer && p.masked:
		probs |= WSMasked
	}
	if op.Control() && (!p.fin || n > wsMaxControl) {
		probs |= WSBadControl
	}

	switch {
	case op == WSText || op == WSBinary:
		if p.inData {
			p.data.Problems |= WSInterrupted
			p.emitData(at, emit)
		}
		payload := p.data.Payload[:0]
		if want := int(min(n, MaxWSKept)); cap(payload) < want && n>>63 == 0 {
			payload = make([]byte, 0, want) // the frame's length is known: no growth past it
		}
		p.data = WSMessage{Dir: p.dir, Opcode: op, RSV: rsv, Payload: payload, Start: start}
		p.inData, p.cur = true, &p.data
	case op == WSContinuation && p.inData:
		p.cur = &p.data
	default:
		if op == WSContinuation {
			probs |= WSOrphanContinuation
		}
		if op.reserved() {
			probs |= WSReservedOpcode
		}
		p.ctl = WSMessage{Dir: p.dir, Opcode: op, RSV: rsv, Payload: p.ctl.Payload[:0], Start: start}
		p.cur = &p.ctl
	}
	p.cur.Frames++
	p.cur.Problems |= probs
	p.inFrame, p.left, p.pos, p.nhdr = true, n, 0, 0
	if n>>63 != 0 {
		p.cur.Problems |= WSBadLength
		p.broken = true
	}
}

// payload appends unmasked payload bytes to the current message, as far
// as it keeps them.
func (p *WSParser) payload(b []byte) {
	m := p.cur
	at := len(m.Payload)
	p.keep(m, b)
	if p.masked {
		for i := at; i < len(m.Payload); i++ {
			m.Payload[i] ^= p.key[(p.pos+i-at)&3]
		}
	}
	p.pos += len(b)
	p.left -= uint64(len(b))
}

// keep adds b to m's payload up to MaxWSKept, and counts all of it.
func (p *WSParser) keep(m *WSMessage, b []byte) {
	m.Size += int64(len(b))
	if room := MaxWSKept - len(m.Payload); room > 0 {
		m.Payload = append(m.Payload, b[:min(len(b), room)]...)
	}
}

// endFrame ends the current frame, and its message when it is the last.
func (p *WSParser) endFrame(at time.Duration, emit func(*WSMessage)) {
	p.inFrame = false
	m := p.cur
	m.End, m.At = p.off, at
	if m == &p.ctl {
		p.check(m)
		emit(m)
		if cap(p.ctl.Payload) > wsKeptPayload {
			p.ctl.Payload = nil
		}
		return
	}
	if p.fin {
		p.emitData(at, emit)
	}
}

// emitData emits the data message joined so far.
func (p *WSParser) emitData(at time.Duration, emit func(*WSMessage)) {
	p.inData = false
	if p.data.End < p.data.Start {
		p.data.End = p.off
	}
	p.data.At = at
	p.check(&p.data)
	emit(&p.data)
	if cap(p.data.Payload) > wsKeptPayload {
		p.data.Payload = nil
	}
}

// check records the problems a whole message shows.
func (p *WSParser) check(m *WSMessage) {
	switch m.Opcode {
	case WSText:
		if m.RSV&RSV1 == 0 && !utf8.Valid(m.Payload) {
			m.Problems |= WSInvalidUTF8
		}
	case WSClose:
		if len(m.Payload) == 1 {
			m.Problems |= WSBadClose
		}
		if code, reason, ok := m.CloseCode(); ok {
			if !validCloseCode(code) {
				m.Problems |= WSBadClose
			}
			if !utf8.Valid(reason) {
				m.Problems |= WSInvalidUTF8
			}
		}
	}
}

// Finish ends the direction at time at and emits every message it cut
// short, marked WSTruncated.
func (p *WSParser) Finish(at time.Duration, emit func(*WSMessage)) {
	switch {
	case p.broken:
		p.cur.End, p.cur.At = p.off, at
		emit(p.cur)
		if p.cur == &p.data {
			p.inData = false
		}
	case p.inFrame && p.cur == &p.ctl:
		p.ctl.Problems |= WSTruncated
		p.ctl.End, p.ctl.At = p.off, at
		emit(&p.ctl)
	case p.nhdr > 0:
		// Cut inside a header: keep its bytes as the payload.
		m := WSMessage{Dir: p.dir, Opcode: WSOpcode(p.hdr[0] & 0xF), RSV: p.hdr[0] >> 4 & 0x7, Frames: 1,
			Payload: p.hdr[:p.nhdr], Size: int64(p.nhdr), Problems: WSTruncated, Start: p.off - int64(p.nhdr), End: p.off, At: at}
		emit(&m)
	}
	if p.inData {
		p.data.Problems |= WSTruncated
		p.data.End = p.off
		p.emitData(at, emit)
	}
	p.inFrame, p.broken, p.nhdr = false, false, 0
}

// eventForm reports whether m can be written as SSE data lines: a server
// text message that is UTF-8 without CR, whole and not compressed.
func (m *WSMessage) eventForm() bool {
	return m.Dir == WSServer && m.Opcode == WSText && m.RSV == 0 && !m.Cut() &&
		m.Problems&(WSTruncated|WSInvalidUTF8|WSBadLength|WSInterrupted) == 0 &&
		bytes.IndexByte(m.Payload, '\r') < 0 && utf8.Valid(m.Payload)
}

// AppendSSE appends m as one SSE block (the format is in this file's
// comment) to b and returns the extended buffer. events says the
// connection carries JSON events: a server text message that fits is
// written as data lines, an SSE event; without it every message is a
// comment.
func (m *WSMessage) AppendSSE(b []byte, events bool) []byte {
	payload := m.Payload
	code, reason, isClose := m.CloseCode()
	if isClose {
		payload = reason
	}
	event := events && m.eventForm()
	if event {
		for {
			line, rest, more := bytes.Cut(payload, []byte("\n"))
			b = append(b, "data: "...)
			b = append(b, line...)
			b = append(b, '\n')
			if !more {
				break
			}
			payload = rest
		}
	}
	b = append(b, ": ws "...)
	b = append(b, m.Dir.String()...)
	b = append(b, ' ')
	b = append(b, m.Opcode.String()...)
	if m.Frames > 1 {
		b = append(b, " frames="...)
		b = strconv.AppendInt(b, int64(m.Frames), 10)
	}
	if m.RSV != 0 {
		var bits []string
		for i, bit := range []uint8{RSV1, 0x2, 0x1} {
			if m.RSV&bit != 0 {
				bits = append(bits, strconv.Itoa(i+1))
			}
		}
		b = append(b, " rsv="+strings.Join(bits, ",")...)
	}
	if isClose {
		b = append(b, " code="...)
		b = strconv.AppendInt(b, int64(code), 10)
	}
	if m.Problems != 0 {
		b = append(b, " problem="+strings.Join(m.Problems.Names(), ",")...)
	}
	if m.Cut() {
		b = append(b, " size="...)
		b = strconv.AppendInt(b, m.Size, 10)
		b = append(b, " kept="...)
		b = strconv.AppendInt(b, int64(len(m.Payload)), 10)
	}
	if !event {
		b = appendPayload(b, payload)
	}
	return append(b, "\n\n"...)
}

// appendPayload appends " <enc> <payload>" to a comment line, in the
// plainest encoding that keeps the line one line.
func appendPayload(b, payload []byte) []byte {
	switch {
	case len(payload) == 0:
		return b
	case !utf8.Valid(payload):
		b = append(b, " base64 "...)
		return base64.StdEncoding.AppendEncode(b, payload)
	case bytes.ContainsFunc(payload, unicode.IsControl):
		q, _ := json.Marshal(string(payload))
		b = append(b, " json "...)
		return append(b, q...)
	}
	b = append(b, " utf8 "...)
	return append(b, payload...)
}

// ErrNotWSBlock is returned by ParseWSBlock for bytes that are not a
// message block.
var ErrNotWSBlock = errors.New("not a websocket message block")

// ParseWSBlock reads back a block written by AppendSSE: its "ws" comment
// line, and its data lines when it has them (other comment lines, such as
// a recording's timing line, are ignored). The message's Start, End and
// At are not in the block and stay zero; Payload is a new slice.
func ParseWSBlock(block []byte) (WSMessage, error) {
	var m WSMessage
	var desc string
	found := false
	for rest := block; len(rest) > 0 && !found; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if d, ok := bytes.CutPrefix(line, []byte(": ws ")); ok {
			desc, found = string(d), true
		}
	}
	if !found {
		return m, ErrNotWSBlock
	}
	dir, desc, _ := strings.Cut(desc, " ")
	kind, desc, _ := strings.Cut(desc, " ")
	switch dir {
	case "client":
		m.Dir = WSClient
	case "server":
		m.Dir = WSServer
	default:
		return m, ErrNotWSBlock
	}
	if !m.setKind(kind) {
		return m, ErrNotWSBlock
	}
	m.Frames = 1
	code := -1
	for desc != "" {
		tok, after, _ := strings.Cut(desc, " ")
		name, value, isAttr := strings.Cut(tok, "=")
		if !isAttr {
			p, err := decodePayload(tok, after)
			if err != nil {
				return m, err
			}
			m.Payload = p
			break
		}
		if err := m.setAttr(name, value, &code); err != nil {
			return m, err
		}
		desc = after
	}
	if data, ok := dataLines(block); ok {
		m.Payload = data
	}
	if code >= 0 {
		m.Payload = append(binary.BigEndian.AppendUint16(nil, uint16(code)), m.Payload...)
	}
	m.Size = max(m.Size, int64(len(m.Payload))) // size= says what a cut payload was
	return m, nil
}

func (m *WSMessage) setKind(kind string) bool {
	for op := range WSOpcode(16) {
		if op.String() == kind {
			m.Opcode = op
			return true
		}
	}
	return false
}

func (m *WSMessage) setAttr(name, value string, code *int) error {
	switch name {
	case "frames":
		n, err := strconv.Atoi(value)
		if err != nil {
			return ErrNotWSBlock
		}
		m.Frames = n
	case "rsv":
		for v := range strings.SplitSeq(value, ",") {
			switch v {
			case "1":
				m.RSV |= RSV1
			case "2":
				m.RSV |= 0x2
			case "3":
				m.RSV |= 0x1
			}
		}
	case "size":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 {
			return ErrNotWSBlock
		}
		m.Size = n
	case "code":
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 || n > 0xFFFF {
			return ErrNotWSBlock
		}
		*code = n
	case "problem":
		for v := range strings.SplitSeq(value, ",") {
			for i, n := range wsProblemNames {
				if n == v {
					m.Problems |= 1 << i
				}
			}
		}
	}
	return nil // an attribute added later: ignored
}

func decodePayload(enc, v string) ([]byte, error) {
	switch enc {
	case "utf8":
		return []byte(v), nil
	case "json":
		var s string
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			return nil, err
		}
		return []byte(s), nil
	case "base64":
		return base64.StdEncoding.DecodeString(v)
	}
	return nil, ErrNotWSBlock
}

// dataLines joins the values of the data lines in an SSE block, as an SSE
// reader does (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
// ok is false when there are none.
func dataLines(block []byte) (data []byte, ok bool) {
	data = []byte{}
	for len(block) > 0 {
		var line []byte
		line, block, _ = bytes.Cut(block, []byte("\n"))
		v, isData := bytes.CutPrefix(line, []byte("data"))
		if !isData || len(v) > 0 && v[0] != ':' {
			continue
		}
		v = bytes.TrimPrefix(bytes.TrimPrefix(v, []byte(":")), []byte(" "))
		if ok {
			data = append(data, '\n')
		}
		data = append(data, v...)
		ok = true
	}
	return data, ok
}
