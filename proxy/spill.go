package proxy

// Spilling: the sessions list keeps only a row per ended session, so the
// proxy keeps each session's bytes on disk, under Options.Spill, and
// models the session again from them when the list opens it (model.StoredSession).
//
// A session's copy is what it was modelled from, as it came: what the
// request and the response head said, each read of the body with its
// arrival time, and the body. It is written once, when the session ends
// (the body is in its capture.Store until then), compressed with DEFLATE
// (RFC 1951: 9x on a generated Responses stream, 2-16x on the shared
// captures), and appended to a segment file that holds many sessions. A
// file per session cost 2.8 ms per file to delete on a disk mounted with
// online discard, 11 s at quit for 4,000 sessions; compressed segments
// are a few files a tenth the size. A segment is deleted once every
// session in it was let go (ui.Options.Keep) and it is full.
//
//	copy  = DEFLATE( uvarint(len(meta)) meta uvarint(len(reads)) reads body )
//	meta  = JSON (spillMeta)
//	reads = ( uvarint(len) varint(at) )*, one per read of the body
//
// Loading runs the same session code over it that ran live (respond,
// body, endModel), so the events, the findings and the request pane are
// those of the live session. A recording would not do: it redacts the
// response's secret headers and keeps no times for a body that is not
// SSE.

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/flate"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// segmentSize is the size from which a segment takes no more sessions.
const segmentSize = 64 << 20

// spillMeta is what a session's copy says besides its body.
type spillMeta struct {
	ID     int    `json:"id"`
	Method string `json:"method"`
	// Path is the request URI, secret query parameters redacted unless
	// KeepSecrets; RequestHeader likewise.
	Path          string      `json:"path"`
	RequestHeader http.Header `json:"request_header,omitempty"`
	RequestBody   []byte      `json:"request_body,omitempty"`
	// WSRequest is a WebSocket's first response.create, its request.
	WSRequest []byte `json:"ws_request,omitempty"`
	// The response head, when one came.
	Responded      bool          `json:"responded"`
	Status         int           `json:"status,omitempty"`
	Proto          string        `json:"proto,omitempty"`
	ResponseHeader http.Header   `json:"response_header,omitempty"`
	HeadAt         time.Duration `json:"head_at"`
	// How the model ended: the time of the body's end (capture.NoTime
	// when it never ended) and the error the session was ended with.
	EndAt  time.Duration `json:"end_at"`
	Ended  bool          `json:"ended"`
	EndErr *string       `json:"end_err,omitempty"`
}

// spillDir keeps ended sessions' copies in segment files under dir. It is
// safe for concurrent use.
type spillDir struct {
	dir     string
	segSize int64 // the size from which a segment takes no more copies; 0: segmentSize

	mu   sync.Mutex
	cur  *segment // the segment copies are appended to, or nil
	next int      // the next segment's number

	// create makes a segment file; os.OpenFile (O_EXCL) when nil. Tests
	// give one that fails, or writes to /dev/full.
	create func(path string) (*os.File, error)
}

// segment is one file of copies. Its fields are guarded by spillDir.mu.
type segment struct {
	path string
	f    *os.File // open for appending while it is the current segment
	size int64
	live int // copies in it not removed
}

// put appends a copy and returns where it is.
func (d *spillDir) put(blob []byte) (*segment, int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cur != nil && d.cur.size >= cmp.Or(d.segSize, segmentSize) {
		d.retire()
	}
	if d.cur == nil {
		d.next++
		seg := &segment{path: filepath.Join(d.dir, "sessions-"+strconv.Itoa(d.next)+".spill")}
		create := d.create
		if create == nil {
			create = func(p string) (*os.File, error) { return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) }
		}
		f, err := create(seg.path)
		if err != nil {
			return nil, 0, err
		}
		seg.f, d.cur = f, seg
	}
	seg := d.cur
	off := seg.size
	n, err := seg.f.Write(blob)
	seg.size += int64(n)
	if err != nil {
		// The cut copy goes (a full disk gets its room back), and so does
		// the segment as a place for copies: it is never read past off.
		if seg.f.Truncate(off) == nil {
			seg.size = off
		}
		d.retire()
		return nil, 0, err
	}
	seg.live++
	return seg, off, nil
}

// retire closes the current segment: it takes no more copies, and goes
// once none of its copies is live. d.mu is held.
func (d *spillDir) retire() {
	seg := d.cur
	d.cur = nil
	_ = seg.f.Close()
	seg.f = nil
	if seg.live == 0 {
		_ = os.Remove(seg.path)
	}
}

// remove lets one copy in seg go.
func (d *spillDir) remove(seg *segment) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	seg.live--
	switch {
	case seg.live > 0:
	case seg == d.cur:
		d.retire() // and removes it
	default:
		return os.Remove(seg.path)
	}
	return nil
}

// flaters are the compressors of the copies being written: each costs
// about 1 MB, made once and reused.
var flaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed) // BestSpeed is a valid level
	return w
}}

// spilled is one session's copy, the sessions list's way back to the
// session (it implements model.StoredSession).
type spilled struct {
	d           *spillDir
	seg         *segment
	off, n      int64
	keepSecrets bool
	removed     atomic.Bool
}

// Remove lets the copy go; its segment is deleted with the last one.
func (sp *spilled) Remove() error {
	if sp.removed.Swap(true) {
		return nil
	}
	return sp.d.remove(sp.seg)
}

// Load models the session again from its copy, through the code that
// modelled it live.
func (sp *spilled) Load() (model.LoadedSession, error) {
	if sp.removed.Load() {
		return model.LoadedSession{}, errors.New("its copy was removed")
	}
	f, err := os.Open(sp.seg.path)
	if err != nil {
		return model.LoadedSession{}, err
	}
	defer f.Close()
	zr := flate.NewReader(io.NewSectionReader(f, sp.off, sp.n))
	defer zr.Close()
	l, err := loadSession(bufio.NewReaderSize(zr, 64<<10), sp.keepSecrets)
	if err != nil {
		return model.LoadedSession{}, fmt.Errorf("%s at %d: %w", sp.seg.path, sp.off, err)
	}
	return l, nil
}

// loadSession reads a copy (decompressed) and models its session.
func loadSession(r *bufio.Reader, keepSecrets bool) (model.LoadedSession, error) {
	js, err := readPart(r)
	if err != nil {
		return model.LoadedSession{}, err
	}
	var meta spillMeta
	if err := json.Unmarshal(js, &meta); err != nil {
		return model.LoadedSession{}, err
	}
	reads, err := readPart(r)
	if err != nil {
		return model.LoadedSession{}, err
	}
	p := &Proxy{o: Options{KeepSecrets: keepSecrets}, log: NewLog(io.Discard), feed: inertFeed}
	req := (&http.Request{Method: meta.Method, URL: &url.URL{Path: "/"}, Header: http.Header{}}).WithContext(context.Background())
	ps := p.newSession(req)
	ps.id, ps.path = meta.ID, meta.Path
	ps.reqHeader, ps.reqBody = meta.RequestHeader, meta.RequestBody
	ps.req = model.ParseRequest(ps.reqBody, ps.path)
	ps.learnChecks()
	x := ps.exchange()
	ps.learnExchange(&x, model.Earlier{})
	if meta.Responded {
		ps.headAt = meta.HeadAt
		ps.respond(&http.Response{StatusCode: meta.Status, Proto: meta.Proto, Header: meta.ResponseHeader})
		var buf bytes.Buffer
		for rd := bytes.NewReader(reads); rd.Len() > 0; {
			n, err := binary.ReadUvarint(rd)
			if err != nil {
				return model.LoadedSession{}, fmt.Errorf("bad reads: %w", err)
			}
			at, err := binary.ReadVarint(rd)
			if err != nil || n > 1<<40 {
				return model.LoadedSession{}, fmt.Errorf("bad reads: %v", err)
			}
			// Grown as the bytes come, not made n long: a bad length
			// runs out of input instead of allocating it.
			buf.Reset()
			if _, err := io.CopyN(&buf, r, int64(n)); err != nil {
				return model.LoadedSession{}, fmt.Errorf("body: %w", err)
			}
			ps.body(buf.Bytes(), time.Duration(at))
		}
		if meta.EndAt != capture.NoTime {
			ps.endModel(meta.EndAt)
		}
	}
	s := ps.live.Session()
	if meta.Ended {
		var endErr error
		if meta.EndErr != nil {
			endErr = errors.New(*meta.EndErr)
		}
		s.End(endErr)
	}
	if meta.WSRequest != nil {
		ps.ws = &wsSession{request: meta.WSRequest}
		ps.req = model.ParseRequest(meta.WSRequest, ps.path)
	}
	return model.LoadedSession{Session: s, Request: ps.exchangeInfo().Request}, nil
}

// readPart reads a length and that many bytes, grown as they come.
func readPart(r *bufio.Reader) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > 1<<40 {
		return nil, fmt.Errorf("a part of %d bytes", n)
	}
	var b bytes.Buffer
	if _, err := io.CopyN(&b, r, int64(n)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// inertFeed is the feed of a session being loaded: it has one, so that it
// is modelled as the sessions list's sessions are (events, bytes,
// checks), and nobody hears of it.
var inertFeed = &Feed{aborted: true}

// spillBody notes a read of the body for the session's copy: its length
// and time (the bytes are in the session's store).
func (ps *session) spillBody(p []byte, at time.Duration) {
	if ps.p.spill != nil {
		ps.reads = binary.AppendUvarint(ps.reads, uint64(len(p)))
		ps.reads = binary.AppendVarint(ps.reads, int64(at))
	}
}

// closeSpill writes the session's copy and returns it for the sessions
// list; nil without a spill directory (the list then keeps the session in
// memory). When the copy cannot be written (the disk is full), it says
// why instead (notKept), and the list lets the session go all the same:
// falling back to memory made a proxy with a full $TMPDIR grow from 58 to
// 1,126 MB over 3,000 sessions. It runs in finish, once, after the body's
// last read.
func (ps *session) closeSpill() (stored model.StoredSession, notKept string) {
	d := ps.p.spill
	if d == nil {
		return nil, ""
	}
	reads := ps.reads
	ps.reads = nil
	s := ps.live.Lock()
	meta := ps.spillMeta(s)
	ps.live.Unlock()
	js, err := json.Marshal(meta)
	var blob bytes.Buffer
	if err == nil {
		zw := flaters.Get().(*flate.Writer)
		zw.Reset(&blob)
		var part []byte
		part = binary.AppendUvarint(part, uint64(len(js)))
		part = append(part, js...)
		part = binary.AppendUvarint(part, uint64(len(reads)))
		_, err = zw.Write(part)
		if err == nil {
			_, err = zw.Write(reads)
		}
		if err == nil {
			_, err = io.Copy(zw, io.NewSectionReader(ps.store, 0, ps.store.Size()))
		}
		if err == nil {
			err = zw.Close()
		}
		flaters.Put(zw)
	}
	var seg *segment
	var off int64
	if err == nil {
		seg, off, err = d.put(blob.Bytes())
	}
	if err != nil {
		ps.p.log.Printf("#%d spill: %v", ps.id, err)
		return nil, "not kept: " + whyNotWritten(err)
	}
	return &spilled{d: d, seg: seg, off: off, n: int64(blob.Len()), keepSecrets: ps.p.o.KeepSecrets}, ""
}

// whyNotWritten says in a few words why a copy could not be written, for
// the sessions list's status line ("disk full" for the usual cause); the
// log line has the whole error.
func whyNotWritten(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "disk full"
	case errors.Is(err, syscall.EDQUOT):
		return "disk quota exceeded"
	case errors.Is(err, syscall.EFBIG):
		return "file too large"
	case errors.Is(err, fs.ErrNotExist):
		return "spill directory gone"
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return "writes refused"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// spillMeta is what the session's copy says besides its body. s is the
// session, locked.
func (ps *session) spillMeta(s *model.Session) *spillMeta {
	ended, endErr := s.Ended()
	h, path := ps.reqHeader, ps.path
	if !ps.p.o.KeepSecrets {
		h, path = capture.RedactHeaders(h), capture.RedactURL(path)
	}
	meta := &spillMeta{
		ID: ps.id, Method: ps.method, Path: path, RequestHeader: h, RequestBody: ps.reqBody,
		Responded: ps.fr != nil, Status: ps.status, HeadAt: ps.headAt, EndAt: ps.endAt, Ended: ended,
	}
	if ps.fr != nil && len(s.Heads) > 0 {
		// The response head as the session got it: its first frame.
		head := s.Heads[0]
		meta.Proto, meta.ResponseHeader = head.Proto, http.Header{}
		for _, f := range head.Header {
			k := string(f.Name)
			meta.ResponseHeader[k] = append(meta.ResponseHeader[k], string(f.Value))
		}
	}
	if ps.ws != nil {
		meta.WSRequest = ps.ws.request
	}
	if endErr != nil {
		msg := ps.p.redactText(endErr.Error())
		meta.EndErr = &msg
	}
	return meta
}
