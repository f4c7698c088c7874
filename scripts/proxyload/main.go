// Command proxyload drives `streamtap proxy` on loopback for
// scripts/proxy-sessions.sh: it serves a generated stream as the upstream,
// or sends sessions through the proxy as a client.
//
//	proxyload upstream -listen 127.0.0.1:9001 -body stream.sse [-gap 20ms]
//	proxyload drive -proxy http://127.0.0.1:9002 -n 2000 -c 4
//	proxyload port
//
// The upstream answers every request with the body file as
// text/event-stream, in 4 KiB writes, each flushed (and -gap apart, so
// that sessions overlap), so the proxy sees a stream and not one block. The driver sends n POST /v1/responses
// requests, c at a time, reads every response whole, and fails unless each
// one came back complete and 200. On success it prints one line of
// key=value facts to stdout. port prints a free loopback port.
//
// It imports only the standard library and is not part of streamtap.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fatal(errors.New("usage: proxyload upstream|drive [flags]"))
	}
	switch os.Args[1] {
	case "upstream":
		upstream(os.Args[2:])
	case "drive":
		drive(os.Args[2:])
	case "port":
		port()
	default:
		fatal(fmt.Errorf("unknown mode %q (want upstream or drive)", os.Args[1]))
	}
}

func upstream(args []string) {
	fs := flag.NewFlagSet("upstream", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:0", "listen on ADDR")
	bodyPath := fs.String("body", "", "the stream FILE to serve")
	gap := fs.Duration("gap", 0, "wait DURATION between two writes")
	_ = fs.Parse(args)
	body, err := os.ReadFile(*bodyPath)
	if err != nil {
		fatal(err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fatal(err)
	}
	fmt.Println(ln.Addr().String())
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		rc := http.NewResponseController(w)
		for rest := body; len(rest) > 0; {
			n := min(4096, len(rest))
			if _, err := w.Write(rest[:n]); err != nil {
				return
			}
			_ = rc.Flush()
			rest = rest[n:]
			if *gap > 0 && len(rest) > 0 {
				time.Sleep(*gap)
			}
		}
	})
	fatal(http.Serve(ln, h))
}

// port prints a loopback port free at the time of asking.
func port() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
}

func drive(args []string) {
	fs := flag.NewFlagSet("drive", flag.ExitOnError)
	proxy := fs.String("proxy", "", "the proxy's base URL")
	n := fs.Int("n", 100, "sessions to send")
	c := fs.Int("c", 4, "sessions at a time")
	_ = fs.Parse(args)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *c, DisableCompression: true}}
	req := []byte(`{"model":"gpt-load","stream":true,"input":"hello"}`)
	var next, bytesIn atomic.Int64
	var firstErr error
	var mu sync.Mutex
	start := time.Now()
	var wg sync.WaitGroup
	for range *c {
		wg.Go(func() {
			for next.Add(1) <= int64(*n) {
				resp, err := client.Post(*proxy+"/v1/responses", "application/json", bytes.NewReader(req))
				if err == nil {
					var k int64
					k, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					bytesIn.Add(k)
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		fatal(firstErr)
	}
	el := time.Since(start)
	fmt.Printf("sessions=%d bytes=%d seconds=%.3f\n", *n, bytesIn.Load(), el.Seconds())
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "proxyload:", err)
	os.Exit(2)
}
