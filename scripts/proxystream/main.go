// Command proxystream measures `streamtap proxy` against an upstream it
// runs itself, on loopback, and prints one line of facts per measure:
//
//	go run ./scripts/proxystream -bin ./streamtap -capture big.sse
//
// It starts the proxy binary (-bin, and -base for a baseline binary
// measured the same way in the same run) as `proxy --no-tui` in front of
// an upstream of its own, and runs:
//
//   - uploads: -uploads parallel POSTs of -upload-size bytes each
//     (generated, never held), after a warm-up of as many 1 kB uploads.
//     The upstream checks every byte arrived (count and sha256). It
//     reports the proxy's peak RSS (VmHWM) after the warm-up and after
//     the uploads, and the time against the same uploads sent straight to
//     the upstream.
//   - stream: each -capture file served as text/event-stream, read by a
//     client straight from the upstream and through a fresh proxy, best
//     of -runs each; the client's bytes are checked (sha256) against the
//     file. It reports MB/s both ways, their ratio and the proxy's peak
//     RSS. A proxy that stalls on a large event fails with a timeout.
//   - latency: a stream of -latency-events Responses deltas of
//     -latency-size bytes, one every -latency-gap, each stamped as it is
//     written: the percentiles of each event's latency straight from the
//     upstream and through the proxy, and what the proxy adds (latency.go).
//   - clients: -slow clients sending their request body at 1 byte/s and
//     -idle keep-alive connections left idle after one request, then
//     counts how many the proxy still holds open after twice -deadline
//     (plus a second); -bin runs with --client-body-timeout and
//     --client-idle-timeout set to -deadline, -base with its defaults.
//   - heads: -heads connections each sending a request head of 1 MiB
//     (64 KiB writes, never ended): the proxy's peak RSS, and how many it
//     holds open after twice -deadline (-bin with --client-head-timeout).
//   - readers: -readers clients asking for an endless stream and never
//     reading it: how many upstream streams are still open after twice
//     -deadline (-bin with --client-write-timeout).
//   - loop: the proxy with HTTP_PROXY naming its own listener, in front
//     of an upstream on a non-loopback address: the sessions it logs and
//     the files it holds 3 s after one request.
//   - ws: a WebSocket whose upstream sends one binary message of -ws-size
//     bytes, in a frame that says so and in one that declares 2^62 bytes:
//     the proxy's peak RSS, next to its peak after a message of 1 kB.
//   - replay: `replay -recording --listen`: the time until it listens,
//     and its peak RSS after serving the recording once, against the
//     file's size.
//   - replay-clients: the clients measure and -readers against replay
//     --listen (-bin with its client flags at -deadline).
//
// It imports only the standard library and is not part of streamtap.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the streamtap binary to measure (required)")
	base := flag.String("base", "", "a baseline streamtap binary, measured the same way")
	uploads := flag.Int("uploads", 8, "parallel uploads")
	uploadSize := flag.Int64("upload-size", 100_000_000, "bytes per upload")
	var captures multi
	flag.Var(&captures, "capture", "an SSE file to stream through the proxy (repeatable)")
	runs := flag.Int("runs", 3, "timed runs per stream, best kept")
	slow := flag.Int("slow", 20, "clients sending their body at 1 byte/s")
	idle := flag.Int("idle", 100, "idle keep-alive connections")
	deadline := flag.Duration("deadline", 2*time.Second, "the --client-*-timeout flags of -bin")
	heads := flag.Int("heads", 600, "connections sending a head of 1 MiB")
	readers := flag.Int("readers", 20, "clients that stop reading")
	wsSize := flag.Int64("ws-size", 500_000_000, "bytes of the WebSocket message")
	recording := flag.String("recording", "", "a timed recording for the replay measures")
	latencyEvents := flag.Int("latency-events", 20000, "events of the latency measure")
	latencySize := flag.Int("latency-size", 1000, "bytes of each event of the latency measure")
	latencyRounds := flag.Int("latency-rounds", 4, "rounds of the latency measure, alternated between direct and the proxy")
	latencyGap := flag.Duration("latency-gap", 200*time.Microsecond, "time between two events of the latency measure")
	only := flag.String("only", "uploads,stream,clients", "which measures to run (also latency,heads,readers,loop,ws,replay,replay-clients)")
	flag.Parse()
	if *bin == "" {
		fatal(errors.New("-bin is required"))
	}
	bins := []string{*bin}
	if *base != "" {
		bins = append(bins, *base)
	}
	up := startUpstream()
	defer up.srv.Close()
	want := func(m string) bool { return strings.Contains(","+*only+",", ","+m+",") }

	failed := false
	for i, b := range bins {
		name := "bin"
		if i == 1 {
			name = "base"
		}
		check := func(err error) { // a baseline may fail what it is compared on
			if err != nil {
				fmt.Printf("FAILED %s: %v\n", name, err)
				failed = failed || name == "bin"
			}
		}
		if want("uploads") {
			check(measureUploads(name, b, up, *uploads, *uploadSize))
		}
		if want("stream") {
			for _, c := range captures {
				check(measureStream(name, b, up, c, *runs))
			}
		}
		if want("latency") {
			check(measureLatency(name, b, up, *latencyEvents, *latencySize, *latencyRounds, *latencyGap))
		}
		var clientFlags []string // the bounds of -bin; -base keeps its defaults (it may lack the flags)
		if i == 0 {
			d := deadline.String()
			clientFlags = []string{"--client-body-timeout", d, "--client-idle-timeout", d, "--client-head-timeout", d, "--client-write-timeout", d}
		}
		if want("clients") {
			extra := clientFlags
			if i == 0 {
				extra = clientFlags[:4]
			}
			check(measureClients(name, b, up, *slow, *idle, *deadline, extra))
		}
		if want("heads") {
			check(measureHeads(name, b, up, *heads, *deadline, clientFlags))
		}
		if want("readers") {
			check(measureReaders(name, b, up, *readers, *deadline, clientFlags))
		}
		if want("loop") {
			check(measureLoop(name, b, up))
		}
		if want("ws") {
			check(measureWS(name, b, up, *wsSize, nil))
		}
		if want("replay") || want("replay-clients") {
			if *recording == "" {
				fatal(errNoRecording)
			}
		}
		if want("replay") {
			check(measureReplay(name, b, *recording, nil))
		}
		if want("replay-clients") {
			check(measureReplayClients(name, b, *recording, *slow, *idle, *readers, *deadline, clientFlags))
		}
	}
	if failed {
		os.Exit(1)
	}
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "proxystream:", err)
	os.Exit(2)
}

// upstream answers POSTs by reading the body (counting and hashing it)
// and GETs of /file?path=P by serving that file as SSE.
type upstream struct {
	srv  *http.Server
	addr string
	mu   sync.Mutex
	got  []received

	endless     atomic.Int64 // endless streams started
	endlessOpen atomic.Int64 // endless streams not ended
}

type received struct {
	n   int64
	sum [sha256.Size]byte
	err error
}

func startUpstream() *upstream {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	u := &upstream{addr: ln.Addr().String()}
	u.srv = &http.Server{Handler: u}
	go func() { _ = u.srv.Serve(ln) }()
	return u
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/ws":
		serveWS(w, r)
		return
	case r.URL.Query().Get("endless") != "":
		u.serveEndless(w, r)
		return
	case r.URL.Query().Get("latency") != "":
		u.serveLatency(w, r)
		return
	}
	if p := r.URL.Query().Get("path"); p != "" {
		f, err := os.Open(p)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.Copy(w, f)
		return
	}
	h := sha256.New()
	n, err := io.Copy(h, r.Body)
	if r.Method == http.MethodPost {
		u.mu.Lock()
		u.got = append(u.got, received{n: n, sum: [sha256.Size]byte(h.Sum(nil)), err: err})
		u.mu.Unlock()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	// The driver reads this, or has hung up: nothing to do either way.
	_, _ = io.WriteString(w, "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"status\":\"completed\",\"output\":[]}}\n\n")
}

// serveEndless sends SSE events of 32 KiB until the request is cancelled.
func (u *upstream) serveEndless(w http.ResponseWriter, r *http.Request) {
	u.endless.Add(1)
	u.endlessOpen.Add(1)
	defer u.endlessOpen.Add(-1)
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	ev := []byte("data: " + strings.Repeat("x", 32<<10) + "\n\n")
	for r.Context().Err() == nil {
		if _, err := w.Write(ev); err != nil {
			return
		}
		_ = rc.Flush()
	}
}

func (u *upstream) take() []received {
	u.mu.Lock()
	defer u.mu.Unlock()
	g := u.got
	u.got = nil
	return g
}

// proxyProc is a running `streamtap proxy`.
type proxyProc struct {
	cmd    *exec.Cmd
	addr   string
	stderr *strings.Builder
}

func startProxy(bin string, up *upstream, extra ...string) (*proxyProc, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	args := append([]string{"proxy", "--no-tui", "--listen", addr, "--upstream", "http://" + up.addr}, extra...)
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proxyProc{cmd: cmd, addr: addr, stderr: &stderr}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return p, nil
		}
		if time.Since(start) > 10*time.Second {
			p.stop()
			return nil, fmt.Errorf("%s did not listen on %s: %v", bin, addr, err)
		}
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// peakMB is the proxy's peak resident set so far (VmHWM), in MB.
func (p *proxyProc) peakMB() float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb * 1024 / 1e6
		}
	}
	return -1
}

func (p *proxyProc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

var client = &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 64}}

// pattern is the body of the uploads, repeated.
var pattern = func() []byte {
	b := make([]byte, 64<<10)
	for i := range b {
		b[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[i*7%36]
	}
	return b
}()

type patternReader struct{ off, size int64 }

func (r *patternReader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	n := copy(p[:min(int64(len(p)), r.size-r.off)], pattern[r.off%int64(len(pattern)):])
	r.off += int64(n)
	return n, nil
}

func patternSum(size int64) [sha256.Size]byte {
	h := sha256.New()
	_, _ = io.Copy(h, &patternReader{size: size})
	return [sha256.Size]byte(h.Sum(nil))
}

// upload sends n parallel uploads of size bytes to base and checks that
// the upstream got each whole.
func upload(base string, up *upstream, n int, size int64) (time.Duration, error) {
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", base+"/v1/responses", &patternReader{size: size})
			req.ContentLength = size
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				errs <- err
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				errs <- fmt.Errorf("upload: status %d", resp.StatusCode)
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	close(errs)
	for err := range errs {
		return took, err
	}
	want := patternSum(size)
	got := up.take()
	if len(got) != n {
		return took, fmt.Errorf("upstream got %d uploads; want %d", len(got), n)
	}
	for _, g := range got {
		if g.err != nil || g.n != size || g.sum != want {
			return took, fmt.Errorf("upstream got %d bytes (err %v, same bytes %v); want %d", g.n, g.err, g.sum == want, size)
		}
	}
	return took, nil
}

func measureUploads(name, bin string, up *upstream, n int, size int64) error {
	direct, err := upload("http://"+up.addr, up, n, size)
	if err != nil {
		return fmt.Errorf("direct uploads: %w", err)
	}
	p, err := startProxy(bin, up)
	if err != nil {
		return err
	}
	defer p.stop()
	if _, err := upload("http://"+p.addr, up, n, 1000); err != nil {
		return fmt.Errorf("%s warm-up: %w\n%s", name, err, p.stderr)
	}
	warm := p.peakMB()
	took, err := upload("http://"+p.addr, up, n, size)
	if err != nil {
		return fmt.Errorf("%s uploads: %w\n%s", name, err, p.stderr)
	}
	fmt.Printf("uploads %s: %d x %d MB: peak RSS %.0f MB (after %d x 1 kB: %.0f MB); %.2fs through the proxy, %.2fs direct (x%.2f)\n",
		name, n, size/1_000_000, p.peakMB(), n, warm, took.Seconds(), direct.Seconds(), took.Seconds()/direct.Seconds())
	return nil
}

// read reads url to its end, and returns the time, the bytes and their
// sha256; a stall of a minute fails it.
func read(url string) (time.Duration, int64, [sha256.Size]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, [sha256.Size]byte{}, err
	}
	defer resp.Body.Close()
	h := sha256.New()
	n, err := io.Copy(h, resp.Body)
	return time.Since(start), n, [sha256.Size]byte(h.Sum(nil)), err
}

func measureStream(name, bin string, up *upstream, path string, runs int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	h := sha256.New()
	size, err := io.Copy(h, f)
	f.Close()
	if err != nil {
		return err
	}
	want := [sha256.Size]byte(h.Sum(nil))
	p, err := startProxy(bin, up)
	if err != nil {
		return err
	}
	defer p.stop()
	best := func(base string) (time.Duration, error) {
		var b time.Duration
		for range runs {
			t, n, sum, err := read(base + "/v1/responses?path=" + path)
			if err != nil {
				return 0, fmt.Errorf("%s: %w (after %d of %d bytes)", base, err, n, size)
			}
			if n != size || sum != want {
				return 0, fmt.Errorf("%s: %d bytes, same %v; want the file's %d", base, n, sum == want, size)
			}
			if b == 0 || t < b {
				b = t
			}
		}
		return b, nil
	}
	direct, err := best("http://" + up.addr)
	if err != nil {
		return err
	}
	proxied, err := best("http://" + p.addr)
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", name, err, p.stderr)
	}
	mb := float64(size) / 1e6
	fmt.Printf("stream %s: %s (%.0f MB): %.0f MB/s through the proxy, %.0f MB/s direct (x%.2f the time); proxy peak RSS %.0f MB\n",
		name, path[strings.LastIndex(path, "/")+1:], mb, mb/proxied.Seconds(), mb/direct.Seconds(), proxied.Seconds()/direct.Seconds(), p.peakMB())
	return nil
}

func measureClients(name, bin string, up *upstream, slow, idle int, deadline time.Duration, extra []string) error {
	p, err := startProxy(bin, up, extra...)
	if err != nil {
		return err
	}
	defer p.stop()
	var open atomic.Int64
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	watch := func(c net.Conn, r io.Reader) { // counts c open until the proxy closes it
		open.Add(1)
		go func() {
			_, _ = io.Copy(io.Discard, r)
			open.Add(-1)
		}()
	}
	for i := range slow {
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
		watch(c, c)
		go func() {
			for {
				if _, err := c.Write([]byte{"0123456789"[i%10]}); err != nil {
					return
				}
				time.Sleep(time.Second)
			}
		}()
	}
	for range idle {
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return fmt.Errorf("idle client's request: %w", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		watch(c, br)
	}
	wait := 2*deadline + time.Second
	time.Sleep(wait)
	fmt.Printf("clients %s: %d of %d (%d at 1 byte/s, %d idle keep-alive) still open after %v\n",
		name, open.Load(), slow+idle, slow, idle, wait)
	return nil
}
