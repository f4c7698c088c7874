package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// SourceKind says where a stream comes from.
type SourceKind uint8

const (
	SourceStdin SourceKind = iota
	SourceFile
	SourceSample
	// SourceHTTP is a response body streamed from a request streamtap made.
	SourceHTTP
)

func (k SourceKind) String() string {
	switch k {
	case SourceStdin:
		return "stdin"
	case SourceFile:
		return "file"
	case SourceSample:
		return "sample"
	case SourceHTTP:
		return "http"
	}
	return "unknown"
}

// Source is one input stream: a pipe, a file or an embedded sample.
type Source struct {
	Name string
	Kind SourceKind
	// Timed sources stamp each read with its arrival time. A file replayed
	// later carries no timing of its own.
	Timed bool
	// Exchange is the HTTP exchange whose response the source reads, when
	// known (an archive's entry, a request streamtap made): readers find
	// the request there. Nil for a plain stream.
	Exchange *Exchange

	r      io.Reader
	file   *os.File
	taps   []Tap
	start  time.Time
	chunks []Chunk     // bytes to read before r (an archive entry's), each at its time
	pos    int         // the next of chunks to read
	ra     io.ReaderAt // an archive entry's bytes, for ReaderAt, when they are all in chunks

	// archive says the source is an archive entry: its chunks, then r
	// when its body is inflated as it is read; it ends at the time of the
	// last piece read.
	archive bool
	lastAt  time.Duration
	closer  io.Closer // r, when Close must close it
	err     error     // why the entry cannot be read: Read returns it at once
	size    int64     // the file's size when opened, -1 for a live one (see Size)
}

// Tap receives a copy of what a Source reads, with each read's arrival
// time: a Recorder writing a timed recording, a HAREntry building a HAR
// entry. Close is called once at the end of the input.
type Tap interface {
	Write(p []byte, at time.Duration) error
	Close(at time.Duration) error
}

// SetStart makes Read measure arrival times from t (such as the moment a
// request was sent) instead of from the start of Read.
func (s *Source) SetStart(t time.Time) { s.start = t }

// Record makes Read also hand what it reads to rec (a Recorder writing
// the timed recording format, a HAREntry), and close rec at the end of the
// input. Several taps may be added; each gets every read.
func (s *Source) Record(rec Tap) { s.taps = append(s.taps, rec) }

// readChunk is the size of one read. A pipe returns what it has, so small
// live writes still arrive one by one.
const readChunk = 256 << 10

// IsPipe reports whether f is a pipe or a redirected file rather than a
// terminal, the test glow uses to decide whether to read stdin.
func IsPipe(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice == 0
}

// Open resolves a command-line argument into a source: "-" is stdin, anything
// else a file path.
func Open(arg string, stdin *os.File) (*Source, error) {
	if arg == "-" {
		return &Source{Name: "stdin", Kind: SourceStdin, Timed: true, r: stdin}, nil
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory", arg)
	}
	// A FIFO or character device given by path is live, like stdin.
	live := !st.Mode().IsRegular()
	size := st.Size()
	if live {
		size = -1
	}
	return &Source{Name: arg, Kind: SourceFile, Timed: live, r: f, file: f, size: size}, nil
}

// Size is the size of a regular file the source opened, as it was when
// opened, and false for any other source (stdin, a pipe, a sample, an
// archive's entry). Readers size their work by it: a small file is read
// with a small buffer, and a command need not pipeline its modelling.
func (s *Source) Size() (int64, bool) {
	return s.size, s.file != nil && s.size >= 0
}

// FromReader wraps any reader, such as an embedded sample.
func FromReader(name string, kind SourceKind, r io.Reader, timed bool) *Source {
	return &Source{Name: name, Kind: kind, Timed: timed, r: r}
}

// ReaderAt gives random access to the source's bytes when it is a regular
// file, so a reader of the stream need not keep them in memory.
func (s *Source) ReaderAt() io.ReaderAt {
	if s.ra != nil {
		return s.ra
	}
	if s.file != nil && !s.Timed {
		return s.file
	}
	return nil
}

// Close releases the source.
func (s *Source) Close() error {
	if s.closer != nil {
		s.closer.Close()
	}
	if s.file != nil {
		return s.file.Close()
	}
	return nil
}

// ReadOptions tune Read.
type ReadOptions struct {
	Format Format
	// Save, when set, receives exactly the bytes read, as they arrive.
	Save io.Writer
	// Keep, when set, keeps the bytes read so they can be read back later.
	Keep *Store
	// OnFormat is called once the format is known.
	OnFormat func(Format)
	// AfterRead, when set, is called after the frames completed by each
	// read have been emitted, so that a consumer can hand frames on in
	// batches without holding any back while the source is quiet.
	AfterRead func()
}

// ReadError is a failure to read the source, with the offset reached.
type ReadError struct {
	Source string
	Offset int64
	Err    error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("read %s at byte %d: %v", e.Source, e.Offset, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// Read reads the source to its end, framing it incrementally: each frame is
// passed to emit as soon as its last byte has arrived. It returns nil at a
// clean end of input, a *ReadError when reading fails, or the first error
// emit returns. Frames already framed when reading fails are still emitted,
// followed by whatever partial frame was pending. An archive entry whose
// body is refused (*InflateError) returns that error and emits nothing.
//
// When ctx ends, Read stops at once, even in the middle of a read that
// waits (see Interruptible), closes its taps with what arrived, emits the
// partial frame and returns ctx's error.
func (s *Source) Read(ctx context.Context, opt ReadOptions, emit func(*Frame) error) error {
	if s.err != nil {
		for _, t := range s.taps {
			_ = t.Close(NoTime) // the error says more than a tap's could
		}
		return s.err
	}
	start := time.Now()
	if !s.start.IsZero() {
		start = s.start
	}
	fr := NewFramer(opt.Format)
	var emitErr error
	wrapped := func(f *Frame) {
		if emitErr == nil {
			emitErr = emit(f)
		}
	}
	notified := false
	stamp := func() time.Duration {
		if !s.Timed {
			return NoTime
		}
		return time.Since(start)
	}
	var buf []byte // made at the first read of r: an archive entry's chunks need none
	r := s.r
	if r != nil {
		var done func()
		r, done = Interruptible(ctx, r)
		defer done()
	}
	var offset int64
	var readErr error
	for emitErr == nil {
		if err := ctx.Err(); err != nil {
			readErr = err
			break
		}
		if buf == nil && s.pos >= len(s.chunks) && r != nil {
			buf = make([]byte, s.readSize())
		}
		p, at, err := s.next(r, buf, stamp)
		if n := len(p); n > 0 {
			if opt.Save != nil {
				if _, werr := opt.Save.Write(p); werr != nil {
					// The taps still close below: a recording or a HAR
					// entry keeps what arrived.
					readErr = fmt.Errorf("save: %w", werr)
					break
				}
			}
			if opt.Keep != nil {
				opt.Keep.Append(p)
			}
			for _, t := range s.taps {
				if werr := t.Write(p, at); werr != nil {
					return werr
				}
			}
			offset += int64(n)
			fr.Feed(p, at, wrapped)
			if opt.AfterRead != nil {
				opt.AfterRead()
			}
			if !notified && fr.Format() != FormatAuto && opt.OnFormat != nil {
				opt.OnFormat(fr.Format())
				notified = true
			}
		}
		if err != nil {
			switch {
			case ctx.Err() != nil && errors.Is(err, ctx.Err()):
				readErr = err
			case !errors.Is(err, io.EOF):
				readErr = &ReadError{Source: s.Name, Offset: offset, Err: err}
			}
			break
		}
	}
	end := stamp()
	if s.archive {
		end = s.lastAt
	}
	for _, t := range s.taps {
		// A recording keeps what arrived even when the reader stopped.
		if werr := t.Close(end); werr != nil && emitErr == nil {
			return werr
		}
	}
	if emitErr != nil {
		return emitErr
	}
	fr.Finish(end, wrapped)
	if !notified && opt.OnFormat != nil {
		opt.OnFormat(fr.Format())
	}
	if emitErr != nil {
		return emitErr
	}
	return readErr
}

// readSize is the size of Read's buffer. A small file is read whole in
// one read (the byte past it finds the end): a check over a thousand
// recordings then clears no 256 KiB buffer for each. An archive's
// sessions, whose bytes are in memory, need no buffer at all, unless
// their body is inflated as it is read: before, the 256 KiB each of
// 10,000 small sessions cleared and dropped kept the collector running
// without pause.
func (s *Source) readSize() int {
	if size, ok := s.Size(); ok && size < readChunk {
		return int(size) + 1
	}
	return readChunk
}

// next returns the next piece of input and its arrival time: an archive
// entry's next chunk with its recorded time, or a read of r (s.r, made
// interruptible).
func (s *Source) next(r io.Reader, buf []byte, stamp func() time.Duration) ([]byte, time.Duration, error) {
	if s.pos < len(s.chunks) {
		c := s.chunks[s.pos]
		s.pos++
		s.lastAt = c.At
		return c.Data, c.At, nil
	}
	if r == nil {
		return nil, NoTime, io.EOF
	}
	n, err := r.Read(buf)
	s.lastAt = stamp()
	return buf[:n], s.lastAt, err
}
