// Command genbomb writes a HAR file or a VCR cassette whose response bodies
// are gzip bombs: a few hundred kilobytes each that inflate to hundreds of
// megabytes. scripts/bench-archive.sh feeds them to streamtap to measure
// what reading a hostile archive costs in time and memory:
//
//	go run ./scripts/genbomb -format har -entries 20 -out bombs.har
//
// Each entry is a POST to an LLM API (a JSON request naming a model, so
// streamtap keeps it as a session) answered by a 200 event stream whose
// body is gzip, base64 in the file, as a HAR or a vcrpy cassette stores a
// compressed body. What the body inflates to is -content: "zeros" (one
// line of NUL bytes, the best ratio DEFLATE reaches, about 1030x) or "sse"
// (one short Responses delta event repeated: millions of events, the most
// work per byte for a reader). -small adds that many ordinary entries
// (a small uncompressed stream each) before the bombs, to show that they
// stay readable.
//
// The output depends only on the flags. On success it prints one line of
// key=value facts to stderr (bytes, entries, inflated size of each bomb).
//
// It imports only the standard library and is not part of streamtap.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/streamtap/streamtap/scripts/internal/bytesize"
)

// smallStream is the body of an ordinary entry: one complete Responses
// stream with one call.
const smallStream = "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
	"event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"\",\"status\":\"in_progress\"}}\n\n" +
	"event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"sequence_number\":2,\"item_id\":\"fc_1\",\"output_index\":0,\"delta\":\"{\\\"city\\\":\\\"Paris\\\"}\"}\n\n" +
	"event: response.function_call_arguments.done\ndata: {\"type\":\"response.function_call_arguments.done\",\"sequence_number\":3,\"item_id\":\"fc_1\",\"output_index\":0,\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}\n\n" +
	"event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"sequence_number\":4,\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\",\"status\":\"completed\"}}\n\n" +
	"event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":5,\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"output\":[{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\",\"status\":\"completed\"}]}}\n\n"

// sseUnit is what an "sse" bomb repeats.
const sseUnit = "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"output_index\":0,\"content_index\":0,\"delta\":\"x\"}\n\n"

// request is every entry's request body: it names a model, so streamtap
// keeps the entry as a session whatever came back.
const request = `{"model":"gpt-4.1","stream":true,"input":"hi"}`

func main() {
	format := flag.String("format", "har", "har or cassette")
	entries := flag.Int("entries", 20, "number of bomb entries")
	small := flag.Int("small", 0, "ordinary entries written before the bombs")
	sizeArg := flag.String("inflate", "255MiB", "what each bomb inflates to (B, KB, MB, GB, KiB, MiB, GiB)")
	content := flag.String("content", "zeros", "what a bomb inflates to: zeros or sse")
	out := flag.String("out", "-", "output file, - for stdout")
	flag.Parse()

	size, err := bytesize.Parse(*sizeArg)
	if err != nil {
		fatal(err)
	}
	var unit []byte
	switch *content {
	case "zeros":
		unit = bytes.Repeat([]byte{0}, 64<<10)
	case "sse":
		unit = bytes.Repeat([]byte(sseUnit), (64<<10)/len(sseUnit))
	default:
		fatal(fmt.Errorf("unknown content %q (want zeros or sse)", *content))
	}
	bomb := gzipOf(unit, size)
	var w io.Writer = os.Stdout
	var f *os.File
	if *out != "-" {
		if f, err = os.Create(*out); err != nil {
			fatal(err)
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	switch *format {
	case "har":
		writeHAR(cw, *small, *entries, bomb)
	case "cassette":
		writeCassette(cw, *small, *entries, bomb)
	default:
		fatal(fmt.Errorf("unknown format %q (want har or cassette)", *format))
	}
	err = bw.Flush()
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fatal(err)
	}
	fmt.Fprintf(os.Stderr, "genbomb: format=%s bytes=%d small=%d bombs=%d gzip=%d inflated=%d content=%s\n",
		*format, cw.n, *small, *entries, len(bomb), size, *content)
}

// gzipOf is unit repeated up to n bytes, gzipped as tightly as it goes.
func gzipOf(unit []byte, n int64) []byte {
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	for left := n; left > 0; {
		k := min(left, int64(len(unit)))
		_, _ = z.Write(unit[:k])
		left -= k
	}
	_ = z.Close()
	return b.Bytes()
}

func writeHAR(w io.Writer, small, bombs int, bomb []byte) {
	type header struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	type entry struct {
		StartedDateTime string  `json:"startedDateTime"`
		Time            float64 `json:"time"`
		Request         struct {
			Method      string   `json:"method"`
			URL         string   `json:"url"`
			HTTPVersion string   `json:"httpVersion"`
			Headers     []header `json:"headers"`
			PostData    struct {
				MimeType string `json:"mimeType"`
				Text     string `json:"text"`
			} `json:"postData"`
		} `json:"request"`
		Response struct {
			Status      int      `json:"status"`
			StatusText  string   `json:"statusText"`
			HTTPVersion string   `json:"httpVersion"`
			Headers     []header `json:"headers"`
			Content     struct {
				Size     int    `json:"size"`
				MimeType string `json:"mimeType"`
				Text     string `json:"text"`
				Encoding string `json:"encoding,omitempty"`
			} `json:"content"`
		} `json:"response"`
	}
	io.WriteString(w, `{"log":{"version":"1.2","creator":{"name":"genbomb","version":"1"},"entries":[`)
	for i := range small + bombs {
		var e entry
		e.StartedDateTime = "2026-01-01T00:00:00.000Z"
		e.Request.Method, e.Request.URL, e.Request.HTTPVersion = "POST", "https://api.openai.com/v1/responses", "HTTP/1.1"
		e.Request.Headers = []header{{"Content-Type", "application/json"}}
		e.Request.PostData.MimeType, e.Request.PostData.Text = "application/json", request
		e.Response.Status, e.Response.StatusText, e.Response.HTTPVersion = 200, "OK", "HTTP/1.1"
		e.Response.Content.MimeType = "text/event-stream"
		if i < small {
			e.Response.Headers = []header{{"Content-Type", "text/event-stream"}}
			e.Response.Content.Size, e.Response.Content.Text = len(smallStream), smallStream
		} else {
			e.Response.Headers = []header{{"Content-Type", "text/event-stream"}, {"Content-Encoding", "gzip"}}
			e.Response.Content.Size = len(bomb)
			e.Response.Content.Text, e.Response.Content.Encoding = base64.StdEncoding.EncodeToString(bomb), "base64"
		}
		b, _ := json.Marshal(e)
		if i > 0 {
			io.WriteString(w, ",")
		}
		w.Write(b)
	}
	io.WriteString(w, "]}}\n")
}

func writeCassette(w io.Writer, small, bombs int, bomb []byte) {
	io.WriteString(w, "interactions:\n")
	for i := range small + bombs {
		fmt.Fprintf(w, "- request:\n    method: POST\n    uri: https://api.openai.com/v1/responses\n    body: '%s'\n    headers:\n      Content-Type:\n      - application/json\n", request)
		io.WriteString(w, "  response:\n    status:\n      code: 200\n      message: OK\n    headers:\n      Content-Type:\n      - text/event-stream\n")
		if i < small {
			q, _ := json.Marshal(smallStream) // a JSON string is a YAML double-quoted scalar
			fmt.Fprintf(w, "    body:\n      string: %s\n", q)
			continue
		}
		io.WriteString(w, "      Content-Encoding:\n      - gzip\n    body:\n      string: !!binary |\n")
		s := base64.StdEncoding.EncodeToString(bomb)
		for len(s) > 0 {
			k := min(len(s), 76)
			fmt.Fprintf(w, "        %s\n", s[:k])
			s = s[k:]
		}
	}
	io.WriteString(w, "version: 1\n")
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "genbomb:", err)
	os.Exit(2)
}
