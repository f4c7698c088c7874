package streamdiff

import (
	"bytes"
	"hash/maphash"
	"io"
	"math/bits"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// seed is the hash seed of every fingerprint in the process: two sides
// are only ever compared within one process.
var seed = maphash.MakeSeed()

// maxHashDepth is the nesting past which a value is hashed as its raw
// bytes rather than walked: a hostile 25-million-deep array must not
// overflow the stack.
const maxHashDepth = 64

// Recorder watches a session as it is built (it is a model.Observer) and
// keeps, for every event, a fingerprint of its data with the ignored
// members left out, and where its data lies within its bytes. Two events
// with the same fingerprint are taken as equal; only pairs whose
// fingerprints differ are read back and compared field by field. It costs
// 16 bytes an event.
//
// A Recorder is not safe for concurrent use; the session calls it from
// the goroutine that adds events.
type Recorder struct {
	ign  Ignore
	fps  []uint64
	data []span // where the data of each event lies within its raw bytes
}

// span locates an event's data within its raw bytes; off < 0 when the
// data is not one piece of them (SSE data on several lines).
type span struct{ off, n int32 }

// NewRecorder returns a recorder that leaves the members ig names out of
// the fingerprints.
func NewRecorder(ig Ignore) *Recorder { return &Recorder{ign: ig} }

// Attach returns opts with a new Recorder as its observer, and the
// recorder. The session keeps its events (KeepEvents): the alignment
// needs them.
func Attach(opts model.Options, ig Ignore) (model.Options, *Recorder) {
	r := NewRecorder(ig)
	opts.Observer = r
	opts.KeepEvents = true
	return opts, r
}

// Observe implements model.Observer.
func (r *Recorder) Observe(s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	for len(r.fps) < ord { // never expected: the session calls in order
		r.fps = append(r.fps, 0)
		r.data = append(r.data, span{off: -1})
	}
	r.fps = append(r.fps, r.fingerprint(s, ev, f))
	r.data = append(r.data, dataSpan(f))
}

// Len is the number of events recorded.
func (r *Recorder) Len() int { return len(r.fps) }

// dataSpan finds f.Data within f.Raw.
func dataSpan(f *capture.Frame) span {
	if len(f.Data) == 0 || len(f.Raw) == 0 {
		return span{off: -1}
	}
	off := cap(f.Raw) - cap(f.Data)
	if off < 0 || off+len(f.Data) > len(f.Raw) || &f.Raw[off] != &f.Data[0] || len(f.Raw) > 1<<31-1 {
		return span{off: -1}
	}
	return span{off: int32(off), n: int32(len(f.Data))}
}

// fingerprint hashes what an event says, leaving out what is ignored.
func (r *Recorder) fingerprint(s *model.Session, ev *model.Event, f *capture.Frame) uint64 {
	h := uint64(ev.Kind)<<56 ^ maphash.String(seed, s.TypeName(ev.Type))
	switch {
	case f.Kind == capture.FrameHead:
		return mix(h ^ uint64(f.Status))
	case ev.Kind == model.KindKeepalive && len(f.Data) == 0:
		return mix(h ^ maphash.Bytes(seed, f.Raw))
	}
	data := bytes.TrimSpace(f.Data)
	if len(data) > 0 && data[0] == '{' && ev.Flags&model.DecodeError == 0 {
		return mix(h ^ r.hashValue(s.JSON(), data, 0))
	}
	return mix(h ^ maphash.Bytes(seed, data))
}

// hashValue hashes a JSON value: objects member by member, in any order
// (a re-serialising gateway may reorder keys), ignored members left out;
// arrays element by element, in order; scalars by their bytes.
func (r *Recorder) hashValue(x *jsonscan.Index, v []byte, depth int) uint64 {
	if len(v) == 0 {
		return 0
	}
	switch v[0] {
	case '{':
		if depth >= maxHashDepth {
			break
		}
		h := uint64(0x9e3779b97f4a7c15)
		x.Members(v, func(k, val []byte) bool {
			// Sequence numbers are compared apart (checkSequence): in
			// the fingerprint, one dropped event would make every later
			// one differ.
			if !r.ign.hasKey(k) && string(k) != IgnoreSeq {
				h += mix(maphash.Bytes(seed, k) ^ bits.RotateLeft64(r.hashValue(x, val, depth+1), 17))
			}
			return true
		})
		return h
	case '[':
		if depth >= maxHashDepth {
			break
		}
		h := uint64(0x51afd7ed558ccd)
		x.Elements(v, func(_ int, el []byte) bool {
			h = mix(h*31 ^ r.hashValue(x, el, depth+1))
			return true
		})
		return h
	}
	return maphash.Bytes(seed, v)
}

// mix is the finaliser of MurmurHash3: it spreads every input bit over
// the output, so that sums of mixed member hashes do not cancel.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// Side is one stream of a comparison: its session and the recorder that
// watched it being built.
type Side struct {
	Name string // how reports name it: a file name, "stdin", "sample NAME"
	S    *model.Session
	rec  *Recorder
}

// NewSide pairs a session with the recorder that was attached to it when
// it was built (Attach). Events the recorder did not see (none, when it was
// attached) get fingerprints of their kind and type alone.
func NewSide(name string, s *model.Session, rec *Recorder) *Side {
	if rec == nil {
		rec = NewRecorder(Ignore{})
	}
	for ord := rec.Len(); ord < s.Events.Len(); ord++ {
		ev := s.Events.At(ord)
		rec.fps = append(rec.fps, mix(uint64(ev.Kind)<<56^maphash.String(seed, s.TypeName(ev.Type))))
		rec.data = append(rec.data, span{off: -1})
	}
	return &Side{Name: name, S: s, rec: rec}
}

// Build models a whole stream held in memory, with a recorder attached, as
// a Side: for tests, samples and fixtures.
func Build(name string, data []byte, format capture.Format, ig Ignore) *Side {
	opts, rec := Attach(model.Options{Raw: bytes.NewReader(data)}, ig)
	s := model.Assemble(data, format, opts)
	return NewSide(name, s, rec)
}

// Data reads back the data of event ord: the JSON (or text) its frame
// carries, without the SSE field names around it.
func (sd *Side) Data(ord int) ([]byte, error) {
	if ord < 0 || ord >= sd.S.Events.Len() {
		return nil, io.ErrUnexpectedEOF
	}
	ev := sd.S.Events.At(ord)
	raw, err := sd.S.Raw(ev)
	if err != nil {
		return nil, err
	}
	if sp := sd.rec.data[ord]; sp.off >= 0 && int(sp.off)+int(sp.n) <= len(raw) {
		return raw[sp.off : sp.off+sp.n], nil
	}
	data, _ := dataOf(raw)
	return data, nil
}

// dataOf frames raw bytes of one event again and returns its data, and
// its offset within raw when it is one piece of it (else -1). Bytes that
// are not SSE (a JSON line, a whole response) are their own data.
func dataOf(raw []byte) ([]byte, int) {
	var data []byte
	found := false
	fr := capture.NewFramer(capture.FormatAuto)
	emit := func(f *capture.Frame) {
		if !found && f.HasData {
			data, found = bytes.Clone(f.Data), true
		}
	}
	fr.Feed(raw, capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
	if !found {
		return raw, 0
	}
	if i := bytes.Index(raw, data); i >= 0 && len(data) > 0 {
		return raw[i : i+len(data)], i
	}
	return data, -1
}
