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
// (run with -race): every byte arrives and is handed to the sink once,
// also when the server reads slowly while it sends more than MaxHeld.
func TestDuplexTeeConcurrent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		down int
		slow time.Duration // between the server's reads
	}{
		{"both ways", 100000, 0},
		{"a server that reads slowly", 3 * MaxHeld, time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			duplexConcurrent(t, c.down, c.slow)
		})
	}
}

// slowReader reads r a read at a time, each after a pause.
type slowReader struct {
	r     io.Reader
	pause time.Duration
}

func (s slowReader) Read(p []byte) (int, error) {
	time.Sleep(s.pause)
	return s.r.Read(p[:min(len(p), 512)])
}

func duplexConcurrent(t *testing.T, size int, slow time.Duration) {
	proxySide, server := net.Pipe()
	seen := map[WSDir]*bytes.Buffer{WSClient: {}, WSServer: {}}
	tee := NewDuplexTee(proxySide, time.Now(),
		func(from WSDir, p []byte, _ time.Duration) { seen[from].Write(p) },
		func(error, time.Duration) {})
	up, down := bytes.Repeat([]byte("u"), 100000), bytes.Repeat([]byte("d"), size)
	var wg sync.WaitGroup
	var atServer bytes.Buffer
	wg.Go(func() { _, _ = io.Copy(&atServer, slowReader{server, slow}) }) // until the tee closes
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

// endless is a server that sends forever: each read is n bytes of 's'.
type endless struct{ n int }

func (e endless) Read(p []byte) (int, error) {
	k := min(len(p), e.n)
	for i := range p[:k] {
		p[i] = 's'
	}
	return k, nil
}

// TestDuplexTeeHeldBounded: a server that keeps sending while a client
// chunk waits on its way to it (the server takes none of it) holds at
// most MaxHeld bytes and a read in the tee: past the bound the client
// chunk goes to the sink first, once, and the server's chunks follow it
// in order. The reading never waits for the write (a server that reads
// nothing while it writes would hang). Before, every server chunk was
// held until the write returned: 64 MiB here.
func TestDuplexTeeHeldBounded(t *testing.T) {
	t.Parallel()
	conn := &slowWrites{Reader: endless{32 << 10}, started: make(chan struct{}), release: make(chan struct{})}
	var got []string
	var server int
	tee := NewDuplexTee(conn, time.Now(),
		func(from WSDir, p []byte, _ time.Duration) {
			if from == WSServer {
				server += len(p)
				if len(got) == 0 || got[len(got)-1] != "server" {
					got = append(got, "server")
				}
				return
			}
			got = append(got, from.String()+":"+string(p))
		},
		func(error, time.Duration) {})
	wrote := make(chan struct{})
	go func() { _, _ = tee.Write([]byte("question")); close(wrote) }()
	<-conn.started
	buf := make([]byte, 32<<10)
	const total = 64 << 20
	most := 0
	for read := 0; read < total; {
		n, err := tee.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		read += n
		tee.mu.Lock()
		held := 0
		for _, h := range tee.held {
			held += len(h.data)
		}
		most = max(most, held)
		tee.mu.Unlock()
	}
	close(conn.release)
	<-wrote
	_ = tee.Close()
	if most > MaxHeld+len(buf) {
		t.Errorf("the tee held %d bytes of the server's while the client's write waited; want at most %d", most, MaxHeld+len(buf))
	}
	if want := "client:question server"; strings.Join(got, " ") != want || server != total {
		t.Errorf("sink got %q and %d server bytes; want %q and %d", strings.Join(got, " "), server, want, total)
	}
}
