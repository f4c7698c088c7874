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
var seedGlobs = []string{"../samples/*.sse", "../samples/*.eventstream",
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

// archiveSeeds are small shapes that reach each branch of the archive
// readers, one per recorder (the real archives of testdata/import are
// read by the tests; whole, they are too long to fuzz quickly).
var archiveSeeds = []string{
	`{"log":{"entries":[{"request":{"method":"GET","url":"u"},"response":{"status":200,"content":{"mimeType":"text/event-stream","text":"data: x\n\n"}},"_eventSourceMessages":[{"time":1,"eventName":"e","data":"x"}]}]}}`,
	`{"log":{"entries":[{"response":{"content":{"text":"","encoding":"base64"}},"_eventSourceMessages":[{"data":"a\nb"}],"timings":{"wait":-1}}]}}`,
	`{"log":{"creator":{"name":"streamtap"},"entries":[{"request":{"method":"POST","url":"u","postData":{"mimeType":"application/json","text":"{}"}},"response":{"status":0,"_error":"x"}}]}}` + "\n{\"request\":{}}]}}\n",
	"interactions:\n- request: {method: GET, uri: u}\n  response: {status: {code: 200}, body: {string: !!binary 'H4sI'}}\n",
	"interactions:\n- request: {method: POST, parsed_body: {a: [1, 1.0, .inf, null, true, &x {b: c}, *x]}}\n",
	"http_interactions:\n- request: {method: get}\n  response: {body: {base64_string: 'eA=='}}\n",
	"interactions: [{request: {}, response: {code: 200, body: x, duration: 5}}]",
	"interactions:\n- &a {request: *a}\n",
	`{"request":{"method":"POST","url":"u","body":"base64:e30="},"response":{"status":{"code":200},"headers":{"Content-Encoding":"gzip"},"body":"base64:H4sI"}}`,
	"httprr trace v1\n18 62\nGET / HTTP/1.1\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	// go-vcr v2, indented; vcrpy's httpx content; a list cut by a key.
	"---\nversion: 2\ninteractions:\n    - id: 0\n      request:\n        method: POST\n        url: https://x/v1\n        body: '{\"model\":\"m\"}'\n      response:\n        body: \"data: 1\\n\\n\"\n        headers:\n            Content-Type:\n                - text/event-stream\n        code: 200\n        duration: 83.9ms\n",
	"interactions:\n- request:\n    body: '{\"model\":\"m\",\"stream\":true}'\n    method: POST\n    uri: https://x/v1\n  response:\n    content: \"data: {}\\n\\n\"\n    headers:\n      content-encoding:\n      - gzip\n    http_version: HTTP/1.1\n    status_code: 200\nversion: 1\n",
}

// fuzzArchiveMax bounds FuzzArchive's inputs, and fuzzArchiveInflate what
// their compressed bodies may inflate to. The fuzzer minimises each new
// input it finds, a run per candidate and O(n²) candidates for n bytes:
// runs of a fraction of a millisecond on inputs of a few hundred bytes
// keep that to seconds. With the real fixtures whole (9 KB), 256 MiB per
// gzip body and no bound on the input, it spent its 30 s minimising:
// 16 inputs ran.
const (
	fuzzArchiveMax     = 1 << 10
	fuzzArchiveInflate = 1 << 20
)

// FuzzArchive checks the archive readers on arbitrary input, read as
// detected or as a HAR file, a cassette or an httprr trace whatever it is
// (which): they
// never panic, and every entry they return reads back as a stream whose
// frames tile its bytes.
func FuzzArchive(f *testing.F) {
	for i, s := range archiveSeeds {
		f.Add([]byte(s), uint8(i)) // each read as detected, and as HAR, cassette or httprr whatever it is
	}
	opt := ArchiveOptions{maxBody: fuzzArchiveInflate, maxFile: 2 * fuzzArchiveInflate}
	formats := []Format{FormatAuto, FormatHAR, FormatCassette, FormatHTTPRR}
	f.Fuzz(func(t *testing.T, in []byte, which uint8) {
		if len(in) > fuzzArchiveMax {
			return
		}
		a, err := ReadArchive(in, formats[int(which)%len(formats)], opt)
		if err != nil {
			return
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
	})
}

// Every seed of FuzzArchive reads as an archive of at least one entry,
// read as detected, and fits the fuzzer's bound.
func TestArchiveFuzzSeedsParse(t *testing.T) {
	t.Parallel()
	for i, s := range archiveSeeds {
		a, err := ReadArchive([]byte(s), FormatAuto, ArchiveOptions{})
		if len(s) > fuzzArchiveMax || err != nil || len(a.Entries) == 0 {
			t.Errorf("seed %d (%d bytes): %v, %d entries; want an entry, at most %d bytes", i, len(s), err, entries(a), fuzzArchiveMax)
		}
	}
}

func entries(a *Archive) int {
	if a == nil {
		return 0
	}
	return len(a.Entries)
}
