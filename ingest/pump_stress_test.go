package ingest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// stressRounds runs TestPumpStress longer: `go test ./ingest -race -run
// PumpStress -pump.stress 5000` hunts for the rare schedule.
var (
	stressRounds = flag.Int("pump.stress", 0, "rounds of TestPumpStress (0: the short run of every go test)")
	stressSeed   = flag.Uint64("pump.seed", 0, "the seed of TestPumpStress's first round (0: the clock's)")
)

// stressLimit is how long one round may take before the watchdog calls it
// wedged and dumps every goroutine: a round takes milliseconds, under
// -race on a loaded machine well under a second.
const stressLimit = 10 * time.Second

// TestPumpStress runs the hand-over thousands of times under shaken
// schedules: every hand-over point of the pump yields at random
// (runtime.Gosched or a sleep of a few microseconds), GOMAXPROCS is 1 to
// 4, frames are copied or lent (lendAbove is a few hundred bytes here),
// the source is memory, a polled pipe or a pipe read with blocking calls,
// arriving in reads of random sizes, sometimes going silent; the consumer
// is Session's (Drain) or the inspector's (TryNext and Next, the batches
// released on another goroutine), and it fails, is cancelled or quits at a
// random event. Each round must end within stressLimit, else a watchdog
// dumps every goroutine; the frames that arrive must be the stream's, in
// order, with their bytes intact while the consumer holds them (a lent
// frame is read again after a yield, before it is released); and the
// round must end as its case says (nil, the callback's error, or ctx's).
func TestPumpStress(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 50
	}
	if *stressRounds > 0 {
		rounds = *stressRounds
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	base := uint64(time.Now().UnixNano())
	if *stressSeed != 0 {
		base = *stressSeed
	}
	for i := range rounds {
		c := newStressCase(base + uint64(i))
		runtime.GOMAXPROCS(c.procs)
		within(t, stressLimit, c.String(), func() { c.run(t) })
		if t.Failed() {
			t.Fatalf("round %d failed: %s (rerun with this seed to replay its choices)", i, c)
		}
	}
}

// within runs f and fails t with every goroutine's stack when f does not
// return within limit: a wedged hand-over shows where each side waits.
func within(t *testing.T, limit time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(limit):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%s: not done within %s; every goroutine:\n%s", what, limit, buf)
	}
}

// stressCase is one round's choices, all drawn from its seed.
type stressCase struct {
	seed     uint64
	procs    int
	opts     Options
	frames   []refFrame // the stream's frames, framed without a pump
	input    []byte
	source   string // "memory", "pipe" (polled), "blocking" (read with blocking calls)
	silent   bool   // the source goes silent after its bytes instead of ending
	consumer string // "drain" (Session) or "inspector"
	failAt   int    // the callback fails at this event; -1 never
	cancelAt int    // ctx ends once this event is added; -1 never
	// cancelIn, when not 0, ends ctx that long after the round starts,
	// wherever either side is then.
	cancelIn time.Duration
	framed   bool // Read gets a framed callback
}

type refFrame struct {
	data, raw string
}

func (c *stressCase) String() string {
	return fmt.Sprintf("seed %d: GOMAXPROCS %d, %d frames, source %s (silent %v), consumer %s, fail at %d, cancel at %d or in %v, interval %v, due %d, max frames %d, max bytes %d, batches %d, keep raw %v, lend above %d",
		c.seed, c.procs, len(c.frames), c.source, c.silent, c.consumer, c.failAt, c.cancelAt, c.cancelIn,
		c.opts.Interval, c.opts.Due, c.opts.MaxFrames, c.opts.MaxBytes, c.opts.Batches, c.opts.KeepRaw, c.opts.lendAbove)
}

func newStressCase(seed uint64) *stressCase {
	rng := rand.New(rand.NewPCG(seed, 0x57e55))
	c := &stressCase{seed: seed, procs: 1 + rng.IntN(4), failAt: -1, cancelAt: -1}
	lendAbove := 64 + rng.IntN(400)
	c.opts = Options{
		KeepRaw:   rng.IntN(2) == 0,
		MaxFrames: pick(rng, 0, 1, 2, 5, 50),
		MaxBytes:  pick(rng, 0, 100, 1000, 5000),
		Batches:   pick(rng, 0, 1, 2, 3, 4),
		lendAbove: lendAbove,
	}
	// The schedule shaker: at every hand-over point, nothing, a yield or
	// a short sleep. It runs on both sides at once: rand's top-level
	// functions are safe for concurrent use.
	c.opts.yield = func() {
		switch rand.IntN(8) {
		case 0, 1:
			runtime.Gosched()
		case 2:
			time.Sleep(time.Duration(rand.IntN(50)) * time.Microsecond)
		}
	}
	c.consumer = pick(rng, "drain", "inspector")
	if c.consumer == "inspector" {
		c.opts.Interval = pick(rng, 0, time.Millisecond, 3*time.Millisecond)
		c.opts.Due = pick(rng, 0, 1, 10, 256)
	}
	var b strings.Builder
	n := 1 + rng.IntN(60)
	for i := range n {
		if rng.IntN(10) == 0 {
			b.WriteString(": keepalive\n\n")
		}
		pad := rng.IntN(40)
		if rng.IntN(4) == 0 {
			pad = lendAbove + rng.IntN(300) // a lent frame
		}
		if i == 0 {
			b.WriteString(`data: {"type":"response.output_item.added","sequence_number":0,"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"f"}}` + "\n")
		} else { // a delta of the call's arguments, its number and its padding
			fmt.Fprintf(&b, `data: {"type":"response.function_call_arguments.delta","sequence_number":%d,"item_id":"fc_1","output_index":0,"delta":"%d%s;"}`+"\n", i, i, strings.Repeat("x", pad))
		}
		if i < n-1 || rng.IntN(3) > 0 {
			b.WriteString("\n")
		} // else the last event ends the input without its blank line: Finish emits it, lent or not
	}
	c.input = []byte(b.String())
	fr := capture.NewFramer(capture.FormatSSE)
	keep := func(f *capture.Frame) { c.frames = append(c.frames, refFrame{string(f.Data), string(f.Raw)}) }
	fr.Feed(c.input, capture.NoTime, keep)
	fed := len(c.frames) // the frames that come before the input ends
	fr.Finish(capture.NoTime, keep)

	c.source = pick(rng, "memory", "pipe", "blocking")
	c.silent = c.source != "memory" && rng.IntN(3) == 0
	switch rng.IntN(5) {
	case 0:
		c.failAt = rng.IntN(len(c.frames))
	case 1:
		c.cancelAt = rng.IntN(len(c.frames))
	case 2:
		c.cancelIn = time.Duration(rng.IntN(2000)) * time.Microsecond
	}
	if c.silent {
		// Only ctx ends a silent source, and the frames that come only
		// at the end of the input never come.
		c.cancelAt = -1
		if fed > 0 && rng.IntN(2) == 0 {
			c.cancelAt = rng.IntN(fed)
		} else {
			c.cancelIn = time.Duration(1+rng.IntN(2000)) * time.Microsecond
		}
	}
	c.framed = rng.IntN(2) == 0
	return c
}

func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

// direct is the session of the round's input added frame by frame on one
// goroutine, without a pump.
func (c *stressCase) direct() *model.Session {
	s := model.NewSession(model.Options{Raw: bytes.NewReader(c.input)})
	fr := capture.NewFramer(capture.FormatAuto)
	add := func(f *capture.Frame) { s.Add(f) }
	fr.Feed(c.input, capture.NoTime, add)
	fr.Finish(capture.NoTime, add)
	s.End(nil)
	return s
}

// reportOf is s's calls report (calls --json).
func reportOf(t *testing.T, s *model.Session) string {
	var b strings.Builder
	if err := s.WriteReportJSON(&b); err != nil {
		t.Error(err)
	}
	return b.String()
}

var errStressFail = errors.New("the consumer fails here")

// run plays the round once and checks how it ended.
func (c *stressCase) run(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if c.cancelIn > 0 {
		defer time.AfterFunc(c.cancelIn, cancel).Stop()
	}
	src, closeSrc := c.open(t)
	defer closeSrc()

	var mu sync.Mutex // the inspector adds on another goroutine than Next's
	got, cut := 0, false
	check := func(ord int, f *capture.Frame) error {
		mu.Lock()
		defer mu.Unlock()
		if ord != got || ord >= len(c.frames) || cut {
			t.Errorf("%s: event %d arrived as number %d of %d (after a cut frame: %v)", c, ord, got, len(c.frames), cut)
			return errStressFail
		}
		got++
		want, data := c.frames[ord], string(f.Data)
		switch {
		case data == want.data && (!c.opts.KeepRaw || string(f.Raw) == want.raw):
		case ctx.Err() != nil && strings.HasPrefix(want.data, data):
			cut = true // the reading stopped in the middle of this frame: the last one
		default:
			t.Errorf("%s: frame %d = %q (%d bytes); want %q (%d bytes)", c, ord, f.Data, len(f.Data), want.data, len(want.data))
		}
		if len(f.Raw) > c.opts.lendAbove {
			// A lent frame: its bytes are still the framer's. Give the
			// producer a chance to run, then read them again: a producer
			// that went on before the release would have moved them.
			runtime.Gosched()
			time.Sleep(time.Duration(rand.IntN(20)) * time.Microsecond)
			if string(f.Data) != data {
				t.Errorf("%s: lent frame %d changed while the consumer held it: %q", c, ord, f.Data)
			}
		}
		if ord == c.cancelAt {
			cancel()
		}
		if ord == c.failAt {
			return errStressFail
		}
		return nil
	}
	var framedN int
	var framed func(*capture.Frame)
	if c.framed {
		framed = func(*capture.Frame) { framedN++ }
	}

	var err error
	switch c.consumer {
	case "drain":
		s := model.NewSession(model.Options{Raw: bytes.NewReader(c.input)})
		err = session(ctx, src, capture.ReadOptions{}, s, framed,
			func(_ *model.Event, ord int, f *capture.Frame) error { return check(ord, f) }, c.opts)
		if s.Len() != got {
			t.Errorf("%s: the session holds %d events, the callback saw %d", c, s.Len(), got)
		}
		s.End(err)
		if err == nil && c.source == "memory" && got == len(c.frames) {
			// What the model kept of the frames is what it keeps without
			// a pump: nothing points into a batch released and reused,
			// or into a lent frame's bytes the framer then moved.
			if pumped, direct := reportOf(t, s), reportOf(t, c.direct()); pumped != direct {
				i := 0
				for i < min(len(pumped), len(direct)) && pumped[i] == direct[i] {
					i++
				}
				t.Errorf("%s: the calls report through the pump differs from the one without at byte %d: %q; want %q",
					c, i, pumped[max(i-40, 0):min(i+80, len(pumped))], direct[max(i-40, 0):min(i+80, len(direct))])
			}
		}
	case "inspector":
		err = c.inspect(ctx, cancel, src, framed, check)
	}

	full := c.failAt < 0 && c.cancelAt < 0 && c.cancelIn == 0
	switch {
	case full && (err != nil || got != len(c.frames)):
		t.Errorf("%s: ended with %v after %d of %d frames; want nil after all", c, err, got, len(c.frames))
	case c.failAt >= 0 && (c.cancelAt < 0 || c.cancelAt > c.failAt) && c.cancelIn == 0 && c.consumer == "drain" &&
		(!errors.Is(err, errStressFail) || got != c.failAt+1):
		t.Errorf("%s: ended with %v after %d frames; want the callback's error after %d", c, err, got, c.failAt+1)
	case (c.cancelAt >= 0 && (c.failAt < 0 || c.failAt > c.cancelAt) || c.cancelIn > 0) && err != nil &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, errStressFail): // frames in flight are still added
		t.Errorf("%s: ended with %v after cancel; want nil or context.Canceled", c, err)
	case c.silent && !errors.Is(err, context.Canceled) && !errors.Is(err, errStressFail):
		t.Errorf("%s: a silent source ended with %v; want context.Canceled", c, err)
	}
}

// inspect is the inspector's consumer: forward takes batches with TryNext
// and Next and hands them to a "program" goroutine, which adds and
// releases them; a failure there quits the program: ctx ends and the pump
// is stopped, and the batches still on their way are never released, as
// when the inspector quits.
func (c *stressCase) inspect(ctx context.Context, cancel context.CancelFunc, src *capture.Source,
	framed func(*capture.Frame), check func(int, *capture.Frame) error) error {
	p := New(c.opts)
	readDone := make(chan error, 1)
	go func() { readDone <- Read(ctx, src, capture.ReadOptions{}, p, framed) }()
	batches := make(chan *model.Batch, 4)
	go func() { // forward
		defer close(batches)
		for {
			b, ok := p.TryNext()
			if !ok {
				if b, ok = p.Next(ctx); !ok {
					return
				}
			}
			select {
			case batches <- b:
			case <-ctx.Done():
				return // the program quit: b is never released
			}
		}
	}()
	s := model.NewSession(model.Options{})
	var quit error
	for b := range batches { // the program
		if quit != nil {
			continue // it quit: what comes is dropped unreleased
		}
		if err := s.AddBatch(b, func(_ *model.Event, ord int, f *capture.Frame) error { return check(ord, f) }); err != nil {
			quit = err
			cancel()
			p.Stop()
			continue
		}
		p.Release(b)
	}
	readErr := <-readDone
	if quit != nil {
		return quit
	}
	if errors.Is(readErr, ErrStopped) {
		return nil
	}
	return readErr
}

// open returns the round's source and what closes it.
func (c *stressCase) open(t *testing.T) (*capture.Source, func()) {
	rng := rand.New(rand.NewPCG(c.seed, 0x0de4))
	if c.source == "memory" {
		return capture.FromReader("memory", capture.SourceFile, &chunky{data: c.input, rng: rng}, false), func() {}
	}
	end := make(chan struct{}) // the round is over
	var r, w *os.File
	if c.source == "pipe" {
		var err error
		if r, w, err = os.Pipe(); err != nil {
			t.Fatal(err)
		}
	} else {
		var err error
		if r, w, err = blockingPipe(); err != nil {
			t.Fatal(err)
		}
	}
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for rest := c.input; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(700))
			if _, err := w.Write(rest[:n]); err != nil {
				return // the reader is gone
			}
			rest = rest[n:]
			if rng.IntN(4) == 0 {
				runtime.Gosched()
			}
		}
	}()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		<-wrote
		if c.silent {
			<-end // silent until the round is over
		}
		w.Close()
	}()
	return capture.FromReader(c.source, capture.SourceStdin, r, true), func() {
		r.Close() // a writer blocked on a full pipe fails
		close(end)
		<-closed // a read still blocked on the silent pipe sees its end
	}
}

// chunky hands its data over in reads of random sizes.
type chunky struct {
	data []byte
	rng  *rand.Rand
}

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.data[:min(len(c.data), 1+c.rng.IntN(700))])
	c.data = c.data[n:]
	return n, nil
}
