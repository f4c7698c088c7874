package inspector

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/theme"
)

// An AWS event stream message (Bedrock) is binary: a prelude of two
// lengths and a CRC, typed headers, a payload and a second CRC. Its bytes
// shown as text are noise, so the detail pane decodes them again from the
// frame's exact bytes (capture.ParseEventStream): the checks of the
// prelude, the headers, the payload as JSON (and the model's own JSON an
// InvokeModel chunk wraps in base64), then every byte in hex.

// isEventStream says whether ev is an event stream message the pane
// decodes: whole, and small enough to lay out at once.
func isEventStream(ev *model.Event, raw []byte, partial bool) bool {
	return ev.Frame&capture.EventStream != 0 && !partial && len(raw) <= theme.ChromaLimit
}

// eventStreamLines lays out an event stream message from its bytes, w
// cells wide.
func eventStreamLines(raw []byte, w int) []theme.Line {
	msg, err := capture.ParseEventStream(raw)
	if err != nil {
		return append([]theme.Line{{{Text: "event stream message: " + termtext.Safe(err.Error()), Class: theme.TokError}}}, hexLines(raw, w)...)
	}
	section := func(s string) theme.Line { return theme.Line{{Text: s, Class: theme.TokComment}} }
	out := []theme.Line{
		{{Text: fmt.Sprintf("event stream message (%d B, length %d)", len(raw), msg.Total), Class: theme.TokKey}},
		crcLine("prelude crc", msg.PreludeCRC, crc32.ChecksumIEEE(raw[:8])),
	}
	if total := int(msg.Total); msg.Problem&(capture.PreludeCRC|capture.BadLength) == 0 && total <= len(raw) && total >= 16 {
		out = append(out, crcLine("message crc", binary.BigEndian.Uint32(raw[total-4:]), crc32.ChecksumIEEE(raw[:total-4])))
	}
	for _, p := range []struct {
		f    capture.Flags
		what string
	}{{capture.BadLength, "lengths no message can have, or a header that runs past its block"}, {capture.Truncated, "cut short: fewer bytes than its length"}} {
		if msg.Problem&p.f != 0 {
			out = append(out, theme.Line{{Text: p.what, Class: theme.TokError}})
		}
	}
	out = append(out, theme.Line{}, section(fmt.Sprintf("headers (%d B)", msg.HeadersLen)))
	nameW := 0
	for _, h := range msg.Headers {
		nameW = max(nameW, theme.CellWidth(termtext.Safe(string(h.Name))))
	}
	for _, h := range msg.Headers {
		name := termtext.Safe(string(h.Name))
		out = append(out, theme.Line{
			{Text: "  " + name + strings.Repeat(" ", nameW-theme.CellWidth(name)), Class: theme.TokField},
			{Text: "  " + h.Type.String() + "  ", Class: theme.TokComment},
			{Text: termtext.Safe(string(h.AppendText(nil))), Class: theme.TokString},
		})
	}
	if len(msg.Headers) == 0 {
		out = append(out, theme.Line{{Text: "  none", Class: theme.TokComment}})
	}
	out = append(out, theme.Line{}, section(fmt.Sprintf("payload (%d B)", len(msg.Payload))))
	out = append(out, jsonOrText(msg.Payload)...)
	if inner, ok := chunkBytes(msg.Payload); ok {
		out = append(out, theme.Line{}, section("payload bytes, base64-decoded (the model's own event)"))
		out = append(out, jsonOrText(inner)...)
	}
	out = append(out, theme.Line{}, section("bytes"))
	return append(out, hexLines(raw, w)...)
}

// crcLine says a CRC as received and whether it holds.
func crcLine(name string, got, want uint32) theme.Line {
	if got == want {
		return theme.Line{{Text: fmt.Sprintf("%s %08x ok", name, got), Class: theme.TokComment}}
	}
	return theme.Line{{Text: fmt.Sprintf("%s %08x fails: the bytes give %08x", name, got, want), Class: theme.TokError}}
}

// jsonOrText lays out a payload: indented, highlighted JSON, or its text
// made safe when it is not JSON.
func jsonOrText(b []byte) []theme.Line {
	if len(b) == 0 {
		return []theme.Line{{{Text: "  empty", Class: theme.TokComment}}}
	}
	var ind bytes.Buffer
	if json.Indent(&ind, b, "", "  ") == nil {
		return theme.ChromaLines(ind.String())
	}
	var out []theme.Line
	for line := range strings.Lines(string(b)) {
		out = append(out, theme.Line{{Text: termtext.Safe(strings.TrimRight(line, "\n"))}})
	}
	return out
}

// chunkBytes is the model's own JSON an InvokeModelWithResponseStream
// chunk carries as {"bytes":"<base64>"}, when the payload is one.
func chunkBytes(payload []byte) ([]byte, bool) {
	var chunk struct {
		Bytes *string `json:"bytes"`
	}
	if json.Unmarshal(payload, &chunk) != nil || chunk.Bytes == nil {
		return nil, false
	}
	inner, err := base64.StdEncoding.DecodeString(*chunk.Bytes)
	if err != nil || len(inner) == 0 {
		return nil, false
	}
	return inner, true
}

// hexLines dump b as offset, hex bytes and their printable ASCII, as many
// bytes per line (a multiple of four, four to sixteen) as fit in w cells.
func hexLines(b []byte, w int) []theme.Line {
	per := min(max((w-14)/4/4*4, 4), 16) // a line is 4×per+14 cells
	var out []theme.Line
	for off := 0; off < len(b); off += per {
		row := b[off:min(off+per, len(b))]
		var hx, asc strings.Builder
		for i := range per {
			if i > 0 && i%8 == 0 {
				hx.WriteByte(' ')
			}
			if i < len(row) {
				fmt.Fprintf(&hx, "%02x ", row[i])
				if c := row[i]; c >= 0x20 && c < 0x7f {
					asc.WriteByte(c)
				} else {
					asc.WriteByte('.')
				}
			} else {
				hx.WriteString("   ")
			}
		}
		out = append(out, theme.Line{
			{Text: fmt.Sprintf("%08x  ", off), Class: theme.TokComment},
			{Text: hx.String(), Class: theme.TokNumber},
			{Text: " |" + asc.String() + "|", Class: theme.TokString},
		})
	}
	return out
}
