package model

import (
	"bytes"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Batch holds frames that are framed, copied and validated ahead of the
// Session that adds them. Validating and indexing an event's JSON is about
// half of what adding it costs, and it depends on nothing before the
// event: a reader goroutine fills one Batch while the session adds the one
// before (Session.AddBatch), so two cores share the work. The zero Batch is
// ready to use; Reset empties it and keeps its memory for the next.
type Batch struct {
	// KeepRaw copies each frame's Raw bytes too, for callers that read
	// them (event lines, the checks). Without it a frame's Raw is nil.
	KeepRaw bool
	// Scan is what validating each frame records (Session.ScanOptions of
	// the session the batch is for); nil records the declared members
	// only.
	Scan *jsonscan.ScanOptions

	frames   []capture.Frame
	scans    []prescan
	arena    []byte
	idx      jsonscan.Indexes
	borrowed bool
	inner    []byte // the decoded inner documents of wrapped events (see Wrapper)
	b64      []byte // scratch for decoding them
}

// membersOnly is the scan of a Batch that was not told another.
var membersOnly = jsonscan.ScanOptions{Names: &memberNames}

// prescan is what a Batch's validation found in one frame's data.
type prescan struct {
	sc jsonscan.Scanned
	ok bool // the data was scanned: a JSON document, not absent or [DONE]
	// chunk is the document a wrapped event carries, decoded and scanned
	// (see Wrapper), when chunk.ok.
	chunk wrapped
}

// Add copies f into the batch. With borrow set it keeps f's slices
// instead of copying them: then the caller must leave the frame's bytes
// untouched until the batch has been added to its session, which spares a
// huge event a second copy of itself.
func (b *Batch) Add(f *capture.Frame, borrow bool) {
	b.frames = append(b.frames, capture.Frame{})
	if g := &b.frames[len(b.frames)-1]; borrow {
		*g = *f
		b.borrowed = true
	} else {
		// A recording's header keeps its bytes whatever KeepRaw says: the
		// session reads the exchange it states from them (learnExchange),
		// once, and it is the stream's first frame.
		raw := b.KeepRaw || (f.Start == 0 && f.Kind != capture.FrameEvent && bytes.HasPrefix(f.Raw, []byte(capture.RecordingMagic)))
		b.arena = f.DetachInto(g, b.arena, raw)
	}
	b.scans = append(b.scans, prescan{})
}

// ValidateLast validates and indexes the data of the frame added last, so
// that the session does not have to. The session validates the frames the
// batch did not, so a reader that is behind can leave some to it.
func (b *Batch) ValidateLast() {
	i := len(b.frames) - 1
	if i < 0 || b.scans[i].ok {
		return
	}
	if g := &b.frames[i]; g.Kind == capture.FrameEvent && g.HasData && !isDoneSentinel(g.Data) {
		var w Wrapper
		if len(wrappers) > 0 {
			w = wrapperOf(g)
		}
		if w != nil {
			// The usual payload is valid JSON when it decodes (see
			// Wrapper.UnwrapShaped): decoding it is its validation.
			if in := b.unwrapShaped(w, g.Data); in.ok {
				b.scans[i] = prescan{sc: jsonscan.Scanned{IsObject: true}, ok: true, chunk: in}
				return
			}
		}
		o := b.Scan
		if o == nil {
			o = &membersOnly
		}
		b.scans[i] = prescan{sc: b.idx.ScanWith(g.Data, o), ok: true}
		if w != nil {
			b.scans[i].chunk = b.prescanWrapped(w, g.Data, b.scans[i].sc)
		}
	}
}

// Len is the number of frames in the batch.
func (b *Batch) Len() int { return len(b.frames) }

// Borrowed reports whether a frame of the batch points into its reader's
// buffer (see Add).
func (b *Batch) Borrowed() bool { return b.borrowed }

// Reset empties the batch for reuse, keeping its memory, and lets go of
// any borrowed frame.
func (b *Batch) Reset() {
	if b.borrowed {
		clear(b.frames) // a borrowed frame must not keep its reader's buffer alive
	}
	b.frames, b.scans, b.arena, b.inner = b.frames[:0], b.scans[:0], b.arena[:0], b.inner[:0]
	b.idx.Reset()
	b.borrowed = false
}

// AddBatch adds the batch's frames in order, calling each (when not nil)
// after every one as Add's callers do, and stops at the first error each
// returns.
func (s *Session) AddBatch(b *Batch, each func(ev *Event, ord int, f *capture.Frame) error) error {
	for i := range b.frames {
		f := &b.frames[i]
		ord := s.count
		var ev *Event
		if p := &b.scans[i]; p.ok {
			if p.chunk.ok {
				s.chunk = prefocus{data: b.inner[p.chunk.at : p.chunk.at+p.chunk.n], sc: p.chunk.sc, in: &b.idx}
			}
			ev = s.add(f, &b.idx, p.sc)
			s.chunk = prefocus{}
		} else {
			ev = s.add(f, nil, jsonscan.Scanned{})
		}
		if each != nil {
			if err := each(ev, ord, f); err != nil {
				return err
			}
		}
	}
	return nil
}

func isDoneSentinel(data []byte) bool {
	if len(data) > 0 && data[0] == '{' {
		return false // the usual event: an object, not the sentinel
	}
	return string(bytes.TrimSpace(data)) == "[DONE]"
}
