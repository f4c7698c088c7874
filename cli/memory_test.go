package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// gcSink keeps the garbage of TestHeapLimitFollowsLiveHeap from being
// optimised away.
var gcSink []byte

// With far more kept alive than the budget, the collector runs once per
// half of the live heap allocated, not back to back: a fixed soft limit
// under the live heap made it run after every few allocations, which is
// what made calls, check and diff slower per byte the bigger their input.
// Not parallel: it sets the process's memory limit.
func TestHeapLimitFollowsLiveHeap(t *testing.T) {
	oldLimit, oldBudget := debug.SetMemoryLimit(-1), heapBudget.Load()
	defer func() {
		heapBudget.Store(oldBudget)
		debug.SetMemoryLimit(oldLimit)
	}()
	keepHeapNear(8 << 20)
	live := make([][]byte, 48)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 480 << 20 >> 16 { // 480 MiB of garbage, 64 KiB at a time
		gcSink = make([]byte, 64<<10)
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(live)
	gcs := after.NumGC - before.NumGC
	t.Logf("%d collections for 480 MiB allocated beside 48 MiB live; limit now %d MiB", gcs, debug.SetMemoryLimit(-1)>>20)
	// 24 MiB of headroom: about 20 collections.
	if gcs > 40 {
		t.Errorf("%d collections for 480 MiB allocated beside 48 MiB kept alive under a budget of 8 MiB; want the limit to follow the live heap (about 20)", gcs)
	}
	if limit := debug.SetMemoryLimit(-1); limit < 64<<20 {
		t.Errorf("the limit is %d MiB with 48 MiB live; want about 1.5x the live heap", limit>>20)
	}
}

// fragments keeps TestHeapLimitCountsOverhead's live objects.
var fragments [][]byte

// A live heap scattered over half-empty spans leaves as much free room
// inside them as it holds, which the soft limit counts too: the collector
// still runs once per half of the live heap allocated. Before, the limit
// was 1.5x the live heap alone, and with that room beside it the heap
// goal fell under the live heap: a collection every few allocations
// (5,296 of them reading a cassette of 10,000 small sessions).
// Not parallel: it sets the process's memory limit.
func TestHeapLimitCountsOverhead(t *testing.T) {
	oldLimit, oldBudget := debug.SetMemoryLimit(-1), heapBudget.Load()
	defer func() {
		fragments = nil
		heapBudget.Store(oldBudget)
		debug.SetMemoryLimit(oldLimit)
	}()
	keepHeapNear(8 << 20)
	// 64 MiB of 512-byte objects, every other one kept: 32 MiB live,
	// 32 MiB of room between them that no object of another size takes.
	all := make([][]byte, 64<<20/512)
	for i := range all {
		all[i] = make([]byte, 512)
	}
	fragments = make([][]byte, 0, len(all)/2)
	for i := 0; i < len(all); i += 2 {
		fragments = append(fragments, all[i])
	}
	runtime.GC()
	runtime.GC() // the second one sets the limit from the first's live heap
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 480 << 20 >> 16 { // 480 MiB of garbage, 64 KiB at a time
		gcSink = make([]byte, 64<<10)
	}
	runtime.ReadMemStats(&after)
	gcs := after.NumGC - before.NumGC
	t.Logf("%d collections for 480 MiB allocated beside 32 MiB live in 64 MiB of spans; limit now %d MiB", gcs, debug.SetMemoryLimit(-1)>>20)
	// 16 MiB of headroom: about 30 collections.
	if gcs > 60 {
		t.Errorf("%d collections for 480 MiB allocated beside 32 MiB live in half-empty spans; want the limit to leave 1.5x the live heap for objects (about 30)", gcs)
	}
}
