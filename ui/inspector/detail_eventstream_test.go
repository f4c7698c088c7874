package inspector

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/eventstreamvectors"
	"github.com/streamtap/streamtap/termtext"
)

// TestDetailEventStreamGolden: an AWS event stream message (Bedrock) in
// the detail pane shows its CRCs, its decoded headers and payload JSON
// (and, for an InvokeModel chunk, the model's own JSON its base64 wraps),
// then its exact bytes in hex; before, its binary bytes were printed as
// escaped text.
func TestDetailEventStreamGolden(t *testing.T) {
	cases := []struct {
		sample string
		ord    int
	}{{"bedrock-converse-text-then-tool", 3}, {"bedrock-invoke-claude-tool", 2}}
	for _, c := range cases {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s_%dx%d", c.sample, size[0], size[1]), func(t *testing.T) {
				m := newTestModel(t, sampleBytes(t, c.sample), size[0], size[1])
				m.insp.tl.SelectOrd(c.ord)
				press(m, "2", "z") // the detail pane alone: room for the whole message
				out := ansi.Strip(viewOf(m))
				checkFits(t, out, size[0], size[1])
				golden.RequireEqual(t, out)
			})
		}
	}
}

// TestDetailEventStreamContent reads what the pane says of a message: its
// headers by name and type, its payload as JSON, its hex, and a CRC that
// fails.
func TestDetailEventStreamContent(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "bedrock-invoke-claude-tool"), 160, 200)
	m.insp.tl.SelectOrd(2)
	press(m, "2", "z")
	v := plainView(m)
	for _, want := range []string{
		"prelude crc", "message crc", " ok", ":event-type", "string", "chunk", `"bytes": "`,
		"base64-decoded", `"type": "content_block_delta"`, "00000000  00 00 ",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("detail lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, `\x00`) {
		t.Errorf("the pretty view should not print the frame's bytes as escaped text:\n%s", v)
	}

	// Every header type, and a payload whose message CRC fails: messages
	// written here, and the encoding's own test vectors (the AWS SDK's,
	// made byte for byte by internal/eventstreamvectors).
	allTypes := typedHeadersMessage()
	corrupted := bytes.Clone(allTypes)
	corrupted[len(corrupted)-6] ^= 0x20 // a payload byte: the message CRC fails, the prelude's holds
	checks := []struct {
		name string
		data func(t *testing.T) []byte
		want []string
	}{
		{"every header type", func(*testing.T) []byte { return allTypes }, []string{
			"bool", "true", "false", "byte", "-49", "short", "42", "int", "40972", "long", "42424242",
			"bytes", "3q2+7w==", "timestamp", "1970-01-01T02:24:35.309Z", "uuid", "01020304-0506-0708-090a-0b0c0d0e0f10",
			"message crc", " ok",
		}},
		{"a corrupted payload", func(*testing.T) []byte { return corrupted }, []string{"message crc", "fails: the bytes give"}},
		{"the SDK's vector of every header type", vector("positive-all-headers"),
			[]string{"bool", "byte", "short", "int", "long", "bytes", "timestamp", "uuid"}},
		{"the SDK's vector of a corrupted payload", vector("negative-corrupted-payload"),
			[]string{"message crc", "fails: the bytes give"}},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			m := newTestModel(t, c.data(t), 160, 200)
			m.insp.tl.SelectOrd(0)
			press(m, "2", "z")
			v := plainView(m)
			for _, w := range c.want {
				if !strings.Contains(v, w) {
					t.Errorf("detail lacks %q:\n%s", w, v)
				}
			}
		})
	}
}

// vector is a test vector of the encoding (internal/eventstreamvectors).
func vector(name string) func(t *testing.T) []byte {
	return func(*testing.T) []byte { return eventstreamvectors.Get(name) }
}

// typedHeadersMessage is one AWS event stream message with a header of
// every type the encoding has (bool true and false, byte, short, int,
// long, bytes, string, timestamp, uuid) and a JSON payload, as the AWS
// SDKs' positive test vector has them.
func typedHeadersMessage() []byte {
	var h []byte
	header := func(name string, typ capture.EventStreamType, value ...byte) {
		h = capture.AppendEventStreamHeader(h, name, typ, value)
	}
	header(":event-type", capture.EventStreamString, []byte("chunk")...)
	header("bool true", capture.EventStreamTrue)
	header("bool false", capture.EventStreamFalse)
	header("byte", capture.EventStreamByte, 0xcf)
	header("short", capture.EventStreamShort, 0x00, 0x2a)
	header("int", capture.EventStreamInt, 0x00, 0x00, 0xa0, 0x0c)
	header("long", capture.EventStreamLong, 0x00, 0x00, 0x00, 0x00, 0x02, 0x87, 0x57, 0xb2)
	header("bytes", capture.EventStreamBytes, 0xde, 0xad, 0xbe, 0xef)
	header("timestamp", capture.EventStreamTimestamp, 0x00, 0x00, 0x00, 0x00, 0x00, 0x84, 0x5f, 0xed)
	header("uuid", capture.EventStreamUUID, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
	return capture.AppendEventStreamMessage(nil, h, []byte(`{"foo":"bar"}`))
}

// TestEventStreamLinesAnyBytes: the layout takes any bytes, as a message
// cut anywhere, damaged anywhere or made up, without panicking, at any
// width, and every line it makes is terminal-safe.
func TestEventStreamLinesAnyBytes(t *testing.T) {
	msg := sampleBytes(t, "bedrock-invoke-claude-tool")[:250] // a message and the start of the next
	inputs := [][]byte{nil, {0}, []byte("not an event stream at all, \x1b[2J")}
	for n := range len(msg) + 1 {
		inputs = append(inputs, msg[:n])
	}
	for i := range msg {
		bad := bytes.Clone(msg)
		bad[i] ^= 0xff
		inputs = append(inputs, bad)
	}
	for _, in := range inputs {
		for _, w := range []int{1, 13, 40, 80} {
			for _, l := range eventStreamLines(in, w) {
				for _, sg := range l {
					if termtext.Safe(sg.Text) != sg.Text {
						t.Fatalf("unsafe text %q from %x", sg.Text, in)
					}
				}
			}
		}
	}
}
