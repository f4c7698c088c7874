package streamdiff

import "sort"

// Which names a side of a comparison.
type Which uint8

const (
	SideA Which = iota
	SideB
)

// Links is the linked selection of two aligned streams: for any event of
// one, the event of the other that corresponds to it. Both directions are
// arrays indexed by ordinal, so a UI that follows the selection asks in
// O(1); DifferencesAt answers in O(log n). It costs 4 bytes an event on
// each side, and 8 bytes per event a listed difference cites.
//
// A Links is read-only once built and safe for concurrent readers.
type Links struct {
	// to[SideA][ordA] is the counterpart in B of event ordA of A: >= 0
	// for an aligned event; -(o+2) for an event without a counterpart,
	// o being the counterpart of the nearest aligned event before it; -1
	// when there is none.
	to [2][]int32
	// cites lists (ordinal, difference) for each side, sorted, for
	// DifferencesAt.
	cites [2][]cite
}

type cite struct{ ord, diff int32 }

// Counterpart returns the event of the other side that corresponds to
// event ord of side w, and whether it is exact: an event that was aligned
// has one; a delta of a run cut differently gets the one at the same
// relative place of the other's run, and an event present on one side
// only the counterpart of the nearest event before it that has one (exact
// false), so a linked view still lands near the same place. It returns -1 when there is none (a stream
// compared only semantically, or an event before any aligned one).
func (l *Links) Counterpart(w Which, ord int) (other int, exact bool) {
	to := l.to[w&1]
	if ord < 0 || ord >= len(to) {
		return -1, false
	}
	switch v := to[ord]; {
	case v >= 0:
		return int(v), true
	case v == -1:
		return -1, false
	default:
		return int(-v - 2), false
	}
}

// DifferencesAt returns the indexes in Result.Differences of the listed
// differences that cite event ord of side w (as their first or last
// event, or as the only event of a field difference), in order.
func (l *Links) DifferencesAt(w Which, ord int) []int {
	cs := l.cites[w&1]
	i := sort.Search(len(cs), func(i int) bool { return cs[i].ord >= int32(ord) })
	var out []int
	for ; i < len(cs) && cs[i].ord == int32(ord); i++ {
		out = append(out, int(cs[i].diff))
	}
	return out
}

// newLinks makes the arrays for n and m events, nothing linked yet.
func newLinks(n, m int) Links {
	var l Links
	l.to[SideA] = make([]int32, n)
	l.to[SideB] = make([]int32, m)
	for w := range l.to {
		for i := range l.to[w] {
			l.to[w][i] = -1
		}
	}
	return l
}

// link records that event a of A and event b of B correspond.
func (l *Links) link(a, b int32) {
	l.to[SideA][a] = b
	l.to[SideB][b] = a
}

// approx records other as the near (not exact) counterpart of event ord
// of side w: deltas cut differently map to the one at the same place.
func (l *Links) approx(w Which, ord, other int32) { l.to[w][ord] = -(other + 2) }

// fillNearest gives every event without a counterpart the counterpart of
// the nearest event before it that has one, exact or near: an event after
// deltas cut differently lands after their counterparts, not back where
// its item opened.
func (l *Links) fillNearest() {
	for w := range l.to {
		last := int32(-1)
		for i, v := range l.to[w] {
			switch {
			case v >= 0:
				last = v
			case v < -1:
				last = -v - 2
			case last >= 0:
				l.to[w][i] = -(last + 2)
			}
		}
	}
}

// index builds the citation index of the listed differences.
func (l *Links) index(diffs []Difference) {
	for w := range l.cites {
		l.cites[w] = l.cites[w][:0]
	}
	for i, d := range diffs {
		for _, c := range [...]struct {
			w           Which
			first, last int
		}{{SideA, d.EventA, d.LastA}, {SideB, d.EventB, d.LastB}} {
			if c.first >= 0 {
				l.cites[c.w] = append(l.cites[c.w], cite{int32(c.first), int32(i)})
			}
			if c.last > c.first {
				l.cites[c.w] = append(l.cites[c.w], cite{int32(c.last), int32(i)})
			}
		}
	}
	for w := range l.cites {
		sort.SliceStable(l.cites[w], func(i, j int) bool { return l.cites[w][i].ord < l.cites[w][j].ord })
	}
}
