package streamdiff

import (
	"bytes"
	"hash/maphash"
	"io"
	"math"
	"time"

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
// keeps what the alignment needs of every event in about 15 bytes (19
// when it keeps a second fingerprint, see align): its
// item, type and kind, the length of its bytes (its offset follows from
// the lengths before it), its sequence number when it has one, and a
// fingerprint of its data with the ignored members left out. Two events
// with the same fingerprint are taken as equal; only pairs whose
// fingerprints differ are read back and compared field by field.
//
// The session need not keep its own events (Options.KeepEvents, 48 bytes
// each): a diff holds two streams within the budget of one per stream,
// and two sessions of 750,000 events each already fill most of it.
//
// A Recorder is not safe for concurrent use; the session calls it from
// the goroutine that adds events.
type Recorder struct {
	ign Ignore
	// skip is what fingerprints leave out: ign's members, and sequence
	// numbers (compared apart, by checkSequence: in the fingerprint, one
	// dropped event would make every later one differ).
	skip *jsonscan.KeySet
	// align, when the recorder ignores less than DefaultIgnore does
	// (--strict, or an Ignore without some default names), is what the
	// alignment leaves out: the default names as well as ign's. Events are
	// aligned by that second fingerprint, so that a strict comparison pairs
	// the events the default one pairs and reports what it reports, and
	// more: a fingerprint that counts every member would take a delta
	// whose obfuscation a gateway changed for another event, and a
	// dropped delta would hide in a chunking difference.
	align     Ignore
	alignSkip *jsonscan.KeySet // align's members and sequence numbers
	twoPrint  bool
	blocks    []*recBlock
	n         int
	next      int64           // where the next event would start if contiguous
	moved     map[int32]int64 // offsets of events that do not start where the one before ended
	timing    Times
	prevAt    time.Duration
	// raw reads the stream's bytes back (the session's Options.Raw), into
	// buf, which is reused: the fields of three 50 MB events that differ
	// are then read with one 50 MB buffer per side, not six.
	raw io.ReaderAt
	buf []byte
}

// recBlockSize is the number of events in a recBlock; recStep the events
// between two offsets a block keeps.
const (
	recBlockSize = 1 << 14
	recStep      = 64
)

// recBlock holds the records of recBlockSize events, a field per array:
// fixed arrays never copied as the recorder grows, without the padding a
// struct per event would cost.
type recBlock struct {
	fp   [recBlockSize]uint32  // fingerprint
	afp  *[recBlockSize]uint32 // the alignment's fingerprint, when it is another (Recorder.align)
	n    [recBlockSize]uint32  // length of the event's bytes
	item [recBlockSize]int32   // index in Session.Items, or -1
	typ  [recBlockSize]uint16  // the session's interned type
	kind [recBlockSize]model.Kind
	off  [recBlockSize / recStep]int64 // offset of every recStep-th event
	// named has a bit set for each event an SSE event: line named.
	named [recBlockSize / 64]uint64
	seq   *[recBlockSize]int32 // sequence numbers (saturated), -1 when none; nil until one has one
}

// NewRecorder returns a recorder that leaves the members ig names out of
// the fingerprints.
func NewRecorder(ig Ignore) *Recorder {
	r := &Recorder{ign: ig, timing: Times{FirstEvent: -1, FirstArgsDelta: -1, Total: -1, LargestGap: -1, GapEvent: -1}, prevAt: -1}
	def := DefaultIgnore()
	for _, n := range def {
		if !ig.Has(n) {
			r.twoPrint = true
		}
	}
	r.skip = jsonscan.NewKeySet(append(ig.Names(), IgnoreSeq)...)
	if r.twoPrint {
		r.align = NewIgnore(append(def, ig.Names()...)...)
		r.alignSkip = jsonscan.NewKeySet(append(r.align.Names(), IgnoreSeq)...)
	}
	return r
}

// FingerprintSkip implements model.Fingerprinter: the scan of each event
// computes its fingerprint, leaving out what the comparison ignores.
func (r *Recorder) FingerprintSkip() *jsonscan.KeySet { return r.skip }

// Attach returns opts with a new Recorder observing its events, after
// the observer opts already has if any (the inspector's checks), and the
// recorder.
func Attach(opts model.Options, ig Ignore) (model.Options, *Recorder) {
	r := NewRecorder(ig)
	r.raw = opts.Raw
	return opts.WithObserver(r), r
}

// Observe implements model.Observer.
func (r *Recorder) Observe(s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	if ord != r.n {
		return // never expected: the session calls in order, once each
	}
	i := ord % recBlockSize
	if i == 0 {
		r.blocks = append(r.blocks, new(recBlock))
	}
	b := r.blocks[len(r.blocks)-1]
	full, aligned := r.fingerprint(s, ev, f)
	b.fp[i] = fold(full)
	if r.twoPrint {
		if b.afp == nil {
			b.afp = new([recBlockSize]uint32)
		}
		b.afp[i] = fold(aligned)
	}
	b.n[i] = uint32(max(ev.Len, 0))
	b.item[i], b.typ[i], b.kind[i] = ev.Item, ev.Type, ev.Kind
	if ev.Name != 0 {
		b.named[i/64] |= 1 << (i % 64)
	}
	if i%recStep == 0 {
		b.off[i/recStep] = ev.Offset
	} else if ev.Offset != r.next {
		if r.moved == nil {
			r.moved = map[int32]int64{}
		}
		r.moved[int32(ord)] = ev.Offset
	}
	r.next = ev.Offset + int64(b.n[i])
	if ev.Seq >= 0 || b.seq != nil {
		if b.seq == nil {
			b.seq = new([recBlockSize]int32)
			for k := range i {
				b.seq[k] = -1
			}
		}
		b.seq[i] = int32(min(max(ev.Seq, -1), math.MaxInt32))
	}
	r.n++
	if ev.HasTime() {
		r.time(ord, ev)
	}
}

// fold makes a 32-bit fingerprint of a 64-bit hash. Fingerprints are only
// compared between events the alignment pairs, so two different events
// are taken as equal with a chance of one in four billion per pair.
func fold(h uint64) uint32 { return uint32(h ^ h>>32) }

// time measures the timing as events arrive, so that no event keeps its
// arrival time.
func (r *Recorder) time(ord int, ev *model.Event) {
	t := &r.timing
	if t.FirstEvent < 0 {
		t.FirstEvent = ev.At
	}
	if t.FirstArgsDelta < 0 && ev.Kind == model.KindArgsDelta {
		t.FirstArgsDelta = ev.At
	}
	if r.prevAt >= 0 && ev.At-r.prevAt > t.LargestGap {
		t.LargestGap, t.GapEvent = ev.At-r.prevAt, ord
	}
	t.Total, r.prevAt = ev.At, ev.At
}

// Len is the number of events recorded.
func (r *Recorder) Len() int { return r.n }

func (r *Recorder) block(ord int32) (*recBlock, int32) {
	return r.blocks[ord/recBlockSize], ord % recBlockSize
}

func (r *Recorder) fp(ord int32) uint32 { b, i := r.block(ord); return b.fp[i] }

// afp is the fingerprint events are aligned by (see Recorder.align).
func (r *Recorder) afp(ord int32) uint32 {
	b, i := r.block(ord)
	if b.afp == nil {
		return b.fp[i]
	}
	return b.afp[i]
}

func (r *Recorder) item(ord int32) int32        { b, i := r.block(ord); return b.item[i] }
func (r *Recorder) typ(ord int32) uint16        { b, i := r.block(ord); return b.typ[i] }
func (r *Recorder) kindOf(ord int32) model.Kind { b, i := r.block(ord); return b.kind[i] }

// named reports whether an event: line named event ord.
func (r *Recorder) named(ord int32) bool {
	b, i := r.block(ord)
	return b.named[i/64]&(1<<(i%64)) != 0
}

// seq is event ord's sequence number, or -1.
func (r *Recorder) seq(ord int32) int32 {
	b, i := r.block(ord)
	if b.seq == nil {
		return -1
	}
	return b.seq[i]
}

// span is where event ord's bytes lie: from the offset kept for every
// recStep-th event (or for one that did not follow on), plus the lengths
// of the events in between.
func (r *Recorder) span(ord int32) (off int64, n int32) {
	b, i := r.block(ord)
	from := i - i%recStep
	off = b.off[i/recStep]
	if len(r.moved) > 0 {
		for k := i; k > from; k-- {
			if o, ok := r.moved[ord-(i-k)]; ok {
				from, off = k, o
				break
			}
		}
	}
	for j := from; j < i; j++ {
		off += int64(b.n[j])
	}
	return off, int32(b.n[i])
}

// fingerprint hashes what an event says, leaving out what is ignored;
// and, when the alignment ignores more (Recorder.align), what it says
// leaving that out too, in the same walk. aligned is full otherwise.
func (r *Recorder) fingerprint(s *model.Session, ev *model.Event, f *capture.Frame) (full, aligned uint64) {
	h := uint64(ev.Kind)<<56 ^ maphash.String(seed, s.TypeName(ev.Type))
	switch {
	case f.Kind == capture.FrameHead:
		h = mix(h ^ uint64(f.Status))
		return h, h
	case ev.Kind == model.KindKeepalive && len(f.Data) == 0:
		h = mix(h ^ maphash.Bytes(seed, f.Raw))
		return h, h
	}
	data := bytes.TrimSpace(f.Data)
	if len(data) > 0 && data[0] == '{' && ev.Flags&model.DecodeError == 0 {
		// What the event's JSON says: objects member by member in any
		// order (a re-serialising gateway may reorder keys), ignored
		// members left out; computed by the scan that validated the event
		// (model.Fingerprinter), else by a walk of the same definition
		// (jsonscan.Fingerprint), as the alignment's is.
		fp, ok := s.Fingerprint()
		if !ok {
			fp = jsonscan.Fingerprint(s.JSON(), data, r.skip)
		}
		full = mix(h ^ fp)
		if !r.twoPrint {
			return full, full
		}
		return full, mix(h ^ jsonscan.Fingerprint(s.JSON(), data, r.alignSkip))
	}
	h = mix(h ^ maphash.Bytes(seed, data))
	return h, h
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
// it was built (Attach); without one, the side has no events to align.
func NewSide(name string, s *model.Session, rec *Recorder) *Side {
	if rec == nil {
		rec = NewRecorder(Ignore{})
	}
	return &Side{Name: name, S: s, rec: rec}
}

// Len is the number of events of the side.
func (sd *Side) Len() int { return sd.rec.Len() }

// Timing is when the side's events arrived (negative durations when its
// events carry no times).
func (sd *Side) Timing() Times { return sd.rec.timing }

// oneDataLine finds the data of an SSE event that has a single data line,
// as almost every event does, without framing it again.
func oneDataLine(raw []byte) (data []byte, off int, ok bool) {
	for i := 0; i < len(raw); {
		end := i + bytes.IndexAny(raw[i:], "\r\n")
		if end < i {
			end = len(raw)
		}
		if bytes.HasPrefix(raw[i:end], []byte("data:")) {
			if ok {
				return nil, 0, false // several data lines: the framer joins them
			}
			start := i + len("data:")
			if start < end && raw[start] == ' ' {
				start++
			}
			data, off, ok = raw[start:end], start, true
		}
		i = end + 1
		if end < len(raw) && raw[end] == '\r' && i < len(raw) && raw[i] == '\n' {
			i++
		}
	}
	return data, off, ok
}

// Build models a whole stream held in memory, with a recorder attached, as
// a Side: for tests, samples and fixtures.
func Build(name string, data []byte, format capture.Format, ig Ignore) *Side {
	opts, rec := Attach(model.Options{Raw: bytes.NewReader(data)}, ig)
	s := model.Assemble(data, format, opts)
	return NewSide(name, s, rec)
}

// Data reads back the data of event ord: the JSON (or text) its frame
// carries, without the SSE field names around it. It needs the session's
// Options.Raw. The slice is valid until the next call.
func (sd *Side) Data(ord int) ([]byte, error) {
	if ord < 0 || ord >= sd.rec.Len() {
		return nil, io.ErrUnexpectedEOF
	}
	off, n := sd.rec.span(int32(ord))
	var raw []byte
	var err error
	if r := sd.rec; r.raw != nil {
		if cap(r.buf) < int(n) {
			r.buf = make([]byte, n)
		}
		var k int
		k, err = r.raw.ReadAt(r.buf[:n], off)
		if k == int(n) {
			err = nil
		}
		raw = r.buf[:k]
	} else {
		raw, err = sd.S.Raw(&model.Event{Offset: off, Len: n})
	}
	if err != nil {
		return nil, err
	}
	data, _ := dataOf(raw)
	return data, nil
}

// dataOf frames raw bytes of one event again and returns its data, and
// its offset within raw when it is one piece of it (else -1). Bytes that
// are not SSE (a JSON line, a whole response) are their own data.
func dataOf(raw []byte) ([]byte, int) {
	if d, off, ok := oneDataLine(raw); ok {
		return d, off
	}
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
