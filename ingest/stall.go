package ingest

import (
	"cmp"
	"fmt"
	"sync/atomic"
	"time"
)

// StallAfter is how long a wait of the hand-over lasts before it is
// reported (see ReportStalls); a wait that goes on is reported again after
// twice as long each time.
const StallAfter = time.Second

var stallReport atomic.Pointer[func(string)]

// ReportStalls makes every Pump made from now on call report (one line,
// no newline) when one of its sides waits for the other longer than
// StallAfter: which side, what for, how long, and what the pump holds.
// The command line sets it with STREAMTAP_DEBUG=1, so that a pipeline
// that stopped moving says where it waits instead of sitting silent. A
// consumer waiting on a quiet live stream is reported too: the report
// says when the producer last ended a read. nil turns it off.
func ReportStalls(report func(msg string)) {
	if report == nil {
		stallReport.Store(nil)
		return
	}
	stallReport.Store(&report)
}

// yieldHere runs the stress test's hook, if any.
func (p *Pump) yieldHere() {
	if p.o.yield != nil {
		p.o.yield()
	}
}

// stallWatch reports one wait that lasts. Its zero value (no report set)
// never fires and costs nothing.
type stallWatch struct {
	p          *Pump
	side, what string
	since      time.Time
	next       time.Duration
	t          *time.Timer
	c          <-chan time.Time
}

// watch starts watching a wait of side ("producer", "consumer"): select
// on w.c beside what is awaited, call w.report when it fires, and w.stop
// once the wait is over.
func (p *Pump) watch(side, what string) stallWatch {
	if p.stall == nil {
		return stallWatch{}
	}
	w := stallWatch{p: p, side: side, what: what, since: time.Now(), next: cmp.Or(p.o.stallAfter, StallAfter)}
	w.t = time.NewTimer(w.next)
	w.c = w.t.C
	return w
}

func (w *stallWatch) stop() {
	if w.t != nil {
		w.t.Stop()
	}
}

// report says that the wait goes on, and sets the next report.
func (w *stallWatch) report() {
	w.p.stall(fmt.Sprintf("streamtap: ingest: %s %s for %s; %s",
		w.side, w.what, time.Since(w.since).Round(time.Millisecond), w.p.state()))
	w.next *= 2
	w.t.Reset(w.next)
}

// state describes what the pump holds, for a stall report.
func (p *Pump) state() string {
	p.mu.Lock()
	ready, parked, closed, waiting := len(p.ready), p.parked != nil, p.closed, p.waiting
	p.mu.Unlock()
	heard := "never"
	if at := p.heard.Load(); at != 0 {
		heard = time.Since(time.Unix(0, at)).Round(time.Millisecond).String() + " ago"
	}
	return fmt.Sprintf("batches: %d free of %d, %d ready, parked %t; a lent frame released and untaken %t; closed %t, stopped %t, consumer waiting %t; producer last ended a read %s",
		len(p.free), p.o.Batches, ready, parked, len(p.lent) > 0, closed, p.halted.Load(), waiting, heard)
}
