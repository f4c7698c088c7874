package capture

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// rwc is a server connection for tests: reads come from r, writes go to w.
type rwc struct {
	io.Reader
	w      bytes.Buffer
	closed int
}

func (c *rwc) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c *rwc) Close() error                { c.closed++; return nil }

// TestDuplexTeeDelivery: both directions pass unchanged; a server chunk
// reaches the sink only after the reader has had it, a client chunk after
// it was written; done reports how the server's side ended, once.
func TestDuplexTeeDelivery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		readAll bool
		want    error
	}{
		{"clean end", true, nil},
		{"closed early", false, ErrClosedEarly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			conn := &rwc{Reader: strings.NewReader("abcdef")}
			var got []string
			var end error
			calls := 0
			tee := NewDuplexTee(conn, time.Now(),
				func(from WSDir, p []byte, _ time.Duration) { got = append(got, from.String()+":"+string(p)) },
				func(err error, _ time.Duration) { end = err; calls++ })
			buf := make([]byte, 2)
			if n, _ := tee.Read(buf); n != 2 || string(buf) != "ab" || len(got) != 0 {
				t.Fatalf("after the first read: %q, sink has %q; want ab and nothing yet", buf[:n], got)
			}
			if n, err := tee.Write([]byte("XY")); n != 2 || err != nil || conn.w.String() != "XY" {
				t.Fatalf("Write = %d, %v; server got %q", n, err, conn.w.String())
			}
			if tt.readAll {
				_, _ = io.Copy(io.Discard, tee)
			}
			_ = tee.Close()
			_ = tee.Close()
			want := "server:ab client:XY" // in the order they arrived
			if tt.readAll {
				want += " server:cdef"
			}
			if strings.Join(got, " ") != want || !errors.Is(end, tt.want) || calls != 1 || conn.closed != 2 {
				t.Fatalf("sink got %q, done(%v) %d times, %d closes; want %q, done(%v) once", got, end, calls, conn.closed, want, tt.want)
			}
			// After Close the bytes still pass, unrecorded.
			if n, _ := tee.Write([]byte("late")); n != 4 || strings.Contains(strings.Join(got, " "), "late") {
				t.Errorf("a write after Close: %d bytes, sink %q", n, got)
			}
		})
	}
}

// TestDuplexTeeConcurrent: both directions at once over a real connection
// (run with -race): every byte arrives and is handed to the sink once.
func TestDuplexTeeConcurrent(t *testing.T) {
	t.Parallel()
	proxySide, server := net.Pipe()
	seen := map[WSDir]*bytes.Buffer{WSClient: {}, WSServer: {}}
	tee := NewDuplexTee(proxySide, time.Now(),
		func(from WSDir, p []byte, _ time.Duration) { seen[from].Write(p) },
		func(error, time.Duration) {})
	up, down := bytes.Repeat([]byte("u"), 100000), bytes.Repeat([]byte("d"), 100000)
	var wg sync.WaitGroup
	var atServer bytes.Buffer
	wg.Go(func() { _, _ = io.Copy(&atServer, server) }) // until the tee closes
	wg.Go(func() { _, _ = server.Write(down) })
	var writes sync.WaitGroup
	writes.Go(func() {
		for off := 0; off < len(up); off += 7000 {
			_, _ = tee.Write(up[off:min(off+7000, len(up))])
		}
	})
	var atClient bytes.Buffer
	buf := make([]byte, 4096)
	for atClient.Len() < len(down) {
		n, err := tee.Read(buf)
		atClient.Write(buf[:n])
		if err != nil {
			t.Fatal(err)
		}
	}
	writes.Wait() // net.Pipe writes return once the other end has read them
	_ = tee.Close()
	wg.Wait()
	if !bytes.Equal(atClient.Bytes(), down) || !bytes.Equal(seen[WSServer].Bytes(), down) {
		t.Errorf("server → client: client got %d, sink %d of %d bytes", atClient.Len(), seen[WSServer].Len(), len(down))
	}
	if !bytes.Equal(atServer.Bytes(), up) || !bytes.Equal(seen[WSClient].Bytes(), up) {
		t.Errorf("client → server: server got %d, sink %d of %d bytes", atServer.Len(), seen[WSClient].Len(), len(up))
	}
}

// slowWrites is a server connection whose writes wait for a signal.
type slowWrites struct {
	io.Reader
	started, release chan struct{}
}

func (c *slowWrites) Write(p []byte) (int, error) {
	close(c.started)
	<-c.release
	return len(p), nil
}
func (c *slowWrites) Close() error { return nil }

// TestDuplexTeeOrder: server bytes read while a client chunk is on its way
// to the server came after it, and reach the sink after it, even when the
// write returns later.
func TestDuplexTeeOrder(t *testing.T) {
	t.Parallel()
	conn := &slowWrites{Reader: strings.NewReader("answer"), started: make(chan struct{}), release: make(chan struct{})}
	var got []string
	tee := NewDuplexTee(conn, time.Now(),
		func(from WSDir, p []byte, _ time.Duration) { got = append(got, from.String()+":"+string(p)) },
		func(error, time.Duration) {})
	wrote := make(chan struct{})
	go func() { _, _ = tee.Write([]byte("question")); close(wrote) }()
	<-conn.started
	buf := make([]byte, 3)
	_, _ = tee.Read(buf) // "ans", read while the question is on its way
	_, _ = tee.Read(buf) // "wer": would hand "ans" over, but must wait
	close(conn.release)
	<-wrote
	_ = tee.Close()
	if want := "client:question server:ans server:wer"; strings.Join(got, " ") != want {
		t.Errorf("sink got %q; want %q", strings.Join(got, " "), want)
	}
}
