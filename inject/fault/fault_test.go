package fault

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamtap/streamtap/model"
)

// stream is four SSE events (the second a comment run) that the handler
// under test writes in one write, as replay writes a stream recorded
// without timing.
var events = []string{
	"data: {\"n\":1}\n\n",
	": keepalive\n\n",
	"data: {\"n\":2}\n\n",
	"data: {\"n\":3,\"text\":\"a longer event to cut in half\"}\n\n",
	"data: [DONE]\n\n",
}

var stream = strings.Join(events, "")

// serve starts a server whose requests the plan breaks; next writes
// stream.
func serve(t *testing.T, p Plan, d model.Dialect) *httptest.Server {
	t.Helper()
	next := func(Step) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, stream)
		})
	}
	srv := httptest.NewServer(Handler(p, next, Options{Dialect: d}))
	t.Cleanup(srv.Close)
	return srv
}

func plan(t *testing.T, faults string) Plan {
	t.Helper()
	fs, err := ParseList(faults)
	if err != nil {
		t.Fatal(err)
	}
	return PlanOf(fs, nil)
}

// get requests the server with net/http and reads the whole body: what
// arrived, and the error reading ended with.
func get(t *testing.T, url string, tr *http.Transport) (*http.Response, []byte, error) {
	t.Helper()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	if tr == nil {
		c.Transport = &http.Transport{}
	}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// rawRead sends a GET on a raw TCP connection and returns every read as
// it arrived (with its time), and the error reading ended with: what
// net/http hides (chunk sizes, a reset, an HTTP/1.0 head).
type piece struct {
	at   time.Duration
	data []byte
}

func rawRead(t *testing.T, addr string) ([]piece, error) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var out []piece
	buf := make([]byte, 64<<10)
	for {
		n, err := conn.Read(buf)
		if n > 0 {
			out = append(out, piece{time.Since(start), bytes.Clone(buf[:n])})
		}
		if err != nil {
			return out, err
		}
	}
}

func joined(ps []piece) string {
	var b strings.Builder
	for _, p := range ps {
		b.Write(p.data)
	}
	return b.String()
}

// dechunk reads a chunked body after its head.
func dechunk(t *testing.T, raw string) (body string, complete bool) {
	t.Helper()
	_, rest, ok := strings.Cut(raw, "\r\n\r\n")
	if !ok {
		t.Fatalf("no head in %q", raw)
	}
	r := bufio.NewReader(strings.NewReader(rest))
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return b.String(), false
		}
		var size int
		if _, err := fmtSscanHex(strings.TrimSpace(line), &size); err != nil {
			return b.String(), false
		}
		if size == 0 {
			return b.String(), true
		}
		chunk := make([]byte, size+2)
		n, _ := io.ReadFull(r, chunk)
		b.Write(chunk[:min(n, size)])
		if n < size+2 {
			return b.String(), false
		}
	}
}

// chunkSizes lists the sizes of a chunked body's chunks, after its head.
func chunkSizes(t *testing.T, raw string) []int {
	t.Helper()
	_, rest, _ := strings.Cut(raw, "\r\n\r\n")
	r := bufio.NewReader(strings.NewReader(rest))
	var out []int
	for {
		line, err := r.ReadString('\n')
		var size int
		if err != nil {
			return out
		}
		if _, err := fmtSscanHex(strings.TrimSpace(line), &size); err != nil || size == 0 {
			return out
		}
		out = append(out, size)
		if _, err := r.Discard(size + 2); err != nil {
			return out
		}
	}
}

func fmtSscanHex(s string, v *int) (int, error) {
	n := 0
	if s == "" {
		return 0, errors.New("empty")
	}
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			n = n*16 + int(c-'0')
		case c >= 'a' && c <= 'f':
			n = n*16 + int(c-'a'+10)
		default:
			return 0, errors.New("not hex")
		}
	}
	*v = n
	return 1, nil
}

// dialect is the dialect named name, as reports name it.
func dialect(name string) model.Dialect {
	for _, d := range model.AllDialects() {
		if d.String() == name {
			return d
		}
	}
	panic("no dialect " + name)
}

// TestNoFault: a plan of nothing serves the stream whole.
func TestNoFault(t *testing.T) {
	t.Parallel()
	srv := serve(t, Plan{}, dialect("openai-chat"))
	_, body, err := get(t, srv.URL, nil)
	if err != nil || string(body) != stream {
		t.Errorf("body = %q, %v; want the stream", body, err)
	}
}

// TestCutAfterEvents: net/http reads exactly the first two events (and
// the comment between them), then the body ends without its last chunk.
func TestCutAfterEvents(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "cut:2"), dialect("openai-chat"))
	_, body, err := get(t, srv.URL, nil)
	if want := events[0] + events[1] + events[2]; string(body) != want {
		t.Errorf("body = %q; want %q", body, want)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading ended with %v; want unexpected EOF (no last chunk)", err)
	}
	// On the wire: whole chunks, then a clean close (EOF, no reset).
	pieces, rerr := rawRead(t, srv.Listener.Addr().String())
	if rerr != io.EOF {
		t.Errorf("raw read ended with %v; want EOF (a clean close)", rerr)
	}
	if body, complete := dechunk(t, joined(pieces)); complete || body != events[0]+events[1]+events[2] {
		t.Errorf("chunked body %q complete %v; want the two events, unterminated", body, complete)
	}
}

// TestCutAfterBytes cuts in the middle of an event.
func TestCutAfterBytes(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "cut:20b"), dialect("openai-chat"))
	_, body, err := get(t, srv.URL, nil)
	if string(body) != stream[:20] || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("body = %q, %v; want %q and unexpected EOF", body, err, stream[:20])
	}
}

// TestCutAtStart: cut:0 sends the head and nothing more.
func TestCutAtStart(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "cut:0"), dialect("openai-chat"))
	resp, body, err := get(t, srv.URL, nil)
	if resp.StatusCode != 200 || len(body) != 0 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("status %d, body %q, %v; want 200, nothing, unexpected EOF", resp.StatusCode, body, err)
	}
}

// TestReset: the client reads the first event, then ECONNRESET.
func TestReset(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "reset:1"), dialect("openai-chat"))
	pieces, err := rawRead(t, srv.Listener.Addr().String())
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("raw read ended with %v; want a connection reset", err)
	}
	if !strings.Contains(joined(pieces), `{"n":1}`) || strings.Contains(joined(pieces), `{"n":2}`) {
		t.Errorf("read %q; want the first event only", joined(pieces))
	}
	_, _, err = get(t, srv.URL, nil)
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("net/http read ended with %v; want a connection reset", err)
	}
}

// TestResetAfterBytes resets mid-event.
func TestResetAfterBytes(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "reset:10b"), dialect("openai-chat"))
	_, body, err := get(t, srv.URL, nil)
	if !errors.Is(err, syscall.ECONNRESET) || len(body) > 10 {
		t.Errorf("body %q, %v; want at most 10 bytes and a reset", body, err)
	}
}

// firstAfter returns when the first read holding want arrived.
func firstAfter(t *testing.T, ps []piece, want string) time.Duration {
	t.Helper()
	var seen strings.Builder
	for _, p := range ps {
		seen.Write(p.data)
		if strings.Contains(seen.String(), want) {
			return p.at
		}
	}
	t.Fatalf("%q never arrived in %q", want, seen.String())
	return 0
}

// TestStall: nothing arrives for the stall after the first event, then
// the rest.
func TestStall(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "stall:1:0.4"), dialect("openai-chat"))
	pieces, _ := rawRead(t, srv.Listener.Addr().String())
	// Timed from the request: a late read of event 1 (a loaded machine)
	// cannot make event 2 look early.
	if two := firstAfter(t, pieces, `{"n":2}`); two < 400*time.Millisecond {
		t.Errorf("event 2 came %v after the request; want it after the 0.4 s stall", two)
	}
	if body, complete := dechunk(t, joined(pieces)); !complete || body != stream {
		t.Errorf("after the stall, body %q complete %v; want the whole stream", body, complete)
	}
}

// TestStallInside: half of the event after the first two arrives, then
// nothing for the stall, then its other half.
func TestStallInside(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "stall-inside:2:0.4"), dialect("openai-chat"))
	pieces, _ := rawRead(t, srv.Listener.Addr().String())
	ev := events[3]
	half, rest := ev[:len(ev)/2], ev[len(ev)/2:]
	if b := firstAfter(t, pieces, rest); b < 400*time.Millisecond {
		t.Errorf("the event's second half came %v after the request; want it after the 0.4 s stall", b)
	}
	if a := firstAfter(t, pieces, half); a >= firstAfter(t, pieces, rest) {
		t.Errorf("the event's first half did not come before the stall")
	}
	if body, complete := dechunk(t, joined(pieces)); !complete || body != stream {
		t.Errorf("body %q complete %v; want the whole stream", body, complete)
	}
}

// TestDrip: the body arrives in small writes over time, at the rate.
func TestDrip(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "drip:300"), dialect("openai-chat"))
	start := time.Now()
	_, body, err := get(t, srv.URL, nil)
	took := time.Since(start)
	if err != nil || string(body) != stream {
		t.Fatalf("body %q, %v; want the stream", body, err)
	}
	want := time.Duration(len(stream)) * time.Second / 300
	if took < want*8/10 {
		t.Errorf("%d bytes at 300 B/s took %v; want about %v", len(stream), took, want)
	}
	// Each write is a chunk on the wire, whatever reads gather them.
	pieces, _ := rawRead(t, srv.Listener.Addr().String())
	if body, _ := dechunk(t, joined(pieces)); body != stream {
		t.Errorf("raw body %q", body)
	}
	for _, n := range chunkSizes(t, joined(pieces)) {
		if n > 30 {
			t.Errorf("a chunk of %d bytes; want writes of 30 at 300 B/s", n)
			break
		}
	}
}

// TestBytewise: on the wire every chunk of the body is one byte.
func TestBytewise(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "bytewise"), dialect("openai-chat"))
	pieces, _ := rawRead(t, srv.Listener.Addr().String())
	raw := joined(pieces)
	_, rest, _ := strings.Cut(raw, "\r\n\r\n")
	if want := "1\r\nd\r\n1\r\na\r\n1\r\nt\r\n1\r\na\r\n"; !strings.HasPrefix(rest, want) {
		t.Errorf("chunks %q…; want one byte each: %q", rest[:min(len(rest), 40)], want)
	}
	if body, complete := dechunk(t, raw); !complete || body != stream {
		t.Errorf("body %q complete %v", body, complete)
	}
	_, body, err := get(t, srv.URL, nil)
	if err != nil || string(body) != stream {
		t.Errorf("net/http body %q, %v", body, err)
	}
}

// TestStatus answers the first K requests with the status and the
// dialect's error body, then serves the stream.
func TestStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault      string
		dialect    model.Dialect
		status     int
		retryAfter string
		body       string
	}{
		{"status:429:2", dialect("openai-chat"), 429, "1", `"code":"rate_limit_exceeded"`},
		{"status:429:2,retry-after:7", dialect("anthropic"), 429, "7", `"type":"rate_limit_error"`},
		{"status:500:2", dialect("openai-responses"), 500, "", `"type":"server_error"`},
		{"status:529:2", dialect("anthropic"), 529, "", `"type":"overloaded_error"`},
		{"status:401:2", dialect("openai-chat"), 401, "", `"code":"invalid_api_key"`},
		{"status:503:2", dialect("gemini"), 503, "", `"status":"UNAVAILABLE"`},
		{"status:429:2", dialect("bedrock-converse"), 429, "1", `{"message":`},
		{"status:429:2", dialect("mcp"), 429, "1", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Rate limit reached. Please try again later."},"id":null}`},
		{"status:404:2", dialect("mcp"), 404, "", `"code":-32001`},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, plan(t, tc.fault), tc.dialect)
			for n := 1; n <= 2; n++ {
				resp, body, err := get(t, srv.URL, nil)
				if err != nil || resp.StatusCode != tc.status || !strings.Contains(string(body), tc.body) {
					t.Errorf("request %d: %d %q, %v; want %d with %s", n, resp.StatusCode, body, err, tc.status, tc.body)
				}
				if got := resp.Header.Get("Retry-After"); got != tc.retryAfter {
					t.Errorf("request %d: Retry-After %q; want %q", n, got, tc.retryAfter)
				}
				if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("request %d: Content-Type %q", n, ct)
				}
			}
			resp, body, err := get(t, srv.URL, nil)
			if err != nil || resp.StatusCode != 200 || string(body) != stream {
				t.Errorf("request 3: %d %q, %v; want the stream", resp.StatusCode, body, err)
			}
		})
	}
}

// TestContentType: the client sees the wrong type, and the stream.
func TestContentType(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "content-type:text/html; charset=utf-8"), dialect("openai-chat"))
	resp, body, err := get(t, srv.URL, nil)
	if err != nil || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || string(body) != stream {
		t.Errorf("Content-Type %q, body %q, %v", resp.Header.Get("Content-Type"), body, err)
	}
}

// TestGzip: the body is gzip-encoded (a client that asks for no
// decompression sees the gzip bytes), and decodes to the stream.
func TestGzip(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "gzip"), dialect("openai-chat"))
	resp, body, err := get(t, srv.URL, &http.Transport{DisableCompression: true})
	if err != nil || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q, %v", resp.Header.Get("Content-Encoding"), err)
	}
	if !bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		t.Errorf("body starts %x; want the gzip magic", body[:min(len(body), 4)])
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || string(plain) != stream {
		t.Errorf("gunzipped %q, %v; want the stream", plain, err)
	}
	// A client that asked for gzip (Go's default transport does) gets
	// the stream decoded.
	c := &http.Client{}
	r2, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()
	if b, err := io.ReadAll(r2.Body); err != nil || string(b) != stream {
		t.Errorf("decoded by the transport: %q, %v", b, err)
	}
}

// TestHTTP10: the answer is HTTP/1.0 with no length and no chunks; the
// body ends when the connection closes.
func TestHTTP10(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "http10"), dialect("openai-chat"))
	pieces, err := rawRead(t, srv.Listener.Addr().String())
	raw := joined(pieces)
	head, body, _ := strings.Cut(raw, "\r\n\r\n")
	if !strings.HasPrefix(head, "HTTP/1.0 200 OK\r\n") || strings.Contains(head, "Transfer-Encoding") ||
		strings.Contains(head, "Content-Length") || !strings.Contains(head, "Connection: close") {
		t.Errorf("head %q; want HTTP/1.0 200, no length, no chunks, Connection: close", head)
	}
	if body != stream || err != io.EOF {
		t.Errorf("body %q, %v; want the stream, then EOF", body, err)
	}
	resp, b, err := get(t, srv.URL, nil)
	if err != nil || resp.ProtoMajor != 1 || resp.ProtoMinor != 0 || string(b) != stream || resp.ContentLength != -1 {
		t.Errorf("net/http: %s, length %d, %q, %v", resp.Proto, resp.ContentLength, b, err)
	}
}

// TestHTTP10Cut: a close-delimited answer cut short looks whole to the
// client: the cut is only in what is missing.
func TestHTTP10Cut(t *testing.T) {
	t.Parallel()
	srv := serve(t, plan(t, "http10,cut:1"), dialect("openai-chat"))
	_, body, err := get(t, srv.URL, nil)
	if err != nil || string(body) != events[0] {
		t.Errorf("body %q, %v; want the first event and a clean end", body, err)
	}
}
