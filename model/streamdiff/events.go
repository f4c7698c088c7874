package streamdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/model"
)

// alignLane aligns the events of one lane. It first looks for the exact
// alignment (type, kind and fingerprint equal) with a bounded number of
// edits; events left between two aligned ones are paired by type, so an
// edited event is one field difference rather than a removal and an
// insertion. When the exact alignment gives up (the lane's deltas were
// cut differently throughout) it aligns runs of events of one type
// instead.
func (c *comparer) alignLane(l *lane) {
	ea, eb := l.ev[SideA], l.ev[SideB]
	if len(ea) == 0 && len(eb) == 0 {
		return
	}
	var only [2][]int32 // lane positions of events left without a counterpart
	eq := func(i, j int) bool {
		return c.key(SideA, ea[i]) == c.key(SideB, eb[j]) && c.afp(SideA, ea[i]) == c.afp(SideB, eb[j])
	}
	ps, ok := lcsInto(c.pairBuf, &c.traceBuf, len(ea), len(eb), eq, c.o.maxEdits())
	if ok {
		c.pairBuf = ps
		ia, ib := 0, 0
		for _, p := range ps {
			c.gap(l, ia, int(p.a), ib, int(p.b), &only)
			c.match(l, ea[p.a], eb[p.b])
			ia, ib = int(p.a)+1, int(p.b)+1
		}
		c.gap(l, ia, len(ea), ib, len(eb), &only)
	} else {
		ra, rb := runsOf(c.keys(SideA, ea)), runsOf(c.keys(SideB, eb))
		ia, ib := 0, 0 // lane positions
		for _, p := range alignRuns(ra, rb, c.o.maxEdits()) {
			x, y := ra[p.a], rb[p.b]
			c.gap(l, ia, int(x.start), ib, int(y.start), &only)
			c.pairRuns(l, span32(x.start, x.len), span32(y.start, y.len), &only)
			ia, ib = int(x.start+x.len), int(y.start+y.len)
		}
		c.gap(l, ia, len(ea), ib, len(eb), &only)
	}
	c.leftovers(l, only)
	l.args = nil // the lane's fields are compared: no copy of arguments outlives them
}

func span32(start, n int32) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = start + int32(i)
	}
	return out
}

func (c *comparer) keys(w Which, ords []int32) []uint32 {
	out := make([]uint32, len(ords))
	for i, o := range ords {
		out[i] = c.key(w, o)
	}
	return out
}

// gap pairs what is left between two aligned events, lane positions
// [a0, a1) of A and [b0, b1) of B: events of one key on both sides pair
// in order (see pairRuns); the rest has no counterpart.
func (c *comparer) gap(l *lane, a0, a1, b0, b1 int, only *[2][]int32) {
	if a0 >= a1 && b0 >= b1 {
		return
	}
	// The groups by key, in the order their keys first come, reuse the
	// comparer's map and lists: two shuffled streams leave a gap between
	// nearly every pair of aligned events.
	g := &c.gaps
	clear(g.of)
	g.groups = g.groups[:0]
	for w, r := range [2][2]int{{a0, a1}, {b0, b1}} {
		for pos := r[0]; pos < r[1]; pos++ {
			k := c.key(Which(w), l.ev[w][pos])
			i, ok := g.of[k]
			if !ok {
				i = len(g.groups)
				g.of[k] = i
				if i < cap(g.groups) {
					g.groups = g.groups[:i+1]
					g.groups[i][SideA], g.groups[i][SideB] = g.groups[i][SideA][:0], g.groups[i][SideB][:0]
				} else {
					g.groups = append(g.groups, [2][]int32{})
				}
			}
			g.groups[i][w] = append(g.groups[i][w], int32(pos))
		}
	}
	for _, grp := range g.groups {
		c.pairRuns(l, grp[SideA], grp[SideB], only)
	}
}

// gapGroups is gap's grouping of events by key, kept between calls.
type gapGroups struct {
	of     map[uint32]int // key → index in groups
	groups [][2][]int32   // lane positions of each side, by key
}

// pairRuns pairs events of one key, lane positions pa of A and pb of B.
// As many deltas on each side pair one to one; a different number of
// deltas is a Chunking difference (the content they add is compared with
// the call or text); other events pair in order, and the rest has no
// counterpart.
func (c *comparer) pairRuns(l *lane, pa, pb []int32, only *[2][]int32) {
	if len(pa) == 0 || len(pb) == 0 {
		only[SideA] = append(only[SideA], pa...)
		only[SideB] = append(only[SideB], pb...)
		return
	}
	ea, eb := l.ev[SideA], l.ev[SideB]
	kind := c.side[SideA].rec.kindOf(ea[pa[0]])
	if len(pa) != len(pb) && (kind == model.KindArgsDelta || kind == model.KindTextDelta) {
		c.chunking(l, pa, pb)
		return
	}
	n := min(len(pa), len(pb))
	for i := range n {
		c.match(l, ea[pa[i]], eb[pb[i]])
	}
	only[SideA] = append(only[SideA], pa[n:]...)
	only[SideB] = append(only[SideB], pb[n:]...)
}

// match aligns event a of A with event b of B, and compares their fields
// when their fingerprints differ.
func (c *comparer) match(l *lane, a, b int32) {
	c.links.link(a, b)
	if c.fp(SideA, a) != c.fp(SideB, b) {
		c.compareFields(l, a, b)
	}
}

// chunking reports deltas cut into a different number of events, and
// links each to the one at the same relative place on the other side.
func (c *comparer) chunking(l *lane, pa, pb []int32) {
	ea, eb := l.ev[SideA], l.ev[SideB]
	for i, p := range pa {
		c.links.approx(SideA, ea[p], eb[pb[i*len(pb)/len(pa)]])
	}
	for j, p := range pb {
		c.links.approx(SideB, eb[p], ea[pa[j*len(pa)/len(pb)]])
	}
	first, last := ea[pa[0]], ea[pa[len(pa)-1]]
	typ := c.typeName(SideA, first)
	c.add(Difference{
		Kind: Chunking, Item: l.name(), Type: typ,
		EventA: int(first), LastA: int(last), CountA: len(pa),
		EventB: int(eb[pb[0]]), LastB: int(eb[pb[len(pb)-1]]), CountB: len(pb), says: saysChunking,
	})
}

// leftovers reports the events of a lane left without a counterpart: an
// event of A and one of B that say the same thing (type and fingerprint)
// were moved, the rest are on one side only, one difference per stretch
// of consecutive events.
func (c *comparer) leftovers(l *lane, only [2][]int32) {
	if len(only[SideA]) > 0 && len(only[SideB]) > 0 {
		type sig struct{ key, fp uint32 }
		waiting := map[sig][]int32{}
		for _, p := range only[SideB] {
			e := l.ev[SideB][p]
			k := sig{c.key(SideB, e), c.afp(SideB, e)}
			waiting[k] = append(waiting[k], p)
		}
		moved := [2]map[int32]bool{{}, {}}
		for _, p := range only[SideA] {
			e := l.ev[SideA][p]
			k := sig{c.key(SideA, e), c.afp(SideA, e)}
			if q := waiting[k]; len(q) > 0 {
				waiting[k] = q[1:]
				moved[SideA][p], moved[SideB][q[0]] = true, true
				c.moved(l, e, l.ev[SideB][q[0]])
			}
		}
		for w := range only {
			only[w] = slices.DeleteFunc(only[w], func(p int32) bool { return moved[w][p] })
		}
	}
	for w := range only {
		slices.Sort(only[w])
		for i := 0; i < len(only[w]); {
			j := i + 1
			for j < len(only[w]) && only[w][j] == only[w][j-1]+1 {
				j++
			}
			c.onlyIn(l, Which(w), l.ev[w][only[w][i]], l.ev[w][only[w][j-1]], j-i)
			i = j
		}
	}
}

// moved reports an event found on both sides, in another place of its
// item.
func (c *comparer) moved(l *lane, a, b int32) {
	c.links.link(a, b)
	if c.movedA == nil {
		c.movedA = map[int32]bool{}
	}
	c.movedA[a] = true
	typ := c.typeName(SideA, a)
	c.add(Difference{
		Kind: Reordered, Item: l.name(), Type: typ, EventA: int(a), EventB: int(b), LastA: -1, LastB: -1,
		CountA: 1, CountB: 1, says: saysMoved,
	})
}

// onlyIn reports count consecutive events of a lane, first to last, that
// only side w has.
func (c *comparer) onlyIn(l *lane, w Which, first, last int32, count int) {
	d := Difference{Kind: OnlyInA, Item: l.name(), EventA: -1, EventB: -1, LastA: -1, LastB: -1, says: saysOnlyIn}
	d.Type = c.typeName(w, first)
	if l.item[w^1] < 0 && (l.item[w] >= 0 || l.resp >= 0) && c.wholeLane(l, w, count) {
		d.says = saysOnlyInWhole
	}
	if w == SideA {
		d.EventA, d.CountA = int(first), count
		if last > first {
			d.LastA = int(last)
		}
	} else {
		d.Kind = OnlyInB
		d.EventB, d.CountB = int(first), count
		if last > first {
			d.LastB = int(last)
		}
	}
	c.add(d)
}

// wholeLane reports whether count events are all of side w's lane while
// the other side has none of it.
func (c *comparer) wholeLane(l *lane, w Which, count int) bool {
	return len(l.ev[w]) == count && len(l.ev[w^1]) == 0
}

// checkOrder reports aligned events whose order differs across items: of
// the aligned pairs in A's order, those outside one longest run that B
// keeps in the same order. A gateway that sends parallel calls one after
// the other instead of interleaved shows here.
func (c *comparer) checkOrder() {
	n, last, inOrder := 0, int32(-1), true
	c.eachAligned(func(_, b int32) {
		n++
		inOrder = inOrder && b > last
		last = b
	})
	if inOrder {
		return // the common case: nothing to search for
	}
	bs := make([]int32, 0, n) // the counterparts in B of the aligned events of A, in A's order
	c.eachAligned(func(_, b int32) { bs = append(bs, b) })
	keep := increasing(bs)
	var run []pair // the reordered pairs since the last kept one
	flush := func() {
		if len(run) == 0 {
			return
		}
		first, last := run[0], run[len(run)-1]
		d := Difference{Kind: Reordered, EventA: int(first.a), EventB: int(first.b), LastA: -1, LastB: -1,
			CountA: len(run), CountB: len(run), Type: c.typeName(SideA, first.a)}
		if len(run) > 1 {
			d.LastA, d.LastB = int(last.a), int(last.b)
		}
		what := fmt.Sprintf("%d events from A#%d come", len(run), first.a)
		if len(run) == 1 {
			what = fmt.Sprintf("1 event from A#%d comes", first.a)
		}
		d.Message = fmt.Sprintf("%s in another order in B (from B#%d)", what, first.b)
		c.add(d)
		run = run[:0]
	}
	i := 0
	c.eachAligned(func(a, b int32) {
		if keep[i] {
			flush()
		} else {
			run = append(run, pair{a, b})
		}
		i++
	})
	flush()
}

// eachAligned calls fn with every aligned pair in A's order, but for the
// events found elsewhere in their item (reported as moved already).
func (c *comparer) eachAligned(fn func(a, b int32)) {
	for a, b := range c.links.to[SideA] {
		if b >= 0 && !c.movedA[int32(a)] {
			fn(int32(a), b)
		}
	}
}

// noSeq marks an event without a sequence number in checkSequence.
const noSeq = math.MinInt64

// checkSequence compares the sequence numbers of aligned events. Each
// side's numbers are taken relative to a clean count from its response's
// first number, so an offset, or renumbering after an event one side
// dropped, is not a difference, but a gap, repeat or jump one side has and
// the other has not is. Not ignoring IgnoreSeq, any other change in the
// difference of the two sides' numbers is one too: a stricter comparison
// says what the default says, and more (a gap that keeps both sides'
// numbers equal, after an event B dropped, is a difference either way).
func (c *comparer) checkSequence() {
	told := c.seqPass(true, nil)
	if !c.o.Ignore.Has(IgnoreSeq) {
		c.seqPass(false, told)
	}
}

// seqPass is one pass of checkSequence: lenient, on each side's numbers
// relative to a clean count (see checkSequence), or on the numbers as
// they are. It skips the pairs in skip, and returns those it reported.
func (c *comparer) seqPass(lenient bool, skip map[pair]bool) map[pair]bool {
	told := map[pair]bool{}
	var rel [2][]int64
	for w := range c.side {
		rel[w] = c.relativeSeq(Which(w), lenient)
	}
	if rel[0] == nil && rel[1] == nil {
		return told
	}
	var prev [2]int64          // the relative numbers of the previous aligned pair
	presence := map[int]bool{} // responses whose numbering is one-sided, reported once
	resp := -2
	rw := responseWalk{s: c.side[0].S}
	c.eachAligned(func(a, b int32) {
		p := pair{a, b}
		r := rw.at(int(p.a))
		if r != resp && lenient {
			resp, prev = r, [2]int64{} // each response is counted from its own first number
		}
		ra, rb := seqAt(rel[0], p.a), seqAt(rel[1], p.b)
		if ra == rb-prev[1]+prev[0] && ra != noSeq && rb != noSeq {
			prev = [2]int64{ra, rb}
			return // in step: the common case, decided without a look at the events
		}
		seqA, seqB := c.side[0].rec.seq(p.a), c.side[1].rec.seq(p.b)
		base := Difference{Kind: Sequence, Path: "sequence_number", Type: c.typeName(SideA, p.a),
			EventA: int(p.a), EventB: int(p.b), LastA: -1, LastB: -1, A: seqJSON(seqA), B: seqJSON(seqB)}
		if (ra == noSeq) != (rb == noSeq) {
			if !presence[r] {
				presence[r] = true
				if !skip[p] {
					base.Message = fmt.Sprintf("sequence numbers on one side only (A#%d %s, B#%d %s)", p.a, seqText(seqA), p.b, seqText(seqB))
					c.add(base)
					told[p] = true
				}
			}
			return
		}
		if ra == noSeq {
			return
		}
		if ra-rb != prev[0]-prev[1] && !skip[p] {
			base.Message = fmt.Sprintf("sequence numbers out of step: %s (A#%d is %d, B#%d is %d)",
				seqJump(ra-prev[0], rb-prev[1], lenient), p.a, seqA, p.b, seqB)
			c.add(base)
			told[p] = true
		}
		prev = [2]int64{ra, rb}
	})
	return told
}

// IgnoreEventLines is the name that leaves SSE event: lines out of a
// comparison (--ignore event:).
const IgnoreEventLines = "event:"

// checkEventLines compares the SSE event: lines of aligned events: a
// stream that lost them (a gateway that rebuilds the stream from the
// data, OpenRouter's Responses) reads the same to the OpenAI SDKs, which
// dispatch on data.type, and to nothing that dispatches on the event
// name. One difference says how many events one side names and the other
// does not, for each side, from the first such pair. A WebSocket session
// has no event: lines to compare.
func (c *comparer) checkEventLines() {
	if c.o.Ignore.Has(IgnoreEventLines) || c.side[0].S.Upgraded() || c.side[1].S.Upgraded() {
		return
	}
	type tally struct {
		n           int
		first, last pair
	}
	var only [2]tally // only[SideA]: A names the event, B does not
	c.eachAligned(func(a, b int32) {
		na, nb := c.side[0].rec.named(a), c.side[1].rec.named(b)
		if na == nb {
			return
		}
		t := &only[SideB]
		if na {
			t = &only[SideA]
		}
		if t.n == 0 {
			t.first = pair{a, b}
		}
		t.last = pair{a, b}
		t.n++
	})
	for w, t := range only {
		if t.n == 0 {
			continue
		}
		with, without := "A", "B"
		vals := [2]json.RawMessage{[]byte("true"), []byte("false")}
		if Which(w) == SideB {
			with, without = "B", "A"
			vals[0], vals[1] = vals[1], vals[0]
		}
		d := Difference{Kind: Field, Path: IgnoreEventLines, Type: c.typeName(SideA, t.first.a),
			EventA: int(t.first.a), EventB: int(t.first.b), LastA: -1, LastB: -1, CountA: t.n, CountB: t.n,
			A: vals[0], B: vals[1]}
		if t.n > 1 {
			d.LastA, d.LastB = int(t.last.a), int(t.last.b)
		}
		from := t.first.b
		if without == "A" {
			from = t.first.a
		}
		what := "1 event"
		if t.n > 1 {
			what = fmt.Sprintf("%d events", t.n)
		}
		d.Message = fmt.Sprintf("event: lines on %s only: %s sends %s without the event: line %s writes before each (from %s#%d); clients that dispatch on the SSE event name miss them",
			with, without, what, with, without, from)
		c.add(d)
	}
}

// seqJump says which side's numbering moved, and by how much, since the
// previous aligned pair.
func seqJump(da, db int64, lenient bool) string {
	if !lenient {
		return fmt.Sprintf("the offset between them changes by %d", da-db)
	}
	var parts []string
	for _, j := range []struct {
		side string
		by   int64
	}{{"A", da}, {"B", db}} {
		switch {
		case j.by > 0:
			parts = append(parts, fmt.Sprintf("%s skips %d", j.side, j.by))
		case j.by < 0:
			parts = append(parts, fmt.Sprintf("%s goes back %d", j.side, -j.by))
		}
	}
	return strings.Join(parts, ", ")
}

func seqAt(rel []int64, ord int32) int64 {
	if rel == nil {
		return noSeq
	}
	return rel[ord]
}

func seqJSON(seq int32) []byte {
	if seq < 0 {
		return []byte("null")
	}
	return strconv.AppendInt(nil, int64(seq), 10)
}

func seqText(seq int32) string {
	if seq < 0 {
		return "none"
	}
	return strconv.Itoa(int(seq))
}

// relativeSeq returns each event's sequence number (noSeq when it has
// none), taken relative to a clean count within its response when
// lenient; nil when no event has one.
func (c *comparer) relativeSeq(w Which, lenient bool) []int64 {
	s, rec := c.side[w].S, c.side[w].rec
	var out []int64
	resp, first, k := -2, int64(0), int64(0)
	rw := responseWalk{s: s}
	for ord := range rec.Len() {
		seq := int64(rec.seq(int32(ord)))
		if seq < 0 {
			if out != nil {
				out[ord] = noSeq
			}
			continue
		}
		if out == nil {
			out = make([]int64, rec.Len())
			for i := range ord {
				out[i] = noSeq
			}
		}
		if !lenient {
			out[ord] = seq
			continue
		}
		if r := rw.at(ord); r != resp {
			resp, first, k = r, seq, 0
		}
		out[ord] = seq - (first + k)
		k++
	}
	return out
}

// checkIDs reports items whose ids change mid-stream on one side only:
// with ids ignored, a consistent renaming is no difference, but an id
// that changes under a client is.
func (c *comparer) checkIDs() {
	for _, l := range c.lanes {
		if l.item[0] < 0 || l.item[1] < 0 {
			continue
		}
		ia, ib := c.side[0].S.Items[l.item[0]], c.side[1].S.Items[l.item[1]]
		ca, cb := len(ia.IDs) > 0 || len(ia.MoreIDs) > 0, len(ib.IDs) > 0 || len(ib.MoreIDs) > 0
		if ca == cb {
			continue
		}
		d := Difference{Kind: IDs, Item: l.name(), EventA: ia.First, EventB: ib.First, LastA: -1, LastB: -1,
			items: [2]int32{int32(ia.Index) + 1, int32(ib.Index) + 1}}
		changed, w, it := "B", SideB, ib
		if ca {
			changed, w, it = "A", SideA, ia
		}
		seen := firstSeen(it)
		d.Path = seen.Field
		v, _ := marshal(seen.Value)
		if w == SideA {
			d.EventA, d.A = seen.Ordinal, v
		} else {
			d.EventB, d.B = seen.Ordinal, v
		}
		d.Message = fmt.Sprintf("%s: %s changes mid-stream in %s only (%s %q at %s#%d)", l.name(), seen.Field, changed, seen.Field, seen.Value, changed, seen.Ordinal)
		c.add(d)
	}
}

func firstSeen(it *model.Item) model.IDSeen {
	if len(it.IDs) > 0 {
		return it.IDs[0]
	}
	if len(it.MoreIDs) > 0 {
		return it.MoreIDs[0].First
	}
	return model.IDSeen{Ordinal: it.First}
}

// mergeRuns merges consecutive differences that say the same thing about
// consecutive events (the same member added to every event, say) into one
// that covers them all.
func mergeRuns(diffs []Difference) []Difference {
	out := diffs[:0] // merging only shrinks: in place
	for _, d := range diffs {
		if n := len(out); n > 0 && sameRun(&out[n-1], &d) {
			p := &out[n-1]
			if p.Item != d.Item {
				p.Item = ""
			}
			if p.Type != d.Type {
				p.Type = ""
			}
			p.LastA, p.LastB = max(p.LastA, d.EventA, d.LastA), max(p.LastB, d.EventB, d.LastB)
			p.CountA += max(d.CountA, 1)
			p.CountB += max(d.CountB, 1)
			continue
		}
		if d.Kind == Field {
			d.CountA, d.CountB = max(d.CountA, 1), max(d.CountB, 1)
		}
		out = append(out, d)
	}
	for i := range out {
		if d := &out[i]; d.Kind == Field && d.CountA > 1 && !d.says.saysArgs() && d.Message == "" {
			d.says = saysFieldRun // its message, once listed, covers the run
		}
	}
	return out
}

func sameRun(p, d *Difference) bool {
	return p.Kind == Field && d.Kind == Field && p.Path == d.Path && p.says.saysArgs() == d.says.saysArgs() &&
		bytes.Equal(p.A, d.A) && bytes.Equal(p.B, d.B) && p.pos < semanticPos
}
