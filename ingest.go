package main

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// borrowAbove is the frame size above which the reader hands a frame to
// the session without copying it, and waits until it is added: a 50 MB
// event copied into a batch would cost 50 MB more memory.
const borrowAbove = 1 << 20

// batchesInFlight is how many batches exist: one filling, one waiting, one
// being added.
const batchesInFlight = 3

var errStopped = errors.New("stopped")

// readInto reads src to its end into s. framed sees each frame as soon as
// it is framed; added (when set) sees each event once s has added it, and
// an error from it stops the reading. keepRaw keeps each frame's Raw bytes
// for added and the session's observer.
//
// With pipelined set, framing and JSON validation run on a goroutine of
// their own, one read ahead of assembly, and frames cross over in a
// model.Batch per read: on two cores `calls` then runs about 1.5x faster.
// A batch per read rather than per frame keeps the hand-overs few, and a
// slow live stream still has every event added as soon as it arrives.
// Without it everything runs on the calling goroutine.
func readInto(ctx context.Context, src *capture.Source, ropt capture.ReadOptions, s *model.Session,
	framed func(*capture.Frame), added func(*model.Event, int, *capture.Frame) error, keepRaw, pipelined bool) error {
	if !pipelined {
		return src.Read(ctx, ropt, func(f *capture.Frame) error {
			framed(f)
			ord := s.Len()
			ev := s.Add(f)
			if added != nil {
				return added(ev, ord, f)
			}
			return nil
		})
	}
	full := make(chan *model.Batch, 1)
	free := make(chan *model.Batch, batchesInFlight)
	for range batchesInFlight {
		free <- &model.Batch{KeepRaw: keepRaw}
	}
	addedBorrowed := make(chan struct{})
	var stop, starved atomic.Bool
	share := validateShare{n: shareSteps}
	var readErr error
	go func() {
		defer close(full)
		cur := <-free
		send := func() {
			if cur.Len() == 0 {
				return
			}
			select {
			case full <- cur:
				if starved.Load() {
					share.less() // assembly waited for this batch
				}
			default:
				share.more() // assembly is behind: take more of its work
				full <- cur
			}
			cur = <-free
		}
		ropt.AfterRead = send
		readErr = src.Read(ctx, ropt, func(f *capture.Frame) error {
			if stop.Load() {
				return errStopped
			}
			framed(f)
			if len(f.Raw) <= borrowAbove {
				cur.Add(f, false)
				if share.take() {
					cur.ValidateLast()
				}
				return nil
			}
			send()
			cur.Add(f, true)
			cur.ValidateLast()
			send()
			<-addedBorrowed // f's bytes are the framer's until then
			return nil
		})
		send()
	}()
	var addErr error
	for {
		starved.Store(true)
		b, ok := <-full
		starved.Store(false)
		if !ok {
			break
		}
		if addErr == nil {
			if addErr = s.AddBatch(b, added); addErr != nil {
				stop.Store(true)
			}
		}
		borrowed := b.Borrowed()
		b.Reset()
		free <- b
		if borrowed {
			addedBorrowed <- struct{}{}
		}
	}
	if addErr != nil {
		return addErr
	}
	return readErr
}

// shareSteps is how finely validateShare divides the work.
const shareSteps = 16

// validateShare is the share of frames the reader validates, n in every
// shareSteps, spread evenly. The reader frames, copies and validates;
// the session assembles, and validates what the reader left. Which side
// is slower depends on the dialect and the machine, so the share moves a
// step after each batch towards the side that waited.
type validateShare struct {
	n, i int
}

func (v *validateShare) take() bool {
	v.i += v.n
	if v.i >= shareSteps {
		v.i -= shareSteps
		return true
	}
	return false
}

func (v *validateShare) less() { v.n = max(v.n-1, 0) }
func (v *validateShare) more() { v.n = min(v.n+1, shareSteps) }
