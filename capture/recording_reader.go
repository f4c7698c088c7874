package capture

import (
	"bytes"
	"errors"
	"io"
	"time"
)

// recordingRead is how much a RecordingReader reads at a time.
const recordingRead = 64 << 10

// RecordingReader reads a recording as it goes, from any reader: the
// header block first (Exchange), then the body a chunk at a time (Next),
// each chunk as ParseRecording would give it. It holds one read and the
// frame being completed, never the whole body, so that a server can
// play a recording of any size from disk. It is not safe for concurrent
// use.
type RecordingReader struct {
	r    io.Reader
	f    *recordingFramer
	buf  []byte
	x    *Exchange
	done bool  // the input ended and the framer finished
	err  error // a read error, sticky

	// The chunks of the last read: their bytes in arena, handed out in
	// order by Next.
	arena []byte
	pend  []pendingChunk
	next  int
}

type pendingChunk struct {
	at         time.Duration
	start, end int
}

// NewRecordingReader reads r's header block. It returns ErrNotRecording
// when r does not start with RecordingMagic, and the header's error when
// the block does not parse; r's bytes read so far are then gone.
func NewRecordingReader(r io.Reader) (*RecordingReader, error) {
	rr := &RecordingReader{r: r, buf: make([]byte, recordingRead)}
	n, err := io.ReadFull(r, rr.buf[:len(RecordingMagic)])
	if !bytes.Equal(rr.buf[:n], []byte(RecordingMagic)) {
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, err
		}
		return nil, ErrNotRecording
	}
	rr.f = &recordingFramer{
		onHead: func(x *Exchange) { rr.x = x },
		onBody: rr.collect,
	}
	rr.f.feed(rr.buf[:n], NoTime, ignoreFrame)
	for rr.x == nil && !rr.done {
		rr.fill()
	}
	if rr.err != nil {
		return nil, rr.err
	}
	if rr.f.err != nil {
		return nil, rr.f.err
	}
	return rr, nil
}

func ignoreFrame(*Frame) {}

// collect keeps a body frame's bytes (the timing line left out) for Next.
func (rr *RecordingReader) collect(at time.Duration, parts ...[]byte) {
	start := len(rr.arena)
	for _, p := range parts {
		rr.arena = append(rr.arena, p...)
	}
	rr.pend = append(rr.pend, pendingChunk{at: at, start: start, end: len(rr.arena)})
}

// fill reads once more and frames what came; at the end of the input it
// finishes the framer.
func (rr *RecordingReader) fill() {
	n, err := rr.r.Read(rr.buf)
	if n > 0 {
		rr.f.feed(rr.buf[:n], NoTime, ignoreFrame)
	}
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		rr.f.finish(NoTime, ignoreFrame)
		rr.done = true
	default:
		rr.err, rr.done = err, true
	}
}

// Exchange is the recorded exchange, from the header block.
func (rr *RecordingReader) Exchange() *Exchange { return rr.x }

// Next returns the body's next chunk: its bytes as received, timing line
// removed, and its recorded time. Data is valid until the next call. At
// the end of the body it returns io.EOF, or the error reading failed
// with.
func (rr *RecordingReader) Next() (Chunk, error) {
	for rr.next >= len(rr.pend) {
		if rr.done {
			if rr.err != nil {
				return Chunk{}, rr.err
			}
			return Chunk{}, io.EOF
		}
		rr.arena, rr.pend, rr.next = rr.arena[:0], rr.pend[:0], 0
		if cap(rr.arena) > 4*recordingRead {
			rr.arena = nil // one large frame's room is not kept for the rest
		}
		rr.fill()
	}
	c := rr.pend[rr.next]
	rr.next++
	return Chunk{At: c.at, Data: rr.arena[c.start:c.end:c.end]}, nil
}

// Format is the body's format, as its Content-Type or its first bytes
// tell it (FormatAuto while they have not; for an empty body, at its
// end).
func (rr *RecordingReader) Format() Format {
	if rr.f.body == nil {
		return FormatAuto
	}
	return rr.f.body.Format()
}

// BadTimes counts the times read so far that are not times (see
// Recording.BadTimes).
func (rr *RecordingReader) BadTimes() int { return rr.f.badTimes }
