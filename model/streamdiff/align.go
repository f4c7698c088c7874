package streamdiff

import "slices"

// pair is two matched positions, in sequence a and sequence b.
type pair struct{ a, b int32 }

// lcs matches positions of a[0:n] and b[0:m] under eq in order, as a
// longest common subsequence does, by Myers' O((n+m)·D) algorithm on
// what is left once the common prefix and suffix are taken off. It gives
// up (ok false) when more than maxD insertions and deletions are needed,
// so its cost is bounded by O((n+m)·maxD) time and O(maxD²) memory: a
// million deltas on each side cut differently must not cost a million
// squared.
//
// See E. W. Myers, "An O(ND) Difference Algorithm and Its Variations",
// Algorithmica 1 (1986).
func lcs(n, m int, eq func(i, j int) bool, maxD int) ([]pair, bool) {
	return lcsInto(nil, nil, n, m, eq, maxD)
}

// lcsInto is lcs appending to out[:0], with the trace of the search kept
// in *scratch (grown as needed), so that a caller aligning tens of
// thousands of items reuses one buffer of each: on two shuffled streams,
// where most items need the search to its bound, allocating them anew
// was a third of what the comparison allocated.
func lcsInto(out []pair, scratch *[]int, n, m int, eq func(i, j int) bool, maxD int) ([]pair, bool) {
	pre := 0
	for pre < n && pre < m && eq(pre, pre) {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && eq(n-1-suf, m-1-suf) {
		suf++
	}
	if scratch == nil {
		scratch = new([]int)
	}
	out = out[:0]
	for i := range pre {
		out = append(out, pair{int32(i), int32(i)})
	}
	out, ok := myers(out, scratch, n-pre-suf, m-pre-suf, func(i, j int) bool { return eq(pre+i, pre+j) }, maxD, int32(pre))
	if !ok {
		return nil, false
	}
	for i := range suf {
		out = append(out, pair{int32(n - suf + i), int32(m - suf + i)})
	}
	return out, true
}

// myers is the greedy forward pass of Myers' algorithm with its trace kept
// for the way back, appending the pairs to out in order, each position
// shifted by at. The trace lives in *scratch: row d (the furthest x on
// diagonals -d..d after d edits) at [d², d²+2d+1).
func myers(out []pair, scratch *[]int, n, m int, eq func(i, j int) bool, maxD int, at int32) ([]pair, bool) {
	if n == 0 || m == 0 {
		return out, n+m <= maxD
	}
	limit := min(maxD, n+m)
	off := limit + 1
	if need := 2*limit + 3 + (limit+1)*(limit+1); cap(*scratch) < need {
		*scratch = make([]int, need)
	}
	buf := (*scratch)[:cap(*scratch)]
	v, trace := buf[:2*limit+3], buf[2*limit+3:]
	clear(v)
	for d := 0; d <= limit; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && eq(x, y) {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				copy(trace[d*d:], v[off-d:off+d+1])
				return backtrack(out, trace, d, n, m, at), true
			}
		}
		copy(trace[d*d:], v[off-d:off+d+1])
	}
	return out, false
}

// backtrack walks the trace of rows 0..last from (n, m) back to (0, 0),
// collecting the diagonal moves, which are the matches, and appends them
// to out in order.
func backtrack(out []pair, trace []int, last, n, m int, at int32) []pair {
	start := len(out)
	x, y := n, m
	for d := last; d > 0; d-- {
		prev := trace[(d-1)*(d-1):] // row d-1, indexed k+(d-1)
		row := func(k int) int { return prev[k+d-1] }
		k := x - y
		var pk int
		if k == -d || (k != d && row(k-1) < row(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := row(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			out = append(out, pair{int32(x) + at, int32(y) + at})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x--
		y--
		out = append(out, pair{int32(x) + at, int32(y) + at})
	}
	slices.Reverse(out[start:])
	return out
}

// run is a stretch of consecutive equal keys in a sequence.
type run struct {
	key        uint32
	start, len int32
}

func runsOf(keys []uint32) []run {
	var out []run
	for i, k := range keys {
		if n := len(out); n > 0 && out[n-1].key == k {
			out[n-1].len++
			continue
		}
		out = append(out, run{key: k, start: int32(i), len: 1})
	}
	return out
}

// runWindow is how far ahead alignRuns looks for a run of the same key
// when the exact alignment of runs gave up.
const runWindow = 8

// alignRuns matches runs of keys when the exact alignment gave up: first
// exactly on the runs (far fewer than the events), and when that gives up
// too, greedily in order, each run of a with the next run of b of the same
// key within runWindow runs. Its cost is linear in the runs.
func alignRuns(ra, rb []run, maxD int) []pair {
	if ps, ok := lcs(len(ra), len(rb), func(i, j int) bool { return ra[i].key == rb[j].key }, maxD); ok {
		return ps
	}
	var out []pair
	j := 0
	for i := range ra {
		for w := j; w < len(rb) && w < j+runWindow; w++ {
			if rb[w].key == ra[i].key {
				out = append(out, pair{int32(i), int32(w)})
				j = w + 1
				break
			}
		}
	}
	return out
}

// increasing returns a mask of the positions of xs that belong to one
// longest strictly increasing subsequence, in O(n log n): of matched events
// ordered by their ordinal in A, those whose ordinal in B fits that
// subsequence kept their order; the others were reordered.
func increasing(xs []int32) []bool {
	tails := make([]int32, 0, len(xs)) // tails[l]: index in xs of the smallest tail of an increasing run of length l+1
	prev := make([]int32, len(xs))
	for i, x := range xs {
		l, hi := 0, len(tails) // the first tail >= x, by binary search
		for l < hi {
			if m := int(uint(l+hi) >> 1); xs[tails[m]] < x {
				l = m + 1
			} else {
				hi = m
			}
		}
		if l > 0 {
			prev[i] = tails[l-1]
		} else {
			prev[i] = -1
		}
		if l == len(tails) {
			tails = append(tails, int32(i))
		} else {
			tails[l] = int32(i)
		}
	}
	keep := make([]bool, len(xs))
	if len(tails) > 0 {
		for i := tails[len(tails)-1]; i >= 0; i = prev[i] {
			keep[i] = true
		}
	}
	return keep
}
