package streamdiff

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/streamtap/streamtap/model"
)

// Compare compares stream a with stream b. Both sessions should have
// ended; neither is modified. Events are read back (Side.Data) only for
// aligned pairs whose fingerprints differ, so the cost is about linear in
// the events, plus the reading of the pairs that differ.
func Compare(a, b *Side, o Options) *Result {
	da, db := a.S.Dialect(), b.S.Dialect()
	if da != db && da != model.DialectUnknown && db != model.DialectUnknown {
		return CompareLegs([]*Side{a}, []*Side{b}, o)
	}
	c := &comparer{
		o: o, side: [2]*Side{a, b},
		res:     &Result{Ignored: o.Ignore.Names(), Counts: map[string]int{}},
		typeIDs: map[string]uint32{},
		gaps:    gapGroups{of: map[uint32]int{}},
		links:   newLinks(a.Len(), b.Len()),
	}
	c.res.A, c.res.B = summarize(a), summarize(b)
	c.res.Mode = "events"
	c.alignEvents()
	c.compareText()
	c.compareOutcome()
	c.compareTiming()
	c.finish()
	return c.res
}

// comparer holds the work of one comparison.
type comparer struct {
	o        Options
	side     [2]*Side
	res      *Result
	found    [][]Difference // the differences as they are found, in blocks (see add)
	nDiffs   int
	diffs    []Difference // all of them, joined at the end
	links    Links
	typeIDs  map[string]uint32 // event type names of both sides, interned together
	typeOf   [2][]uint32       // a session's interned type id → typeIDs, 0 when not yet looked up
	movedA   map[int32]bool    // events of A found elsewhere in their item (reported as moved)
	gaps     gapGroups         // reused by each gap between aligned events
	pairBuf  []pair            // reused by each lane's alignment
	traceBuf []int             // the trace of each lane's search, reused
	lanes    []*lane
	calls    []callPair // calls paired by the item alignment
	// argsPairs names the paired calls whose final arguments differ, by
	// the hashes of both sides' arguments (finalArgsOf); nil until needed.
	argsPairs map[[2]uint64]string
}

func summarize(sd *Side) Summary {
	s := sd.S
	o := s.Outcome()
	return Summary{
		Name: sd.Name, Dialect: s.Dialect().String(), Events: s.Len(), Responses: len(s.Responses),
		Calls: len(s.Calls()), Outcome: model.OutcomeReport{State: o.State, Detail: o.Detail}, Timed: sd.rec.timing.FirstEvent >= 0,
	}
}

// key is what the alignment matches events by: type and kind.
func (c *comparer) key(w Which, ord int32) uint32 {
	rec := c.side[w].rec
	return c.typeKey(w, rec.typ(ord))<<8 | uint32(rec.kindOf(ord))
}

func (c *comparer) typeKey(w Which, t uint16) uint32 {
	tab := c.typeOf[w]
	if int(t) >= len(tab) {
		tab = append(tab, make([]uint32, int(t)+1-len(tab))...)
		c.typeOf[w] = tab
	}
	if tab[t] == 0 {
		name := c.side[w].S.TypeName(t)
		id, ok := c.typeIDs[name]
		if !ok {
			id = uint32(len(c.typeIDs) + 1)
			c.typeIDs[name] = id
		}
		tab[t] = id
	}
	return tab[t]
}

func (c *comparer) fp(w Which, ord int32) uint32 { return c.side[w].rec.fp(ord) }

// afp is the fingerprint events are aligned and found moved by: the
// default comparison's, whatever this one ignores (Recorder.align), so
// that a stricter comparison pairs the same events and says more of them.
func (c *comparer) afp(w Which, ord int32) uint32 { return c.side[w].rec.afp(ord) }

// typeName is the type of event ord of side w.
func (c *comparer) typeName(w Which, ord int32) string {
	return c.side[w].S.TypeName(c.side[w].rec.typ(ord))
}

// lane is what events are aligned within: one response's own events
// (lifecycle, terminal, errors, [DONE]), one item's, or the stream's
// before its first response. A lane of one side only has no item or
// response on the other.
type lane struct {
	c     *comparer
	resp  int    // response index, or -1
	item  [2]int // item index on each side, or -1
	ev    [2][]int32
	named string    // name, once made
	args  *callArgs // a call's final arguments, once a field needs them
}

// name names the lane for reports: "stream", "response 0", or its item
// as itemName does. It is made when a report needs it (most lanes have
// nothing to report), once: a lane of two shuffled streams reports
// several differences.
func (l *lane) name() string {
	if l.named != "" {
		return l.named
	}
	l.named = "stream"
	for w, i := range l.item {
		if i >= 0 {
			l.named = itemName(l.c.side[w].S.Items[i])
			return l.named
		}
	}
	if l.resp >= 0 {
		l.named = fmt.Sprintf("response %d", l.resp)
	}
	return l.named
}

// alignEvents pairs responses, then items, then the events of each lane.
func (c *comparer) alignEvents() {
	laneOfItem := [2][]int32{make([]int32, len(c.side[0].S.Items)), make([]int32, len(c.side[1].S.Items))}
	nResp := max(len(c.side[0].S.Responses), len(c.side[1].S.Responses))
	laneOfResp := make([]int32, nResp)
	c.lanes = append(c.lanes, &lane{c: c, resp: -1, item: [2]int{-1, -1}})
	for r := range nResp {
		laneOfResp[r] = int32(len(c.lanes))
		c.lanes = append(c.lanes, &lane{c: c, resp: r, item: [2]int{-1, -1}})
	}
	itemsA, atA := c.itemsByResponse(SideA, nResp)
	itemsB, atB := c.itemsByResponse(SideB, nResp)
	for r := -1; r < nResp; r++ {
		for _, p := range pairItems(itemsA[atA[r+1]:atA[r+2]], itemsB[atB[r+1]:atB[r+2]]) {
			l := &lane{c: c, resp: r, item: [2]int{-1, -1}}
			for w, it := range p {
				if it != nil {
					l.item[w] = it.Index
					laneOfItem[w][it.Index] = int32(len(c.lanes))
				}
			}
			c.lanes = append(c.lanes, l)
			if p[0] != nil && p[0].IsCall() || p[1] != nil && p[1].IsCall() {
				c.calls = append(c.calls, callPair{p[0], p[1]})
			}
		}
	}
	c.alignLanes(laneOfItem, laneOfResp)
	c.checkOrder()
	c.checkSequence()
	c.checkEventLines()
	c.checkIDs()
	c.compareCalls(c.calls, true)
}

// alignLanes puts each event in its lane and aligns each lane once both
// sides have passed its last event, response by response: only the lanes
// of about one response hold their events at a time, not every event of
// two 100 MB streams at once.
func (c *comparer) alignLanes(laneOfItem [2][]int32, laneOfResp []int32) {
	skipKeepalive := c.o.Ignore.Has(IgnoreKeepalive)
	laneAt := func(w Which, ord int32, rs *responseWalk) int32 {
		rec := c.side[w].rec
		switch item := rec.item(ord); {
		case skipKeepalive && rec.kindOf(ord) == model.KindKeepalive:
			return -1
		case item >= 0 && int(item) < len(laneOfItem[w]):
			return laneOfItem[w][item]
		}
		if r := rs.at(int(ord)); r >= 0 {
			return laneOfResp[r]
		}
		return 0
	}
	// The last event of each lane on each side, so that a lane is aligned
	// as soon as it is complete, even when an item's events run past its
	// response's.
	var last [2][]int32
	for w := range last {
		last[w] = make([]int32, len(c.lanes))
		for i := range last[w] {
			last[w][i] = -1
		}
		rs := responseWalk{s: c.side[w].S}
		for ord := range int32(c.side[w].rec.Len()) {
			if li := laneAt(Which(w), ord, &rs); li >= 0 {
				last[w][li] = ord
			}
		}
	}
	var cursor [2]int32
	rs := [2]responseWalk{{s: c.side[0].S}, {s: c.side[1].S}}
	var pending []int32
	var free [][]int32
	seen := make([]bool, len(c.lanes))
	nResp := len(laneOfResp)
	for r := -1; r < nResp; r++ {
		for w := range cursor {
			end := int32(c.side[w].rec.Len())
			if rsp := c.side[w].S.Responses; r+1 < len(rsp) {
				end = min(end, int32(rsp[r+1].First))
			}
			for ; cursor[w] < end; cursor[w]++ {
				li := laneAt(Which(w), cursor[w], &rs[w])
				if li < 0 {
					continue
				}
				l := c.lanes[li]
				if l.ev[w] == nil && len(free) > 0 {
					l.ev[w], free = free[len(free)-1][:0], free[:len(free)-1]
				}
				l.ev[w] = append(l.ev[w], cursor[w])
				if !seen[li] {
					seen[li] = true
					pending = append(pending, li)
				}
			}
		}
		if r == nResp-1 {
			for w := range cursor {
				cursor[w] = int32(c.side[w].rec.Len()) // past everything
			}
		}
		kept := pending[:0]
		for _, li := range pending {
			if last[0][li] >= cursor[0] || last[1][li] >= cursor[1] {
				kept = append(kept, li)
				continue
			}
			l := c.lanes[li]
			c.alignLane(l)
			for _, ev := range l.ev {
				if cap(ev) > 0 {
					free = append(free, ev) // the next lanes' lists: no allocation per lane
				}
			}
			l.ev = [2][]int32{}
		}
		pending = kept
	}
	for _, li := range pending { // only when there is no response at all
		c.alignLane(c.lanes[li])
		c.lanes[li].ev = [2][]int32{}
	}
}

// responseWalk is responseAt for ordinals asked in increasing order, in
// O(1) each.
type responseWalk struct {
	s *model.Session
	r int
}

func (rw *responseWalk) at(ord int) int {
	rs := rw.s.Responses
	if rw.r > 0 && rw.r <= len(rs) && rs[rw.r-1].First > ord {
		rw.r = responseAt(rw.s, ord) + 1 // asked out of order: search
	}
	for rw.r < len(rs) && rs[rw.r].First <= ord {
		rw.r++
	}
	return rw.r - 1
}

// itemsByResponse returns the items of side w in output order, which
// groups them by response, and for each response index r (from -1) where
// its group starts and ends: items[at[r+1]:at[r+2]].
func (c *comparer) itemsByResponse(w Which, nResp int) (items []*model.Item, at []int) {
	items = c.side[w].S.ItemsAsOf(-1)
	at = make([]int, nResp+2)
	i := 0
	for r := -1; r <= nResp; r++ {
		for i < len(items) && items[i].Response < r {
			i++ // a response index past nResp, or below -1: never expected
		}
		at[r+1] = i
		for i < len(items) && items[i].Response == r {
			i++
		}
	}
	at[nResp+1] = len(items)
	return items, at
}

// responseAt is the response event ord belongs to: the last that started
// at or before it, or -1.
func responseAt(s *model.Session, ord int) int {
	rs := s.Responses
	i := sort.Search(len(rs), func(i int) bool { return rs[i].First > ord })
	return i - 1
}

// pairItems pairs the items of one response of each side: exactly on
// choice, role, type and name where it can, then, between those, in order
// on choice, role and type (a renamed call still pairs with its
// counterpart). Each pair has nil for an item the other side lacks.
func pairItems(a, b []*model.Item) [][2]*model.Item {
	weak := func(x, y *model.Item) bool { return x.Choice == y.Choice && x.Role == y.Role && x.Type == y.Type }
	strong := func(x, y *model.Item) bool { return weak(x, y) && x.Name == y.Name }
	return alignItems(a, b, strong, weak)
}

// alignItems pairs a and b on exact where the longest common subsequence
// allows, and between those anchors in order: a[i] with the first item of
// b's gap that it matches loosely, the items of b skipped on the way, and
// an a[i] that matches none, alone. Each pair has nil for an item the
// other side lacks.
func alignItems(a, b []*model.Item, exact, loose func(x, y *model.Item) bool) [][2]*model.Item {
	var out [][2]*model.Item
	for _, p := range alignPairs(len(a), len(b), func(i, j int) bool { return exact(a[i], b[j]) },
		func(i, j int) bool { return loose(a[i], b[j]) }) {
		var ip [2]*model.Item
		if p[0] >= 0 {
			ip[0] = a[p[0]]
		}
		if p[1] >= 0 {
			ip[1] = b[p[1]]
		}
		out = append(out, ip)
	}
	return out
}

// alignPairs is alignItems over indexes: it pairs n things of A with m of
// B, exact anchoring and loose filling the gaps, -1 on the side that lacks
// its counterpart.
func alignPairs(n, m int, exact, loose func(i, j int) bool) [][2]int {
	ps, ok := lcs(n, m, exact, 256)
	if !ok {
		ps = nil // too different to align exactly: pair in order below
	}
	var out [][2]int
	ia, ib := 0, 0
	flush := func(ea, eb int) { // pair [ia:ea] with [ib:eb] in order by loose
		for ia < ea || ib < eb {
			j := -1
			if ia < ea {
				for k := ib; k < eb; k++ {
					if loose(ia, k) {
						j = k
						break
					}
				}
			}
			switch {
			case j >= 0:
				for ; ib < j; ib++ {
					out = append(out, [2]int{-1, ib})
				}
				out = append(out, [2]int{ia, ib})
				ia, ib = ia+1, ib+1
			case ia < ea:
				out = append(out, [2]int{ia, -1})
				ia++
			default:
				out = append(out, [2]int{-1, ib})
				ib++
			}
		}
	}
	for _, p := range ps {
		flush(int(p.a), int(p.b))
		out = append(out, [2]int{int(p.a), int(p.b)})
		ia, ib = int(p.a)+1, int(p.b)+1
	}
	flush(n, m)
	return out
}

// itemName names an item for reports: "call get_weather (response 0,
// output 1)", "message (response 0, output 0)".
func itemName(it *model.Item) string {
	what := it.Type
	switch it.Role {
	case model.RoleCall:
		what = "call " + it.Name
	case model.RoleMessage:
		what = "message"
	case model.RoleReasoning:
		what = "reasoning"
	}
	if what == "" {
		what = "item"
	}
	where := fmt.Sprintf("response %d", it.Response)
	if it.Choice != 0 {
		where += fmt.Sprintf(", choice %d", it.Choice)
	}
	if it.Position >= 0 {
		where += fmt.Sprintf(", output %d", it.Position)
	}
	return what + " (" + where + ")"
}

// diffChunk is how many differences one block of comparer.found holds.
const diffChunk = 512

// add records a difference unless its kind is ignored. Differences are
// kept in fixed blocks, joined once at the end: two shuffled streams
// differ about once every three events, and a slice grown by append
// copied all of them again and again.
func (c *comparer) add(d Difference) {
	if c.o.Ignore.Has(d.Kind.String()) {
		return
	}
	if n := len(c.found); n == 0 || len(c.found[n-1]) == diffChunk {
		c.found = append(c.found, make([]Difference, 0, diffChunk))
	}
	last := &c.found[len(c.found)-1]
	*last = append(*last, d)
	c.nDiffs++
}

// finish orders the differences, merges runs of the same difference,
// caps the list and builds the links.
func (c *comparer) finish() {
	c.diffs = make([]Difference, 0, c.nDiffs)
	for i, block := range c.found {
		c.diffs = append(c.diffs, block...)
		c.found[i] = nil
	}
	c.found = nil
	c.links.fillNearest()
	for i := range c.diffs {
		d := &c.diffs[i]
		switch {
		case d.pos != 0:
		case d.EventA >= 0:
			d.pos = int64(d.EventA) * 2
		case d.EventB >= 0:
			o, _ := c.links.Counterpart(SideB, d.EventB)
			d.pos = int64(o)*2 + 1
		}
	}
	slices.SortStableFunc(c.diffs, func(x, y Difference) int { return cmp.Compare(x.pos, y.pos) })
	c.diffs = mergeRuns(c.diffs)
	for _, d := range c.diffs {
		c.res.Counts[d.Kind.String()]++
	}
	if len(c.diffs) > MaxListed {
		c.res.Omitted = len(c.diffs) - MaxListed
		// A copy, so that the Result holds the listed differences and not
		// the array of every one.
		listed := make([]Difference, MaxListed)
		copy(listed, c.diffs)
		c.diffs = listed
	}
	for i := range c.diffs {
		c.diffs[i].describe()
	}
	c.res.Differences = c.diffs
	c.links.index(c.diffs)
	c.res.links = c.links
}

// semanticPos places calls, text, outcome and timing after every event.
const semanticPos = int64(1) << 62

// addSemantic records a difference about calls, text, outcome or timing,
// after the events' and in the order they are added.
func (c *comparer) addSemantic(d Difference) {
	d.pos = semanticPos + int64(c.nDiffs)
	c.add(d)
}
