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
	// proxyHeap is the proxy's: an idle proxy holds a few MiB, and each
	// stream passing holds its largest event and what its model keeps.
	proxyHeap = headlessHeap
)

// liveHeadroom is how far above the live heap the limit stays, as a
// fraction of it: the collector then runs once per half of the live heap
// allocated, as GOGC=50 would.
const liveHeadroom = 0.5

// keepHeapNear keeps the heap near budget bytes without trading time for
// it: a soft memory limit of budget, raised after each collection to 1.5x
// the heap that collection found live, plus what the runtime holds beside
// its objects, whenever that is more. A fixed limit made the collector run
// back to back once what a command retains (a session's items, a
// comparison's differences) neared it: calls took 3x longer per doubling
// of its input from 200 MB on, the inspector's index 3.1x as long as
// calls. With the limit following the live heap, a collection comes once
// per half of the live heap allocated, so the cost of collecting stays
// proportional to the input; memory stays within the budget as long as
// what is retained fits in two thirds of it, and grows with what is
// retained (about 1.5x it) past that.
//
// The runtime holds the soft limit against all the memory it has from the
// system but its free spans, not only its objects: the free room inside
// partly used spans
// (an archive of 10,000 small sessions leaves 14 MiB of it beside 28 MiB
// of objects), the collector's metadata, stacks. Left out, a live heap of
// 28 MiB under a limit of 48 MiB had a heap goal of 29 MiB: 5,296
// collections, one every few allocations. That overhead is added to the
// limit.
//
// Calling it again sets another budget; the last one counts.
func keepHeapNear(budget int64) {
	heapBudget.Store(budget)
	debug.SetMemoryLimit(limitNow())
	watchOnce.Do(watchCollections)
}

var (
	heapBudget atomic.Int64
	watchOnce  sync.Once
)

// limitNow is the limit for the heap as the last collection left it:
// the budget, or 1.5x the live heap plus the runtime's overhead beside
// its objects, whichever is more.
func limitNow() int64 {
	live, overhead := heapNow()
	return max(heapBudget.Load(), limitFor(live, overhead))
}

// limitFor is the limit for a live heap of live bytes beside overhead
// bytes the runtime holds that are not objects.
func limitFor(live, overhead uint64) int64 {
	l := float64(live)*(1+liveHeadroom) + float64(overhead)
	if l >= math.MaxInt64/2 {
		return math.MaxInt64
	}
	return int64(l)
}

// heapMetrics are what heapNow reads: the live heap, and the memory the
// soft limit counts beside the objects (everything mapped, less what was
// given back and the free spans new objects take first).
var heapMetrics = []string{
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/objects:bytes",
}

// heapNow is the heap the last collection found live, and the memory the
// runtime holds beside its objects that the soft limit counts.
func heapNow() (live, overhead uint64) {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	var v [5]uint64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	live = v[0]
	held := v[1] - min(v[1], v[2]+v[3])
	return live, held - min(held, v[4])
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
		debug.SetMemoryLimit(limitNow())
		watchCollections()
	}, struct{}{})
}
