package streamdiff

import (
	"runtime"
	"testing"
)

// Comparing two streams that differ at nearly every event (one is the
// other shuffled) costs a bounded amount per event, and the Result holds
// the differences it lists, not every one it found: each found
// difference used to be formatted and then copied by every growth of one
// slice and again by the merge, 5.4 allocations and 770 bytes an event,
// all kept alive by the Result's slice of the first thousand.
func TestCompareShuffledCost(t *testing.T) {
	a, shuffled := shuffledPair(t, 500)
	o := DefaultOptions()
	sa, sb := Build("A", a, 0, o.Ignore), Build("B", shuffled, 0, o.Ignore)
	events := float64(sa.S.Len() + sb.S.Len())
	var res *Result
	allocs := testing.AllocsPerRun(3, func() { res = Compare(sa, sb, o) })
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res = Compare(sa, sb, o)
	runtime.ReadMemStats(&after)
	bytes := float64(after.TotalAlloc-before.TotalAlloc) / events
	if res.Omitted == 0 {
		t.Fatalf("%d differences listed, none omitted: the test needs more than MaxListed", len(res.Differences))
	}
	for _, d := range res.Differences {
		if d.Message == "" {
			t.Fatalf("a listed difference without its message: %+v", d)
		}
	}
	// What the Result keeps alive: the heap with it, less the heap without.
	var with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&with)
	listed := len(res.Differences)
	res = nil
	runtime.GC()
	runtime.ReadMemStats(&without)
	held := float64(with.HeapAlloc) - float64(without.HeapAlloc)
	t.Logf("the Result holds %.0f KiB for %d listed differences", held/1024, listed)
	if limit := 400.0*MaxListed + 16*events; held > limit {
		t.Errorf("the Result holds %.0f KiB; want at most %.0f KiB (its listed differences and links)", held/1024, limit/1024)
	}
	t.Logf("%.2f allocations, %.0f bytes an event", allocs/events, bytes)
	if allocs/events > 3.5 || bytes > 450 {
		t.Errorf("Compare allocated %.1f times and %.0f bytes an event; want at most 3.5 and 450", allocs/events, bytes)
	}
}
