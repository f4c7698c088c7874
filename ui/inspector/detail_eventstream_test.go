package inspector

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

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

	// The test vectors of the encoding: every header type, and a payload
	// whose message CRC fails.
	for name, want := range map[string][]string{
		"eventstream-vector__positive-all-headers__awssdkgo.eventstream":       {"bool", "byte", "short", "int", "long", "bytes", "timestamp", "uuid"},
		"eventstream-vector__negative-corrupted-payload__awssdkgo.eventstream": {"message crc", "fails: the bytes give"},
	} {
		data, err := os.ReadFile("../../../shared/captures-next/" + name)
		if err != nil {
			t.Fatal(err)
		}
		m := newTestModel(t, data, 160, 200)
		m.insp.tl.SelectOrd(0)
		press(m, "2", "z")
		v := plainView(m)
		for _, w := range want {
			if !strings.Contains(v, w) {
				t.Errorf("%s: detail lacks %q:\n%s", name, w, v)
			}
		}
	}
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
