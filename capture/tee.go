package capture

import (
	"errors"
	"io"
	"sync"
	"time"
)

// ErrIdle is the error a Tee reports when its body sent nothing for longer
// than its idle timeout.
var ErrIdle = errors.New("no bytes within the idle timeout")

// ErrClosedEarly is the error a Tee reports when its body was closed
// before the end of the stream, which a proxy does when the client has
// gone or the copy to it failed.
var ErrClosedEarly = errors.New("closed before the end of the stream")

// Tee passes a response body through unchanged and hands every chunk to a
// sink with its arrival time. A chunk reaches the sink only after the
// reader has had it (on the next Read, or at Close), so the sink's work
// (framing, a model, a recording) never delays the chunk on its way to the
// client. Done is called exactly once, at Close, with nil after a clean end
// of the stream or the error that ended it. Read and Close may be called
// from different goroutines.
type Tee struct {
	teeEnd
	r    io.ReadCloser
	sink func(p []byte, at time.Duration)

	pending []byte
	pendAt  time.Duration

	idle  time.Duration
	timer *time.Timer
	fired bool
}

// NewTee wraps body. Times are measured from start. idle, when positive,
// closes the body (ending the stream with ErrIdle) once it has sent nothing
// for that long.
func NewTee(body io.ReadCloser, start time.Time, idle time.Duration,
	sink func(p []byte, at time.Duration), done func(err error, at time.Duration)) *Tee {
	t := &Tee{teeEnd: teeEnd{start: start, done: done}, r: body, sink: sink, idle: idle}
	if idle > 0 {
		t.timer = time.AfterFunc(idle, t.expire)
	}
	return t
}

func (t *Tee) expire() {
	t.mu.Lock()
	t.fired = true
	t.mu.Unlock()
	_ = t.r.Close() // unblocks a pending Read
}

// Read implements io.Reader.
func (t *Tee) Read(p []byte) (int, error) {
	t.mu.Lock()
	t.deliver()
	t.mu.Unlock()
	n, err := t.r.Read(p)
	at := time.Since(t.start)
	t.mu.Lock()
	defer t.mu.Unlock()
	if n > 0 {
		t.pending = append(t.pending[:0], p[:n]...)
		t.pendAt = at
		if t.timer != nil && !t.fired {
			t.timer.Reset(t.idle)
		}
	}
	if err != nil && t.err == nil {
		if t.fired {
			err = ErrIdle
		}
		t.err = err
	}
	return n, err
}

// deliver hands the pending chunk to the sink. t.mu is held.
func (t *Tee) deliver() {
	if len(t.pending) > 0 {
		t.sink(t.pending, t.pendAt)
		t.pending = t.pending[:0]
	}
}

// Close closes the body, delivers what is pending and calls done.
func (t *Tee) Close() error {
	return t.close(t.r, func() {
		if t.timer != nil {
			t.timer.Stop()
		}
		t.deliver()
	})
}

// teeEnd is how a Tee and a DuplexTee end: the lock their chunks are
// handed over under, the error that ended reading, and the one call of
// done.
type teeEnd struct {
	start time.Time
	done  func(err error, at time.Duration)

	mu     sync.Mutex
	err    error // the error that ended reading, io.EOF for a clean end
	closed bool
}

// close closes c and, the first time only, runs flush (which hands over
// what is pending) under the lock, marks the tee closed and calls done
// with nil after a clean end, ErrClosedEarly when nothing ended reading
// before the close, or the error that ended it. It returns c's error.
func (e *teeEnd) close(c io.Closer, flush func()) error {
	err := c.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return err
	}
	flush()
	e.closed = true
	end := e.err
	switch {
	case errors.Is(end, io.EOF):
		end = nil
	case end == nil:
		end = ErrClosedEarly
	}
	e.done(end, time.Since(e.start))
	return err
}
