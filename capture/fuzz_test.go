package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// seedGlobs name the recorded streams that seed the fuzz corpus: the
// project's samples and the real captures kept beside the project root. The
// target runs without them.
var seedGlobs = []string{"../samples/*.sse", "../samples/*.eventstream", "testdata/eventstream/*.eventstream",
	filepath.Join(fixtures.SharedRoot(), "captures", "*.sse"), filepath.Join(fixtures.SharedRoot(), "captures-app", "*.txt"), filepath.Join(fixtures.SharedRoot(), "captures-next", "*.eventstream")}

// fuzzSeeds are small inputs that reach each corner of the framers.
var fuzzSeeds = []string{
	"",
	"\n\n \t\r\n{\"a\":\n\n  \n{\"b\":1}\n", // detection over a blank start and blank lines
	"  \r\n\r\n{\n\n\"a\": 1}\n",
	"{\"a\":\n \n\n[1]\n",
	"data: x\n\n",
	dataStreamBody,
	"0:\"a\"\n\n:\n:1\r\n0",
	"HTTP/1.1 200 OK\r\nX-Vercel-Ai-Data-Stream: v1\r\n\r\n0:\"a\"\nb",
	"data: x\r\n\r\n",
	"data: x\r\rdata: y\r\r",
	"data: x\r\ndata: y\n\r",
	"data: x\r",
	"data: x\r\n\r",
	"\r\n\n\r",
	"\xEF\xBB\xBFdata: x\n\n",
	"\xEF\xBB",
	"\xEF\xBB\xBF",
	"data: a\n\n\xEF\xBB\xBFdata: b\n\n",
	": keepalive\n\n: ping\ndata: x\n\n",
	"data: a\n: c\ndata: b\n\n",
	": only a comment",
	"event: response.output_text.delta\ndata: {\"delta\":\"hi\"}",
	"data: {\"type\":\"message_start\"",
	"id: a\x00b\ndata: x\n\n",
	"data: \x00\n\n",
	"data: \xff\xfe\xfd\n\n",
	"data:{\"a\":1}\n\n",
	"data\n\ndata:\n\n",
	" data: {}\n\n",
	"\tdata: {}\n\n",
	"retry: 1500\nid: 7\ndata: x\n\n",
	"retry: 15s\ndata: x\n\n",
	"retry: 9999999999999999999\n\n",
	"foo: bar\ndata: x\n\n",
	"data: [DONE]\n\n",
	"{\"a\":1}\n{\"b\":2}\n",
	"{\"a\":1}\r\n\r\n{\"b\":2}",
	"{\n  \"a\": 1\n}\n",
	"[1,2]\n",
	"\n\n  \n",
	"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: x\r\n\r\n",
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{\"error\":{\"message\":\"bad key\"}}",
	"HTTP/2 200\ncontent-type: application/x-ndjson\n\n{\"a\":1}\n",
	"HTTP/1.1 200 OK\r\ncontent-type: text/event",
	"HTTP/",
	"HTT",
	// A head after a BOM or blank space once sent detection into endless
	// recursion; a BOM split across reads once changed the detected format.
	" HTTP/1.1 200 OK\r\n\r\n",
	"\r\nHTTP/1.1 200 OK\r\n\r\n",
	"\xEF\xBB\xBFHTTP/1.1 200 OK\r\n\r\n",
	"\xEF\xBB\xBF{\"a\":1}\n{\"b\":2}\n",
	"\xEF\xBB\xBF\n{\"a\":1}\n",
	"HTTP/1.1 200 OK\r\n\r\n\xEF\xBB\xBF{\"a\":1}\n",
	// Ollama NDJSON: blank lines, a broken first line, garbage before the
	// lines, a last line without its newline, a document that is not lines.
	"{\"model\":\"m\",\"message\":{\"content\":\"a\"},\"done\":false}\n\n{\"model\":\"m\",\"done\":true}",
	"{\"model\":\"m\",\"mess\n{\"model\":\"m\",\"done\":true}\n\n\n",
	"curl: (18) transfer closed\n\n{\"done\":true}\n",
	"dat",
	"[\n{\"a\":1}\n]\n",
	"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n\r\n{\"response\":\"\xff\"}\n\n{\"done\":true}",
	// AWS event streams: a sound message, one cut short, a damaged CRC, a
	// prelude whose lengths no message has, garbage between messages.
	"\x00\x00\x00\x1d\x00\x00\x00\x00\xfdR\x8cZ{'foo':'bar'}\xc3e96",
	"\x00\x00\x00\x1d\x00\x00\x00\x00\xfdR\x8cZ{'foo'",
	"\x00\x00\x00\x1d\x00\x00\x00\x00\xfdR\x8c[{'foo':'bar'}\xc3e96",
	"\x00\x00\x00\x0c\x00\x00\x00\x00\x00\x00\x00\x00",
	"\x00\x00\x00\x10\x00\x00\x00\x00\x05\xc2H\xeb}\x98\xc8\xffgarbage\x00\x00\x00\x10\x00\x00\x00\x00\x05\xc2H\xeb}\x98\xc8\xff",
	"HTTP/1.1 200 OK\r\ncontent-type: application/vnd.amazon.eventstream\r\n\r\n\x00\x00\x00\x10\x00\x00\x00\x00\x05\xc2H\xeb}\x98\xc8\xff",
}

var fuzzFormats = []Format{FormatSSE, FormatJSONL, FormatJSON, FormatHTTP, FormatChunks, FormatEventStream, FormatDataStream, FormatAuto}

// FuzzSSE checks the framers on arbitrary input: they never panic, their
// frames tile the input, and the frames do not depend on where the input was
// split into reads. Both hold for every format, format detection included.
func FuzzSSE(f *testing.F) {
	for _, glob := range seedGlobs {
		files, _ := filepath.Glob(glob) // the patterns are valid; no files is no seeds
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data, uint32(len(data)/3), uint32(len(data)/2))
		}
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint32(1), uint32(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, in []byte, a, b uint32) {
		i, j := int(a%uint32(len(in)+1)), int(b%uint32(len(in)+1))
		if i > j {
			i, j = j, i
		}
		for _, format := range fuzzFormats {
			// frameAll checks each frame's Raw against input[Start:End].
			whole := frameAll(t, format, in)
			checkCoverage(t, whole, len(in))
			cut := frameAll(t, format, in, i, j)
			checkCoverage(t, cut, len(in))
			if got, want := fmt.Sprintf("%+v", cut), fmt.Sprintf("%+v", whole); got != want {
				t.Fatalf("%v frames of %q cut at %d,%d =\n%s\nwant\n%s", format, in, i, j, got, want)
			}
		}
	})
}

// archiveSeeds are the real archives of testdata/import and small shapes
// that reach each branch of the archive readers.
var archiveSeeds = []string{
	`{"log":{"entries":[{"request":{"method":"GET","url":"u"},"response":{"status":200,"content":{"mimeType":"text/event-stream","text":"data: x\n\n"}},"_eventSourceMessages":[{"time":1,"eventName":"e","data":"x"}]}]}}`,
	`{"log":{"entries":[{"response":{"content":{"text":"","encoding":"base64"}},"_eventSourceMessages":[{"data":"a\nb"}],"timings":{"wait":-1}}]}}`,
	"interactions:\n- request: {method: GET, uri: u}\n  response: {status: {code: 200}, body: {string: !!binary 'H4sI'}}\n",
	"interactions:\n- request: {method: POST, parsed_body: {a: [1, 1.0, .inf, null, true, &x {b: c}, *x]}}\n",
	"http_interactions:\n- request: {method: get}\n  response: {body: {base64_string: 'eA=='}}\n",
	"interactions: [{request: {}, response: {code: 200, body: x, duration: 5}}]",
	"interactions:\n- &a {request: *a}\n",
}

// FuzzArchive checks the archive readers on arbitrary input: they never
// panic, and every entry they return reads back as a stream whose frames
// tile its bytes.
func FuzzArchive(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "import", "*.yaml"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range archiveSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(contentCassette)) // vcrpy's httpx shape: response.content
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, format := range []Format{FormatAuto, FormatHAR, FormatCassette} {
			a, err := ReadArchive(in, format, ArchiveOptions{})
			if err != nil {
				continue
			}
			for _, e := range a.Entries {
				src := e.Source("fuzz")
				var frames []frameSummary
				err := src.Read(context.Background(), ReadOptions{}, func(fr *Frame) error {
					frames = append(frames, frameSummary{Kind: fr.Kind, Start: fr.Start, End: fr.End})
					return nil
				})
				var refused *InflateError
				if errors.As(err, &refused) {
					continue // a bomb: nothing framed
				}
				if err != nil {
					t.Fatal(err)
				}
				n := len(e.Head()) + len(e.Bytes())
				checkCoverage(t, frames, n)
			}
		}
	})
}
