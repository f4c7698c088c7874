package capture

import (
	"io"
	"time"
)

// DuplexTee is Tee for a connection that switched protocols (HTTP 101):
// it passes the bytes of both directions through unchanged and hands each
// chunk to a sink with who sent it and when. It is an io.ReadWriteCloser
// because net/http/httputil.ReverseProxy requires the body of a 101
// response to be one: Read is the server's bytes on their way to the
// client, Write the client's bytes on their way to the server.
//
// A server chunk reaches the sink only once the reader has it (at the next
// Read or Write, or at Close), and a client chunk only after it was
// written, so the sink's work never delays a byte. The sink runs under a
// lock, one chunk at a time, in the order the chunks reached the proxy (a
// client chunk counts from when Write was called), so it needs no lock of
// its own. Done is called exactly once, at Close,
// with nil after the server ended its side cleanly or the error that
// ended it (ErrClosedEarly when the connection was closed first). Read,
// Write and Close may be called from different goroutines.
//
// The server chunks read while a client chunk is on its way wait for it,
// at most MaxHeld bytes of them: a server that keeps sending while it
// takes none of the client's bytes would make them grow without end.
// Past the bound the client chunk is handed to the sink before its write
// returns (it was sent before those server chunks came; the server may
// still take it), and the server chunks follow it. Waiting for the write
// instead (stopping reading the server) would hang a server that reads
// nothing while it writes: it waits for the proxy to read, the proxy for
// it to read.
type DuplexTee struct {
	teeEnd
	rw   io.ReadWriteCloser
	sink func(from WSDir, p []byte, at time.Duration)

	held      []heldChunk // server chunks read, not yet handed to the sink
	heldBytes int
	writing   bool          // a client chunk is on its way to the server
	sending   []byte        // that chunk (Write's, read here only while it waits)
	sendingAt time.Duration // when Write was called with it
	sunk      bool          // it went to the sink before its write returned
}

// MaxHeld is how many bytes of the server's a DuplexTee holds while a
// client chunk is on its way to the server.
const MaxHeld = 1 << 20

// heldChunk is a server chunk and when it arrived. Its buffer is reused.
type heldChunk struct {
	data []byte
	at   time.Duration
}

// NewDuplexTee wraps rw, the server side of an upgraded connection. Times
// are measured from start.
func NewDuplexTee(rw io.ReadWriteCloser, start time.Time,
	sink func(from WSDir, p []byte, at time.Duration), done func(err error, at time.Duration)) *DuplexTee {
	return &DuplexTee{teeEnd: teeEnd{start: start, done: done}, rw: rw, sink: sink}
}

// Read reads what the server sent.
func (t *DuplexTee) Read(p []byte) (int, error) {
	t.mu.Lock()
	if !t.writing || t.sunk {
		t.deliver()
	}
	t.mu.Unlock()
	n, err := t.rw.Read(p)
	at := time.Since(t.start)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return n, err // the session is over; the bytes still pass
	}
	if n > 0 {
		t.hold(p[:n], at)
	}
	if t.writing && !t.sunk && t.heldBytes > MaxHeld {
		// The next Read hands the held chunks over, after this one.
		t.sink(WSClient, t.sending, t.sendingAt)
		t.sunk = true
	}
	if err != nil && t.err == nil {
		t.err = err
	}
	return n, err
}

// Write sends what the client sent to the server. Server chunks read
// while it is on its way arrived after it, and wait for it.
func (t *DuplexTee) Write(p []byte) (int, error) {
	at := time.Since(t.start)
	t.mu.Lock()
	t.deliver() // read before this chunk came: they go first
	t.writing, t.sending, t.sendingAt = true, p, at
	t.mu.Unlock()
	n, err := t.rw.Write(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	if n > 0 && !t.closed && !t.sunk {
		t.sink(WSClient, p[:n], at)
	}
	t.writing, t.sending, t.sunk = false, nil, false
	return n, err
}

// hold keeps a copy of a server chunk until it can be handed over. t.mu
// is held.
func (t *DuplexTee) hold(p []byte, at time.Duration) {
	if len(t.held) < cap(t.held) {
		t.held = t.held[:len(t.held)+1]
	} else {
		t.held = append(t.held, heldChunk{})
	}
	h := &t.held[len(t.held)-1]
	h.data, h.at = append(h.data[:0], p...), at
	t.heldBytes += len(p)
}

// deliver hands the held server chunks to the sink. t.mu is held.
func (t *DuplexTee) deliver() {
	if !t.closed {
		for i := range t.held {
			t.sink(WSServer, t.held[i].data, t.held[i].at)
		}
	}
	t.held, t.heldBytes = t.held[:0], 0
}

// Close closes the connection to the server, delivers what is pending and
// calls done. Calls after the first only close again.
func (t *DuplexTee) Close() error { return t.close(t.rw, t.deliver) }
