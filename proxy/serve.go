package proxy

// What the proxy's and replay's HTTP servers bound, whoever connects: the
// size of a request head, how long it may take to arrive, how many
// connections are open at once, how long a keep-alive connection may sit
// idle, and how long a client may leave a response unread. Without them
// 600 clients trickling 1 MiB heads held 647 MB, and a client that
// stopped reading held its exchange, and the upstream connection, open.

import (
	"bufio"
	"cmp"
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// Server bounds.
const (
	// MaxHeadBytes bounds a request head (request line and headers): an
	// API request's head is a few KiB, cookies and long tokens included.
	// A longer one is answered 431 Request Header Fields Too Large.
	MaxHeadBytes = 64 << 10
	// DefaultClientHeadTimeout is Limits.HeadTimeout's default: a client
	// sends a request's head within it, from its first byte (or, on a
	// new connection, from the connection).
	DefaultClientHeadTimeout = 30 * time.Second
	// DefaultMaxConns is Limits.MaxConns's default: far more clients
	// than an agent or a test suite opens at once, and at most about
	// 40 MB of request heads being read.
	DefaultMaxConns = 512
	// DefaultClientWriteTimeout is Limits.WriteTimeout's default: a
	// client that takes none of a response's bytes for this long is cut.
	DefaultClientWriteTimeout = 30 * time.Second
)

// Limits are the bounds a server puts on its clients. A zero field means
// no bound, except HeadTimeout, which is DefaultClientHeadTimeout when 0.
type Limits struct {
	// MaxConns is how many client connections may be open at once
	// (WebSockets included); past it, new connections wait in the
	// listen backlog until one closes.
	MaxConns int
	// HeadTimeout bounds the time a client takes to send a request's
	// head.
	HeadTimeout time.Duration
	// Idle closes a keep-alive connection that sends no new request for
	// this long.
	Idle time.Duration
	// WriteTimeout cuts a client that takes none of the bytes written to
	// it for this long (it stopped reading): its exchange ends, and the
	// upstream connection is closed.
	WriteTimeout time.Duration
}

// serve runs an HTTP server for h on ln, within l, until ctx ends; then
// it stops: open requests get grace to finish and are cut after it.
// afterStop runs once the server has stopped taking requests (to close
// what Shutdown does not see, such as hijacked connections).
func serve(ctx context.Context, ln net.Listener, h http.Handler, l Limits, grace time.Duration, afterStop func()) error {
	if l.WriteTimeout > 0 {
		h = writeDeadlines(h, l.WriteTimeout)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cmp.Or(l.HeadTimeout, DefaultClientHeadTimeout),
		MaxHeaderBytes:    MaxHeadBytes,
		IdleTimeout:       l.Idle,
	}
	if l.Idle <= 0 {
		srv.IdleTimeout = -1 // 0 would mean the same as ReadTimeout, which is none
	}
	if l.MaxConns > 0 {
		ln = limitListener(ln, l.MaxConns)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), cmp.Or(grace, ShutdownGrace))
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close() // streams still open after the grace period are cut
	}
	if afterStop != nil {
		afterStop()
	}
	return nil
}

// limitListener accepts at most n connections open at once: Accept waits
// for one to close before it takes the next. It stops waiting when the
// listener is closed.
func limitListener(ln net.Listener, n int) net.Listener {
	return &limitedListener{Listener: ln, sem: make(chan struct{}, n), closed: make(chan struct{})}
}

type limitedListener struct {
	net.Listener
	sem       chan struct{}
	closeOnce sync.Once
	closed    chan struct{}
}

func (l *limitedListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitedListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// limitedConn gives its place back once, when it is closed (by the
// server, or by whoever hijacked it).
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// NetConn is the connection accepted, for those that need its own
// methods (a reset: SetLinger).
func (c *limitedConn) NetConn() net.Conn { return c.Conn }

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// writeDeadlines gives every write to a client a deadline d from when it
// starts, so that a client that stopped reading is cut after d instead
// of holding its exchange open (a write blocks once the connection's
// buffers are full). A connection hijacked for a switch of protocols
// (WebSocket) keeps the same deadline on each of its writes. What the
// server writes once the handler returned (the end of a chunked
// response) gets a deadline of its own: the one of the last write may
// have passed while the stream was quiet.
func writeDeadlines(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dw := &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), d: d}
		defer dw.arm()
		h.ServeHTTP(dw, r)
	})
}

// deadlineWriter is a ResponseWriter whose writes and flushes each get a
// deadline. It unwraps to the server's writer, so that
// http.ResponseController (ReverseProxy's flushes and hijack) finds it.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *deadlineWriter) arm() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.d)) }

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.arm()
	return w.ResponseWriter.Write(p)
}

func (w *deadlineWriter) WriteHeader(code int) {
	w.arm()
	w.ResponseWriter.WriteHeader(code)
}

// FlushError flushes under a deadline; ResponseController.Flush finds it.
func (w *deadlineWriter) FlushError() error {
	w.arm()
	return w.rc.Flush()
}

// Hijack hands over the connection with a deadline on each write.
func (w *deadlineWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := w.rc.Hijack()
	if err != nil {
		return nil, nil, err
	}
	_ = c.SetWriteDeadline(time.Time{}) // the response's deadline is not the connection's
	return &deadlineConn{Conn: c, d: w.d}, brw, nil
}

// Flush is FlushError for those that ask for an http.Flusher.
func (w *deadlineWriter) Flush() { _ = w.FlushError() }

func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// deadlineConn is a hijacked connection whose writes each get a deadline.
type deadlineConn struct {
	net.Conn
	d time.Duration
}

// NetConn is the connection the deadlines sit on, for those that need
// its own methods (a reset: SetLinger).
func (c *deadlineConn) NetConn() net.Conn { return c.Conn }

func (c *deadlineConn) Write(p []byte) (int, error) {
	_ = c.Conn.SetWriteDeadline(time.Now().Add(c.d))
	return c.Conn.Write(p)
}
