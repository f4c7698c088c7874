package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
)

// serveReplay serves rc on a listener of its own with o, until the test
// ends, and returns its address.
func serveReplay(t *testing.T, rc *Recorded, o ReplayOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { _ = ServeReplay(ctx, ln, rc, o); close(served) }()
	t.Cleanup(func() { cancel(); <-served })
	return ln.Addr().String()
}

// bigRecording is a recording of n SSE events of size bytes each, all
// recorded at once.
func bigRecording(t *testing.T, n, size int) []byte {
	t.Helper()
	var b bytes.Buffer
	x := &capture.Exchange{Status: 200, Proto: "HTTP/1.1", HeadAt: 0,
		ResponseHeader: map[string][]string{"Content-Type": {sseType}}}
	rec := capture.NewRecorder(&b, x, capture.RecordOptions{Format: capture.FormatSSE})
	ev := []byte("data: " + strings.Repeat("x", size) + "\n\n")
	for range n {
		if err := rec.Write(ev, time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(time.Millisecond); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReplayTimesOutClients: a replay server closes a keep-alive
// connection idle for Limits.Idle, cuts a client that trickles its
// request body (408), and cuts one that stops reading the response
// (Limits.WriteTimeout). All three were held open: 70 of 70 slow or idle
// connections after 70 s, 20 of 20 that stopped reading after 120 s.
func TestReplayTimesOutClients(t *testing.T) {
	t.Parallel()
	rc, err := ReplayData("big", bigRecording(t, 2000, 4096)) // 8 MB: more than any socket buffer
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	o := ReplayOptions{Log: NewLog(logs), BodyTimeout: 300 * time.Millisecond,
		Limits: Limits{Idle: 200 * time.Millisecond, WriteTimeout: 300 * time.Millisecond}}
	addr := serveReplay(t, rc, o)

	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		io.WriteString(conn, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
		got, closed := closedWithin(conn, 10*time.Second)
		if !strings.HasPrefix(got, "HTTP/1.1 200") || !closed {
			t.Errorf("an idle keep-alive connection: read %.40q, closed %t; want a 200, then closed within 10s (idle timeout 200ms)", got, closed)
		}
	})
	t.Run("slow body", func(t *testing.T) {
		t.Parallel()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{") // then nothing
		got, closed := closedWithin(conn, 10*time.Second)
		if !strings.HasPrefix(got, "HTTP/1.1 408") || !closed {
			t.Errorf("a trickled body: read %.40q, closed %t; want a 408, then closed within 10s (body timeout 300ms)", got, closed)
		}
	})
	t.Run("stops reading", func(t *testing.T) {
		t.Parallel()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET /stops HTTP/1.1\r\nHost: x\r\n\r\n") // then never read
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), "/stops 200"); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the request of a client that stopped reading had not ended after 10s (write timeout 300ms):\n%s", logs)
			}
		}
		if l := logs.String(); !strings.Contains(l, "outcome=client-canceled") {
			t.Errorf("its log line does not say client-canceled:\n%s", l)
		}
	})
}

// A HEAD request gets the recorded status and headers at once, without
// the recording being read through: 100 of them on a recording of 200 MB
// kept their connections busy for seconds.
func TestReplayHead(t *testing.T) {
	t.Parallel()
	rc, err := ReplayData("big", bigRecording(t, 10, 100))
	if err != nil {
		t.Fatal(err)
	}
	rc.body = func() (chunkReader, io.Closer, error) {
		t.Error("a HEAD request read the recording")
		return nil, nil, io.ErrUnexpectedEOF
	}
	logs := &syncBuffer{}
	addr := serveReplay(t, rc, ReplayOptions{Log: NewLog(logs)})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "HEAD /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	got, _ := closedWithin(conn, 10*time.Second)
	if !strings.HasPrefix(got, "HTTP/1.1 200") || !strings.Contains(got, "Content-Type: "+sseType) {
		t.Errorf("HEAD: %q; want the recorded status and headers", got)
	}
}
