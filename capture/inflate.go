package capture

// This file holds an archive's compressed bodies (gzip, deflate) as the
// file stores them, and inflates them only when a session is read, within
// two bounds. DEFLATE expands about 1030 times at most, so a HAR file of
// 7 MB can hold twenty bodies of 256 MiB each (a gzip bomb): inflating
// them all up front took 6.8 GB. Here a body is inflated when its session
// is read, one session at a time, and streamed through the framer rather
// than held; it is measured first (inflated into nothing), so a body past a
// bound is refused whole, before any of it is framed, and never half read.

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// MaxInflatedBody bounds what one compressed body of an archive may
// inflate to. A real response is far below it, a 50 MB event included.
const MaxInflatedBody = 256 << 20

// MaxInflatedFile bounds what the compressed bodies of one archive may
// inflate to altogether, counting every body inflated (a refused one too:
// measuring it cost that much). It keeps a file of many bombs from costing
// a minute of inflating: once it is spent, every further compressed body
// is refused at once, while bodies stored plain still read. Two bodies at
// MaxInflatedBody fit; real archives come nowhere near it (browsers store
// bodies decoded, streamtap's proxy asks for them uncompressed, and a
// cassette's gzip bodies are test fixtures).
const MaxInflatedFile = 512 << 20

// InflateError is why an archive's compressed body was not read: it
// inflates past MaxInflatedBody, or past what is left of MaxInflatedFile
// for its file. Nothing of the session is framed.
type InflateError struct {
	Entry    string // the name the session was opened with ("x.har #3")
	Encoding string // "gzip" or "deflate"
	Bound    int64  // the bound it went past, in bytes
	// File says the bound was the file's, shared by all its bodies: the
	// session reads when the file's other compressed bodies are not read
	// before it.
	File bool
}

func (e *InflateError) Error() string {
	if e.File {
		return fmt.Sprintf("%s: body not read: %s would take what this file's bodies inflate to past %s, the bound for one file (gzip bombs?); read this session alone to give it the whole bound",
			e.Entry, e.Encoding, sizeName(e.Bound))
	}
	return fmt.Sprintf("%s: body not read: %s inflates it past %s, the bound for one body (a gzip bomb?)", e.Entry, e.Encoding, sizeName(e.Bound))
}

// sizeName writes a bound in the unit it was chosen in.
func sizeName(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// inflateBudget is what the compressed bodies of one archive may still
// inflate to. It is safe for concurrent use.
type inflateBudget struct {
	mu   sync.Mutex
	file int64 // the whole bound, for messages
	left int64
	body int64 // the bound per body
}

func newInflateBudget(opt ArchiveOptions) *inflateBudget {
	b := &inflateBudget{file: MaxInflatedFile, body: MaxInflatedBody}
	if opt.maxFile > 0 {
		b.file = opt.maxFile
	}
	if opt.maxBody > 0 {
		b.body = opt.maxBody
	}
	b.left = b.file
	return b
}

// packedBody is a compressed body kept as the archive stores it. Entries
// are copied by value; they share their packedBody, and an entry read
// again from its file shares the measurement of the first read
// (Archive.Entry), so a body is measured (and charged to its file's
// budget) once however many copies read it.
type packedBody struct {
	data   []byte
	enc    string // "gzip" or "deflate"
	raw    bool   // deflate without the zlib wrapper some servers leave out
	budget *inflateBudget
	*measurement
}

// measurement is what measuring a compressed body found.
type measurement struct {
	mu       sync.Mutex
	measured bool
	size     int64         // what it inflates to
	note     string        // a problem met inflating it (cut short)
	broken   bool          // nothing inflates: the body is read as stored
	refused  *InflateError // past a bound (Entry is filled in by the reader)
}

// packBody returns body as a packedBody when the response headers name an
// encoding streamtap undoes (gzip, deflate), or when it starts like gzip
// whatever they say. packed is nil when the body is read as stored, with a
// note when it names an encoding streamtap cannot undo or one whose header
// is broken.
func packBody(body []byte, h http.Header, budget *inflateBudget) (packed *packedBody, note string) {
	enc := strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding")))
	if enc == "" && len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b {
		enc = "gzip"
	}
	p := &packedBody{data: body, budget: budget, measurement: new(measurement)}
	switch enc {
	case "", "identity":
		return nil, ""
	case "gzip", "x-gzip":
		p.enc = "gzip"
	case "deflate":
		p.enc = "deflate"
		// "deflate" is zlib-wrapped by the spec (RFC 9110 §8.4.1.2); some
		// servers send raw DEFLATE.
		if _, err := zlib.NewReader(bytes.NewReader(body)); err != nil {
			p.raw = true
		}
	default:
		return nil, "content-encoding " + enc + " is not decoded"
	}
	r, err := p.open()
	if err != nil {
		return nil, enc + ": " + err.Error()
	}
	r.Close()
	return p, ""
}

// open starts inflating the body from its beginning.
func (p *packedBody) open() (io.ReadCloser, error) {
	switch {
	case p.enc == "gzip":
		return gzip.NewReader(bytes.NewReader(p.data))
	case p.raw:
		return io.NopCloser(flate.NewReader(bytes.NewReader(p.data))), nil
	}
	return zlib.NewReader(bytes.NewReader(p.data))
}

// peek inflates at most n bytes from the start, uncharged: enough to tell
// what the body holds.
func (p *packedBody) peek(n int) []byte {
	r, err := p.open()
	if err != nil {
		return nil
	}
	defer r.Close()
	buf := make([]byte, n)
	k, _ := io.ReadFull(r, buf)
	return buf[:k]
}

// measure inflates the body into nothing, once, to learn its size within
// the bounds, and charges what it inflated to the file's budget. Memory
// stays at the inflater's window whatever the body holds.
func (p *packedBody) measure() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.measured {
		return
	}
	p.measured = true
	b := p.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	limit, file := b.body, false
	if b.left < limit {
		limit, file = b.left, true
	}
	r, err := p.open()
	if err != nil {
		p.broken, p.note = true, p.enc+": "+err.Error()
		return
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, io.LimitReader(r, limit+1))
	b.left = max(b.left-n, 0)
	switch {
	case n > limit:
		p.refused = &InflateError{Encoding: p.enc, Bound: limit, File: file}
		if file {
			p.refused.Bound = b.file
		}
	case err != nil && n == 0:
		p.broken, p.note = true, p.enc+": "+err.Error()
	case err != nil:
		p.size, p.note = n, p.enc+" body cut short: "+err.Error()
	default:
		p.size = n
	}
}

// reader streams the inflated body, exactly the bytes measure counted: a
// body cut short ends where its last whole block did, without the error.
func (p *packedBody) reader() (io.ReadCloser, error) {
	r, err := p.open()
	if err != nil {
		return nil, err
	}
	return &inflated{r: r, left: p.size}, nil
}

// inflated reads an inflater up to the size it was measured at.
type inflated struct {
	r    io.ReadCloser
	left int64
}

func (f *inflated) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, io.EOF
	}
	n, err := f.r.Read(p[:min(int64(len(p)), f.left)])
	f.left -= int64(n)
	switch {
	case f.left <= 0:
		return n, io.EOF
	case err == io.EOF:
		return n, io.ErrUnexpectedEOF // shorter than measured: cannot happen
	}
	return n, err
}

func (f *inflated) Close() error { return f.r.Close() }

// bytes inflates the whole body into one slice of its measured size:
// no buffer grows and is copied on the way.
func (p *packedBody) bytes() ([]byte, error) {
	r, err := p.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := make([]byte, p.size)
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, err
	}
	return out, nil
}
