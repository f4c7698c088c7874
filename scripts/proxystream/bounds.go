package main

// The measures of what a hostile or careless peer can make the proxy (and
// replay --listen) hold: heads, readers, loop, ws, replay and
// replay-clients (see main.go's comment).

import (
	"bufio"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
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
	"time"
)

// measureHeads opens n connections that each send a request head of 1 MiB
// in 64 KiB writes and never end it, then reports the proxy's peak RSS
// next to its RSS before, and how many connections it still holds after
// twice the deadline.
func measureHeads(name, bin string, up *upstream, n int, deadline time.Duration, extra []string) error {
	p, err := startProxy(bin, up, extra...)
	if err != nil {
		return err
	}
	defer p.stop()
	before := p.peakMB()
	var open atomic.Int64
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	pad := strings.Repeat("a", 64<<10)
	var wg sync.WaitGroup
	for range n {
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			return fmt.Errorf("connection %d: %w", len(conns)+1, err)
		}
		conns = append(conns, c)
		open.Add(1)
		go func() { // counts c open until the proxy closes it
			_, _ = io.Copy(io.Discard, c)
			open.Add(-1)
		}()
		wg.Go(func() {
			if _, err := io.WriteString(c, "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Pad: "); err != nil {
				return
			}
			for range 16 { // 1 MiB, and never the line's end
				if _, err := io.WriteString(c, pad); err != nil {
					return // the proxy refused the head and closed
				}
			}
		})
	}
	sent := make(chan struct{})
	go func() { wg.Wait(); close(sent) }()
	select {
	case <-sent:
	case <-time.After(2 * time.Minute):
	}
	time.Sleep(time.Second)
	peak := p.peakMB()
	wait := 2*deadline + time.Second
	time.Sleep(wait)
	fmt.Printf("heads %s: %d connections sending a head of 1 MiB: peak RSS %.0f MB (%.0f MB before); %d still open after %v more\n",
		name, n, peak, before, open.Load(), wait)
	return nil
}

// measureReaders sends n requests for an endless stream through the proxy
// and never reads the responses, then counts the upstream requests still
// open after twice the deadline: a client that stops reading must not
// hold its exchange, or the upstream connection, open.
func measureReaders(name, bin string, up *upstream, n int, deadline time.Duration, extra []string) error {
	p, err := startProxy(bin, up, extra...)
	if err != nil {
		return err
	}
	defer p.stop()
	start, open0 := up.endless.Load(), up.endlessOpen.Load()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "GET /v1/responses?endless=1 HTTP/1.1\r\nHost: x\r\n\r\n") // then never read
	}
	for t := time.Now(); up.endless.Load()-start < int64(n) && time.Since(t) < 10*time.Second; {
		time.Sleep(20 * time.Millisecond)
	}
	opened := up.endless.Load() - start
	wait := 2*deadline + time.Second
	time.Sleep(wait)
	fmt.Printf("readers %s: %d of %d upstream streams still open %v after their clients stopped reading (proxy peak RSS %.0f MB)\n",
		name, up.endlessOpen.Load()-open0, opened, wait, p.peakMB())
	return nil
}

// measureLoop starts the proxy with HTTP_PROXY naming its own listener
// and an upstream on this machine's first address that is not loopback
// (Go uses no environment proxy for a loopback host), sends one request,
// and counts the sessions it logged and the files it held 3 s later.
func measureLoop(name, bin string, up *upstream) error {
	ip := hostIP()
	if ip == "" {
		fmt.Printf("loop %s: skipped (no address but loopback)\n", name)
		return nil
	}
	upLn, err := net.Listen("tcp", net.JoinHostPort(ip, "0")) // the upstream, on that address
	if err != nil {
		return err
	}
	upSrv := &http.Server{Handler: up}
	go func() { _ = upSrv.Serve(upLn) }()
	defer upSrv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "proxy", "--no-tui", "--listen", addr, "--upstream", "http://"+upLn.Addr().String())
	cmd.Env = append(os.Environ(), "HTTP_PROXY=http://"+addr, "http_proxy=http://"+addr, "NO_PROXY=", "no_proxy=")
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		return err
	}
	p := &proxyProc{cmd: cmd, addr: addr, stderr: &stderr}
	defer p.stop()
	if err := waitListen(addr); err != nil {
		return err
	}
	status := 0
	req, _ := http.NewRequest("GET", "http://"+addr+"/v1/models", nil)
	c := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{}}
	if resp, err := c.Do(req); err == nil {
		status = resp.StatusCode
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	time.Sleep(3 * time.Second)
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid))
	log := stderr.String()
	fmt.Printf("loop %s: one request with HTTP_PROXY naming the proxy: status %d, %d sessions logged, %d files open 3s later\n",
		name, status, strings.Count(log, "streamtap: #"), len(fds))
	return nil
}

// hostIP is this machine's first IPv4 address that is not loopback.
func hostIP() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}

func waitListen(addr string) error {
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Since(start) > 10*time.Second {
			return fmt.Errorf("nothing listens on %s: %v", addr, err)
		}
	}
}

// measureWS opens a WebSocket through the proxy whose upstream sends one
// binary message of size bytes, in one frame that says so (mode one) or
// that declares 2^62 bytes (mode huge: the connection ends after size),
// reads it, and reports the proxy's peak RSS next to its peak after a
// WebSocket of one small message.
func measureWS(name, bin string, up *upstream, size int64, extra []string) error {
	p, err := startProxy(bin, up, extra...)
	if err != nil {
		return err
	}
	defer p.stop()
	if _, err := wsRead(p.addr, "one", 1000); err != nil {
		return fmt.Errorf("small message: %w\n%s", err, p.stderr)
	}
	small := p.peakMB()
	for _, mode := range []string{"one", "huge"} {
		start := time.Now()
		n, err := wsRead(p.addr, mode, size)
		if err != nil {
			return fmt.Errorf("%s message: %w (after %d bytes)\n%s", mode, err, n, p.stderr)
		}
		what := "a message of %d MB"
		if mode == "huge" {
			what = "%d MB of a frame declaring 2^62 bytes"
		}
		fmt.Printf("ws %s: "+what+" through the proxy in %.1fs: proxy peak RSS %.0f MB (%.0f MB after a message of 1 kB)\n",
			name, size/1_000_000, time.Since(start).Seconds(), p.peakMB(), small)
	}
	return nil
}

// wsRead opens a WebSocket to /ws on addr, asks the upstream for a
// message of size bytes in the given mode, and reads it: the payload
// bytes it got.
func wsRead(addr, mode string, size int64) (int64, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Minute))
	var key [16]byte
	_, _ = rand.Read(key[:])
	fmt.Fprintf(c, "GET /ws?mode=%s&size=%d HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", mode, size, base64.StdEncoding.EncodeToString(key[:]))
	br := bufio.NewReaderSize(c, 64<<10)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		return 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	var hdr [10]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return 0, err
	}
	n, err := io.Copy(io.Discard, io.LimitReader(br, size))
	if err == nil && n < size {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// serveWS answers a WebSocket handshake on /ws and sends one binary
// message: size bytes in one frame whose header says size (mode one, then
// a close frame) or 2^62 (mode huge, then the connection closes).
func serveWS(w http.ResponseWriter, r *http.Request) {
	size, _ := strconv.ParseInt(r.URL.Query().Get("size"), 10, 64)
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	h := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
		base64.StdEncoding.EncodeToString(h[:]))
	declared := uint64(size)
	if r.URL.Query().Get("mode") == "huge" {
		declared = 1 << 62
	}
	hdr := binary.BigEndian.AppendUint64([]byte{0x82, 127}, declared)
	_, _ = brw.Write(hdr)
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = byte('a' + i%26)
	}
	for left := size; left > 0; {
		k := min(left, int64(len(chunk)))
		if _, err := brw.Write(chunk[:k]); err != nil {
			return
		}
		left -= k
	}
	if declared == uint64(size) {
		_, _ = brw.Write([]byte{0x88, 2, 0x03, 0xe8}) // close 1000
	}
	_ = brw.Flush()
	if declared == uint64(size) {
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, _ = io.Copy(io.Discard, conn) // until the client closes
	}
}

// measureReplay starts `replay FILE --listen` and reports the time until
// it listens, and its peak RSS after serving the recording whole once,
// next to the recording's size.
func measureReplay(name, bin, recording string, extra []string) error {
	st, err := os.Stat(recording)
	if err != nil {
		return err
	}
	start := time.Now()
	p, err := startReplay(bin, recording, extra...)
	if err != nil {
		return err
	}
	defer p.stop()
	listening := time.Since(start)
	t, n, _, err := read("http://" + p.addr + "/")
	if err != nil {
		return fmt.Errorf("%s: %w (after %d bytes)\n%s", name, err, n, p.stderr)
	}
	fmt.Printf("replay %s: a recording of %.0f MB: listening after %.2fs, served whole (%.0f MB) in %.2fs; peak RSS %.0f MB (x%.2f the file)\n",
		name, float64(st.Size())/1e6, listening.Seconds(), float64(n)/1e6, t.Seconds(), p.peakMB(), p.peakMB()*1e6/float64(st.Size()))
	return nil
}

// startReplay runs `streamtap replay FILE --listen` on a free port.
func startReplay(bin, recording string, extra ...string) (*proxyProc, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	args := append([]string{"replay", recording, "--listen", addr, "--speed", "1000000"}, extra...)
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proxyProc{cmd: cmd, addr: addr, stderr: &stderr}
	if err := waitListen(addr); err != nil {
		p.stop()
		return nil, fmt.Errorf("%s: %w\n%s", bin, err, &stderr)
	}
	return p, nil
}

// measureReplayClients is measureClients for replay --listen: slow
// bodies, idle keep-alive connections, and clients that stop reading,
// counted open after twice the deadline.
func measureReplayClients(name, bin, recording string, slow, idle, readers int, deadline time.Duration, extra []string) error {
	p, err := startReplay(bin, recording, extra...)
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
	dial := func() (net.Conn, error) {
		c, err := net.Dial("tcp", p.addr)
		if err == nil {
			conns = append(conns, c)
		}
		return c, err
	}
	for i := range slow {
		c, err := dial()
		if err != nil {
			return err
		}
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
		open.Add(1)
		go func() { _, _ = io.Copy(io.Discard, c); open.Add(-1) }()
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
		c, err := dial()
		if err != nil {
			return err
		}
		fmt.Fprintf(c, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: "HEAD"})
		if err != nil {
			return fmt.Errorf("idle client's request: %w", err)
		}
		resp.Body.Close()
		open.Add(1)
		go func() { _, _ = io.Copy(io.Discard, br); open.Add(-1) }()
	}
	for range readers {
		c, err := dial()
		if err != nil {
			return err
		}
		fmt.Fprintf(c, "GET /reader HTTP/1.1\r\nHost: x\r\n\r\n") // then never read
	}
	wait := 2*deadline + time.Second
	time.Sleep(wait)
	served := strings.Count(p.stderr.String(), " /reader ")
	fmt.Printf("replay-clients %s: %d of %d (%d at 1 byte/s, %d idle keep-alive) still open after %v; %d of %d that stopped reading still served\n",
		name, open.Load(), slow+idle, slow, idle, wait, readers-served, readers)
	return nil
}

// errNoRecording says the replay measures need -recording.
var errNoRecording = errors.New("the replay measures need -recording FILE")
