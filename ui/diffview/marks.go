package diffview

import (
	"slices"

	"github.com/streamtap/streamtap/model/streamdiff"
)

// diffView is a comparison as the diff page shows it: the result, which
// difference marks each event's row (streamdiff.Marks: only the events
// whose bytes or statements differ, not every event of a call whose
// arguments do), and where n and N stop on each side. It is made with the
// comparison, off the event loop, and only read after.
type diffView struct {
	res   *streamdiff.Result
	links *streamdiff.Links
	marks *streamdiff.Marks
	// stops[w] lists where n and N stop on side w, in order.
	stops [2][]diffStop
	// rows[w] is what each row of the side by side shows on side w
	// (alignRows); nil when the streams were compared only semantically.
	rows [2][]int32
}

// diffStop is where n and N stop for one difference on one side: at the
// first event it marks there (at = 2×ordinal), or, for a difference that
// marks none there, just after the nearest counterpart of the first event
// it marks on the other side (2×ordinal+1), where linking leaves the
// cursor.
type diffStop struct {
	at   int
	diff int
}

// newDiffView lays out the comparison res of sides a and b. Both sessions
// have ended and keep their events. Marking costs the events each
// difference spans (a stretch, a call), once.
func newDiffView(res *streamdiff.Result, a, b *streamdiff.Side) *diffView {
	v := &diffView{res: res, links: res.Links(), marks: streamdiff.NewMarks(res, a, b)}
	for w := range v.stops {
		v.stops[w] = v.stopsOn(streamdiff.Which(w))
	}
	if res.Mode != "semantic" {
		v.rows[0], v.rows[1] = alignRows(v.links, a.S.Len(), b.S.Len())
	}
	return v
}

// eventsOn returns the first event of d on side w, or -1 when none.
func eventsOn(d *streamdiff.Difference, w streamdiff.Which) int {
	if w == streamdiff.SideB {
		return d.EventB
	}
	return d.EventA
}

// firstOn is where a difference starts on side w: the first event it
// marks there, else the first event it cites there, or -1.
func (v *diffView) firstOn(w streamdiff.Which, i int) int {
	if f := v.marks.First(w, i); f >= 0 {
		return f
	}
	return eventsOn(&v.res.Differences[i], w)
}

// stopsOn lists where n and N stop on side w: each difference with an
// event on either side once, in order on w.
func (v *diffView) stopsOn(w streamdiff.Which) []diffStop {
	var out []diffStop
	for i := range v.res.Differences {
		if first := v.firstOn(w, i); first >= 0 {
			out = append(out, diffStop{at: 2 * first, diff: i})
			continue
		}
		if other := v.firstOn(w^1, i); other >= 0 {
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
func (v *diffView) markAt(w streamdiff.Which, ord int) int { return v.marks.At(w, ord) }

// at lists the differences the panel shows for the selections selA and
// selB: those the marks say are about either event (cited there, marked
// there, or about its call or text as a whole), in the result's order.
func (v *diffView) at(selA, selB int) []int {
	var out []int
	for w, sel := range [2]int{selA, selB} {
		if sel >= 0 {
			out = append(out, v.marks.About(streamdiff.Which(w), sel)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
