package ingest

import (
	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// Inline adds frames to a live session on the goroutine that frames them:
// the hand-over for a producer that is its own consumer. The proxy is one:
// it frames a client's stream as it passes it on and must not make that
// stream wait for another goroutine. A Pump cannot serve it: a Pump lends
// a frame over LendAbove and waits for the consumer's Release, which on
// the same goroutine never comes.
//
// The contract:
//
//   - Bytes. Frame copies the frame (its Raw too with keepRaw) into a
//     batch, so the framer may reuse its buffer once Frame returns. A
//     frame over LendAbove is not copied: Frame adds the frames before
//     it, then that frame, before it returns, while its bytes are still
//     the framer's.
//   - When frames are added. EndRead adds the batch to the session under
//     its lock, once per read, so that a reader of the session (the
//     sessions list) waits for at most one read's modelling. A batch also
//     ends in the middle of a read at DefaultMaxFrames frames or
//     DefaultMaxBytes copied bytes, which bounds its memory.
//
// An Inline is used by one goroutine at a time.
type Inline struct {
	live  *model.Live
	b     model.Batch
	bytes int // bytes copied into b, roughly: the frames' Raw sizes
	added bool
}

// NewInline returns an Inline that adds to live; keepRaw copies each
// frame's Raw bytes too, which the checks need.
func NewInline(live *model.Live, keepRaw bool) *Inline {
	return &Inline{live: live, b: model.Batch{KeepRaw: keepRaw}}
}

// Frame adds one frame; see Inline for when.
func (in *Inline) Frame(f *capture.Frame) {
	if len(f.Raw) > LendAbove {
		in.flush()
		collectBefore(f)
		s := in.live.Lock()
		s.Add(f) // f's bytes are valid until Frame returns: no copy is needed
		in.live.Unlock()
		in.added = true
		return
	}
	in.b.Add(f, false)
	in.bytes += len(f.Raw)
	if in.b.Len() >= DefaultMaxFrames || in.bytes >= DefaultMaxBytes {
		in.flush()
	}
}

// EndRead adds the frames of the read that are not in the session yet.
// It reports whether any frame was added since the last EndRead.
func (in *Inline) EndRead() bool {
	in.flush()
	added := in.added
	in.added = false
	return added
}

// flush adds the batch to the session and empties it.
func (in *Inline) flush() {
	if in.b.Len() == 0 {
		return
	}
	s := in.live.Lock()
	_ = s.AddBatch(&in.b, nil) // without a callback it cannot fail
	in.live.Unlock()
	in.b.Reset()
	in.bytes = 0
	in.added = true
}
