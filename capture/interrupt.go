package capture

import (
	"context"
	"errors"
	"io"
	"os"
	"time"
)

// Interruptible returns r made to give way to ctx in the middle of a
// read: once ctx ends, a Read that waits (a silent pipe, a stalled
// socket, a terminal) returns ctx's error at once. done ends the watch;
// call it once reading is over.
//
// How depends on r. A regular file, or a reader held in memory, never
// waits long and is returned as it is. A pipe, socket or FIFO the runtime
// polls (an *os.File opened by path, a net.Conn) gets a read deadline
// when ctx ends. Any other *os.File (a pipe on stdin inherited from the
// shell, which Go reads with blocking calls, or a terminal) is read on a
// goroutine of its own, so that Read can return while that read still
// waits; the goroutine stays blocked until a byte comes or the process
// exits, which a command that was told to stop does within moments.
// Other readers are returned as they are: an HTTP body ends with its
// request's context.
func Interruptible(ctx context.Context, r io.Reader) (_ io.Reader, done func()) {
	nothing := func() {}
	if ctx.Done() == nil {
		return r, nothing
	}
	switch v := r.(type) {
	case *os.File:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			return r, nothing
		}
		if v.SetReadDeadline(time.Time{}) == nil {
			return deadlineReader(ctx, v, v)
		}
		return &goReader{ctx: ctx, r: r}, nothing
	case interface {
		io.Reader
		SetReadDeadline(time.Time) error
	}:
		if v.SetReadDeadline(time.Time{}) == nil {
			return deadlineReader(ctx, v, v)
		}
	}
	return r, nothing
}

// deadlineReader reads r, whose reads end at the deadline set on d, and
// sets that deadline to the past when ctx ends.
func deadlineReader(ctx context.Context, r io.Reader, d interface{ SetReadDeadline(time.Time) error }) (io.Reader, func()) {
	stop := context.AfterFunc(ctx, func() { _ = d.SetReadDeadline(time.Unix(1, 0)) })
	return &ctxReader{ctx: ctx, r: r}, func() { stop() }
}

// ctxReader says ctx's error for a read its deadline cut.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && c.ctx.Err() != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = c.ctx.Err()
	}
	return n, err
}

// goReader reads r on a goroutine of its own so that Read returns as soon
// as ctx ends, even while the read it started waits. It is not safe for
// concurrent use.
type goReader struct {
	ctx     context.Context
	r       io.Reader
	pending chan readResult // the read in flight, or nil
	buf     []byte          // the buffer of reads, reused while no read is in flight
	rest    []byte          // read but not yet returned
	err     error           // returned once rest is drained
}

type readResult struct {
	b   []byte
	err error
}

func (g *goReader) Read(p []byte) (int, error) {
	if len(g.rest) > 0 {
		n := copy(p, g.rest)
		g.rest = g.rest[n:]
		return n, nil
	}
	if g.err != nil {
		return 0, g.err
	}
	if err := g.ctx.Err(); err != nil {
		return 0, err
	}
	if g.pending == nil {
		if cap(g.buf) < len(p) {
			g.buf = make([]byte, max(len(p), 1))
		}
		ch, buf := make(chan readResult, 1), g.buf[:max(len(p), 1)]
		go func() {
			n, err := g.r.Read(buf)
			ch <- readResult{buf[:n], err}
		}()
		g.pending = ch
	}
	select {
	case res := <-g.pending:
		g.pending = nil
		n := copy(p, res.b)
		g.rest = res.b[n:]
		if len(g.rest) > 0 {
			g.err = res.err
			return n, nil
		}
		return n, res.err
	case <-g.ctx.Done():
		g.buf = nil // the read in flight still owns it
		return 0, g.ctx.Err()
	}
}
