package diffview

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/inspector"
	"github.com/streamtap/streamtap/ui/plain"
)

// Search on the diff page: / types a phrase, matched (in any case) against
// what each row of either side stands for — its type (as sent and as the
// type column abbreviates it), its kind, its item's ids and name, its
// summary and flags — and against the event's bytes, as sent or
// JSON-escaped, as the inspector's search matches them, so that every event
// / finds in a side's inspector (enter) matches here too; the page also
// matches what only its rows say (fn_args, keep-alive). n and N go to the next and
// previous matching row on the active side (the other side linked) while a
// search is on, the differences again once esc has cleared it.
//
// A side that has ended is searched off the event loop, in one command: an
// ended session is only read (model.Session.End). A side still live (A,
// piped in) is searched on the loop, searchChunk events per message, so
// that no message costs more as the stream grows; events that arrive later
// are searched as they come.

// searchChunk is how many events of a live side one message searches:
// about two frames of the page (BenchmarkDiffSearch).
const searchChunk = 1024

// diffSearch is the page's search: its text, and what each side matched.
type diffSearch struct {
	query string
	// gen drops the results of a search the user has since replaced.
	gen   int
	sides [2]sideMatches
	// told says the first results of both sides are in: n and N had
	// somewhere to go, and the selection went to the first match.
	told bool
}

// sideMatches is the search on one side.
type sideMatches struct {
	// matches are the ordinals that match, sorted; scanned is how many
	// events were looked at, from the first.
	matches []int32
	scanned int
	// running says a command is searching the events from scanned on.
	running bool
}

func (m *sideMatches) has(ord int) bool {
	_, ok := slices.BinarySearch(m.matches, int32(ord))
	return ok
}

// searchFoundMsg carries the events of side w in [from, to) that match
// search gen.
type searchFoundMsg struct {
	gen      int
	side     streamdiff.Which
	from, to int
	ords     []int32
}

// searchStepMsg asks for the next chunk of a live side's search.
type searchStepMsg struct {
	gen  int
	side streamdiff.Which
}

func (searchFoundMsg) forDiffPage() {}
func (searchStepMsg) forDiffPage()  {}

// applySearch starts a search for text on both sides; empty text clears
// the search.
func (dp *Page) applySearch(text string) tea.Cmd {
	dp.search = diffSearch{query: text, gen: dp.search.gen + 1}
	dp.invalidateSides()
	if text == "" {
		return nil
	}
	return tea.Batch(dp.searchMore(streamdiff.SideA), dp.searchMore(streamdiff.SideB))
}

// clearSearch ends the search: n and N go to the differences again.
func (dp *Page) clearSearch() { _ = dp.applySearch("") }

// invalidateSides redraws both sides' rows (their gutters changed).
func (dp *Page) invalidateSides() {
	for _, sd := range dp.side {
		if sd.tl != nil {
			sd.tl.Invalidate()
		}
	}
}

// searchMore searches the events of side w not looked at yet: off the
// loop when the side has ended, else the next chunk on the loop.
func (dp *Page) searchMore(w streamdiff.Which) tea.Cmd {
	sd, sm := dp.side[w], &dp.search.sides[w]
	if dp.search.query == "" || sd.s == nil || sm.running || sm.scanned >= sd.s.Len() {
		return nil
	}
	gen, from, q := dp.search.gen, sm.scanned, dp.search.query
	if sd.ended() {
		sm.running = true
		s, events := sd.s, sd.s.Events.Snapshot()
		return func() tea.Msg {
			m := newRowMatcher(s, q)
			return searchFoundMsg{gen: gen, side: w, from: from, to: events.Len(), ords: m.scan(&events, from, events.Len())}
		}
	}
	to := min(from+searchChunk, sd.s.Len())
	m := newRowMatcher(sd.s, q)
	dp.found(searchFoundMsg{gen: gen, side: w, from: from, to: to, ords: m.scan(&sd.s.Events, from, to)})
	if to < sd.s.Len() {
		sm.running = true
		return func() tea.Msg { return searchStepMsg{gen: gen, side: w} }
	}
	return nil
}

// handleSearchMsg takes a search's results, or the turn of a live side's
// next chunk.
func (dp *Page) handleSearchMsg(msg diffPageMsg) tea.Cmd {
	switch msg := msg.(type) {
	case searchFoundMsg:
		if msg.gen != dp.search.gen {
			return nil
		}
		dp.search.sides[msg.side].running = false
		dp.found(msg)
	case searchStepMsg:
		if msg.gen != dp.search.gen {
			return nil
		}
		dp.search.sides[msg.side].running = false
	}
	var w streamdiff.Which
	switch msg := msg.(type) {
	case searchFoundMsg:
		w = msg.side
	case searchStepMsg:
		w = msg.side
	}
	return dp.searchMore(w)
}

// found adds the matches of one piece of a side's search; once both sides
// have been searched through for the first time, the selection goes to
// the first match at or after it, as the inspector's search does.
func (dp *Page) found(msg searchFoundMsg) {
	sm := &dp.search.sides[msg.side]
	if msg.from != sm.scanned {
		return // a piece already taken, or out of turn
	}
	sm.matches = append(sm.matches, msg.ords...)
	sm.scanned = msg.to
	if len(msg.ords) > 0 {
		if tl := dp.side[msg.side].tl; tl != nil {
			tl.Invalidate()
		}
	}
	if dp.search.told || !dp.searchedThrough() {
		return
	}
	dp.search.told = true
	if len(dp.search.sides[dp.active].matches) == 0 && len(dp.search.sides[dp.active^1].matches) > 0 && dp.side[dp.active^1].tl != nil {
		dp.active ^= 1 // only the other side matches: it leads
	}
	dp.jumpMatch(0)
}

// searchedThrough says every side read so far has been searched to its
// end.
func (dp *Page) searchedThrough() bool {
	for w, sd := range dp.side {
		if sd.s != nil && dp.search.sides[w].scanned < sd.s.Len() {
			return false
		}
	}
	return true
}

// searching says a search is on and has matches to go to.
func (dp *Page) searching() bool {
	return dp.search.query != "" && len(dp.search.sides[0].matches)+len(dp.search.sides[1].matches) > 0
}

// jumpMatch selects the next (1), previous (-1), or first at or after the
// selection (0) matching row of the active side, around again past the
// ends, and links the other side to it.
func (dp *Page) jumpMatch(dir int) {
	w := dp.active
	ms, sd := dp.search.sides[w].matches, dp.side[w]
	if len(ms) == 0 || sd.tl == nil {
		return
	}
	cur := sd.Selected()
	var pick int32
	switch dir {
	case -1:
		i, _ := slices.BinarySearch(ms, int32(cur))
		pick = ms[(i-1+len(ms))%len(ms)]
	default:
		i, found := slices.BinarySearch(ms, int32(cur))
		if found && dir > 0 {
			i++
		}
		pick = ms[i%len(ms)]
	}
	sd.tl.SelectOrd(int(pick))
	dp.link(w)
}

// searchStatus says what the search found: on each side, the selected
// match's place among its matches ("2/5", "–/5" off a match), or that the
// side is still being searched.
func (dp *Page) searchStatus() string {
	var parts []string
	for w, sd := range dp.side {
		if sd.s == nil {
			continue
		}
		sm := &dp.search.sides[w]
		label := sideLabel(streamdiff.Which(w)) + " "
		switch {
		case sm.scanned < sd.s.Len() && !dp.search.told:
			parts = append(parts, label+"searching…")
		case len(sm.matches) == 0:
			parts = append(parts, label+"no match")
		default:
			at := "–"
			if i, ok := slices.BinarySearch(sm.matches, int32(sd.Selected())); ok {
				at = fmt.Sprint(i + 1)
			}
			parts = append(parts, fmt.Sprintf("%s%s/%d", label, at, len(sm.matches)))
		}
	}
	return "/" + termtext.Safe(plain.Truncate(dp.search.query, searchShownMax)) + "  " + strings.Join(parts, " · ")
}

// searchShownMax bounds, in bytes, the query the status line repeats.
const searchShownMax = 40

// rowMatcher matches one search against the events of one session. It
// keeps what it decided per type and per item, and reuses its buffer: one
// matcher serves one goroutine.
type rowMatcher struct {
	s     *model.Session
	text  string               // the query, lowered
	bytes inspector.BytesQuery // what the query looks for in the bytes
	types map[uint16]bool
	items map[int32]bool
	lower []byte
}

func newRowMatcher(s *model.Session, query string) *rowMatcher {
	m := &rowMatcher{s: s, text: strings.ToLower(query), types: map[uint16]bool{}, items: map[int32]bool{}}
	m.bytes = inspector.NewBytesQuery(query)
	return m
}

// scan returns the ordinals in [from, to) of events whose rows match.
func (m *rowMatcher) scan(events *model.EventLog, from, to int) []int32 {
	var out []int32
	for ord := from; ord < to; ord++ {
		if m.match(events.At(ord), ord) {
			out = append(out, int32(ord))
		}
	}
	return out
}

// match reports whether the row of event ord holds the query.
func (m *rowMatcher) match(ev *model.Event, ord int) bool {
	if m.typeMatches(ev.Type) || strings.Contains(ev.Kind.String(), m.text) || m.itemMatches(ev.Item) {
		return true
	}
	for _, f := range plain.FlagNames(ev) {
		if strings.Contains(strings.ToLower(f), m.text) {
			return true
		}
	}
	raw, err := m.s.Raw(ev)
	if err == nil {
		m.lower = inspector.AppendLower(m.lower[:0], raw)
		if m.bytes.In(m.lower) {
			return true
		}
	}
	var keep []byte // a comment's text, as the summary shows it
	if ev.Kind == model.KindKeepalive && ev.Source == capture.FrameComment {
		keep = raw
	}
	if m.argsRebuilt(ev) {
		// The summary renders the arguments so far: the bytes held them.
		return false
	}
	return strings.Contains(strings.ToLower(plain.Summarize(m.s, ev, ord, keep, plain.LabelFull)), m.text)
}

// argsRebuilt says the summary of ev renders its call's arguments as of
// it (a dialect that sends values, not text): costly per event, and no
// more than the event's bytes say.
func (m *rowMatcher) argsRebuilt(ev *model.Event) bool {
	return ev.Kind == model.KindArgsDelta && ev.Item >= 0 && int(ev.Item) < len(m.s.Items) && m.s.Items[ev.Item].Dialect.Info().ArgsRebuilt
}

func (m *rowMatcher) typeMatches(id uint16) bool {
	ok, seen := m.types[id]
	if !seen {
		name := m.s.TypeName(id)
		ok = strings.Contains(strings.ToLower(name), m.text) || strings.Contains(strings.ToLower(plain.ShortType(name, 0)), m.text)
		m.types[id] = ok
	}
	return ok
}

func (m *rowMatcher) itemMatches(i int32) bool {
	if i < 0 || int(i) >= len(m.s.Items) {
		return false
	}
	ok, seen := m.items[i]
	if !seen {
		ok = inspector.ItemMatches(m.s.Items[i], m.text, false)
		m.items[i] = ok
	}
	return ok
}

// glyphMatch marks, in the gutter, a row the search matches that no
// difference marks: the inspector's timeline marks its matches so.
const glyphMatch = "•"
