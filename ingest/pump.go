// Package ingest carries frames from the goroutine that reads a stream to
// the goroutine that models it. It is the one hand-over of frames in
// streamtap: the headless commands and the inspector pass their frames
// through a Pump, the proxy (which models on the goroutine that reads)
// through an Inline, both in model.Batch values, so that every consumer
// sees the same frames with the same bytes.
//
// It sits between model and the programs that use it: it imports capture
// and model, starts goroutines and reads sources, which model must not
// do. It knows nothing about terminals or HTTP.
package ingest

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// LendAbove is the frame size above which the producer hands a frame over
// without copying it, and waits until the consumer released it: a 50 MB
// event copied into a batch would cost 50 MB more memory.
const LendAbove = 1 << 20

// CollectAbove is the frame size from which the hand-over runs the
// collector before the frame is modelled. The framer grew its buffer to
// hold such a frame by copying it into one twice the size, and the heap
// limit of the commands and the proxy follows the heap the last
// collection found live, which then held both: the model's copies of the
// frame (its arguments, its text) were allocated beside the framer's
// outgrown buffers (the last of them 32 MiB for a 50 MB frame) whenever
// no collection came between.
const CollectAbove = 16 << 20

// collectBefore frees what the framer outgrew on its way to a frame of
// CollectAbove or more, before the frame is modelled.
func collectBefore(f *capture.Frame) {
	if len(f.Raw) >= CollectAbove {
		runtime.GC()
	}
}

// Defaults of Options.
const (
	DefaultBatches   = 3       // one filling, one waiting, one being added
	DefaultMaxFrames = 4096    // frames that end a batch in the middle of a read
	DefaultMaxBytes  = 1 << 20 // copied bytes that end a batch in the middle of a read
)

// ErrStopped is what Frame returns once the consumer has stopped the pump.
var ErrStopped = errors.New("stopped")

// Options shape a Pump.
type Options struct {
	// KeepRaw copies each frame's Raw bytes into the batch. The checks
	// need them (they tell an SSE event from a JSON line by its bytes),
	// and so do the event lines of `streamtap events`.
	KeepRaw bool
	// Scan is what the producer records when it validates a frame (the
	// Session.ScanOptions of the session the frames are for); nil records
	// the declared members only, and the session computes the rest.
	Scan *jsonscan.ScanOptions
	// Interval is the least time between two batches the consumer takes
	// at the end of a read, unless the batch holds Due frames. A consumer
	// that redraws a screen per batch (the inspector) sets it, so that a
	// chatty stream costs one redraw per Interval, not one per event. 0
	// hands every read's frames over as soon as the consumer asks.
	//
	// With an Interval, a read's frames are left for the consumer to take
	// when it is ready, instead of EndRead waiting until it took the
	// previous batch; while it is busy, later reads add to the same batch
	// (they gather), and the producer waits only when every batch is out.
	Interval time.Duration
	// Due is how many frames make a batch due at once despite Interval.
	Due int
	// MaxFrames and MaxBytes end a batch in the middle of a read, which
	// bounds what one hand-over costs the consumer (for the inspector,
	// how long one batch holds up a key) and the memory of a batch.
	// 0 takes the defaults.
	MaxFrames, MaxBytes int
	// Batches is how many batches exist; when all are out (filled and not
	// yet released), the producer waits. 0 takes DefaultBatches.
	Batches int

	// lendAbove replaces LendAbove when set: the stress test lends frames
	// of a few bytes, thousands of times.
	lendAbove int
	// yield, when set, runs at every point where one side hands something
	// to the other or waits for it: the stress test shakes the schedule
	// there (runtime.Gosched, short sleeps).
	yield func()
	// stall, when set, replaces the report ReportStalls set, and
	// stallAfter replaces StallAfter: a test sees a report at once.
	stall      func(string)
	stallAfter time.Duration
}

// Pump hands frames from one producer goroutine to one consumer goroutine
// in batches; the two must be different goroutines (a producer that is its
// own consumer uses an Inline). The contract:
//
//   - Bytes. Frame copies the frame into the batch being filled (its Raw
//     too with Options.KeepRaw), so the producer's framer may reuse its
//     buffer as soon as Frame returns. A frame over LendAbove is lent
//     instead: Frame returns only after the consumer released the batch
//     that holds it. A batch the consumer took from Next is the
//     consumer's until it calls Release; then the pump reuses its memory,
//     so nothing may keep pointers into it.
//   - When a batch is handed over. The producer calls EndRead after the
//     frames of each read. The frames of that read are then due: the
//     consumer's next Next returns them (with Options.Interval, once that
//     long has passed since it last took a batch, or at once when Due
//     frames have piled up). So a quiet live stream has each event handed
//     over as soon as it arrives. Without Options.Interval, EndRead waits
//     while the previous batch is still untaken, as a channel of one would;
//     with it, the producer goes on reading and a busy consumer later gets
//     the frames of several reads in one batch. A batch also ends in the
//     middle of a read at MaxFrames frames or MaxBytes bytes, and then it
//     is due at once.
//   - Back-pressure. There are Options.Batches batches. When every one is
//     filled or held by the consumer, Frame waits for a Release: memory
//     stays bounded and a slow consumer slows the reader, never the other
//     way round.
//   - Cancellation. Stop makes Frame return ErrStopped and wakes a
//     producer that waits, so a reader stops at its next frame. The
//     consumer calls it when it takes no more batches; Read calls it when
//     its ctx ends. Next returns false when ctx ends. Every wait of either
//     side gives way to Stop (Next to its ctx): no side waits for the other
//     once the pump is stopped, and after Stop the consumer may still
//     release what it holds. A producer whose Frame returned ErrStopped
//     leaves the bytes of the frame it was lending alone (it stops
//     framing), since the consumer may still be reading them.
//   - Waits that last. With ReportStalls set (STREAMTAP_DEBUG=1), a wait
//     of either side that lasts over StallAfter is reported, with the
//     pump's state, so that a wedged pipeline says where it waits.
//   - End of stream. Close, called by the producer once, hands over what
//     is left; Next returns every remaining batch, then false, and Err
//     tells the error the producer closed with.
//
// The producer may also validate some frames' JSON itself: a share of
// them, moved after each batch towards the side that waited, so that two
// cores split the work whichever side is slower.
type Pump struct {
	o       Options
	free    chan *model.Batch
	lent    chan struct{}
	stopped chan struct{}
	stop    sync.Once
	halted  atomic.Bool

	// Producer only.
	cur   *model.Batch
	bytes int // bytes copied into cur, roughly: the frames' Raw sizes
	share validateShare

	mu       sync.Mutex
	ready    []*model.Batch // handed over, oldest first
	parked   *model.Batch   // the frames of the last reads, due as Options say
	closed   bool
	err      error
	waiting  bool // the consumer waits in Next
	lastTake time.Time
	wake     chan struct{}
	took     chan struct{} // the consumer took a batch

	lendAbove int
	stall     func(string)
	heard     atomic.Int64 // when the producer last ended a read (UnixNano), for stall reports
}

// New returns a Pump with its batches allocated.
func New(o Options) *Pump {
	o.MaxFrames = cmpOr(o.MaxFrames, DefaultMaxFrames)
	o.MaxBytes = cmpOr(o.MaxBytes, DefaultMaxBytes)
	o.Batches = cmpOr(o.Batches, DefaultBatches)
	p := &Pump{
		o: o, free: make(chan *model.Batch, o.Batches), lent: make(chan struct{}, 1),
		stopped: make(chan struct{}), wake: make(chan struct{}, 1), took: make(chan struct{}, 1),
		lendAbove: cmpOr(o.lendAbove, LendAbove), stall: o.stall,
	}
	if p.stall == nil {
		if r := stallReport.Load(); r != nil {
			p.stall = *r
		}
	}
	for range o.Batches {
		p.free <- &model.Batch{KeepRaw: o.KeepRaw, Scan: o.Scan}
	}
	return p
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Frame adds one frame; see Pump for who owns its bytes when. It returns
// ErrStopped once the consumer stopped the pump.
func (p *Pump) Frame(f *capture.Frame) error {
	if p.halted.Load() {
		return ErrStopped
	}
	if p.cur == nil {
		if err := p.open(); err != nil {
			return err
		}
	}
	if len(f.Raw) > p.lendAbove {
		return p.lend(f)
	}
	p.cur.Add(f, false)
	p.bytes += len(f.Raw)
	if p.share.take() {
		p.cur.ValidateLast()
	}
	if p.cur.Len() >= p.o.MaxFrames || p.bytes >= p.o.MaxBytes {
		p.handOver()
	}
	return nil
}

// open gets a batch to fill: the parked one when the consumer has not
// taken it yet (it is busy: leave it more of the validation), or a free
// one, waiting for it when every batch is out.
func (p *Pump) open() error {
	p.mu.Lock()
	b := p.parked
	p.parked = nil
	p.mu.Unlock()
	if b != nil {
		p.cur = b
		p.share.more()
		return nil
	}
	p.yieldHere()
	w := p.watch("producer", "waits for a free batch (every batch is out: the consumer is behind)")
	defer w.stop()
	for b == nil {
		select {
		case b = <-p.free:
		case <-p.stopped:
			return ErrStopped
		case <-w.c:
			w.report()
		}
	}
	p.cur, p.bytes = b, 0
	return nil
}

// lend hands a huge frame over in a batch of its own without copying it,
// and waits until the consumer released it.
func (p *Pump) lend(f *capture.Frame) error {
	collectBefore(f)
	if p.cur.Len() > 0 {
		p.handOver()
		if err := p.open(); err != nil {
			return err
		}
	}
	p.cur.Add(f, true)
	p.cur.ValidateLast()
	p.handOver()
	p.yieldHere()
	w := p.watch("producer", "waits for the consumer to release a lent frame")
	defer w.stop()
	for {
		select {
		case <-p.lent: // f's bytes are the framer's again
			return nil
		case <-p.stopped:
			return ErrStopped
		case <-w.c:
			w.report()
		}
	}
}

// handOver makes the batch being filled due at once.
func (p *Pump) handOver() {
	p.yieldHere()
	p.mu.Lock()
	p.ready = append(p.ready, p.cur)
	p.mu.Unlock()
	p.cur = nil
	p.signal()
}

// EndRead tells the pump that the frames of one read are in: they are due
// (see Pump). Without Options.Interval it waits while the consumer has not
// taken the previous batch yet, as a channel of one would: then the
// consumer is behind, and the producer takes more of the validation.
func (p *Pump) EndRead() {
	p.heard.Store(time.Now().UnixNano())
	if p.cur == nil || p.cur.Len() == 0 {
		return
	}
	p.yieldHere()
	if p.o.Interval > 0 { // gather
		p.mu.Lock()
		p.parked = p.cur
		p.mu.Unlock()
		p.cur = nil
		p.signal()
		return
	}
	for {
		p.mu.Lock()
		if len(p.ready) == 0 {
			p.ready = append(p.ready, p.cur)
			waited := p.waiting
			p.mu.Unlock()
			p.cur = nil
			if waited {
				p.share.less() // the consumer waited for this batch: validate fewer
			}
			p.signal()
			return
		}
		p.mu.Unlock()
		p.share.more() // the consumer is behind: take more of its work
		if !p.awaitTake() {
			return // Frame or Close will say so
		}
	}
}

// awaitTake waits until the consumer took a batch; false when the pump
// was stopped.
func (p *Pump) awaitTake() bool {
	p.yieldHere()
	w := p.watch("producer", "waits for the consumer to take the last read's batch")
	defer w.stop()
	for {
		select {
		case <-p.took:
			return true
		case <-p.stopped:
			return false
		case <-w.c:
			w.report()
		}
	}
}

// Close ends the stream: what is left is due, and err is what Err
// returns (nil at a clean end).
func (p *Pump) Close(err error) {
	p.heard.Store(time.Now().UnixNano())
	p.yieldHere()
	p.mu.Lock()
	if b := p.cur; b != nil && b.Len() > 0 {
		p.ready = append(p.ready, b) // nothing is parked while a batch fills
	} else if b != nil {
		p.giveBack(b)
	}
	p.cur = nil
	p.closed, p.err = true, err
	p.mu.Unlock()
	p.signal()
}

func (p *Pump) signal() {
	p.yieldHere()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Next returns the next due batch, waiting for one; false once the
// stream is closed and every batch was taken, or when ctx ends. The batch
// is the consumer's until Release.
func (p *Pump) Next(ctx context.Context) (*model.Batch, bool) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		p.mu.Lock()
		if len(p.ready) > 0 {
			b := p.ready[0]
			p.ready[0] = nil
			p.ready = p.ready[1:]
			p.taken()
			return b, true
		}
		var wait time.Duration
		if b := p.parked; b != nil {
			wait = p.o.Interval - time.Since(p.lastTake)
			if wait <= 0 || b.Len() >= p.o.Due || p.closed {
				p.parked = nil
				p.taken()
				return b, true
			}
		} else if p.closed {
			p.mu.Unlock()
			return nil, false
		}
		p.waiting = true
		p.mu.Unlock()
		p.yieldHere()
		var tick <-chan time.Time
		if wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			tick = timer.C
		}
		if !p.awaitBatch(ctx, tick) {
			p.mu.Lock()
			p.waiting = false
			p.mu.Unlock()
			return nil, false
		}
		p.mu.Lock()
		p.waiting = false
		p.mu.Unlock()
	}
}

// awaitBatch waits until the producer signals, tick fires or ctx ends;
// false when ctx ended.
func (p *Pump) awaitBatch(ctx context.Context, tick <-chan time.Time) bool {
	w := p.watch("consumer", "waits for a batch")
	defer w.stop()
	for {
		select {
		case <-p.wake:
			return true
		case <-tick:
			return true
		case <-ctx.Done():
			return false
		case <-w.c:
			w.report()
		}
	}
}

// TryNext returns a due batch if there is one, without waiting. A
// consumer that draws a screen per batch (the inspector's forward) uses it
// to tell whether it is behind the producer: a batch that is due when it
// asks was waiting already, and need not be drawn before the next.
func (p *Pump) TryNext() (*model.Batch, bool) {
	p.mu.Lock()
	if len(p.ready) > 0 {
		b := p.ready[0]
		p.ready[0] = nil
		p.ready = p.ready[1:]
		p.taken()
		return b, true
	}
	if b := p.parked; b != nil && (p.o.Interval <= 0 || b.Len() >= p.o.Due || p.closed ||
		time.Since(p.lastTake) >= p.o.Interval) {
		p.parked = nil
		p.taken()
		return b, true
	}
	p.mu.Unlock()
	return nil, false
}

// taken notes that the consumer took a batch and unlocks p.mu.
func (p *Pump) taken() {
	if p.o.Interval > 0 {
		p.lastTake = time.Now()
	}
	p.mu.Unlock()
	p.yieldHere()
	select {
	case p.took <- struct{}{}:
	default:
	}
}

// Release gives a batch back once the consumer is done with it (its
// frames added to a session): the pump reuses it. It never waits: there
// is room in free for every batch, and a lent frame's producer takes the
// release before it lends another (or was stopped, and takes none).
func (p *Pump) Release(b *model.Batch) {
	lent := b.Borrowed()
	b.Reset()
	p.yieldHere()
	p.giveBack(b)
	if lent {
		p.yieldHere()
		select {
		case p.lent <- struct{}{}:
		case <-p.stopped: // the producer no longer waits for it
		}
	}
}

// giveBack puts b in free. free holds every batch, so this never waits;
// a batch given back twice (a caller's bug) is dropped rather than handed
// to two fillers.
func (p *Pump) giveBack(b *model.Batch) {
	select {
	case p.free <- b:
	default:
	}
}

// Err is the error the producer closed the pump with.
func (p *Pump) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Stop tells the producer to stop: its Frame returns ErrStopped from now
// on, and a producer waiting for a batch, a release or a take goes on. The
// consumer calls it when it will take no more batches (an error, a program
// that quit); Read calls it when its ctx ends. Stop may come while the
// consumer holds batches, a lent frame among them: the consumer may finish
// with them and release them (Release then never waits), or drop them.
func (p *Pump) Stop() {
	p.yieldHere()
	p.stop.Do(func() {
		p.halted.Store(true)
		close(p.stopped)
	})
}

// shareSteps is how finely validateShare divides the work.
const shareSteps = 16

// validateShare is the share of frames the producer validates, n in every
// shareSteps, spread evenly. The producer frames, copies and validates;
// the consumer assembles, and validates what the producer left. Which
// side is slower depends on the dialect and the machine, so the share
// moves a step after each batch towards the side that waited.
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
