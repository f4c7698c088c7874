package proxy

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// Request body bounds.
const (
	// MaxRequestKept is how much of a request body the proxy keeps, for
	// what the request declares (model, tools, tool outputs: the
	// sessions list, the checks, the turn links), the recording and the
	// HAR. It reads that much before forwarding, and streams the rest
	// upstream as it arrives: memory stays bounded however large the
	// upload. A body over it is kept cut (its JSON is not read).
	MaxRequestKept = 8 << 20
	// MinBodyRate is the least pace, in bytes a second, at which a client
	// must send its request body, on average over each
	// Options.BodyTimeout: from the start of the body, and again each
	// time it sent BodyTimeout × MinBodyRate more bytes, it has
	// BodyTimeout to send the next that many (or the rest). A large
	// upload at any honest pace goes through however long it takes; a
	// client that trickles (1 byte/s) is cut after one BodyTimeout.
	MinBodyRate = 1 << 10
)

// ErrBodyTimeout is how a request body read fails when the client sent
// it at under MinBodyRate over an Options.BodyTimeout.
var ErrBodyTimeout = errors.New("the client sent its request body too slowly")

// requestBody reads a client's request body for the proxy: the first
// MaxRequestKept bytes on the goroutine serving the request (readPrefix),
// the rest on the transport's as it forwards them. Each read from the
// client gets a deadline that holds it to MinBodyRate. Only the time
// spent waiting for the client counts: while the upstream is slow to
// take the bytes, no read is pending and the clock stops. It is safe
// for use by one reader at a time, and release may be called
// concurrently with a read.
type requestBody struct {
	in      io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration // 0: no deadline

	mu       sync.Mutex
	n        int64         // bytes read from the client
	waited   time.Duration // time spent in reads from the client
	mark     int64         // n when the current BodyTimeout began
	markAt   time.Duration // waited when it began
	eof      bool
	err      error // the first read error other than io.EOF
	released bool  // the handler returned: the connection is not ours any more
}

func newRequestBody(r *http.Request, w http.ResponseWriter, timeout time.Duration) *requestBody {
	return &requestBody{in: r.Body, rc: http.NewResponseController(w), timeout: timeout}
}

// Read reads from the client's body. After the end of the body it never
// reads the client's body again: the server closes it once the response
// is written, and the transport's last read of a closed body would tear
// down the upstream connection mid-stream (golang/go#40747).
func (b *requestBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	switch {
	case b.eof:
		b.mu.Unlock()
		return 0, io.EOF
	case b.err != nil:
		b.mu.Unlock()
		return 0, b.err
	}
	b.arm()
	b.mu.Unlock()
	start := time.Now()
	n, err := b.in.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waited += time.Since(start)
	b.n += int64(n)
	if b.n-b.mark >= b.quota() {
		b.mark, b.markAt = b.n, b.waited // on time: a new BodyTimeout begins
	}
	switch {
	case err == io.EOF:
		b.eof = true
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		err = fmt.Errorf("%w: %d bytes in %.1fs", ErrBodyTimeout, b.n, b.waited.Seconds())
		b.err = err
	case err != nil:
		b.err = err
	}
	return n, err
}

// quota is how many bytes a client must send within each BodyTimeout.
func (b *requestBody) quota() int64 {
	return max(int64(b.timeout.Seconds()*MinBodyRate), 1)
}

// arm sets the connection's read deadline for the next read: the end of
// the current BodyTimeout, counted in time spent waiting for the client.
// The server clears it once the body is read to its end (it starts its
// own background read then). b.mu is held.
func (b *requestBody) arm() {
	if b.timeout <= 0 || b.released {
		return
	}
	left := b.markAt + b.timeout - b.waited
	_ = b.rc.SetReadDeadline(time.Now().Add(left)) // ErrNotSupported: no deadline, as before
}

// Close closes the client's body (the transport closes the body it
// forwarded).
func (b *requestBody) Close() error { return b.in.Close() }

// release is called when the handler returns: the connection may serve
// the next request, whose deadlines are the server's.
func (b *requestBody) release() {
	b.mu.Lock()
	b.released = true
	b.mu.Unlock()
}

// readErr is the error a read from the client failed with, if one did.
func (b *requestBody) readErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// readPrefix reads the body's first MaxRequestKept bytes, or all of it
// when it is shorter. whole says whether that is the whole body. size is
// the request's Content-Length (-1 when unknown); the buffer is sized
// from it, so that a large upload costs one MaxRequestKept buffer and no
// copies of it.
func (b *requestBody) readPrefix(size int64) (kept []byte, whole bool, err error) {
	limit := int64(MaxRequestKept)
	if size >= 0 {
		limit = min(size, limit)
	}
	capacity := limit
	if size < 0 {
		capacity = min(limit, 64<<10)
	}
	buf := make([]byte, 0, capacity)
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) { // a body of unknown size: grow, up to limit
			grown := make([]byte, len(buf), min(2*int64(cap(buf)), limit))
			copy(grown, buf)
			buf = grown
		}
		n, err := b.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, true, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
	return buf, size >= 0 && int64(len(buf)) == size, nil
}
