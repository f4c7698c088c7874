package proxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
)

// bodyByte is the deterministic filler of a request body: byte i of the
// body is bodyBytes(i).
func bodyByte(i int64) byte { return "0123456789abcdefghijklmnopqrstuvwxyz"[i*7%36] }

// writeBody writes bytes [from, to) of the body to w.
func writeBody(w io.Writer, from, to int64) error {
	buf := make([]byte, 32<<10)
	for off := from; off < to; {
		n := min(int64(len(buf)), to-off)
		for i := range n {
			buf[i] = bodyByte(off + i)
		}
		if _, err := w.Write(buf[:n]); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// countingUpstream reads each request body as it arrives, counting and
// hashing it, then answers with a small SSE stream. got receives what it
// read.
type countingUpstream struct {
	read atomic.Int64
	got  chan upload
}

type upload struct {
	n   int64
	sum [sha256.Size]byte
	err error
}

func (u *countingUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := sha256.New()
	buf := make([]byte, 32<<10)
	var n int64
	var err error
	for {
		var k int
		k, err = r.Body.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		u.read.Add(int64(k))
		if err != nil {
			break
		}
	}
	if err == io.EOF {
		err = nil
	}
	u.got <- upload{n: n, sum: [sha256.Size]byte(h.Sum(nil)), err: err}
	w.Header().Set("Content-Type", sseType)
	io.WriteString(w, "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"status\":\"completed\",\"output\":[]}}\n\n")
}

// TestProxyStreamsRequestBody: a request body over MaxRequestKept is
// streamed upstream as the client sends it, with or without a
// Content-Length: the upstream has bytes beyond the kept prefix while the
// client is still sending, and gets the body unchanged; the session, its
// recording and its HAR entry keep the prefix and say the body's size.
// The proxy used to read up to 64 MiB of a body before forwarding any of
// it (8 uploads of 100 MB peaked at 1,440 MB): the upstream got nothing
// until the client had sent it all.
func TestProxyStreamsRequestBody(t *testing.T) {
	t.Parallel()
	const total = MaxRequestKept + 2<<20 + 12345 // the prefix and 1 MiB, then the rest once the upstream has them
	for _, known := range []bool{true, false} {
		t.Run(fmt.Sprintf("content-length=%v", known), func(t *testing.T) {
			t.Parallel()
			up := &countingUpstream{got: make(chan upload, 1)}
			upSrv := httptest.NewServer(up)
			defer closeUnlessFailed(t, upSrv)
			dir := t.TempDir()
			harPath, har := openHAR(t)
			u, _ := url.Parse(upSrv.URL)
			logs := &syncBuffer{}
			p := New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, Record: dir, HAR: har, BodyTimeout: DefaultBodyTimeout}, logs)
			done := make(chan *session, 1)
			p.onDone = func(s *session) { done <- s }
			srv := httptest.NewServer(p)
			defer closeUnlessFailed(t, srv)

			pr, pw := io.Pipe()
			defer pw.Close()
			req, _ := http.NewRequest("POST", srv.URL+"/v1/responses", pr)
			req.Header.Set("Content-Type", "application/json")
			if known {
				req.ContentLength = total
			}
			respc := make(chan error, 1)
			go func() {
				resp, err := rawClient.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				respc <- err
			}()
			// Send the kept prefix and 1 MiB more, then wait for the
			// upstream to have read past the prefix before sending the rest.
			sent := int64(MaxRequestKept + 1<<20)
			if err := writeBody(pw, 0, sent); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(time.Minute); up.read.Load() < sent; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					pw.CloseWithError(errors.New("test over"))
					t.Fatalf("the upstream read %d bytes of the %d the client sent: the proxy holds the body back", up.read.Load(), sent)
				}
			}
			if err := writeBody(pw, sent, total); err != nil {
				t.Fatal(err)
			}
			pw.Close()
			if err := <-respc; err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			_ = writeBody(h, 0, total)
			if got := <-up.got; got.err != nil || got.n != total || got.sum != [sha256.Size]byte(h.Sum(nil)) {
				t.Fatalf("upstream got %d bytes (err %v, same bytes %v); want the %d sent", got.n, got.err, got.sum == [sha256.Size]byte(h.Sum(nil)), total)
			}

			s := waitSession(t, done)
			wantSize := int64(-1)
			if known {
				wantSize = total
			}
			var prefix bytes.Buffer
			_ = writeBody(&prefix, 0, MaxRequestKept)
			if !bytes.Equal(s.reqBody, prefix.Bytes()) || s.reqSize != wantSize || s.state != "completed" {
				t.Errorf("session keeps %d bytes (the prefix: %v), size %d, outcome %q; want %d, %d, completed\n%s",
					len(s.reqBody), bytes.Equal(s.reqBody, prefix.Bytes()), s.reqSize, s.state, MaxRequestKept, wantSize, logs)
			}
			data, err := os.ReadFile(s.recPath)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := capture.ParseRecording(data)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(rec.RequestBody, prefix.Bytes()) || rec.RequestBodySize != wantSize {
				t.Errorf("recording: request body of %d bytes, size %d; want the %d-byte prefix, size %d", len(rec.RequestBody), rec.RequestBodySize, MaxRequestKept, wantSize)
			}
			if err := har.Close(); err != nil {
				t.Fatal(err)
			}
			harData, err := os.ReadFile(harPath)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf(`"bodySize":%d`, wantSize); !bytes.Contains(harData, []byte(want)) {
				t.Errorf("HAR lacks %s", want)
			}
		})
	}
}

// TestProxyKeepsSmallBodyWhole: a body up to MaxRequestKept is read whole
// before forwarding, parsed, and recorded whole, as before.
func TestProxyKeepsSmallBodyWhole(t *testing.T) {
	t.Parallel()
	up := &countingUpstream{got: make(chan upload, 1)}
	upSrv := httptest.NewServer(up)
	t.Cleanup(upSrv.Close)
	proxyURL, done, _ := startProxy(t, upSrv.URL, nil)
	body := `{"model":"gpt-test","stream":true,"tools":[{"type":"function","name":"f"}],"input":"` + strings.Repeat("x", MaxRequestKept-100) + `"}`
	resp, err := rawClient.Post(proxyURL+"/v1/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if got := <-up.got; got.n != int64(len(body)) || got.sum != sha256.Sum256([]byte(body)) {
		t.Fatalf("upstream got %d bytes; want the %d sent", got.n, len(body))
	}
	s := waitSession(t, done)
	if string(s.reqBody) != body || s.reqSize != 0 || s.req.Model != "gpt-test" || len(s.req.Tools) != 1 {
		t.Errorf("session: %d bytes kept, size %d, model %q, tools %v; want the whole %d, 0, gpt-test, [f]", len(s.reqBody), s.reqSize, s.req.Model, s.req.Tools, len(body))
	}
}

// serveProxy runs the proxy with Serve, as the command does (its
// http.Server holds the client deadlines), and returns its address.
func serveProxy(t *testing.T, o Options) (string, chan *session, *syncBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	p := New(o, logs)
	done := make(chan *session, 16)
	p.onDone = func(s *session) { done <- s }
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { _ = p.Serve(ctx, ln); close(served) }()
	t.Cleanup(func() { cancel(); <-served })
	return ln.Addr().String(), done, logs
}

// closedWithin reads conn until the proxy closes it and returns what it
// read; ok is false when the connection was still open after limit (a
// liveness bound: the proxy closes it far sooner).
func closedWithin(conn net.Conn, limit time.Duration) (got string, ok bool) {
	_ = conn.SetReadDeadline(time.Now().Add(limit))
	b, err := io.ReadAll(conn)
	var ne net.Error
	return string(b), !(errors.As(err, &ne) && ne.Timeout())
}

// TestProxyCutsSlowClients: a client that trickles its request body
// (slow-loris) is answered 408 and its connection closed once
// BodyTimeout has been spent waiting for it, whether it trickles from
// the start or after a first MaxRequestKept bytes at full speed (then
// the rest is being streamed upstream); its session says client-timeout.
// A client sending steadily at well over MinBodyRate gets through, though
// it takes several BodyTimeouts. There used to be no deadline after the
// head: 20 clients sending 1 byte/s were all still open after 50 s.
func TestProxyCutsSlowClients(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: it waits out the body deadline several times (about 4 s); the full suite runs it")
	}
	t.Parallel()
	const timeout = 300 * time.Millisecond
	up := &countingUpstream{got: make(chan upload, 8)}
	upSrv := httptest.NewServer(up)
	t.Cleanup(upSrv.Close)
	u, _ := url.Parse(upSrv.URL)
	addr, done, logs := serveProxy(t, Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, BodyTimeout: timeout})

	for _, fast := range []int64{0, MaxRequestKept + 4096} {
		t.Run(fmt.Sprintf("after %d bytes", fast), func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", fast+1_000_000)
			if err := writeBody(conn, 0, fast); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			defer close(stop)
			go func() { // 1 byte every 50 ms, until the proxy hangs up
				for i := fast; ; i++ {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					if _, err := conn.Write([]byte{bodyByte(i)}); err != nil {
						return
					}
				}
			}()
			got, closed := closedWithin(conn, 30*time.Second)
			if !closed {
				t.Fatalf("the slow client's connection was still open after 30s (body timeout %v)", timeout)
			}
			if !strings.HasPrefix(got, "HTTP/1.1 408 ") {
				t.Errorf("the slow client got %.80q; want a 408", got)
			}
			s := waitSession(t, done)
			if s.state != "client-timeout" || !errors.Is(s.err, ErrBodyTimeout) {
				t.Errorf("session outcome %q, error %v; want client-timeout, %v\n%s", s.state, s.err, ErrBodyTimeout, logs)
			}
			if fast > 0 { // the upstream had the start of the body, then a cut request
				if got := <-up.got; got.err == nil || got.n < fast {
					t.Errorf("upstream read %d bytes, error %v; want the %d sent fast, then an error", got.n, got.err, fast)
				}
			}
		})
	}

	t.Run("steady", func(t *testing.T) {
		// 320 KiB at about 100 KiB/s: 3 s, three body timeouts, each
		// write 0.15 s after the last.
		const chunk, chunks = 16 << 10, 20
		addr, done, logs := serveProxy(t, Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, BodyTimeout: time.Second})
		pr, pw := io.Pipe()
		go func() {
			for i := range int64(chunks) {
				time.Sleep(150 * time.Millisecond)
				if err := writeBody(pw, i*chunk, (i+1)*chunk); err != nil {
					return
				}
			}
			pw.Close()
		}()
		req, _ := http.NewRequest("POST", "http://"+addr+"/v1/responses", pr)
		req.ContentLength = chunk * chunks
		resp, err := rawClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("a steady upload got %d; want 200", resp.StatusCode)
		}
		if got := <-up.got; got.n != chunk*chunks {
			t.Errorf("upstream got %d bytes; want %d", got.n, chunk*chunks)
		}
		if s := waitSession(t, done); s.state != "completed" {
			t.Errorf("steady upload: outcome %q; want completed\n%s", s.state, logs)
		}
	})
}

// TestProxyClosesIdleConnections: a keep-alive connection that sends no
// new request for ClientIdle is closed; one that does is kept. They used to stay open: 100
// idle keep-alive connections were all open after 45 s.
func TestProxyClosesIdleConnections(t *testing.T) {
	t.Parallel()
	up := slowUpstream(t, 4096, 0, nil)
	u, _ := url.Parse(up.URL)
	addr, done, _ := serveProxy(t, Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, ClientIdle: 200 * time.Millisecond})

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	for i := range 2 { // the connection is reused while requests come
		fmt.Fprintf(conn, "GET /v1/x?whole=1 HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d on the kept-alive connection: %v", i+1, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		waitSession(t, done)
	}
	if _, closed := closedWithin(conn, 30*time.Second); !closed {
		t.Fatal("an idle keep-alive connection was still open after 30s (client idle timeout 200ms)")
	}
}
