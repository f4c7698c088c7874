//go:build unix

package capture

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptible: data passes through unchanged, and a read blocked on
// a source that sends nothing returns ctx's error as soon as ctx ends, for
// each kind of reader that can wait: a pipe Go polls (a FIFO opened by
// path), a pipe it reads with blocking calls (a shell's pipe on stdin, or
// a terminal), and a connection with deadlines.
func TestInterruptible(t *testing.T) {
	t.Parallel()
	kinds := []struct {
		name string
		open func(t *testing.T) (r io.Reader, w io.WriteCloser, closeR func())
	}{
		{"polled pipe", func(t *testing.T) (io.Reader, io.WriteCloser, func()) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			return r, w, func() { r.Close() }
		}},
		{"blocking pipe", func(t *testing.T) (io.Reader, io.WriteCloser, func()) {
			var fds [2]int
			if err := syscall.Pipe(fds[:]); err != nil {
				t.Skip(err)
			}
			r := os.NewFile(uintptr(fds[0]), "r")
			return r, os.NewFile(uintptr(fds[1]), "w"), func() { r.Close() }
		}},
		{"socket", func(t *testing.T) (io.Reader, io.WriteCloser, func()) {
			a, b := net.Pipe() // deadlines, as a net.Conn has
			return a, b, func() { a.Close() }
		}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			raw, w, closeR := k.open(t)
			defer closeR()
			defer w.Close()
			ctx, cancel := context.WithCancel(t.Context())
			r, done := Interruptible(ctx, raw)
			defer done()
			go func() { _, _ = w.Write([]byte("hello, pipe")) }()
			buf := make([]byte, 5)
			var got []byte
			for len(got) < len("hello, pipe") {
				n, err := r.Read(buf)
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				got = append(got, buf[:n]...)
			}
			if string(got) != "hello, pipe" {
				t.Fatalf("read %q", got)
			}
			errc := make(chan error, 1)
			go func() { _, err := r.Read(buf); errc <- err }()
			time.Sleep(10 * time.Millisecond) // the read waits by now
			cancel()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Read after cancel = %v; want context.Canceled", err)
				}
			case <-time.After(10 * time.Second): // liveness bound, not a speed target
				t.Fatal("Read still blocked after the context ended")
			}
		})
	}
}

// TestSourceReadGivesWay: Source.Read on a pipe that stays open and
// silent returns ctx's error once ctx ends, after emitting the frames
// read and closing its taps; a regular file is read as it was.
func TestSourceReadGivesWay(t *testing.T) {
	t.Parallel()
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Skip(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	defer r.Close()
	defer w.Close()
	src := FromReader("stdin", SourceStdin, r, true)
	rec := &tapRecorder{}
	src.Record(rec)
	ctx, cancel := context.WithCancel(t.Context())
	framed := make(chan string, 10)
	errc := make(chan error, 1)
	go func() {
		errc <- src.Read(ctx, ReadOptions{}, func(f *Frame) error { framed <- string(f.Data); return nil })
	}()
	if _, err := w.Write([]byte("data: one\n\ndata: cut")); err != nil {
		t.Fatal(err)
	}
	if got := <-framed; got != "one" {
		t.Fatalf("first frame %q", got)
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Read = %v; want context.Canceled", err)
		}
	case <-time.After(10 * time.Second): // liveness bound, not a speed target
		t.Fatal("Read still blocked on the silent pipe after ctx ended")
	}
	if got := <-framed; got != "cut" {
		t.Errorf("the partial frame = %q; want it emitted", got)
	}
	if !rec.closed || rec.data.String() != "data: one\n\ndata: cut" {
		t.Errorf("tap closed %v with %q; want closed with what was read", rec.closed, rec.data.String())
	}
}

type tapRecorder struct {
	data   strings.Builder
	closed bool
}

func (r *tapRecorder) Write(p []byte, _ time.Duration) error { r.data.Write(p); return nil }
func (r *tapRecorder) Close(time.Duration) error             { r.closed = true; return nil }
