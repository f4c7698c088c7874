package proxy

import (
	"slices"
	"sync"
	"time"

	"github.com/streamtap/streamtap/model"
)

// Feed pacing. View runs after every message, so the sessions list gets
// one message per feedEvery with whatever changed; the durations of
// sessions still open are refreshed every tickLive when nothing else
// about them changed.
const (
	feedEvery = 25 * time.Millisecond
	tickLive  = 500 * time.Millisecond
)

// Feed carries the proxy's exchanges to the sessions list. The proxy's
// goroutines hand it copies (a model.Exchange value) and the exchange's
// session (a model.Live, which the proxy keeps modelling and the UI reads
// under its lock); a flusher sends what changed as one ui.Sessions batch
// every feedEvery. It is safe for concurrent use. Sending waits while the
// UI is busy; the proxy never does: an exchange's news only piles up in
// the feed, one entry per exchange, until the next batch.
type Feed struct {
	send func([]model.SessionUpdate)

	mu      sync.Mutex
	pending []model.SessionUpdate
	idx     map[int]int // session id → index in pending
	live    map[int]liveSession
	aborted bool

	done chan struct{}
	stop chan struct{}
}

// liveSession is what the feed remembers of an open session: its latest
// state, to send again when its model grows, and its start, to refresh
// its duration.
type liveSession struct {
	info  model.Exchange
	live  *model.Live
	start time.Time
}

// NewFeed returns a feed that hands its batches to send, and starts its
// flusher.
func NewFeed(send func([]model.SessionUpdate)) *Feed {
	f := &Feed{send: send, idx: map[int]int{}, live: map[int]liveSession{},
		done: make(chan struct{}), stop: make(chan struct{})}
	go f.flusher()
	return f
}

// entry returns the pending update of session id, adding one from what
// the feed knows of it. f.mu is held.
func (f *Feed) entry(id int) *model.SessionUpdate {
	i, ok := f.idx[id]
	if !ok {
		i = len(f.pending)
		f.idx[id] = i
		ls := f.live[id]
		f.pending = append(f.pending, model.SessionUpdate{Info: ls.info, Live: ls.live})
	}
	return &f.pending[i]
}

// update publishes a session's latest state.
func (f *Feed) update(info model.Exchange, start time.Time, l *model.Live) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.aborted {
		return
	}
	f.live[info.ID] = liveSession{info: info, live: l, start: start}
	e := f.entry(info.ID)
	e.Info, e.Live = info, l
}

// touch says that an open session's model grew.
func (f *Feed) touch(id int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.live[id]; ok && !f.aborted {
		f.entry(id)
	}
}

// end publishes a session's final state, and its copy on disk when it
// has one (nil otherwise), or why it has none when it should (notKept).
func (f *Feed) end(info model.Exchange, l *model.Live, err error, stored model.StoredSession, notKept string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.aborted {
		return
	}
	e := f.entry(info.ID)
	e.Info, e.Live, e.Ended, e.EndErr, e.Stored, e.NotKept = info, l, true, err, stored, notKept
	delete(f.live, info.ID)
}

// relink publishes the new links of ended sessions to the other leg of
// their turn (each x holds the ID and the links only): merged into a
// pending update of the session, else an update of its links alone.
func (f *Feed) relink(xs []model.Exchange) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.aborted {
		return
	}
	for _, x := range xs {
		i, pending := f.idx[x.ID]
		if !pending {
			i = len(f.pending)
			f.idx[x.ID] = i
			f.pending = append(f.pending, model.SessionUpdate{Info: model.Exchange{ID: x.ID}, Relink: true, Ended: true})
		}
		e := &f.pending[i].Info
		e.LegOf, e.Step, e.Legs, e.LegsBy = x.LegOf, x.Step, x.Legs, x.LegsBy
	}
}

// flusher sends pending updates in id order, one batch per message.
func (f *Feed) flusher() {
	defer close(f.done)
	t := time.NewTicker(feedEvery)
	defer t.Stop()
	lastTick := time.Now()
	for {
		select {
		case <-t.C:
		case <-f.stop:
			return
		}
		f.mu.Lock()
		now := time.Now()
		if now.Sub(lastTick) >= tickLive {
			lastTick = now
			for id := range f.live {
				f.entry(id)
			}
		}
		// Every update of an open session says its duration so far: one
		// that only grew carries the state last published, whose Dur is
		// as old as that.
		for i := range f.pending {
			if ls, ok := f.live[f.pending[i].Info.ID]; ok && !f.pending[i].Ended {
				f.pending[i].Info.Dur = now.Sub(ls.start)
			}
		}
		batch := f.pending
		f.pending = nil
		clear(f.idx)
		f.mu.Unlock()
		if len(batch) > 0 {
			slices.SortStableFunc(batch, func(a, b model.SessionUpdate) int { return a.Info.ID - b.Info.ID })
			f.send(batch) // blocks while the UI is busy
		}
	}
}

// Abort stops the feed after the program quit.
func (f *Feed) Abort() {
	f.mu.Lock()
	if !f.aborted {
		f.aborted = true
		close(f.stop)
	}
	f.mu.Unlock()
	<-f.done
}
