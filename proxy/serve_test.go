package proxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// serveSelf serves a proxy made by mk (given its own address) on a
// listener of its own, and counts its sessions.
func serveSelf(t *testing.T, mk func(self string) Options) (addr string, p *Proxy, sessions *atomic.Int64, logs *syncBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs = &syncBuffer{}
	p = New(mk(ln.Addr().String()), logs)
	sessions = new(atomic.Int64)
	p.onDone = func(*session) { sessions.Add(1) }
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { _ = p.Serve(ctx, ln); close(served) }()
	t.Cleanup(func() { cancel(); <-served })
	return ln.Addr().String(), p, sessions, logs
}

// get sends one request through the proxy and returns its status, within
// a hang guard.
func get(t *testing.T, addr, path string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a hang guard, not a timing
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+path, strings.NewReader(`{"model":"m"}`))
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestProxyRefusesLoops: a proxy whose upstream is itself forwards the
// request once; it comes back carrying the proxy's hop in its Via header
// and is refused with 508, so the client gets an answer and the proxy
// logs two sessions, not thousands.
func TestProxyRefusesLoops(t *testing.T) {
	t.Parallel()
	addr, _, sessions, logs := serveSelf(t, func(self string) Options {
		u, _ := url.Parse("http://" + self)
		return Options{Upstream: u, HeadTimeout: DefaultHeadTimeout}
	})
	if code := get(t, addr, "/v1/responses"); code != http.StatusLoopDetected {
		t.Fatalf("status %d; want 508 Loop Detected\n%s", code, logs)
	}
	waitFor(t, func() bool { return sessions.Load() >= 2 })
	time.Sleep(50 * time.Millisecond) // any session a loop would add next
	if n := sessions.Load(); n != 2 {
		t.Errorf("%d sessions; want 2 (the request and its refused return)\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "outcome=loop") {
		t.Errorf("no session logged outcome=loop:\n%s", logs)
	}
}

// TestProxySkipsEnvironmentProxyToItself: an environment proxy
// (HTTP_PROXY) naming the proxy's own listener is not used for the
// upstream: the request goes straight to the upstream, once, and the log
// says why. Through it, every upstream request came back in.
func TestProxySkipsEnvironmentProxyToItself(t *testing.T) {
	t.Parallel()
	up := slowUpstream(t, 4096, 0, nil)
	var p *Proxy
	addr, p, sessions, logs := serveSelf(t, func(self string) Options {
		u, _ := url.Parse(up.URL)
		return Options{Upstream: u, HeadTimeout: DefaultHeadTimeout}
	})
	self := "localhost:" + addr[strings.LastIndexByte(addr, ':')+1:] // another name for the listener
	p.loop.envFn = func(*http.Request) (*url.URL, error) { return url.Parse("http://user:secret@" + self) }
	if code := get(t, addr, "/v1/responses?sample=responses-single-call"); code != http.StatusOK {
		t.Fatalf("status %d; want 200 from the upstream\n%s", code, logs)
	}
	waitFor(t, func() bool { return sessions.Load() >= 1 })
	time.Sleep(50 * time.Millisecond)
	if n := sessions.Load(); n != 1 {
		t.Errorf("%d sessions; want 1\n%s", n, logs)
	}
	if l := logs.String(); !strings.Contains(l, "is this proxy: not used for the upstream") || strings.Contains(l, "secret") {
		t.Errorf("the log does not say the environment's proxy was skipped, or shows its password:\n%s", l)
	}

	// A proxy on another port is still used.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "the other proxy", http.StatusTeapot)
	}))
	defer other.Close()
	p.loop.envFn = func(*http.Request) (*url.URL, error) { return url.Parse(other.URL) }
	if code := get(t, addr, "/v1/responses?sample=responses-single-call"); code != http.StatusTeapot {
		t.Errorf("status %d through another environment proxy; want its 418", code)
	}
}

// waitFor polls cond for up to 10 s (a hang guard).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the condition did not hold within 10s")
		}
	}
}

// TestProxyBoundsHeads: a request head over MaxHeadBytes is refused with
// 431 (the server read up to 1 MiB of each), and a head still arriving
// after ClientHeadTimeout is cut.
func TestProxyBoundsHeads(t *testing.T) {
	t.Parallel()
	up := slowUpstream(t, 4096, 0, nil)
	addr, _, _, _ := serveSelf(t, func(string) Options {
		u, _ := url.Parse(up.URL)
		return Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, ClientHeadTimeout: 300 * time.Millisecond}
	})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go fmt.Fprintf(conn, "GET /v1/x HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 200<<10))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("a 200 KiB head: %v; want a 431", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a 200 KiB head: status %d; want 431", resp.StatusCode)
	}

	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	io.WriteString(slow, "GET /v1/x HTTP/1.1\r\nHost: x\r\n") // and never the rest
	if _, closed := closedWithin(slow, 10*time.Second); !closed {
		t.Error("a head still arriving after the head timeout (300ms) was not cut within 10s")
	}
}

// TestProxyCapsConnections: with MaxConns open, a new connection waits
// to be accepted; it is served once one of them closes.
func TestProxyCapsConnections(t *testing.T) {
	t.Parallel()
	up := slowUpstream(t, 4096, 0, nil)
	addr, _, _, _ := serveSelf(t, func(string) Options {
		u, _ := url.Parse(up.URL)
		return Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, MaxConns: 2}
	})
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /v1/x HTTP/1.1\r\n") // a head that is not done
		held = append(held, c)
	}
	third, err := net.Dial("tcp", addr) // the kernel's backlog takes it
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	io.WriteString(third, "GET /v1/x?whole=1 HTTP/1.1\r\nHost: x\r\n\r\n")
	answered := make(chan int, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(third), nil)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	select {
	case code := <-answered:
		t.Fatalf("a third connection was served (%d) while two were open; want it to wait", code)
	case <-time.After(300 * time.Millisecond):
	}
	held[0].Close()
	select {
	case code := <-answered:
		if code != http.StatusOK {
			t.Errorf("the waiting connection got %d; want 200", code)
		}
	case <-time.After(10 * time.Second): // a hang guard
		t.Fatal("the waiting connection was not served after one of the two closed")
	}
}

// TestProxyCutsClientThatStopsReading: a client that stops reading a
// stream is cut after ClientWriteTimeout: its session ends and the
// upstream's request is cancelled. Both were held open: 20 of 20 after
// 120 s.
func TestProxyCutsClientThatStopsReading(t *testing.T) {
	t.Parallel()
	upDone := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(upDone)
		w.Header().Set("Content-Type", sseType)
		rc := http.NewResponseController(w)
		chunk := []byte("data: " + strings.Repeat("x", 32<<10) + "\n\n")
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			_ = rc.Flush()
		}
	}))
	defer up.Close()
	addr, _, sessions, logs := serveSelf(t, func(string) Options {
		u, _ := url.Parse(up.URL)
		return Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, ClientWriteTimeout: 300 * time.Millisecond}
	})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /v1/responses HTTP/1.1\r\nHost: x\r\n\r\n") // then never read
	waitFor(t, func() bool { return sessions.Load() == 1 })
	select {
	case <-upDone:
	case <-time.After(10 * time.Second): // a hang guard
		t.Fatal("the upstream's request was still open 10s after the client was cut")
	}
	if l := logs.String(); !strings.Contains(l, "outcome=client-canceled") {
		t.Errorf("the session's outcome is not client-canceled:\n%s", l)
	}
}

// TestProxyWriteDeadlineSparesQuietStreams: the write deadline counts
// from each write, so a stream that goes quiet for longer than it (a
// reasoning model thinking, the upstream's pause before it closes) still
// ends whole: the response's end, written after the handler returns,
// gets a deadline of its own.
func TestProxyWriteDeadlineSparesQuietStreams(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sseType)
		rc := http.NewResponseController(w)
		io.WriteString(w, "data: {\"a\":1}\n\n")
		_ = rc.Flush()
		time.Sleep(600 * time.Millisecond) // quiet for longer than the write deadline
		io.WriteString(w, "data: {\"a\":2}\n\n")
		_ = rc.Flush()
		time.Sleep(600 * time.Millisecond) // and again before it ends
	}))
	defer up.Close()
	addr, _, _, logs := serveSelf(t, func(string) Options {
		u, _ := url.Parse(up.URL)
		return Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, ClientWriteTimeout: 200 * time.Millisecond}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a hang guard
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/v1/responses", nil)
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || strings.Count(string(body), "data: ") != 2 {
		t.Errorf("read %q, %v; want both events and the response's end\n%s", body, err, logs)
	}
}
