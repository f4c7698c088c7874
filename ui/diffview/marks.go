package diffview

import (
	"slices"

	"github.com/streamtap/streamtap/model/streamdiff"
)

// diffView is a comparison as the diff page shows it: the result, which
// difference marks each event's row, and where n and N stop on each side.
// It is made with the comparison, off the event loop, and only read after.
type diffView struct {
	res   *streamdiff.Result
	links *streamdiff.Links
	// mark[w][ord] is the index in res.Differences of the difference whose
	// glyph the row of event ord of side w shows, or -1: of the differences
	// that cite the event or whose stretch of events it belongs to, the one
	// of the most telling kind (the lowest: events missing before fields).
	mark [2][]int32
	// stops[w] lists where n and N stop on side w, in order.
	stops [2][]diffStop
}

// diffStop is where n and N stop for one difference on one side: at its
// first event there (at = 2×ordinal), or, for a difference only the other
// side has events of, just after the nearest counterpart of its first
// event there (2×ordinal+1), where linking leaves the cursor.
type diffStop struct {
	at   int
	diff int
}

// newDiffView lays out the comparison res of sides a and b. Both sessions
// have ended and keep their events. Marking costs the events each
// difference spans (a stretch, a call), once.
func newDiffView(res *streamdiff.Result, a, b *streamdiff.Side) *diffView {
	v := &diffView{res: res, links: res.Links()}
	for w, sd := range [2]*streamdiff.Side{a, b} {
		v.markSide(streamdiff.Which(w), sd)
	}
	for w := range v.stops {
		v.stops[w] = v.stopsOn(streamdiff.Which(w))
	}
	return v
}

// eventsOn returns the first and last events of d on side w (-1 when
// none; last is first when d covers one event).
func eventsOn(d *streamdiff.Difference, w streamdiff.Which) (first, last int) {
	first, last = d.EventA, d.LastA
	if w == streamdiff.SideB {
		first, last = d.EventB, d.LastB
	}
	return first, max(last, first)
}

// markSide marks the rows of side w.
func (v *diffView) markSide(w streamdiff.Which, sd *streamdiff.Side) {
	n := sd.S.Events.Len()
	mark := make([]int32, n)
	for i := range mark {
		mark[i] = -1
	}
	diffs := v.res.Differences
	put := func(ord, i int) {
		if cur := mark[ord]; cur < 0 || diffs[i].Kind < diffs[cur].Kind {
			mark[ord] = int32(i)
		}
	}
	for i := range diffs {
		d := &diffs[i]
		first, last := eventsOn(d, w)
		if first < 0 || first >= n {
			continue
		}
		put(first, i)
		last = min(last, n-1)
		if last > first {
			put(last, i)
		}
		for ord := first + 1; ord < last; ord++ {
			if v.spans(d, w, sd, first, ord) {
				put(ord, i)
			}
		}
	}
	v.mark[w] = mark
}

// spans reports whether event ord of side w, between the first and last
// events of d there, is one of d's: a difference's stretch may interleave
// with the events of other items. Events left without a counterpart
// belong to a stretch only one side has; the deltas of the item to a
// re-chunked run; an item's events to a difference about the call or its
// text; aligned events to a run of moved events, or, of the same type, to
// a field that differs the same way on consecutive events.
func (v *diffView) spans(d *streamdiff.Difference, w streamdiff.Which, sd *streamdiff.Side, first, ord int) bool {
	ev, fe := sd.S.Events.At(ord), sd.S.Events.At(first)
	_, exact := v.links.Counterpart(w, ord)
	switch d.Kind {
	case streamdiff.OnlyInA, streamdiff.OnlyInB:
		return ev.Item == fe.Item && !exact
	case streamdiff.Chunking:
		return ev.Item == fe.Item && ev.Type == fe.Type
	case streamdiff.Call, streamdiff.Text, streamdiff.IDs:
		return ev.Item == fe.Item
	case streamdiff.Reordered:
		return exact
	}
	return exact && ev.Type == fe.Type
}

// stopsOn lists where n and N stop on side w: each difference with an
// event on either side once, in order on w.
func (v *diffView) stopsOn(w streamdiff.Which) []diffStop {
	var out []diffStop
	for i := range v.res.Differences {
		d := &v.res.Differences[i]
		if first, _ := eventsOn(d, w); first >= 0 {
			out = append(out, diffStop{at: 2 * first, diff: i})
			continue
		}
		if other, _ := eventsOn(d, w^1); other >= 0 {
			near, _ := v.links.Counterpart(w^1, other)
			out = append(out, diffStop{at: 2*near + 1, diff: i}) // -1 before every event
		}
	}
	slices.SortStableFunc(out, func(x, y diffStop) int { return x.at - y.at })
	return out
}

// next returns the stop after position at on side w (dir 1), or before it
// (dir -1), around again past either end; ok is false when w has none.
func (v *diffView) next(w streamdiff.Which, at, dir int) (diffStop, bool) {
	st := v.stops[w]
	if len(st) == 0 {
		return diffStop{}, false
	}
	i, _ := slices.BinarySearchFunc(st, at+1, func(s diffStop, t int) int { return s.at - t })
	if dir < 0 {
		i, _ = slices.BinarySearchFunc(st, at, func(s diffStop, t int) int { return s.at - t })
		i--
		if i < 0 {
			i = len(st) - 1
		}
		return st[i], true
	}
	if i >= len(st) {
		i = 0
	}
	return st[i], true
}

// markAt is the difference marked on event ord of side w, or -1.
func (v *diffView) markAt(w streamdiff.Which, ord int) int {
	m := v.mark[w&1]
	if ord < 0 || ord >= len(m) {
		return -1
	}
	return int(m[ord])
}

// at lists the differences the panel shows for the selections selA and
// selB: those that cite either event and those marked on either row, in
// the result's order.
func (v *diffView) at(selA, selB int) []int {
	var out []int
	for w, sel := range [2]int{selA, selB} {
		if sel < 0 {
			continue
		}
		out = append(out, v.links.DifferencesAt(streamdiff.Which(w), sel)...)
		if i := v.markAt(streamdiff.Which(w), sel); i >= 0 {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
