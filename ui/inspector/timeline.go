package ui

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// rowCacheMax bounds the rendered-row cache. Only visible rows are ever
// rendered, so a few screens' worth is plenty.
const rowCacheMax = 2048

// timelinePane is the virtualised event list: a header row naming the
// columns, then only the rows in view, so a frame costs O(height),
// whatever the number of events.
type timelinePane struct {
	paneBase
	s    *model.Session
	st   *styles
	keys *keyMap
	host paneHost
	w, h int // content width, and the number of rows (without the header)

	cursor int // selected row
	offset int // first visible row
	follow bool
	slow   time.Duration

	// rows lists the ordinals shown when a filter is active; nil shows all.
	rows []int32
	// filtering says the filter's results are still on their way.
	filtering bool
	// matches are the ordinals the current search found, sorted.
	matches []int32
	// marks holds the worst severity of the findings citing each event.
	marks map[int32]severity
	// gutter, when set, draws each row's gutter cell instead of the
	// findings' marks: the diff page marks the rows that differ there.
	gutter func(ord int) string
	// cursorGlyph, when set, replaces glyphCursor on the selected row: the
	// diff page marks a selection that is not an exact counterpart.
	cursorGlyph string

	cache      map[int]string // rendered rows (unselected) by ordinal
	cacheWidth int

	seen streamShape
}

// streamShape is what the events seen so far say about the columns the
// timeline needs. It is gathered as events arrive (O(new events)), never by
// walking the whole stream at draw time.
type streamShape struct {
	scanned int   // events looked at
	timed   bool  // some event carries its arrival time
	maxSeq  int64 // the largest sequence number, or -1 when none has one
	// typeWidths holds the distinct (full, abbreviated) widths of the
	// type names seen, to size the type column (typeWidth).
	typeWidths []typeWidth
	types      []uint64 // bitset of the type ids measured
}

func newTimeline(s *model.Session, st *styles, slow time.Duration) timelinePane {
	return timelinePane{s: s, st: st, slow: slow, cache: map[int]string{}, seen: streamShape{maxSeq: -1}}
}

// newTimelinePane returns the timeline, pointed at no session yet; slow
// is the gap from which an event counts as slow.
func newTimelinePane(st *styles, keys *keyMap, host paneHost, slow time.Duration) *timelinePane {
	t := newTimeline(nil, st, slow)
	t.keys, t.host = keys, host
	return &t
}

func (t *timelinePane) title() string { return "timeline" }

// status is where the selection stands: "28/40", and "of N" events when
// a filter shows fewer.
func (t *timelinePane) status() string {
	n := t.len()
	if n == 0 {
		return ""
	}
	extra := fmt.Sprintf("%d/%d", t.cursor+1, n)
	if t.rows != nil {
		extra += fmt.Sprintf(" of %d", t.s.Len())
	}
	return extra
}

// attach shows session s from its first event.
func (t *timelinePane) attach(s *model.Session) {
	keys, host := t.keys, t.host
	*t = newTimeline(s, t.st, t.slow)
	t.keys, t.host = keys, host
}

func (t *timelinePane) restyle() { t.invalidate() }

func (t *timelinePane) shortHelp() []key.Binding {
	k := t.keys
	return []key.Binding{k.Nav.Down, k.Nav.Up, k.Nav.Bottom, k.Stream.Follow, k.Search.Search, k.Search.NextMatch, k.Stream.Play}
}

// update moves the selection on a navigation key; G on a live stream
// follows its tail again.
func (t *timelinePane) update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	delta, ok := navDelta(t.keys, k, t.h)
	if !ok {
		return nil
	}
	t.host.stopReplay()
	t.moveTo(t.cursor + clamp(delta, -t.len(), t.len()))
	if key.Matches(k, t.keys.Nav.Bottom) && t.host.isLive() {
		t.follow = true
	}
	return nil
}

func (t *timelinePane) wheel(delta int) {
	t.host.stopReplay()
	t.moveTo(t.cursor + delta)
}

// click selects the row clicked; line 0 is the column header.
func (t *timelinePane) click(_, y int) {
	if row := y - 1; row >= 0 {
		t.host.stopReplay()
		t.moveTo(t.offset + row)
	}
}

// setSize sets the pane's content size; h includes the header row.
func (t *timelinePane) setSize(w, h int) {
	t.w, t.h = w, max(h-1, 1)
	t.invalidate()
	t.scrollToCursor()
}

// invalidate drops the rendered rows: after a resize, a theme change, a new
// search, or new events (which may rename the items older rows mention).
func (t *timelinePane) invalidate() { clear(t.cache) }

// scan takes in the events added since the last call.
func (t *timelinePane) scan() {
	sh := &t.seen
	for ; sh.scanned < t.s.Events.Len(); sh.scanned++ {
		ev := t.s.Events.At(sh.scanned)
		if ev.HasTime() {
			sh.timed = true
		}
		sh.maxSeq = max(sh.maxSeq, ev.Seq)
		word, bit := int(ev.Type)/64, uint64(1)<<(ev.Type%64)
		if word >= len(sh.types) {
			sh.types = append(sh.types, make([]uint64, word+1-len(sh.types))...)
		}
		if sh.types[word]&bit == 0 {
			sh.types[word] |= bit
			name := safeLabel(t.s.TypeName(ev.Type))
			tw := typeWidth{ansi.StringWidth(shortType(name, 1<<30)), ansi.StringWidth(shortType(name, 0))}
			if !slices.Contains(sh.typeWidths, tw) {
				sh.typeWidths = append(sh.typeWidths, tw)
			}
		}
	}
}

// typeWidth is the width of a type name in full and abbreviated.
type typeWidth struct{ full, short int }

// typeColumn is how wide the type column must be to show every type seen
// in at most limit cells: a name longer than limit is abbreviated
// (shortType), and cut if it is still too long.
func (sh *streamShape) typeColumn(limit int) int {
	w := 4 // "type"
	for _, tw := range sh.typeWidths {
		if tw.full <= limit {
			w = max(w, tw.full)
		} else {
			w = max(w, min(tw.short, limit))
		}
	}
	return min(w, limit)
}

// setMarks marks the events the findings cite, each with the worst
// severity among the findings citing it.
func (t *timelinePane) setMarks(list []checks.Finding) {
	marks := make(map[int32]severity, len(list))
	for _, x := range list {
		sev := severityOf(x.Severity)
		for _, e := range x.Events {
			if sev > marks[int32(e)] {
				marks[int32(e)] = sev
			}
		}
	}
	t.marks = marks
	t.invalidate()
}

// len is the number of rows.
func (t *timelinePane) len() int {
	if t.rows != nil {
		return len(t.rows)
	}
	return t.s.Events.Len() // the session must keep events (Options.KeepEvents)
}

// ordAt is the ordinal shown on row i.
func (t *timelinePane) ordAt(i int) int {
	if t.rows != nil {
		return int(t.rows[i])
	}
	return i
}

// selected is the ordinal of the selected event, or -1 when there is none.
func (t *timelinePane) selected() int {
	if t.len() == 0 {
		return -1
	}
	t.cursor = clamp(t.cursor, 0, t.len()-1)
	return t.ordAt(t.cursor)
}

// rowOf returns the row showing ordinal ord, or the first row after it.
func (t *timelinePane) rowOf(ord int) int {
	if t.rows == nil {
		return clamp(ord, 0, max(t.len()-1, 0))
	}
	i := sort.Search(len(t.rows), func(i int) bool { return int(t.rows[i]) >= ord })
	return clamp(i, 0, max(len(t.rows)-1, 0))
}

// moveTo selects row i. Moving away from the tail stops following, so new
// events never yank the view from under a reader.
func (t *timelinePane) moveTo(i int) {
	n := t.len()
	if n == 0 {
		return
	}
	t.cursor = clamp(i, 0, n-1)
	if t.cursor < n-1 {
		t.follow = false
	}
	t.scrollToCursor()
}

func (t *timelinePane) selectOrd(ord int) { t.moveTo(t.rowOf(ord)) }

func (t *timelinePane) scrollToCursor() {
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+t.h {
		t.offset = t.cursor - t.h + 1
	}
	t.offset = clamp(t.offset, 0, max(t.len()-t.h, 0))
}

// appended is called after new events were added to the session.
func (t *timelinePane) appended() {
	t.invalidate()
	if t.follow && t.len() > 0 {
		t.cursor = t.len() - 1
		t.scrollToCursor()
	}
}

// isMatch reports whether ord is a search match.
func (t *timelinePane) isMatch(ord int) bool {
	i := sort.Search(len(t.matches), func(i int) bool { return int(t.matches[i]) >= ord })
	return i < len(t.matches) && int(t.matches[i]) == ord
}

// gap is the time since the previous event, and whether both were timed.
func (t *timelinePane) gap(ord int) (time.Duration, bool) {
	if ord <= 0 || ord >= t.s.Events.Len() {
		return 0, false
	}
	a, b := t.s.Events.At(ord-1), t.s.Events.At(ord)
	if !a.HasTime() || !b.HasTime() {
		return 0, false
	}
	return b.At - a.At, true
}

// isSlow reports whether the gap before ord is over the slow threshold.
func (t *timelinePane) isSlow(ord int) bool {
	g, ok := t.gap(ord)
	return ok && g >= t.slow
}

// view renders the header and the visible rows.
func (t *timelinePane) view(_ int, focused bool) string {
	t.scan()
	if t.cacheWidth != t.w {
		t.invalidate()
		t.cacheWidth = t.w
	}
	if len(t.cache) > rowCacheMax {
		t.invalidate()
	}
	c := t.columns()
	lines := make([]string, 0, t.h+1)
	lines = append(lines, t.header(c))
	if t.len() == 0 {
		text := "waiting for events…"
		switch {
		case t.rows == nil && !t.host.isLive():
			text = "no events" // the stream ended without one
		case t.rows != nil && t.filtering:
			text = "filtering…"
		case t.rows != nil:
			text = "no event matches the filter"
		}
		lines = append(lines, t.st.Muted.Render("  "+text))
		return strings.Join(block(lines, t.w, t.h+1), "\n")
	}
	sel := t.selected()
	for i := t.offset; i < t.len() && len(lines) <= t.h; i++ {
		ord := t.ordAt(i)
		if ord == sel {
			plain := cmp.Or(t.cursorGlyph, glyphCursor) + ansi.Strip(t.row(ord, c, false))
			style := t.st.Timeline.SelectedBlur
			if focused {
				style = t.st.Timeline.Selected
			}
			lines = append(lines, style.Render(fit(plain, t.w)))
			continue
		}
		r, ok := t.cache[ord]
		if !ok {
			r = " " + t.row(ord, c, true)
			t.cache[ord] = r
		}
		lines = append(lines, r)
	}
	return strings.Join(block(lines, t.w, t.h+1), "\n")
}

// minSummary is the room the summary column needs to show an item's name
// and the fragment an event added (`get_weather +"{\"loca"`); the other
// columns give way to it.
const minSummary = 30

// Column widths that do not depend on the stream.
const (
	timeW = 8 // 12.345s
	gapW  = 7 // +1.25s, +2m03s
)

// tlColumns is the timeline's column layout at one width.
type tlColumns struct {
	ordW, seqW, typeW, sumW int
	time, gap, seq          bool
}

// fixed is the width of every column before the summary, the cursor and
// marker gutter included.
func (c tlColumns) fixed() int {
	n := 2 + c.ordW + 1 + c.typeW + 1
	if c.time {
		n += timeW + 1
	}
	if c.gap {
		n += gapW + 1
	}
	if c.seq {
		n += c.seqW + 1
	}
	return n
}

// columns lays out the columns for the pane's width. A stream without
// timing (a file, a sample) has no time columns, and one without sequence
// numbers no seq column. While the summary has less than minSummary
// cells, columns give way, least useful first: the type is abbreviated,
// then the sequence number goes (the detail pane has it), then the arrival
// time (the gap tells more), then the type narrows, then the gap goes.
func (t *timelinePane) columns() tlColumns {
	sh := &t.seen
	c := tlColumns{
		ordW: max(3, len(strconv.Itoa(max(t.s.Events.Len()-1, 0)))),
		seqW: max(3, len(strconv.FormatInt(sh.maxSeq, 10))),
		time: sh.timed, gap: sh.timed, seq: sh.maxSeq >= 0,
		typeW: sh.typeColumn(26),
	}
	giveWay := []func(){
		func() { c.typeW = sh.typeColumn(18) },
		func() { c.seq = false },
		func() { c.time = false },
		func() { c.typeW = sh.typeColumn(14) },
		func() { c.typeW = sh.typeColumn(12) },
		func() { c.gap = false },
		func() { c.typeW = sh.typeColumn(10) },
	}
	for _, step := range giveWay {
		if t.w-c.fixed() >= minSummary {
			break
		}
		step()
	}
	c.sumW = max(t.w-c.fixed(), 0)
	return c
}

// header names the columns of c, aligned with the rows.
func (t *timelinePane) header(c tlColumns) string {
	var b strings.Builder
	b.WriteString("  " + padLeft("#", c.ordW) + " ")
	if c.time {
		b.WriteString(padLeft("time", timeW) + " ")
	}
	if c.gap {
		b.WriteString(padLeft("gap", gapW) + " ")
	}
	if c.seq {
		b.WriteString(padLeft("seq", c.seqW) + " ")
	}
	b.WriteString(padRight("type", c.typeW) + " summary")
	return t.st.Timeline.Header.Render(fit(b.String(), t.w))
}

// row renders one event, without the cursor column: the finding marker,
// ordinal, time since start, gap since the previous event, sequence number,
// type coloured by kind, summary and flags.
func (t *timelinePane) row(ord int, c tlColumns, color bool) string {
	s, st := t.s, t.st
	ev := s.Events.At(ord)
	render := func(sty interface{ Render(...string) string }, text string) string {
		if !color {
			return text
		}
		return sty.Render(text)
	}
	var b strings.Builder
	b.WriteString(t.marker(ord, render))
	ordStyle := st.Timeline.Ord
	mark := " "
	if t.isMatch(ord) {
		ordStyle, mark = st.Timeline.Match, "•"
	}
	b.WriteString(render(ordStyle, padLeft(strconv.Itoa(ord), c.ordW)+mark))
	if c.time {
		at := ""
		if ev.HasTime() {
			at = FormatTime(ev.At)
		}
		b.WriteString(render(st.Timeline.Time, padLeft(at, timeW)) + " ")
	}
	if c.gap {
		gapText, slow := "", false
		if g, ok := t.gap(ord); ok {
			gapText = "+" + shortDur(g)
			slow = g >= t.slow
		}
		gapStyle := st.Timeline.Gap
		if slow {
			gapStyle = st.Timeline.SlowGap
		}
		b.WriteString(render(gapStyle, padLeft(gapText, gapW)) + " ")
	}
	if c.seq {
		seq := ""
		if ev.Seq >= 0 {
			seq = strconv.FormatInt(ev.Seq, 10)
		}
		b.WriteString(render(st.Timeline.Seq, padLeft(seq, c.seqW)) + " ")
	}
	typ := shortType(safeLabel(s.TypeName(ev.Type)), c.typeW)
	if w := ansi.StringWidth(typ); w > c.typeW {
		typ = glyphEllipsis + ansi.TruncateLeft(typ, w-c.typeW+1, "")
	}
	b.WriteString(render(st.kind(ev.Kind), fit(typ, c.typeW)) + " ")
	var raw []byte
	if ev.Kind == model.KindKeepalive && ev.Source == capture.FrameComment {
		raw, _ = s.Raw(ev)
	}
	b.WriteString(render(st.Timeline.Summary, t.summary(ev, ord, raw, c.sumW)))
	if fl := FlagNames(ev); len(fl) > 0 {
		b.WriteString(render(st.Timeline.Flag, " ["+strings.Join(fl, ",")+"]"))
	}
	return b.String()
}

// marker is the gutter cell of ord: the glyph of the worst finding citing
// it, or a space; or what gutter draws, when set.
func (t *timelinePane) marker(ord int, render func(interface{ Render(...string) string }, string) string) string {
	if t.gutter != nil {
		return t.gutter(ord)
	}
	sev := t.marks[int32(ord)]
	glyph := " "
	switch sev {
	case sevError:
		glyph = glyphFindingErr
	case sevWarning:
		glyph = glyphFindingWarn
	case sevInfo:
		glyph = glyphFindingInfo
	default:
		return glyph
	}
	return render(t.st.Timeline.Finding[sev], glyph)
}

// summary describes ord in w cells if it can: when the full item label
// (shortened id and name) leaves no room for what the event did, the id
// shrinks to its tail, then goes, so that the fragment stays in view.
func (t *timelinePane) summary(ev *model.Event, ord int, raw []byte, w int) string {
	text := summarize(t.s, ev, ord, raw, labelFull)
	if ev.Item < 0 || ansi.StringWidth(text) <= w {
		return text
	}
	for _, mode := range []labelMode{labelShort, labelName} {
		text = summarize(t.s, ev, ord, raw, mode)
		if ansi.StringWidth(text) <= w {
			break
		}
	}
	return text
}

// shortDur prints a gap compactly: 12ms, 1.25s, 2m03s.
func shortDur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + shortDur(-d)
	case d < time.Millisecond:
		return strconv.FormatInt(d.Microseconds(), 10) + "µs"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
	}
	m := int(d / time.Minute)
	sec := int((d % time.Minute) / time.Second)
	return strconv.Itoa(m) + "m" + twoDigits(sec) + "s"
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// nextSlow returns the next (dir 1) or previous (dir -1) row after the
// cursor whose gap is slow, or -1.
func (t *timelinePane) nextSlow(dir int) int {
	for i := t.cursor + dir; i >= 0 && i < t.len(); i += dir {
		if t.isSlow(t.ordAt(i)) {
			return i
		}
	}
	return -1
}
