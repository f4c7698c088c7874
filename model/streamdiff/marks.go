package streamdiff

import (
	"bytes"
	"slices"
	"sort"

	"github.com/streamtap/streamtap/model"
)

// Marks says, for a view that marks the rows of both streams, which
// events each listed difference marks and which it is about. The two are
// apart for the differences about a call or a text as a whole: such a
// difference is about every event of its item (a panel lists it at any of
// them), but marks only the events whose bytes or statements differ — the
// fragments from where the arguments (or the text) start to differ to
// where they agree again, the .done, output_item.done and terminal events
// whose statement differs, the event that names the call, the one that
// set its status — so that ten identical deltas before the one that
// differs are not marked. The differences about events (only in one,
// reordered, a field, chunking) mark the events of their stretch.
//
// A Marks costs 4 bytes an event on each side, is built once, off the
// event loop, and is read-only after: safe for concurrent readers.
type Marks struct {
	res   *Result
	links *Links
	items [2][]int32 // each event's item (the recorder's), or -1
	// mark[w][ord] is the index in Result.Differences of the difference
	// whose mark event ord of side w shows, or -1: of the differences
	// that mark it, the one of the most telling kind (the lowest: events
	// missing before fields before calls).
	mark [2][]int32
	// first[w][i] is the first event difference i marks on side w, or -1.
	first [2][]int32
	// byItem[w] lists, by item index, the differences about that item of
	// side w as a whole (call, text, ids), in order.
	byItem [2]map[int32][]int32
}

// NewMarks works out the marks of the comparison r of sides a and b (the
// sides Compare compared, their sessions ended). It costs the events each
// listed difference spans, once.
func NewMarks(r *Result, a, b *Side) *Marks {
	m := &Marks{res: r, links: r.Links()}
	sides := [2]*Side{a, b}
	for w, sd := range sides {
		n := sd.Len()
		m.mark[w] = make([]int32, n)
		m.first[w] = make([]int32, len(r.Differences))
		for i := range m.mark[w] {
			m.mark[w][i] = -1
		}
		for i := range m.first[w] {
			m.first[w][i] = -1
		}
		m.items[w] = make([]int32, n)
		for ord := range n {
			m.items[w][ord] = sd.rec.item(int32(ord))
		}
		m.byItem[w] = map[int32][]int32{}
	}
	for i := range r.Differences {
		d := &r.Differences[i]
		for w, sd := range sides {
			if it := d.items[w] - 1; it >= 0 && (d.Kind == Call || d.Kind == Text || d.Kind == IDs) {
				m.byItem[w][it] = append(m.byItem[w][it], int32(i))
			}
			mk := marker{m: m, w: Which(w), i: i, sd: sd, other: sides[w^1]}
			mk.difference(d)
		}
	}
	return m
}

// At returns the index in Result.Differences of the difference whose mark
// event ord of side w shows, or -1 when no difference marks it.
func (m *Marks) At(w Which, ord int) int {
	mk := m.mark[w&1]
	if ord < 0 || ord >= len(mk) {
		return -1
	}
	return int(mk[ord])
}

// First returns the first event difference i marks on side w, or -1 when
// it marks none there: where a view that steps from difference to
// difference stops.
func (m *Marks) First(w Which, i int) int {
	f := m.first[w&1]
	if i < 0 || i >= len(f) {
		return -1
	}
	return int(f[i])
}

// About returns the indexes in Result.Differences of the differences a
// panel lists at event ord of side w, in order: those that cite it
// (Links.DifferencesAt), the one that marks it, and those about its item
// as a whole (a call whose arguments differ, listed at each of its events
// though only some are marked).
func (m *Marks) About(w Which, ord int) []int {
	w &= 1
	out := m.links.DifferencesAt(w, ord)
	if i := m.At(w, ord); i >= 0 {
		out = append(out, i)
	}
	if ord >= 0 && ord < len(m.items[w]) {
		for _, i := range m.byItem[w][m.items[w][ord]] {
			out = append(out, int(i))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// marker marks the events of one difference on one side.
type marker struct {
	m     *Marks
	w     Which
	i     int
	sd    *Side // the side marked
	other *Side
}

// put marks event ord with the difference unless one of a more telling
// kind marks it already.
func (mk *marker) put(ord int) {
	mark := mk.m.mark[mk.w]
	if ord < 0 || ord >= len(mark) {
		return
	}
	diffs := mk.m.res.Differences
	if cur := mark[ord]; cur < 0 || diffs[mk.i].Kind < diffs[cur].Kind {
		mark[ord] = int32(mk.i)
	}
	if f := &mk.m.first[mk.w][mk.i]; *f < 0 || int32(ord) < *f {
		*f = int32(ord)
	}
}

// item returns the item difference d is about on this side and the
// other, nil when none.
func (mk *marker) item(d *Difference) (mine, theirs *model.Item) {
	get := func(sd *Side, ref int32) *model.Item {
		if ref <= 0 || int(ref) > len(sd.S.Items) {
			return nil
		}
		return sd.S.Items[ref-1]
	}
	return get(mk.sd, d.items[mk.w]), get(mk.other, d.items[mk.w^1])
}

// difference marks the events of d on this side.
func (mk *marker) difference(d *Difference) {
	first, last := d.EventA, d.LastA
	if mk.w == SideB {
		first, last = d.EventB, d.LastB
	}
	last = max(last, first)
	mine, theirs := mk.item(d)
	switch {
	case d.Kind == Call && mine != nil:
		mk.call(d, mine, theirs)
		return
	case d.Kind == Text && mine != nil:
		mk.text(mine, theirs)
		return
	case first < 0 || first >= mk.sd.Len():
		return
	}
	mk.put(first)
	last = min(last, mk.sd.Len()-1)
	if last > first {
		mk.put(last)
	}
	for ord := first + 1; ord < last; ord++ {
		if mk.spans(d, first, ord) {
			mk.put(ord)
		}
	}
}

// spans reports whether event ord, between the first and last events of
// d on this side, is one of d's: a stretch may interleave with the events
// of other items. Events left without a counterpart belong to a stretch
// only one side has; the deltas of the item to a re-chunked run; aligned
// events to a run of moved events, or, of the same type, to a field that
// differs the same way on consecutive events.
func (mk *marker) spans(d *Difference, first, ord int) bool {
	rec := mk.sd.rec
	sameItem := rec.item(int32(ord)) == rec.item(int32(first))
	_, exact := mk.m.links.Counterpart(mk.w, ord)
	switch d.Kind {
	case OnlyInA, OnlyInB:
		return sameItem && !exact
	case Chunking:
		return sameItem && rec.typ(int32(ord)) == rec.typ(int32(first))
	case Call, Text, IDs:
		return sameItem
	case Reordered:
		return exact
	}
	return exact && rec.typ(int32(ord)) == rec.typ(int32(first))
}

// call marks the events of a call difference that differ: all of a call
// the other side lacks; else by what differs.
func (mk *marker) call(d *Difference, it, other *model.Item) {
	if other == nil {
		mk.itemEvents(it)
		return
	}
	switch d.Path {
	case "arguments":
		mk.argsFrom(it, commonEnds(it.Args.Bytes(), other.Args.Bytes()))
		final := []byte(other.FinalArgs())
		for _, st := range statements(it) {
			if !bytes.Equal([]byte(st.Value), final) {
				mk.put(st.Ordinal)
			}
		}
	case "sources":
		mk.sources(it)
	case "status":
		if n := len(it.Status); n > 0 {
			mk.put(it.Status[n-1].Ordinal)
		} else {
			mk.put(it.Last)
		}
	default: // name, kind, id: the event that opened the call says them first
		mk.put(opener(it))
	}
}

// opener is the event that opened an item, or its first.
func opener(it *model.Item) int {
	if it.Opened >= 0 {
		return it.Opened
	}
	return it.First
}

// itemEvents marks every event of an item.
func (mk *marker) itemEvents(it *model.Item) {
	rec := mk.sd.rec
	for ord := max(it.First, 0); ord <= min(it.Last, mk.sd.Len()-1); ord++ {
		if int(rec.item(int32(ord))) == it.Index || ord == it.First {
			mk.put(ord)
		}
	}
}

// statements are a call's named statements of its final arguments
// (output_item.done, .done, the terminal output[]), not its deltas; and
// output_item.added's when no delta came, as then it is the final one.
func statements(it *model.Item) []model.Statement {
	var out []model.Statement
	srcs, _ := it.SourcesAsOf(-1)
	for _, st := range srcs {
		if st.Name != model.SourceDeltas.String() {
			out = append(out, st)
		}
	}
	if st, ok := it.Statement(model.SourceAdded); ok && it.Deltas == 0 {
		out = append(out, st)
	}
	return out
}

// span is the part [from, to) of one side's bytes that differs from the
// other's: past their common prefix and before their common suffix.
type span struct{ from, to int }

// commonEnds returns the span of a that differs from b; for two equal
// texts, a span past the end of both that marks nothing (fragments).
func commonEnds(a, b []byte) span {
	if bytes.Equal(a, b) {
		return span{len(a) + 1, len(a) + 1}
	}
	p := commonPrefix(a, b)
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return span{p, len(a) - s}
}

// argsFrom marks the events whose argument fragments overlap the span of
// the arguments that differs; a span of no bytes (the other side has
// bytes where this one has none) marks the fragment at its place. A
// dialect whose arguments are rebuilt from values (Gemini) has no
// fragments of the bytes: every event that brought values is marked, or
// the call's first.
func (mk *marker) argsFrom(it *model.Item, sp span) {
	frags := it.Args.Frags
	if it.Dialect.Info().ArgsRebuilt || len(frags) == 0 {
		for _, f := range frags {
			mk.put(int(f.Ordinal))
		}
		if len(frags) == 0 && it.Deltas > 0 {
			mk.put(opener(it))
		}
		return
	}
	mk.fragments(frags, sp)
}

// fragments marks the events of the fragments of a buffer that overlap
// sp, or, when sp holds no bytes, the one at sp.from (the last one when
// sp.from is the end): where the other side has bytes this one lacks.
func (mk *marker) fragments(frags []model.Fragment, sp span) {
	if len(frags) == 0 || sp.from > int(frags[len(frags)-1].End) {
		return // nothing differs
	}
	i := sort.Search(len(frags), func(i int) bool { return int(frags[i].End) > sp.from })
	if sp.from >= sp.to {
		mk.put(int(frags[min(i, len(frags)-1)].Ordinal))
		return
	}
	for ; i < len(frags); i++ {
		start := 0
		if i > 0 {
			start = int(frags[i-1].End)
		}
		if start >= sp.to {
			break
		}
		mk.put(int(frags[i].Ordinal))
	}
}

// sources marks the statements of a call's arguments that differ from
// what most of them say: a statement event by its ordinal, the deltas
// from where they stop agreeing with it.
func (mk *marker) sources(it *model.Item) {
	srcs, disagree := it.SourcesAsOf(-1)
	if !disagree {
		return
	}
	count := map[string]int{}
	for _, st := range srcs {
		count[st.Value]++
	}
	common := srcs[0].Value
	for _, st := range srcs {
		if count[st.Value] > count[common] {
			common = st.Value
		}
	}
	for _, st := range srcs {
		switch {
		case st.Value == common:
		case st.Name == model.SourceDeltas.String():
			mk.argsFrom(it, commonEnds(it.Args.Bytes(), []byte(common)))
		default:
			mk.put(st.Ordinal)
		}
	}
}

// text marks the events whose text fragments overlap the part of the
// text that differs from the other side's; all of a message the other
// side lacks.
func (mk *marker) text(it, other *model.Item) {
	if other == nil {
		mk.itemEvents(it)
		return
	}
	mk.fragments(it.Text.Frags, commonEnds(it.Text.Bytes(), other.Text.Bytes()))
}
