package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// frame builds a WebSocket frame (RFC 6455 §5.2). A nil mask sends it
// unmasked; rsv holds RSV1–3 as 0x4, 0x2, 0x1. lenForm forces the 16-bit
// (126) or 64-bit (127) length encoding; 0 picks the shortest.
func frame(fin bool, rsv uint8, op WSOpcode, payload, mask []byte, lenForm int) []byte {
	b0 := byte(op) | rsv<<4
	if fin {
		b0 |= 0x80
	}
	out := []byte{b0}
	var m byte
	if mask != nil {
		m = 0x80
	}
	n := len(payload)
	switch {
	case lenForm == 127 || lenForm == 0 && n >= 1<<16:
		out = append(out, m|127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	case lenForm == 126 || lenForm == 0 && n >= 126:
		out = append(out, m|126)
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	default:
		out = append(out, m|byte(n))
	}
	out = append(out, mask...)
	for i, c := range payload {
		if mask != nil {
			c ^= mask[i%4]
		}
		out = append(out, c)
	}
	return out
}

var key = []byte{0x37, 0xfa, 0x21, 0x3d}

func closeBody(code uint16, reason string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, code), reason...)
}

// msg is what a test expects of a message.
type msg struct {
	op       WSOpcode
	payload  string
	frames   int
	problems WSProblem
	rsv      uint8
}

func (m msg) String() string {
	return fmt.Sprintf("%s frames=%d rsv=%d problems=%v payload=%q", m.op, m.frames, m.rsv, m.problems.Names(), shorten(m.payload))
}

func shorten(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%s…(%d bytes)", s[:40], len(s))
	}
	return s
}

func parseAll(dir WSDir, in []byte, split []int) []msg {
	p := NewWSParser(dir)
	var got []msg
	emit := func(m *WSMessage) {
		got = append(got, msg{m.Opcode, string(m.Payload), m.Frames, m.Problems, m.RSV})
	}
	prev := 0
	for _, at := range split {
		p.Feed(in[prev:at], time.Duration(at), emit)
		prev = at
	}
	p.Feed(in[prev:], time.Duration(len(in)), emit)
	p.Finish(time.Duration(len(in)), emit)
	return got
}

var big = strings.Repeat("0123456789abcdef", 70000/16+1)[:70001]

var wsCases = []struct {
	name string
	dir  WSDir
	in   []byte
	want []msg
}{
	{"masked client text", WSClient, frame(true, 0, WSText, []byte(`{"type":"response.create"}`), key, 0),
		[]msg{{WSText, `{"type":"response.create"}`, 1, 0, 0}}},
	{"server text and binary", WSServer, slices.Concat(frame(true, 0, WSText, []byte("hi"), nil, 0), frame(true, 0, WSBinary, []byte{0, 255}, nil, 0)),
		[]msg{{WSText, "hi", 1, 0, 0}, {WSBinary, "\x00\xff", 1, 0, 0}}},
	{"fragments with a ping between", WSClient, slices.Concat(
		frame(false, 0, WSText, []byte("frag-1 "), key, 0), frame(true, 0, WSPing, []byte("p"), key, 0),
		frame(false, 0, WSContinuation, []byte("frag-2 "), key, 0), frame(true, 0, WSContinuation, []byte("frag-3"), key, 0)),
		[]msg{{WSPing, "p", 1, 0, 0}, {WSText, "frag-1 frag-2 frag-3", 3, 0, 0}}},
	{"16- and 64-bit lengths", WSServer, slices.Concat(frame(true, 0, WSBinary, bytes.Repeat([]byte{7}, 300), nil, 0), frame(true, 0, WSText, []byte(big), nil, 0)),
		[]msg{{WSBinary, strings.Repeat("\x07", 300), 1, 0, 0}, {WSText, big, 1, 0, 0}}},
	{"masked 64-bit length", WSClient, frame(true, 0, WSBinary, []byte(big), key, 0),
		[]msg{{WSBinary, big, 1, 0, 0}}},
	{"close, ping, pong", WSServer, slices.Concat(frame(true, 0, WSPing, nil, nil, 0), frame(true, 0, WSPong, []byte("x"), nil, 0), frame(true, 0, WSClose, closeBody(1000, "bye"), nil, 0)),
		[]msg{{WSPing, "", 1, 0, 0}, {WSPong, "x", 1, 0, 0}, {WSClose, "\x03\xe8bye", 1, 0, 0}}},
	{"empty close", WSClient, frame(true, 0, WSClose, nil, key, 0), []msg{{WSClose, "", 1, 0, 0}}},
	{"one-byte close", WSServer, frame(true, 0, WSClose, []byte{3}, nil, 0), []msg{{WSClose, "\x03", 1, WSBadClose, 0}}},
	{"close code 1005 sent", WSServer, frame(true, 0, WSClose, closeBody(1005, ""), nil, 0), []msg{{WSClose, "\x03\xed", 1, WSBadClose, 0}}},
	{"close reason not UTF-8", WSServer, frame(true, 0, WSClose, closeBody(4000, "\xff"), nil, 0), []msg{{WSClose, "\x0f\xa0\xff", 1, WSInvalidUTF8, 0}}},
	{"unmasked client frame", WSClient, frame(true, 0, WSText, []byte("a"), nil, 0), []msg{{WSText, "a", 1, WSUnmasked, 0}}},
	{"masked server frame", WSServer, frame(true, 0, WSText, []byte("a"), key, 0), []msg{{WSText, "a", 1, WSMasked, 0}}},
	{"orphan continuation", WSServer, frame(true, 0, WSContinuation, []byte("z"), nil, 0), []msg{{WSContinuation, "z", 1, WSOrphanContinuation, 0}}},
	{"interrupted message", WSServer, slices.Concat(frame(false, 0, WSText, []byte("half"), nil, 0), frame(true, 0, WSBinary, []byte("b"), nil, 0)),
		[]msg{{WSText, "half", 1, WSInterrupted, 0}, {WSBinary, "b", 1, 0, 0}}},
	{"reserved opcode", WSServer, frame(true, 0, 3, []byte("r"), nil, 0), []msg{{3, "r", 1, WSReservedOpcode, 0}}},
	{"long ping", WSServer, frame(true, 0, WSPing, bytes.Repeat([]byte("p"), 126), nil, 0), []msg{{WSPing, strings.Repeat("p", 126), 1, WSBadControl, 0}}},
	{"fragmented ping", WSServer, frame(false, 0, WSPing, []byte("p"), nil, 0), []msg{{WSPing, "p", 1, WSBadControl, 0}}},
	{"non-minimal length", WSServer, slices.Concat(frame(true, 0, WSText, []byte("abc"), nil, 126), frame(true, 0, WSText, []byte("d"), nil, 127)),
		[]msg{{WSText, "abc", 1, WSNonMinimalLength, 0}, {WSText, "d", 1, WSNonMinimalLength, 0}}},
	{"invalid UTF-8 text", WSServer, frame(true, 0, WSText, []byte("a\xffb"), nil, 0), []msg{{WSText, "a\xffb", 1, WSInvalidUTF8, 0}}},
	{"compressed text is not checked", WSServer, frame(true, RSV1, WSText, []byte{0xf2, 0x48, 0xcd}, nil, 0), []msg{{WSText, "\xf2\x48\xcd", 1, 0, RSV1}}},
	{"64-bit length with the top bit", WSServer, slices.Concat(
		frame(true, 0, WSText, []byte("ok"), nil, 0),
		[]byte{0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 1}, []byte("rest of the stream")),
		[]msg{{WSText, "ok", 1, 0, 0}, {WSBinary, "rest of the stream", 1, WSBadLength, 0}}},
	{"cut in a payload", WSServer, frame(true, 0, WSText, []byte("abcdef"), nil, 0)[:5], []msg{{WSText, "abc", 1, WSTruncated, 0}}},
	{"cut in a header", WSServer, slices.Concat(frame(true, 0, WSText, []byte("a"), nil, 0), []byte{0x81, 126, 0}),
		[]msg{{WSText, "a", 1, 0, 0}, {WSText, "\x81\x7e\x00", 1, WSTruncated, 0}}},
	{"cut in a control frame between fragments", WSClient, slices.Concat(frame(false, 0, WSText, []byte("x"), key, 0), frame(true, 0, WSPing, []byte("pp"), key, 0)[:7]),
		[]msg{{WSPing, "p", 1, WSTruncated, 0}, {WSText, "x", 1, WSTruncated, 0}}},
	{"no final fragment", WSServer, frame(false, 0, WSBinary, []byte("part"), nil, 0), []msg{{WSBinary, "part", 1, WSTruncated, 0}}},
}

// TestWSParser: each case cut into messages, whole, byte by byte and at
// every single split point, gives the same messages.
func TestWSParser(t *testing.T) {
	t.Parallel()
	for _, tt := range wsCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := parseAll(tt.dir, tt.in, nil); !slices.Equal(got, tt.want) {
				t.Fatalf("parse = %v\nwant %v", got, tt.want)
			}
			if len(tt.in) > 2000 {
				return // the split sweeps below are quadratic
			}
			var every []int
			for i := 1; i < len(tt.in); i++ {
				every = append(every, i)
				if got := parseAll(tt.dir, tt.in, []int{i}); !slices.Equal(got, tt.want) {
					t.Fatalf("split at %d: %v\nwant %v", i, got, tt.want)
				}
			}
			if got := parseAll(tt.dir, tt.in, every); !slices.Equal(got, tt.want) {
				t.Fatalf("byte by byte: %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestWSParserOffsetsAndTimes: a message spans its frames' bytes and is
// stamped with the time its last byte came.
func TestWSParserOffsetsAndTimes(t *testing.T) {
	t.Parallel()
	a := frame(false, 0, WSText, []byte("ab"), nil, 0)
	ping := frame(true, 0, WSPing, nil, nil, 0)
	b := frame(true, 0, WSContinuation, []byte("c"), nil, 0)
	p := NewWSParser(WSServer)
	type span struct {
		op         WSOpcode
		start, end int64
		at         time.Duration
	}
	var got []span
	emit := func(m *WSMessage) { got = append(got, span{m.Opcode, m.Start, m.End, m.At}) }
	p.Feed(a, 1, emit)
	p.Feed(ping, 2, emit)
	p.Feed(b[:1], 3, emit)
	p.Feed(b[1:], 4, emit)
	p.Finish(5, emit)
	n1, n2 := int64(len(a)), int64(len(a)+len(ping))
	want := []span{{WSPing, n1, n2, 2}, {WSText, 0, n2 + int64(len(b)), 4}}
	if !slices.Equal(got, want) {
		t.Errorf("spans = %v; want %v", got, want)
	}
}

// TestWSAppendSSE: a whole server text message is an SSE event whose data
// is the message; everything else is a comment; every block reads back to
// the message it came from.
func TestWSAppendSSE(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		m     WSMessage
		block string
		kind  FrameKind
		data  string
	}{
		{"server event", WSMessage{Dir: WSServer, Opcode: WSText, Frames: 1, Payload: []byte(`{"type":"response.created"}`)},
			"data: {\"type\":\"response.created\"}\n: ws server text\n\n", FrameEvent, `{"type":"response.created"}`},
		{"server text on lines", WSMessage{Dir: WSServer, Opcode: WSText, Frames: 2, Payload: []byte(" a\n\nb\n")},
			"data:  a\ndata: \ndata: b\ndata: \n: ws server text frames=2\n\n", FrameEvent, " a\n\nb\n"},
		{"server empty text", WSMessage{Dir: WSServer, Opcode: WSText, Frames: 1, Payload: []byte{}},
			"data: \n: ws server text\n\n", FrameEvent, ""},
		{"server text with CR", WSMessage{Dir: WSServer, Opcode: WSText, Frames: 1, Payload: []byte("a\r\nb")},
			": ws server text json \"a\\r\\nb\"\n\n", FrameComment, ""},
		{"client request", WSMessage{Dir: WSClient, Opcode: WSText, Frames: 1, Payload: []byte(`{"type":"response.create"}`)},
			": ws client text utf8 {\"type\":\"response.create\"}\n\n", FrameComment, ""},
		{"binary", WSMessage{Dir: WSServer, Opcode: WSBinary, Frames: 1, Payload: []byte{0, 1, 0xff}},
			": ws server binary base64 AAH/\n\n", FrameComment, ""},
		{"compressed", WSMessage{Dir: WSServer, Opcode: WSText, RSV: RSV1, Frames: 1, Payload: []byte("\xf2\x48")},
			": ws server text rsv=1 base64 8kg=\n\n", FrameComment, ""},
		{"close", WSMessage{Dir: WSClient, Opcode: WSClose, Frames: 1, Payload: closeBody(1000, "bye")},
			": ws client close code=1000 utf8 bye\n\n", FrameComment, ""},
		{"bad close", WSMessage{Dir: WSServer, Opcode: WSClose, Frames: 1, Payload: []byte{3}, Problems: WSBadClose},
			": ws server close problem=bad-close json \"\\u0003\"\n\n", FrameComment, ""},
		{"ping", WSMessage{Dir: WSServer, Opcode: WSPing, Frames: 1},
			": ws server ping\n\n", FrameComment, ""},
		{"truncated text", WSMessage{Dir: WSServer, Opcode: WSText, Frames: 1, Payload: []byte(`{"a":`), Problems: WSTruncated | WSMasked},
			": ws server text problem=masked,truncated utf8 {\"a\":\n\n", FrameComment, ""},
		{"reserved", WSMessage{Dir: WSServer, Opcode: 0xB, RSV: 0x3, Frames: 1, Payload: []byte("x=y z"), Problems: WSReservedOpcode},
			": ws server op11 rsv=2,3 problem=reserved-opcode utf8 x=y z\n\n", FrameComment, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			block := tt.m.AppendSSE(nil, true)
			if string(block) != tt.block {
				t.Fatalf("AppendSSE = %q; want %q", block, tt.block)
			}
			var frames []Frame
			fr := NewFramer(FormatSSE)
			fr.Feed(block, 0, func(f *Frame) { frames = append(frames, f.Detach()) })
			fr.Finish(0, func(f *Frame) { frames = append(frames, f.Detach()) })
			if len(frames) != 1 || frames[0].Kind != tt.kind || string(frames[0].Data) != tt.data {
				t.Fatalf("framed as %d frames, first %v data %q; want one %v with data %q", len(frames), frames[0].Kind, frames[0].Data, tt.kind, tt.data)
			}
			back, err := ParseWSBlock(block)
			if err != nil {
				t.Fatalf("ParseWSBlock: %v", err)
			}
			want := tt.m
			if want.Payload == nil {
				want.Payload = back.Payload // nil and empty are the same message
			}
			if back.Dir != want.Dir || back.Opcode != want.Opcode || back.RSV != want.RSV || back.Frames != want.Frames ||
				back.Problems != want.Problems || !bytes.Equal(back.Payload, want.Payload) {
				t.Errorf("ParseWSBlock = %+v; want %+v", back, want)
			}
		})
	}
}

// TestWSAppendSSEWithoutEvents: on a connection that carries no JSON
// events, a server text message is a comment like any other message.
func TestWSAppendSSEWithoutEvents(t *testing.T) {
	t.Parallel()
	m := WSMessage{Dir: WSServer, Opcode: WSText, Frames: 1, Payload: []byte(`{"type":"x"}`)}
	if got, want := string(m.AppendSSE(nil, false)), ": ws server text utf8 {\"type\":\"x\"}\n\n"; got != want {
		t.Errorf("AppendSSE(events=false) = %q; want %q", got, want)
	}
}

func TestParseWSBlockRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"data: x\n\n", ": ws nobody text\n\n", ": ws server shout\n\n", ": ws server text frames=x\n\n", ": ws server binary base64 !!\n\n"} {
		if _, err := ParseWSBlock([]byte(in)); err == nil {
			t.Errorf("ParseWSBlock(%q) = nil error", in)
		}
	}
}

// FuzzWSParser: any bytes, cut anywhere, give the same messages; every
// message's block reads back to it; the messages cover every byte.
func FuzzWSParser(f *testing.F) {
	for _, tt := range wsCases {
		if len(tt.in) < 4096 {
			f.Add(tt.in, uint16(len(tt.in)/2), tt.dir == WSClient, true)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint16, client, events bool) {
		dir := WSServer
		if client {
			dir = WSClient
		}
		at := int(cut) % (len(in) + 1)
		whole, split := parseAll(dir, in, nil), parseAll(dir, in, []int{at})
		if !slices.Equal(whole, split) {
			t.Fatalf("split at %d: %v\nwhole: %v", at, split, whole)
		}
		p := NewWSParser(dir)
		var end int64
		check := func(m *WSMessage) {
			end = max(end, m.End)
			back, err := ParseWSBlock(m.AppendSSE(nil, events))
			if err != nil || back.Opcode != m.Opcode || !bytes.Equal(back.Payload, m.Payload) || back.Problems != m.Problems {
				t.Fatalf("block of %+v reads back as %+v, %v", *m, back, err)
			}
		}
		p.Feed(in, 0, check)
		p.Finish(0, check)
		if end != int64(len(in)) {
			t.Fatalf("messages end at %d of %d bytes", end, len(in))
		}
	})
}

// BenchmarkWSParser cuts Responses-sized text messages out of a server's
// bytes and writes each as its SSE block; the SSE framer over the same
// events as an SSE stream is the baseline.
func BenchmarkWSParser(b *testing.B) {
	event := []byte(`{"type":"response.function_call_arguments.delta","sequence_number":21,"item_id":"fc_68e786743a9bc61ef0a58717d7575472a6a1dba90ca5a970","output_index":1,"delta":"{\"loca","obfuscation":"xK3pQ"}`)
	var ws, sse []byte
	for range 10000 {
		ws = append(ws, frame(true, 0, WSText, event, nil, 0)...)
		sse = append(sse, "event: response.function_call_arguments.delta\ndata: "...)
		sse = append(sse, event...)
		sse = append(sse, "\n\n"...)
	}
	b.Run("websocket", func(b *testing.B) {
		b.SetBytes(int64(len(ws)))
		var block []byte
		for b.Loop() {
			p := NewWSParser(WSServer)
			emit := func(m *WSMessage) { block = m.AppendSSE(block[:0], true) }
			for off := 0; off < len(ws); off += 32 << 10 {
				p.Feed(ws[off:min(off+32<<10, len(ws))], 0, emit)
			}
			p.Finish(0, emit)
		}
	})
	b.Run("sse-baseline", func(b *testing.B) {
		b.SetBytes(int64(len(sse)))
		for b.Loop() {
			fr := NewFramer(FormatSSE)
			for off := 0; off < len(sse); off += 32 << 10 {
				fr.Feed(sse[off:min(off+32<<10, len(sse))], 0, func(*Frame) {})
			}
			fr.Finish(0, func(*Frame) {})
		}
	})
}

// A frame that declares 2^62 bytes, or any message over MaxWSKept, keeps
// its first MaxWSKept bytes and counts the rest: the parser used to
// append every byte, for as long as the connection lasted. Masked bytes
// past the cut still move the mask along.
func TestWSParserKeepsMessagesCut(t *testing.T) {
	t.Parallel()
	for _, dir := range []WSDir{WSServer, WSClient} {
		p := NewWSParser(dir)
		hdr := []byte{0x82, 127}
		if dir == WSClient {
			hdr[1] |= 0x80
		}
		hdr = binary.BigEndian.AppendUint64(hdr, 1<<62)
		key := []byte{1, 2, 3, 4}
		if dir == WSClient {
			hdr = append(hdr, key...)
		}
		var got []WSMessage
		emit := func(m *WSMessage) {
			c := *m
			c.Payload = bytes.Clone(m.Payload)
			got = append(got, c)
		}
		p.Feed(hdr, 0, emit)
		chunk := bytes.Repeat([]byte{'a'}, 1<<20)
		const fed = 3 * MaxWSKept
		for range fed / len(chunk) {
			in := chunk
			if dir == WSClient {
				in = bytes.Clone(chunk) // masked as sent: 'a' xor the key
				for i := range in {
					in[i] ^= key[i%4]
				}
			}
			p.Feed(in, 0, emit)
			if c := cap(p.data.Payload); c > MaxWSKept {
				t.Fatalf("%s: the parser holds a payload buffer of %d bytes; want at most %d", dir, c, MaxWSKept)
			}
		}
		p.Finish(time.Second, emit)
		if len(got) != 1 {
			t.Fatalf("%s: %d messages; want the one cut short", dir, len(got))
		}
		m := got[0]
		if len(m.Payload) != MaxWSKept || m.Size != fed || !m.Cut() || m.Problems&WSTruncated == 0 {
			t.Fatalf("%s: payload %d bytes, size %d, cut %t, problems %v; want %d kept of %d, truncated", dir, len(m.Payload), m.Size, m.Cut(), m.Problems.Names(), MaxWSKept, fed)
		}
		if bytes.Count(m.Payload, []byte{'a'}) != MaxWSKept {
			t.Errorf("%s: the kept payload is not the bytes sent, unmasked", dir)
		}
		block := m.AppendSSE(nil, true)
		if !bytes.Contains(block, fmt.Appendf(nil, " size=%d kept=%d ", fed, MaxWSKept)) {
			t.Errorf("%s: the block does not say it was cut: %.80q", dir, block)
		}
		back, err := ParseWSBlock(block)
		if err != nil || back.Size != fed || len(back.Payload) != MaxWSKept || !back.Cut() {
			t.Errorf("%s: ParseWSBlock: size %d, %d bytes, %v; want %d and %d", dir, back.Size, len(back.Payload), err, fed, MaxWSKept)
		}
	}
}
