package capture

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// ndjsonLine is one line of an Ollama /api/chat stream, as the server
// writes it (json.Marshal, then '\n').
func ndjsonLine(content string, done bool) string {
	b, _ := json.Marshal(map[string]any{"model": "llama3.2", "created_at": "2025-01-01T00:00:00Z",
		"message": map[string]any{"role": "assistant", "content": content}, "done": done})
	return string(b)
}

// brokenNDJSON is an NDJSON stream with every layout fault a line can
// have, one per line, and the flags each line's frame must carry.
func brokenNDJSON(huge int) (string, []Flags) {
	lines := []struct {
		text  string
		flags Flags
	}{
		{ndjsonLine("Hel", false) + "\n", EndsLF},
		{"\n  \n" + ndjsonLine("lo", false) + "\n", EndsLF | BlankLines},
		{`{"model":"llama3.2","message":{"content":"cut` + "\n", EndsLF}, // invalid JSON: the model judges it
		{`{"model":"llama3.2","message":{"content":"caf` + "\xe9" + `"},"done":false}` + "\n", EndsLF | InvalidUTF8},
		{ndjsonLine(strings.Repeat("x", huge), false) + "\n", EndsLF},
		{ndjsonLine("", true), NoNewline}, // no newline at EOF
	}
	var b strings.Builder
	var want []Flags
	for _, l := range lines {
		b.WriteString(l.text)
		f := l.flags
		if len(l.text) > MaxFrameSize {
			f |= TooLarge
		}
		want = append(want, f)
	}
	return b.String(), want
}

// TestNDJSONKeepsAndFlagsEveryLine: a blank line, an invalid JSON line,
// invalid UTF-8, a line over MaxFrameSize and a last line without its
// newline each stay a frame of their own, flagged, wherever the reads cut
// the input and whether the format is detected or named.
func TestNDJSONKeepsAndFlagsEveryLine(t *testing.T) {
	t.Parallel()
	in, want := brokenNDJSON(MaxFrameSize + 1)
	for _, format := range []Format{FormatAuto, FormatJSONL} {
		for _, cuts := range [][]int{nil, {1, 2, 3}, {len(in) / 2}, {len(in) - 3, len(in) - 1}} {
			got := frameAll(t, format, []byte(in), cuts...)
			checkCoverage(t, got, len(in))
			if len(got) != len(want) {
				t.Fatalf("%v cut at %v: %d frames; want %d", format, cuts, len(got), len(want))
			}
			for i, f := range got {
				if f.Kind != FrameEvent || f.Flags != want[i] {
					t.Errorf("%v cut at %v: frame %d is %v with flags %b; want an event with %b", format, cuts, i, f.Kind, f.Flags, want[i])
				}
			}
		}
	}
}

// Blank lines after the last line form a remainder flagged BlankLines; a
// chunks file, whose layout is a file's, flags neither that nor its last
// line without a newline.
func TestNDJSONTrailingBlankLines(t *testing.T) {
	t.Parallel()
	in := ndjsonLine("", true) + "\n\n\r\n"
	got := frameAll(t, FormatAuto, []byte(in))
	checkCoverage(t, got, len(in))
	if len(got) != 2 || got[0].Flags&(BlankLines|NoNewline) != 0 || got[1].Kind != FrameRemainder || got[1].Flags&BlankLines == 0 {
		t.Fatalf("frames = %+v; want a clean line, then a remainder flagged blank lines", got)
	}
	for _, f := range frameAll(t, FormatChunks, []byte("{\"a\":1}\n\n{\"b\":2}\n\n")) {
		if f.Flags&(BlankLines|NoNewline) != 0 {
			t.Errorf("chunks frame %+v carries a stream's layout flags", f)
		}
	}
	if f := frameAll(t, FormatChunks, []byte("{\"a\":1}\n{\"b\":2}")); f[1].Flags&NoNewline != 0 {
		t.Errorf("chunks last line %+v flagged no-newline", f[1])
	}
}

// TestDetectBrokenFirstLine: JSON lines whose first line is broken (cut
// off, or garbage before them) are still JSON lines; a document spread
// over lines and SSE stay what they are.
func TestDetectBrokenFirstLine(t *testing.T) {
	t.Parallel()
	line := ndjsonLine("hi", false)
	tests := []struct {
		in   string
		want Format
	}{
		{`{"model":"llama3.2","message":{"content":"cu` + "\n" + line + "\n", FormatJSONL},
		{"{\"model\":\n\n" + line + "\n", FormatJSONL},
		{"garbage\n" + line + "\n", FormatSSE}, // as before: a first byte that is no JSON is SSE
		{"{\n  \"a\": 1\n}\n", FormatJSON},
		{"[\n{\"a\":1}\n]\n", FormatJSON},
		{"{\"a\": [\n  1,\n  2\n]}\n", FormatJSON},
		{"hello\nworld\n", FormatSSE},
		{"foo: bar\ndata: {}\n\n", FormatSSE},
		{"data\n\n", FormatSSE},
		{"{\"cut", FormatJSON},
		// Past validateMax a first line is judged by how it ends.
		{ndjsonLine(strings.Repeat("x", validateMax), false) + "\n" + line + "\n", FormatJSONL},
		{`{"message":{"content":"` + strings.Repeat("x", validateMax) + "\n" + line + "\n", FormatJSONL},
		{`{"a":"` + strings.Repeat("x", validateMax) + "\n  \"b\": 1\n}\n", FormatJSON},
	}
	for _, tt := range tests {
		if got, _ := detect([]byte(tt.in), true); got != tt.want {
			t.Errorf("detect(%.40q) = %v; want %v", tt.in, got, tt.want)
		}
		// Fed in small pieces, detection decides the same, and never
		// before it can.
		fr := NewFramer(FormatAuto)
		step := max(1, len(tt.in)/4000)
		for i := 0; i < len(tt.in); i += step {
			fr.Feed([]byte(tt.in[i:min(i+step, len(tt.in))]), 0, func(*Frame) {})
			if f := fr.Format(); f != FormatAuto && f != tt.want {
				t.Errorf("%.40q: detected %v after %d bytes; want %v", tt.in, f, i+step, tt.want)
				break
			}
		}
		fr.Finish(0, func(*Frame) {})
		if fr.Format() != tt.want {
			t.Errorf("%.40q fed in pieces: %v; want %v", tt.in, fr.Format(), tt.want)
		}
	}
}

// readEntry frames an archive entry as the commands read it: its head,
// then its body.
func readEntry(t *testing.T, e *Entry) []Frame {
	t.Helper()
	var out []Frame
	err := e.Source("x").Read(context.Background(), ReadOptions{}, func(f *Frame) error {
		g := f.Detach()
		out = append(out, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNDJSONEverywhere: the broken stream reads the same, line for line,
// as `curl -i` output (by its Content-Type, and by its bytes when the head
// names none), as a HAR entry and as a cassette's interaction. A HAR's
// content.text and a cassette's text body are JSON or YAML strings, which
// cannot hold invalid UTF-8: those carry the stream as base64 (a HAR's
// encoding, a cassette's !!binary), and as text without that line's fault.
func TestNDJSONEverywhere(t *testing.T) {
	t.Parallel()
	body, want := brokenNDJSON(100)
	valid := strings.ToValidUTF8(body, "\uFFFD")
	wantValid := append([]Flags(nil), want...)
	for i := range wantValid {
		wantValid[i] &^= InvalidUTF8
	}
	check := func(name string, frames []Frame, want []Flags) {
		t.Helper()
		var events []Frame
		for _, f := range frames {
			if f.Kind != FrameHead {
				events = append(events, f)
			}
		}
		if len(events) != len(want) {
			t.Fatalf("%s: %d body frames; want %d", name, len(events), len(want))
		}
		for i, f := range events {
			if f.Kind != FrameEvent || f.Flags != want[i] {
				t.Errorf("%s: frame %d is %v with flags %b; want an event with %b", name, i, f.Kind, f.Flags, want[i])
			}
		}
	}
	for _, ctype := range []string{"Content-Type: application/x-ndjson\r\n", ""} {
		in := "HTTP/1.1 200 OK\r\n" + ctype + "\r\n" + body
		got := frameAll(t, FormatAuto, []byte(in), 7, len(in)/2)
		checkCoverage(t, got, len(in))
		var frames []Frame
		for _, s := range got {
			frames = append(frames, Frame{Kind: s.Kind, Flags: s.Flags})
		}
		check(fmt.Sprintf("curl -i (%q)", ctype), frames, want)
	}

	b64 := base64.StdEncoding.EncodeToString([]byte(body))
	text, _ := json.Marshal(valid)
	for name, content := range map[string]string{
		"HAR base64": `{"mimeType":"application/x-ndjson","encoding":"base64","text":"` + b64 + `"}`,
		"HAR text":   `{"mimeType":"application/x-ndjson","text":` + string(text) + `}`,
	} {
		har := `{"log":{"entries":[{"request":{"method":"POST","url":"http://localhost:11434/api/chat","postData":{"mimeType":"application/json","text":"{\"model\":\"llama3.2\"}"}},` +
			`"response":{"status":200,"headers":[{"name":"Content-Type","value":"application/x-ndjson"}],"content":` + content + `}}]}}`
		a := readArchive(t, []byte(har), ArchiveOptions{})
		if len(a.Entries) != 1 || !a.Entries[0].Stream {
			t.Fatalf("%s: %d entries; want 1, a stream by its media type", name, len(a.Entries))
		}
		w := want
		if name == "HAR text" {
			w = wantValid
		}
		check(name, readEntry(t, &a.Entries[0]), w)
	}

	for name, bodyYAML := range map[string]string{
		"cassette text":   "string: " + string(text),
		"cassette binary": "string: !!binary |\n        " + b64,
	} {
		cas := "interactions:\n- request:\n    body: '{\"model\":\"llama3.2\",\"stream\":true}'\n    method: POST\n    uri: http://localhost:11434/api/chat\n" +
			"  response:\n    body:\n      " + bodyYAML + "\n    headers:\n      Content-Type:\n      - application/x-ndjson\n    status:\n      code: 200\n      message: OK\n"
		a := readArchive(t, []byte(cas), ArchiveOptions{})
		b, w := body, want
		if name == "cassette text" {
			b, w = valid, wantValid
		}
		if len(a.Entries) != 1 || !bytes.Equal(a.Entries[0].Bytes(), []byte(b)) {
			t.Fatalf("%s: %d entries; want 1 with the body byte for byte", name, len(a.Entries))
		}
		check(name, readEntry(t, &a.Entries[0]), w)
	}
}
