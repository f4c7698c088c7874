package lanes

import (
	"sort"

	"github.com/streamtap/streamtap/model"
)

// laneID names a lane of the lanes pane: an item's index in
// Session.Items (≥ 0), the lane of response r (respLane(r), below -1), or
// laneStream, for the events that came before any response.
type laneID int32

const laneStream laneID = -1

// respLane is the lane of response r; r = -1 is laneStream.
func respLane(r int) laneID { return laneID(-2 - r) }

// item is the index of the lane's item, or -1 for a response's lane.
func (l laneID) item() int {
	if l < 0 {
		return -1
	}
	return int(l)
}

// response is the index of the lane's response (-1 for laneStream); only
// for lanes whose item() is -1.
func (l laneID) response() int { return int(-2 - l) }

// cellKind is what an event did to one lane: the glyph it is drawn with.
type cellKind uint8

const (
	cellTouch     cellKind = iota // something else: a status, a content part
	cellOpen                      // the item opened
	cellArgs                      // a fragment of a call's arguments
	cellText                      // a fragment of text, reasoning or refusal
	cellFinal                     // a final statement: args or text .done
	cellDone                      // the item closed
	cellWhole                     // opened and closed by the one event
	cellStart                     // the response started
	cellTerminal                  // the response ended
	cellError                     // an error
	cellKeepalive                 // a ping, a comment
	cellSentinel                  // data: [DONE]
)

// isDelta reports whether k adds a fragment, so that a run of them in
// one lane may share a row.
func (k cellKind) isDelta() bool { return k == cellArgs || k == cellText }

// laneCell is one event's mark in one lane.
type laneCell struct {
	lane laneID
	kind cellKind
}

// laneRow is one row of the lanes pane: one event, or a run of n
// consecutive deltas in one lane (n > 1), so that a stream of 10k deltas
// is a few rows, not 10k. cell is the mark of the row's lane, the one the
// pane keeps in view; an event that touched several lanes (a Gemini chunk
// that ends a text and a response and carries a whole call; a Chat chunk
// that finishes every call of a choice) has its other marks in
// laneIndex.extra, from extra on, nextra of them, and is never part of a
// run.
type laneRow struct {
	ord    int32
	n      int32
	cell   laneCell
	extra  int32
	nextra int32
}

// last is the ordinal of the row's last event.
func (r *laneRow) last() int { return int(r.ord + r.n - 1) }

// laneIndex is the lanes pane's view of a session, built as events arrive
// and never rebuilt: rows in stream order, and the order of the lanes.
// Indexing an event costs O(1) plus a binary search or two; a batch costs
// besides O(items still open) to find the other lanes its events touched.
// It must be used on the goroutine that adds to the session.
type laneIndex struct {
	s       *model.Session
	scanned int // events indexed
	rows    []laneRow
	extra   []laneCell

	// open holds the items that were not closed when last looked at, in
	// order of creation; seen counts the items looked at so far.
	open []*model.Item
	seen int
	// usesStream says some event came before any response: the stream's
	// lane is shown.
	usesStream bool

	// cols is every lane, left to right: for each response (after the
	// stream's lane, and the items of no response), its lane and then its
	// items in output order. colOf finds a lane's column; both are made
	// again when the session has new items or responses (colsFor).
	cols    []laneID
	itemCol []int32
	respCol []int32 // by response index + 1; 0 is the stream's lane
	colsFor [3]int  // the items, responses and usesStream cols was made for

	// more collects, for the events being indexed, the marks of lanes
	// other than their own: reused from batch to batch.
	more map[int32][]laneCell
}

func newLaneIndex(s *model.Session) laneIndex {
	return laneIndex{s: s, colsFor: [3]int{-1, -1, -1}}
}

// behind is how many events the index has yet to look at.
func (x *laneIndex) behind() int {
	if x.s == nil {
		return 0
	}
	return x.s.Events.Len() - x.scanned
}

// extend indexes at most limit more events.
func (x *laneIndex) extend(limit int) {
	from := x.scanned
	to := min(x.s.Events.Len(), from+limit)
	if to <= from {
		return
	}
	x.collectOthers(from, to)
	for ord := from; ord < to; ord++ {
		x.add(ord)
	}
	clear(x.more)
	x.scanned = to
}

// collectOthers finds, among the items still open, the events of
// [from, to) that touched an item other than their own (Event.Item):
// they opened it, added to it, or closed it. Items closed by then are
// let go: an event touches a closed item only as its own.
func (x *laneIndex) collectOthers(from, to int) {
	s := x.s
	for ; x.seen < len(s.Items); x.seen++ {
		x.open = append(x.open, s.Items[x.seen])
	}
	if x.more == nil {
		x.more = map[int32][]laneCell{}
	}
	keep := x.open[:0]
	for _, it := range x.open {
		x.othersOf(it, from, to)
		if it.Closed < 0 || it.Closed >= to {
			keep = append(keep, it)
		}
	}
	clear(x.open[len(keep):])
	x.open = keep
}

// othersOf records the events of [from, to) that touched it without
// being its own.
func (x *laneIndex) othersOf(it *model.Item, from, to int) {
	note := func(ord int) {
		if ord < from || ord >= to || int(x.s.Events.At(ord).Item) == it.Index {
			return
		}
		cells := x.more[int32(ord)]
		if n := len(cells); n > 0 && cells[n-1].lane == laneID(it.Index) {
			return // a second fragment of one event
		}
		x.more[int32(ord)] = append(cells, laneCell{laneID(it.Index), itemCell(it, ord, nil)})
	}
	note(it.Opened)
	for _, b := range []*model.Buffer{&it.Args, &it.Text, it.Refusal, it.Sign} {
		fragOrds(b, from, to, note)
	}
	note(it.Closed)
}

// fragOrds calls f with the event of each fragment of b in [from, to).
func fragOrds(b *model.Buffer, from, to int, f func(ord int)) {
	if b == nil {
		return
	}
	fr := b.Frags
	i := sort.Search(len(fr), func(i int) bool { return int(fr[i].Ordinal) >= from })
	for ; i < len(fr) && int(fr[i].Ordinal) < to; i++ {
		f(int(fr[i].Ordinal))
	}
}

// add indexes event ord: its mark in its own lane (its item's, else its
// response's), its response's mark when it starts or ends the response,
// and the marks collectOthers found.
func (x *laneIndex) add(ord int) {
	s := x.s
	ev := s.Events.At(ord)
	var cells [2]laneCell
	n := 0
	var r int // the response whose lane the event marks too
	if ev.Item >= 0 && int(ev.Item) < len(s.Items) {
		it := s.Items[ev.Item]
		cells[0] = laneCell{laneID(it.Index), itemCell(it, ord, ev)}
		n = 1
		r = it.Response
	} else {
		r = responseIndexAt(s, ord)
	}
	if c, ok := x.responseCell(r, ord, ev, n == 0); ok {
		cells[n] = c
		n++
	}
	more := x.more[int32(ord)]
	if n == 1 && len(more) == 0 && x.extendRun(ord, cells[0]) {
		return
	}
	row := laneRow{ord: int32(ord), n: 1, cell: cells[0], extra: int32(len(x.extra))}
	x.extra = append(x.extra, cells[1:n]...)
	x.extra = append(x.extra, more...)
	row.nextra = int32(len(x.extra)) - row.extra
	x.rows = append(x.rows, row)
}

// extendRun adds delta ord to the last row when that row is a delta (or
// a run of them) of the same kind in the same lane, ending just before.
func (x *laneIndex) extendRun(ord int, c laneCell) bool {
	if !c.kind.isDelta() || len(x.rows) == 0 {
		return false
	}
	last := &x.rows[len(x.rows)-1]
	if last.cell != c || last.nextra > 0 || last.last() != ord-1 {
		return false
	}
	last.n++
	return true
}

// responseCell is the mark event ord leaves in the lane of response r
// (-1: the stream's), if any: always when the event has no item of its
// own (own), else only when it starts or ends the response or is an
// error.
func (x *laneIndex) responseCell(r, ord int, ev *model.Event, own bool) (laneCell, bool) {
	var resp *model.Response
	if r >= 0 && r < len(x.s.Responses) {
		resp = x.s.Responses[r]
	} else {
		r = -1
	}
	kind := cellTouch
	switch {
	case ev.Kind == model.KindError:
		kind = cellError
	case ev.Kind == model.KindTerminal, resp != nil && resp.Terminal == ord:
		kind = cellTerminal
	case resp != nil && resp.First == ord:
		kind = cellStart
	case !own:
		return laneCell{}, false
	case ev.Kind == model.KindKeepalive:
		kind = cellKeepalive
	case ev.Kind == model.KindSentinel:
		kind = cellSentinel
	}
	if r < 0 {
		x.usesStream = true
	}
	return laneCell{respLane(r), kind}, true
}

// responseIndexAt is the response event ord belongs to when it names no
// item: the latest one started at or before it, or -1.
func responseIndexAt(s *model.Session, ord int) int {
	rs := s.Responses
	return sort.Search(len(rs), func(i int) bool { return rs[i].First > ord }) - 1
}

// itemCell is what event ord did to item it; ev, when not nil, is the
// event and it its own item. Opening and closing come first: they are
// the shape of the lane.
func itemCell(it *model.Item, ord int, ev *model.Event) cellKind {
	opened, closed := it.Opened == ord, it.Closed == ord
	switch {
	case opened && closed:
		return cellWhole
	case closed:
		return cellDone
	case opened:
		return cellOpen
	}
	if ev != nil {
		switch ev.Kind {
		case model.KindArgsDelta:
			return cellArgs
		case model.KindTextDelta:
			return cellText
		case model.KindArgsDone, model.KindTextDone:
			return cellFinal
		case model.KindItemDone:
			return cellDone // a .done that did not close it: a second one
		case model.KindItemOpen:
			return cellOpen
		case model.KindError:
			return cellError
		}
	}
	if _, _, ok := it.Args.FragmentAt(ord); ok {
		return cellArgs
	}
	for _, b := range []*model.Buffer{&it.Text, it.Refusal, it.Sign} {
		if _, _, ok := b.FragmentAt(ord); ok {
			return cellText
		}
	}
	return cellTouch
}

// rowOf is the row holding event ord, or -1 when ord is not indexed.
func (x *laneIndex) rowOf(ord int) int {
	if ord < 0 || ord >= x.scanned || len(x.rows) == 0 {
		return -1
	}
	return sort.Search(len(x.rows), func(i int) bool { return int(x.rows[i].ord) > ord }) - 1
}

// cells returns the marks of row i, its own first. The slice is the
// index's: do not keep it past the next extend.
func (x *laneIndex) cells(i int, buf []laneCell) []laneCell {
	r := &x.rows[i]
	buf = append(buf[:0], r.cell)
	return append(buf, x.extra[r.extra:r.extra+r.nextra]...)
}

// columns brings the order of the lanes up to date with the session's
// items and responses, and returns it.
func (x *laneIndex) columns() []laneID {
	s := x.s
	stream := 0
	if x.usesStream {
		stream = 1
	}
	now := [3]int{len(s.Items), len(s.Responses), stream}
	if now == x.colsFor {
		return x.cols
	}
	x.colsFor = now
	x.cols = x.cols[:0]
	if x.usesStream {
		x.cols = append(x.cols, laneStream)
	}
	for r := -1; r < len(s.Responses); r++ {
		if r >= 0 {
			x.cols = append(x.cols, respLane(r))
		}
		for _, it := range s.ResponseItems(r) {
			x.cols = append(x.cols, laneID(it.Index))
		}
	}
	x.itemCol = unshown(x.itemCol, len(s.Items))
	x.respCol = unshown(x.respCol, len(s.Responses)+1)
	for c, l := range x.cols {
		if i := l.item(); i >= 0 {
			x.itemCol[i] = int32(c)
		} else {
			x.respCol[l.response()+1] = int32(c)
		}
	}
	return x.cols
}

// unshown returns b with length n, every element -1 (a lane not shown).
func unshown(b []int32, n int) []int32 {
	if cap(b) < n {
		b = make([]int32, n)
	}
	b = b[:n]
	for i := range b {
		b[i] = -1
	}
	return b
}

// colOf is lane l's column, or -1. columns must be current.
func (x *laneIndex) colOf(l laneID) int {
	if i := l.item(); i >= 0 {
		if i < len(x.itemCol) {
			return int(x.itemCol[i])
		}
		return -1
	}
	if r := l.response() + 1; r >= 0 && r < len(x.respCol) {
		return int(x.respCol[r])
	}
	return -1
}
