package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Memory budgets of the commands: the soft limit the heap is kept under
// while what they retain leaves room. The runtime's own footprint (about
// 16 MiB: the binary, stacks, the collector's metadata) lives outside
// these, so a budget of 64 MiB peak RSS is a heap of 48 MiB.
const (
	// headlessHeap is the heap of calls, events and timeline (their
	// budget: 64 MiB, plus 3x the largest event).
	headlessHeap = 48 << 20
	// checkHeap leaves room for the checks' own state beside the session
	// (about 5 MB on a 100 MB Anthropic capture).
	checkHeap = headlessHeap + 8<<20
	// diffHeap holds two sessions with their events, each within the
	// headless budget.
	diffHeap = 2*headlessHeap + 16<<20
)

// liveHeadroom is how far above the live heap the limit stays, as a
// fraction of it: the collector then runs once per half of the live heap
// allocated, as GOGC=50 would.
const liveHeadroom = 0.5

// keepHeapNear keeps the heap near budget bytes without trading time for
// it: a soft memory limit of budget, raised after each collection to 1.5x
// the heap that collection found live whenever that is more. A fixed
// limit made the collector run back to back once what a command retains
// (a session's items, a comparison's differences) neared it: calls took
// 3x longer per doubling of its input from 200 MB on, the inspector's
// index 3.1x as long as calls. With the limit following the live heap, a
// collection comes once per half of the live heap allocated, so the cost
// of collecting stays proportional to the input; memory stays within the
// budget as long as what is retained fits in two thirds of it, and grows
// with what is retained (about 1.5x it) past that.
//
// Calling it again sets another budget; the last one counts.
func keepHeapNear(budget int64) {
	heapBudget.Store(budget)
	debug.SetMemoryLimit(max(budget, limitFor(liveHeap())))
	watchOnce.Do(watchCollections)
}

var (
	heapBudget atomic.Int64
	watchOnce  sync.Once
)

// limitFor is the limit for a live heap of live bytes.
func limitFor(live uint64) int64 {
	if live > math.MaxInt64/2 {
		return math.MaxInt64
	}
	return int64(float64(live) * (1 + liveHeadroom))
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// gcSentinel is allocated to be collected: its cleanup runs after each
// collection that finds it unreachable, once per cycle.
type gcSentinel struct {
	_ *int // a pointer and 16 bytes: never in the tiny allocator's blocks
	_ [8]byte
}

// watchCollections sets the limit from the live heap after every
// collection, for the life of the process.
func watchCollections() {
	s := new(gcSentinel)
	runtime.AddCleanup(s, func(struct{}) {
		debug.SetMemoryLimit(max(heapBudget.Load(), limitFor(liveHeap())))
		watchCollections()
	}, struct{}{})
}
