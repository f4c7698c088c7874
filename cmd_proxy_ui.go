package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/ui"
)

// tickLive is how often the durations of sessions that are still open are
// refreshed in the sessions list when nothing else about them changed.
const tickLive = 500 * time.Millisecond

// runProxyTUI runs the proxy with the interactive sessions list drawn on
// out, a terminal. The log goes to o.logFile, or nowhere.
func runProxyTUI(ctx context.Context, o proxyOptions, ln net.Listener, out *os.File, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	logw := io.Discard
	if o.logFile != "" {
		f, err := os.OpenFile(o.logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "streamtap: log: %v\n", err)
			return 2
		}
		defer f.Close()
		logw = f
	}
	p := newProxy(o, logw)
	up := o.upstream.String()
	if !o.keepSecrets {
		up = capture.RedactURL(up)
	}
	m := ui.NewSessions(ui.Options{
		Source:      fmt.Sprintf("proxy http://%s → %s", ln.Addr(), up),
		NoColor:     os.Getenv("NO_COLOR") != "",
		KeepSecrets: o.keepSecrets,
		NewSession:  newUISession,
	})
	// Bubble Tea opens the TTY for keys itself; stdin is never its input.
	prog := tea.NewProgram(m, tea.WithContext(ctx), tea.WithOutput(out))
	feed := newProxyFeed(func(b []ui.SessionUpdate) { prog.Send(ui.Sessions(b)) })
	p.feed = feed

	var serveErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		serveErr = p.serve(ctx, ln)
		if serveErr != nil {
			prog.Quit()
		}
	})
	_, err := prog.Run()
	cancel()
	feed.abort() // sessions still streaming no longer wait for the UI
	wg.Wait()
	switch {
	case serveErr != nil:
		fmt.Fprintf(stderr, "streamtap: %v\n", serveErr)
		return 2
	case err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "streamtap: %v\n", err)
		return 2
	}
	return 0
}

// newUISession builds the UI's own model of one proxied session, with the
// protocol checks observing it.
func newUISession(raw io.ReaderAt) (*model.Session, ui.Checker) {
	sopts, chk := checks.Attach(model.Options{KeepEvents: true, Raw: raw})
	return model.NewSession(sopts), checker(chk, checks.Strict)
}

// proxyFeed carries proxied sessions to the UI. The proxy's goroutines
// hand it copies (an ui.Exchange value, detached frames); a flusher sends
// what piled up as one ui.Sessions message every flushEvery, so the UI
// builds its own model.Session of each exchange and never reads one the
// proxy writes. It is safe for concurrent use. When the UI falls behind by
// maxPending frames, a session's goroutine waits before adding more: the
// client already has those bytes (the tee hands them over after the
// client), so only the next read of that one stream is delayed.
type proxyFeed struct {
	send func([]ui.SessionUpdate)

	mu      sync.Mutex
	cond    *sync.Cond
	pending []ui.SessionUpdate
	idx     map[int]int // session id → index in pending
	frames  int         // frames pending
	live    map[int]liveSession
	aborted bool

	kick chan struct{}
	done chan struct{}
}

// liveSession is what the feed remembers of an open session, to refresh
// its duration.
type liveSession struct {
	info  ui.Exchange
	start time.Time
}

func newProxyFeed(send func([]ui.SessionUpdate)) *proxyFeed {
	f := &proxyFeed{
		send: send, idx: map[int]int{}, live: map[int]liveSession{},
		kick: make(chan struct{}, 1), done: make(chan struct{}),
	}
	f.cond = sync.NewCond(&f.mu)
	go f.flusher()
	return f
}

// entry returns the pending update of session id, adding one. f.mu is held.
func (f *proxyFeed) entry(id int) *ui.SessionUpdate {
	i, ok := f.idx[id]
	if !ok {
		i = len(f.pending)
		f.idx[id] = i
		f.pending = append(f.pending, ui.SessionUpdate{Info: f.live[id].info})
	}
	return &f.pending[i]
}

// update publishes a session's latest state; raw reads its body bytes.
func (f *proxyFeed) update(info ui.Exchange, start time.Time, raw io.ReaderAt) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.aborted {
		return
	}
	if _, ok := f.live[info.ID]; !ok {
		e := f.entry(info.ID)
		e.Raw = raw
	}
	f.live[info.ID] = liveSession{info: info, start: start}
	f.entry(info.ID).Info = info
}

// frame adds a detached frame of session id.
func (f *proxyFeed) frame(id int, fr capture.Frame) {
	f.mu.Lock()
	for f.frames >= maxPending && !f.aborted {
		f.cond.Wait()
	}
	if f.aborted {
		f.mu.Unlock()
		return
	}
	e := f.entry(id)
	e.Frames = append(e.Frames, fr)
	f.frames++
	n := f.frames
	f.mu.Unlock()
	if n >= batchFrames {
		select {
		case f.kick <- struct{}{}:
		default:
		}
	}
}

// end publishes a session's final state.
func (f *proxyFeed) end(info ui.Exchange, raw io.ReaderAt, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.aborted {
		return
	}
	if _, ok := f.live[info.ID]; !ok {
		f.entry(info.ID).Raw = raw // a session that failed before it was shown
	}
	e := f.entry(info.ID)
	e.Info, e.Ended, e.EndErr = info, true, err
	delete(f.live, info.ID)
}

// flusher sends pending updates in order, one batch per message.
func (f *proxyFeed) flusher() {
	defer close(f.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	lastTick := time.Now()
	for {
		select {
		case <-t.C:
		case <-f.kick:
		}
		f.mu.Lock()
		if f.aborted {
			f.mu.Unlock()
			return
		}
		if now := time.Now(); now.Sub(lastTick) >= tickLive {
			lastTick = now
			for id, ls := range f.live {
				e := f.entry(id)
				e.Info.Dur = now.Sub(ls.start)
			}
		}
		batch := f.pending
		f.pending, f.frames = nil, 0
		clear(f.idx)
		f.cond.Broadcast()
		f.mu.Unlock()
		if len(batch) > 0 {
			slices.SortStableFunc(batch, func(a, b ui.SessionUpdate) int { return a.Info.ID - b.Info.ID })
			for _, msg := range splitBatch(batch, maxMsgFrames) {
				f.send(msg) // blocks while the UI is busy: back-pressure
			}
		}
	}
}

// splitBatch cuts a batch into messages of at most limit frames each, so
// that adding one in Update never holds up a key for long. An update
// with more frames is split in order; only its last part says it ended.
func splitBatch(batch []ui.SessionUpdate, limit int) [][]ui.SessionUpdate {
	var out [][]ui.SessionUpdate
	var cur []ui.SessionUpdate
	n := 0
	for _, u := range batch {
		for {
			room := limit - n
			if len(u.Frames) <= room {
				cur = append(cur, u)
				n += len(u.Frames)
				break
			}
			part := u
			part.Frames = u.Frames[:room:room]
			part.Ended, part.EndErr = false, nil
			cur = append(cur, part)
			out = append(out, cur)
			cur, n = nil, 0
			u.Frames, u.Raw = u.Frames[room:], nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// abort stops the feed after the program quit; waiting sessions go on.
func (f *proxyFeed) abort() {
	f.mu.Lock()
	f.aborted = true
	f.cond.Broadcast()
	f.mu.Unlock()
	select {
	case f.kick <- struct{}{}:
	default:
	}
	<-f.done
}
