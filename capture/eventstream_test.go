package capture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// esMessage builds one message with string headers (name, value, …).
func esMessage(payload string, headers ...string) []byte {
	var hs []Field
	for i := 0; i+1 < len(headers); i += 2 {
		hs = append(hs, Field{Name: []byte(headers[i]), Value: []byte(headers[i+1])})
	}
	return AppendEventStream(nil, hs, []byte(payload))
}

// esEvent is a Bedrock-style event message.
func esEvent(typ, payload string) []byte {
	return esMessage(payload, ":event-type", typ, ":content-type", "application/json", ":message-type", "event")
}

// problems names the event stream checks a frame failed.
func problems(fl Flags) string {
	var out []string
	for _, p := range []struct {
		f    Flags
		name string
	}{{PreludeCRC, "prelude-crc"}, {MessageCRC, "message-crc"}, {BadLength, "length"}, {Truncated, "truncated"}} {
		if fl&p.f != 0 {
			out = append(out, p.name)
		}
	}
	return strings.Join(out, ",")
}

// TestEventStreamCaptures: every Bedrock stream frames into sound
// messages, whatever the reads: the samples, which every clone has, and
// the real captures of ../shared when it is there, each into the number of
// messages its manifest counts.
func TestEventStreamCaptures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "samples", "*.eventstream"))
	if len(files) == 0 {
		t.Fatal("no event stream samples")
	}
	want := map[string]int{} // frames, by capture
	if caps := fixtures.SharedGlob("captures-next/bedrock-*.eventstream"); len(caps) > 0 {
		files = append(files, caps...)
		manifest, err := os.ReadFile(filepath.Join(filepath.Dir(caps[0]), "MANIFEST.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(manifest))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			rec := strings.Split(sc.Text(), "\t")
			if n, _, ok := strings.Cut(rec[len(rec)-1], " frames"); ok && len(rec) > 1 {
				want[rec[0]], _ = strconv.Atoi(n)
			}
		}
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			whole := frameAll(t, FormatAuto, data)
			checkCoverage(t, whole, len(data))
			if n, ok := want[filepath.Base(name)]; ok && len(whole) != n {
				t.Errorf("%d frames; the manifest counts %d", len(whole), n)
			}
			for _, f := range whole {
				if f.Flags&EventStream == 0 || problems(f.Flags) != "" || !f.HasEvent || !f.HasData {
					t.Fatalf("frame %+v: want a sound message with an event type and a payload", f)
				}
			}
			// Reads cut anywhere (the 11 and 97 byte cuts of the SDK tests
			// among them) give the same frames.
			for _, step := range []int{1, 11, 97, 4096} {
				var cuts []int
				for c := step; c < len(data); c += step {
					cuts = append(cuts, c)
				}
				if got := frameAll(t, FormatAuto, data, cuts...); !sameFrames(got, whole) {
					t.Fatalf("read %d bytes at a time: %+v\nwant %+v", step, got, whole)
				}
			}
		})
	}
}

func sameFrames(a, b []frameSummary) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEventStreamDamage: a damaged message is a frame of its own, flagged
// with the check it fails, and the messages after it are read.
func TestEventStreamDamage(t *testing.T) {
	a, b := esEvent("messageStart", `{"role":"assistant"}`), esEvent("messageStop", `{"stopReason":"end_turn"}`)
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	flip := func(msg []byte, at int) []byte {
		c := bytes.Clone(msg)
		c[at] ^= 0x20
		return c
	}
	short := make([]byte, 12) // total 12: fewer than a message's 16 bytes, with a valid CRC
	binary.BigEndian.PutUint32(short, 12)
	binary.BigEndian.PutUint32(short[8:], crc32.ChecksumIEEE(short[:8]))
	tests := []struct {
		name string
		in   []byte
		want []string // each frame: its event type, or its problems in brackets
	}{
		{"sound", join(a, b), []string{"messageStart", "messageStop"}},
		{"payload corrupted", join(flip(a, len(a)-6), b), []string{"messageStart[message-crc]", "messageStop"}},
		{"message crc corrupted", join(flip(a, len(a)-1), b), []string{"messageStart[message-crc]", "messageStop"}},
		{"length corrupted", join(flip(a, 3), b), []string{"[prelude-crc]", "messageStop"}},
		{"prelude crc corrupted", join(flip(a, 9), b), []string{"[prelude-crc]", "messageStop"}},
		{"garbage between", join(a, []byte("\x00garbage\x00\x01"), b), []string{"messageStart", "[prelude-crc]", "messageStop"}},
		{"impossible length", join(short, b), []string{"[length]", "messageStop"}},
		{"cut in the prelude", join(a, b[:7]), []string{"messageStart", "[truncated]"}},
		{"cut in the payload", join(a, b[:len(b)-9]), []string{"messageStart", "messageStop[truncated]"}},
		{"garbage to the end", join(a, []byte("\x00\x00\x00\x10garbage that never ends")), []string{"messageStart", "[prelude-crc]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole := frameAll(t, FormatEventStream, tt.in)
			checkCoverage(t, whole, len(tt.in))
			var got []string
			for _, f := range whole {
				s := f.Event
				if p := problems(f.Flags); p != "" {
					s += "[" + p + "]"
				}
				got = append(got, s)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("frames %q; want %q", got, tt.want)
			}
			for i := range tt.in {
				if cut := frameAll(t, FormatEventStream, tt.in, i); !sameFrames(cut, whole) {
					t.Fatalf("cut at %d: %+v\nwant %+v", i, cut, whole)
				}
			}
		})
	}
}

// TestEventStreamGarbageBound: bytes with no valid prelude are not held
// without end: past 16 MiB they go as a frame while reading goes on.
func TestEventStreamGarbageBound(t *testing.T) {
	in := append(bytes.Repeat([]byte{0xff}, MaxEventStreamMessage+100), esEvent("metadata", "{}")...)
	in[0] = 0 // stays an event stream to the framer
	fr := NewFramer(FormatEventStream)
	var got []string
	emit := func(f *Frame) {
		got = append(got, strconv.FormatInt(f.End-f.Start, 10)+":"+problems(f.Flags)+string(f.Event))
	}
	for i := 0; i < len(in); i += readChunk {
		fr.Feed(in[i:min(len(in), i+readChunk)], 0, emit)
		if i+readChunk > MaxEventStreamMessage+2*readChunk && len(got) == 0 {
			t.Fatalf("no frame after %d bytes of garbage", i+readChunk)
		}
	}
	fr.Finish(0, emit)
	if len(got) < 2 || !strings.HasSuffix(got[len(got)-1], "metadata") {
		t.Fatalf("frames %q; want the garbage, then metadata", got)
	}
}

// TestEventStreamExceptions: an exception or error message is flagged and
// named by its type; an event by its :event-type.
func TestEventStreamExceptions(t *testing.T) {
	in := bytes.Join([][]byte{
		esEvent("chunk", `{"bytes":"e30="}`),
		esMessage(`{"message":"slow down"}`, ":exception-type", "throttlingException", ":content-type", "application/json", ":message-type", "exception"),
		esMessage("", ":error-code", "InternalFailure", ":error-message", "boom", ":message-type", "error"),
	}, nil)
	frames := frameAll(t, FormatAuto, in)
	want := []struct {
		event     string
		exception bool
		data      string
	}{{"chunk", false, `{"bytes":"e30="}`}, {"throttlingException", true, `{"message":"slow down"}`}, {"InternalFailure", true, ""}}
	if len(frames) != len(want) {
		t.Fatalf("%d frames; want %d", len(frames), len(want))
	}
	for i, w := range want {
		f := frames[i]
		if f.Event != w.event || (f.Flags&Exception != 0) != w.exception || f.Data != w.data {
			t.Errorf("frame %d: event %q, exception %v, data %q; want %q, %v, %q", i, f.Event, f.Flags&Exception != 0, f.Data, w.event, w.exception, w.data)
		}
	}
}

// TestEventStreamDetection: the framing is known from a sound prelude
// (files, stdin) or from the Content-Type (curl -i, recordings), and a
// text stream is never taken for it.
func TestEventStreamDetection(t *testing.T) {
	msg := esEvent("messageStart", `{"role":"assistant"}`)
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\n\r\n"
	tests := []struct {
		name string
		in   []byte
		want Format
	}{
		{"prelude", msg, FormatEventStream},
		{"sse", []byte("data: {}\n\n"), FormatSSE},
		{"nul then text", []byte("\x00\x00\x00\x20not a prelude"), FormatSSE},
		{"nul and possible lengths, damaged crc", append([]byte{0, 0, 0, 0x20, 0, 0, 0, 4, 1, 2, 3, 4}, make([]byte, 20)...), FormatEventStream},
	}
	for _, tt := range tests {
		fr := NewFramer(FormatAuto)
		for i := range tt.in { // byte by byte: detection waits for the prelude
			fr.Feed(tt.in[i:i+1], 0, func(*Frame) {})
		}
		fr.Finish(0, func(*Frame) {})
		if fr.Format() != tt.want {
			t.Errorf("%s: detected %v; want %v", tt.name, fr.Format(), tt.want)
		}
		// What names a body by its bytes (the proxy's recordings, w) agrees
		// with the framer, from a prelude's bytes on.
		n := min(len(tt.in), EventStreamPrelude)
		if got := StartsEventStream(tt.in[:n]); got != (tt.want == FormatEventStream) || StartsEventStream(tt.in[:n-1]) {
			t.Errorf("%s: StartsEventStream = %v (and %v on a byte less); want %v (and false)", tt.name, got, StartsEventStream(tt.in[:n-1]), tt.want == FormatEventStream)
		}
	}
	// Behind a head, the Content-Type says it even of a first message
	// whose prelude is damaged.
	bad := bytes.Clone(msg)
	bad[2] ^= 1
	frames := frameAll(t, FormatAuto, append([]byte(head), append(bad, msg...)...))
	if len(frames) != 3 || frames[0].Kind != FrameHead || problems(frames[1].Flags) != "prelude-crc" || frames[2].Event != "messageStart" {
		t.Errorf("curl -i output framed as %+v", frames)
	}
	// A recording of a binary body keeps it byte for byte.
	var rec bytes.Buffer
	x := &Exchange{HeadAt: NoTime, Status: 200, ResponseHeader: map[string][]string{"Content-Type": {EventStreamContentType}}}
	r := NewRecorder(&rec, x, RecordOptions{Format: FormatAuto})
	for i := 0; i < len(msg); i += 5 {
		if err := r.Write(msg[i:min(len(msg), i+5)], time.Duration(i)*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(time.Second); err != nil {
		t.Fatal(err)
	}
	parsed, err := ParseRecording(rec.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(parsed.Bytes(), msg) {
		t.Errorf("recorded body %q; want %q", parsed.Bytes(), msg)
	}
	frames = frameAll(t, FormatAuto, rec.Bytes())
	if len(frames) != 2 || frames[1].Event != "messageStart" || problems(frames[1].Flags) != "" {
		t.Errorf("recording framed as %+v", frames)
	}
}

// TestEventStreamSave: --save keeps an event stream's bytes exactly.
func TestEventStreamSave(t *testing.T) {
	in := bytes.Join([][]byte{esEvent("messageStart", "{}"), {0, 0, 0, 99, 1, 2}, esEvent("metadata", "{}")}, nil)
	var saved bytes.Buffer
	src := FromReader("in", SourceFile, iotest.HalfReader(bytes.NewReader(in)), false)
	n := 0
	err := src.Read(context.Background(), ReadOptions{Save: &saved}, func(*Frame) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(saved.Bytes(), in) || n != 3 {
		t.Errorf("saved %q in %d frames; want %q in 3", saved.Bytes(), n, in)
	}
}

// FuzzEventStream checks the message codec: a message written by
// AppendEventStream decodes to its headers and payload, and any one byte
// of it changed is caught by the check that covers it (a CRC32 catches
// every error burst of up to 32 bits), never taken for a sound message.
// The framers' properties on arbitrary bytes (tiling, reads cut anywhere)
// are FuzzSSE's, which frames every input as an event stream too.
func FuzzEventStream(f *testing.F) {
	f.Add([]byte(":event-type\x00contentBlockDelta\x00:message-type\x00event"), []byte(`{"contentBlockIndex":0,"delta":{"text":"Hi"},"p":"abc"}`), uint16(5), byte(1))
	f.Add([]byte(""), []byte(""), uint16(0), byte(0x80))
	f.Add([]byte(":exception-type\x00throttlingException"), []byte(`{"message":"x"}`), uint16(40), byte(0xff))
	f.Fuzz(func(t *testing.T, headers, payload []byte, at uint16, mask byte) {
		var hs []Field
		parts := bytes.Split(headers, []byte{0})
		for i := 0; i+1 < len(parts); i += 2 {
			if len(parts[i]) > 0 && len(parts[i]) <= 255 && len(parts[i+1]) <= 65535 {
				hs = append(hs, Field{Name: parts[i], Value: parts[i+1]})
			}
		}
		msg := AppendEventStream(nil, hs, payload)
		if len(msg) > MaxEventStreamMessage {
			return
		}
		m, err := ParseEventStream(msg)
		if err != nil || m.Problem != 0 || int(m.Total) != len(msg) || !bytes.Equal(m.Payload, payload) || len(m.Headers) != len(hs) {
			t.Fatalf("message of %d headers, payload %q decodes as %+v, %v", len(hs), payload, m, err)
		}
		for i, h := range m.Headers {
			if h.Type != EventStreamString || !bytes.Equal(h.Name, hs[i].Name) || !bytes.Equal(h.Value, hs[i].Value) {
				t.Fatalf("header %d = %q %v %q; want %q string %q", i, h.Name, h.Type, h.Value, hs[i].Name, hs[i].Value)
			}
		}
		if mask == 0 {
			return
		}
		bad := bytes.Clone(msg)
		bad[int(at)%len(bad)] ^= mask
		frames := frameAll(t, FormatEventStream, bad)
		checkCoverage(t, frames, len(bad))
		if len(frames) == 0 || problems(frames[0].Flags) == "" {
			t.Fatalf("byte %d changed (mask %#x): framed as %+v, a sound message", int(at)%len(bad), mask, frames)
		}
	})
}
