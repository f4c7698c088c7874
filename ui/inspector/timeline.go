package inspector

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
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/pane"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// rowCacheMax bounds the rendered-row cache. Only visible rows are ever
// rendered, so a few screens' worth is plenty.
const rowCacheMax = 2048

// Timeline is the virtualised event list: a header row naming the
// columns, then only the rows in view, so a frame costs O(height),
// whatever the number of events.
type Timeline struct {
	pane.Base
	s    *model.Session
	st   *theme.Styles
	keys *keys.Map
	host pane.Host
	w, h int // content width, and the number of rows (without the header)

	cursor int // selected row
	offset int // first visible row
	Follow bool
	slow   time.Duration

	// rows lists the ordinals shown when a filter is active; nil shows all.
	rows []int32
	// aligned, when set, is the rows of the diff page's side by side
	// (SetAligned): the ordinal each row shows, or filler (-1) opposite
	// an event only the other side has; alignedRow is the row of each
	// ordinal. It takes precedence over rows.
	aligned, alignedRow []int32
	// filtering says the filter's results are still on their way.
	filtering bool
	// matches are the ordinals the current search found, sorted.
	matches []int32
	// marks holds the worst severity of the findings citing each event.
	marks map[int32]theme.Severity
	// Gutter, when set, draws each row's gutter cell instead of the
	// findings' marks: the diff page marks the rows that differ there.
	Gutter func(ord int) string
	// CursorGlyph, when set, replaces theme.GlyphCursor on the selected row: the
	// diff page marks a selection that is not an exact counterpart.
	CursorGlyph string
	// Reveal shows the rows up to the selected one only, and how many
	// are still to come, as a live `curl -N` shows what has arrived: a
	// replay or a lesson shows no event before the class reaches it.
	Reveal bool
	// NoTime leaves the time and gap columns out even when events carry
	// their arrival time: the diff page sets it on both sides unless both
	// are timed, so that their columns line up.
	NoTime bool

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
	slow    bool  // some gap is slow: s and S have somewhere to go
	maxSeq  int64 // the largest sequence number, or -1 when none has one
	// typeWidths holds the distinct (full, abbreviated) widths of the
	// type names seen, to size the type column (typeWidth).
	typeWidths []typeWidth
	types      []uint64 // bitset of the type ids measured
	// items is how many of the session's items were measured, and
	// labelW the widest label of one (capped at labelCap) at each
	// LabelMode: they choose one id width for every row (labelMode).
	items  int
	labelW [3]int
}

// labelCap caps the width an item's label counts for when choosing the
// rows' id width: one hostile 256-byte tool name must not take the ids
// off every row.
const labelCap = 40

// fragmentRoom is the room a summary keeps beside an item's label for
// what the event did (`+"ation\": "`, `done, completed`).
const fragmentRoom = 16

func newTimeline(s *model.Session, st *theme.Styles, slow time.Duration) Timeline {
	return Timeline{s: s, st: st, slow: slow, cache: map[int]string{}, seen: streamShape{maxSeq: -1}}
}

// NewTimeline returns the timeline, pointed at no session yet; slow
// is the gap from which an event counts as slow.
func NewTimeline(st *theme.Styles, keys *keys.Map, host pane.Host, slow time.Duration) *Timeline {
	t := newTimeline(nil, st, slow)
	t.keys, t.host = keys, host
	return &t
}

func (t *Timeline) Title() string { return "timeline" }

// Status is where the selection stands, numbered as the # column
// numbers events (from 0): "#27 of 40", and "12 of 40 shown" when a
// filter shows fewer.
func (t *Timeline) Status() string {
	n := t.len()
	if n == 0 {
		return ""
	}
	if t.aligned != nil {
		return fmt.Sprintf("#%d of %d", t.Selected(), t.s.Len())
	}
	if t.rows != nil {
		return fmt.Sprintf("#%d · %d of %d shown", t.Selected(), n, t.s.Len())
	}
	return fmt.Sprintf("#%d of %d", t.Selected(), n)
}

// Attach shows session s from its first event.
func (t *Timeline) Attach(s *model.Session) {
	keys, host, reveal := t.keys, t.host, t.Reveal
	*t = newTimeline(s, t.st, t.slow)
	t.keys, t.host, t.Reveal = keys, host, reveal
}

func (t *Timeline) Restyle() { t.Invalidate() }

func (t *Timeline) ShortHelp() []key.Binding {
	k := t.keys
	return []key.Binding{k.Nav.Down, k.Nav.Up, k.Nav.Bottom, k.Stream.Follow, k.Search.Search, k.Search.NextMatch, k.Stream.Play}
}

// Update moves the selection on a navigation key; G on a live stream
// follows its tail again.
func (t *Timeline) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	delta, ok := keys.NavDelta(t.keys, k, t.h)
	if !ok {
		return nil
	}
	t.host.StopReplay()
	t.moveTo(t.cursor + cell.Clamp(delta, -t.len(), t.len()))
	if key.Matches(k, t.keys.Nav.Bottom) && t.host.IsLive() {
		t.Follow = true
	}
	return nil
}

func (t *Timeline) Wheel(delta int) {
	t.host.StopReplay()
	t.moveTo(t.cursor + delta)
}

// Click selects the row clicked; line 0 is the column header.
func (t *Timeline) Click(_, y int) {
	if row := y - 1; row >= 0 {
		t.host.StopReplay()
		t.moveTo(t.offset + row)
	}
}

// SetSize sets the pane's content size; h includes the header row.
func (t *Timeline) SetSize(w, h int) {
	t.w, t.h = w, max(h-1, 1)
	t.Invalidate()
	t.scrollToCursor()
}

// Invalidate drops the rendered rows: after a resize, a theme change, a new
// search, or new events (which may rename the items older rows mention).
func (t *Timeline) Invalidate() { clear(t.cache) }

// scan takes in the events added since the last call.
func (t *Timeline) scan() {
	sh := &t.seen
	for ; sh.scanned < t.s.Events.Len(); sh.scanned++ {
		ev := t.s.Events.At(sh.scanned)
		if ev.HasTime() {
			sh.timed = true
			sh.slow = sh.slow || t.isSlow(sh.scanned)
		}
		sh.maxSeq = max(sh.maxSeq, ev.Seq)
		word, bit := int(ev.Type)/64, uint64(1)<<(ev.Type%64)
		if word >= len(sh.types) {
			sh.types = append(sh.types, make([]uint64, word+1-len(sh.types))...)
		}
		if sh.types[word]&bit == 0 {
			sh.types[word] |= bit
			name := t.s.TypeName(ev.Type)
			shown := []string{name}
			if plain.ShapeNamed(name) {
				shown = plain.ShapesOf(name)
			}
			for _, name := range shown {
				name = plain.SafeLabel(name)
				tw := typeWidth{ansi.StringWidth(plain.ShortType(name, 1<<30)), ansi.StringWidth(plain.ShortType(name, 0))}
				if !slices.Contains(sh.typeWidths, tw) {
					sh.typeWidths = append(sh.typeWidths, tw)
				}
			}
		}
	}
	for ; sh.items < len(t.s.Items); sh.items++ {
		it := t.s.Items[sh.items]
		for mode := range sh.labelW {
			w := ansi.StringWidth(plain.ItemLabelAs(it, plain.LabelMode(mode)))
			sh.labelW[mode] = max(sh.labelW[mode], min(w, labelCap))
		}
	}
}

// labelMode is how much of an item's id every row of a summary column w
// cells wide shows: the most that leaves every item's label room for what
// its events did. One mode for the whole column keeps the ids one width
// from row to row.
func (sh *streamShape) labelMode(w int) plain.LabelMode {
	for _, mode := range []plain.LabelMode{plain.LabelFull, plain.LabelShort} {
		if sh.labelW[mode]+1+fragmentRoom <= w {
			return mode
		}
	}
	return plain.LabelName
}

// shownType is what the type column says of event ord: its type, or the
// shape of an event whose type every event of its dialect has
// (plain.ShapeNamed).
func (t *Timeline) shownType(ev *model.Event, ord int) string {
	name := t.s.TypeName(ev.Type)
	if plain.ShapeNamed(name) {
		if sh := t.s.Shape(ev, ord, nil); sh.Sub != "" {
			name = sh.Sub
		}
	}
	return plain.SafeLabel(name)
}

// typeWidth is the width of a type name in full and abbreviated.
type typeWidth struct{ full, short int }

// typeColumn is how wide the type column must be to show every type seen
// in at most limit cells: a name longer than limit is abbreviated
// (plain.ShortType), and cut if it is still too long.
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
func (t *Timeline) setMarks(list []checks.Finding) {
	marks := make(map[int32]theme.Severity, len(list))
	for _, x := range list {
		sev := theme.SeverityOf(x.Severity)
		for _, e := range x.Events {
			if sev > marks[int32(e)] {
				marks[int32(e)] = sev
			}
		}
	}
	t.marks = marks
	t.Invalidate()
}

// len is the number of rows.
func (t *Timeline) len() int {
	if t.aligned != nil {
		return len(t.aligned)
	}
	if t.rows != nil {
		return len(t.rows)
	}
	return t.s.Events.Len() // the session must keep events (Options.KeepEvents)
}

// ordAt is the ordinal shown on row i, or filler (-1) on a filler row.
func (t *Timeline) ordAt(i int) int {
	if t.aligned != nil {
		return int(t.aligned[i])
	}
	if t.rows != nil {
		return int(t.rows[i])
	}
	return i
}

// Selected is the ordinal of the selected event, or -1 when there is none.
func (t *Timeline) Selected() int {
	if t.len() == 0 {
		return -1
	}
	t.cursor = cell.Clamp(t.cursor, 0, t.len()-1)
	if t.aligned != nil {
		t.cursor = t.offFiller(t.cursor, t.cursor)
	}
	return t.ordAt(t.cursor)
}

// rowOf returns the row showing ordinal ord, or the first row after it.
func (t *Timeline) rowOf(ord int) int {
	if t.aligned != nil {
		if len(t.alignedRow) == 0 {
			return 0
		}
		return int(t.alignedRow[cell.Clamp(ord, 0, len(t.alignedRow)-1)])
	}
	if t.rows == nil {
		return cell.Clamp(ord, 0, max(t.len()-1, 0))
	}
	i := sort.Search(len(t.rows), func(i int) bool { return int(t.rows[i]) >= ord })
	return cell.Clamp(i, 0, max(len(t.rows)-1, 0))
}

// moveTo selects row i. Moving away from the tail stops following, so new
// events never yank the view from under a reader.
func (t *Timeline) moveTo(i int) {
	n := t.len()
	if n == 0 {
		return
	}
	from := t.cursor
	t.cursor = cell.Clamp(i, 0, n-1)
	if t.aligned != nil {
		t.cursor = t.offFiller(t.cursor, from)
	}
	if t.cursor < n-1 {
		t.Follow = false
	}
	t.scrollToCursor()
}

// filler is what ordAt says of a filler row of the side by side.
const filler = -1

// SetAligned shows the rows of the diff page's side by side: rows[i] is
// the ordinal row i shows, or -1 for a filler row, opposite an event only
// the other side has, so that the two sides line up as the rows of a
// split diff do. Every ordinal of the session is on exactly one row.
// nil goes back to one row per event. The selection stays on its event.
func (t *Timeline) SetAligned(rows []int32) {
	sel := t.Selected()
	t.aligned, t.alignedRow = nil, nil
	if rows != nil {
		t.alignedRow = make([]int32, t.s.Len())
		for i, ord := range rows {
			if ord >= 0 && int(ord) < len(t.alignedRow) {
				t.alignedRow[ord] = int32(i)
			}
		}
		t.aligned = rows
	}
	t.Invalidate()
	if sel >= 0 {
		t.cursor = t.rowOf(sel)
		t.scrollToCursor()
	}
}

// offFiller moves row i, reached from row from, off a filler row: on in
// the direction it moved, else back.
func (t *Timeline) offFiller(i, from int) int {
	dir := 1
	if i < from {
		dir = -1
	}
	for _, d := range [2]int{dir, -dir} {
		for j := i; j >= 0 && j < len(t.aligned); j += d {
			if t.aligned[j] != filler {
				return j
			}
		}
	}
	return i
}

// Offset is the first row shown.
func (t *Timeline) Offset() int { return t.offset }

// ScrollTo shows rows from row o, whatever the selection: the diff page
// keeps the passive side's rows beside the active side's.
func (t *Timeline) ScrollTo(o int) {
	if t.h == 0 {
		return // not sized: SetSize settles the offset (scrollToCursor)
	}
	t.offset = cell.Clamp(o, 0, max(t.len()-t.h, 0))
}

func (t *Timeline) SelectOrd(ord int) { t.moveTo(t.rowOf(ord)) }

// scrollToCursor scrolls as little as shows the selection. A timeline not
// sized yet has no rows to show it in: it keeps its offset for SetSize to
// settle, so that where it ends up does not depend on whether the events
// and the selection came before the terminal's size or after it.
func (t *Timeline) scrollToCursor() {
	if t.h == 0 {
		return
	}
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+t.h {
		t.offset = t.cursor - t.h + 1
	}
	t.offset = cell.Clamp(t.offset, 0, max(t.len()-t.h, 0))
}

// Appended is called after new events were added to the session.
func (t *Timeline) Appended() {
	t.Invalidate()
	if t.Follow && t.len() > 0 {
		t.cursor = t.len() - 1
		t.scrollToCursor()
	}
}

// isMatch reports whether ord is a search match.
func (t *Timeline) isMatch(ord int) bool {
	i := sort.Search(len(t.matches), func(i int) bool { return int(t.matches[i]) >= ord })
	return i < len(t.matches) && int(t.matches[i]) == ord
}

// gap is the time since the previous event, and whether both were timed.
func (t *Timeline) gap(ord int) (time.Duration, bool) {
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
// Timed says some event seen so far carries its arrival time.
func (t *Timeline) Timed() bool {
	t.scan()
	return t.seen.timed
}

// hasSlow says some gap seen so far is slow (the s and S keys' help).
func (t *Timeline) hasSlow() bool {
	t.scan()
	return t.seen.slow
}

func (t *Timeline) isSlow(ord int) bool {
	g, ok := t.gap(ord)
	return ok && g >= t.slow
}

// View renders the header and the visible rows.
func (t *Timeline) View(_ int, focused bool) string {
	t.scan()
	if t.cacheWidth != t.w {
		t.Invalidate()
		t.cacheWidth = t.w
	}
	if len(t.cache) > rowCacheMax {
		t.Invalidate()
	}
	c := t.columns()
	lines := make([]string, 0, t.h+1)
	lines = append(lines, t.header(c))
	if t.len() == 0 {
		text := "waiting for events…"
		switch {
		case t.rows == nil && !t.host.IsLive():
			text = "no events" // the stream ended without one
		case t.rows != nil && t.filtering:
			text = "filtering…"
		case t.rows != nil:
			text = "no event matches the filter"
		}
		lines = append(lines, t.st.Muted.Render("  "+text))
		return strings.Join(cell.Block(lines, t.w, t.h+1), "\n")
	}
	sel := t.Selected()
	end, toCome := t.len(), 0
	if t.Reveal {
		end, toCome = t.cursor+1, t.len()-t.cursor-1
		if toCome > 0 {
			// The selected row, then the line that counts what is to come,
			// at the foot of the pane as the rows arrive.
			t.offset = cell.Clamp(t.offset, max(t.cursor-t.h+2, 0), t.cursor)
		}
	}
	for i := t.offset; i < end && len(lines) <= t.h; i++ {
		ord := t.ordAt(i)
		if ord == filler {
			lines = append(lines, t.fillerRow())
			continue
		}
		if ord == sel {
			plain := cmp.Or(t.CursorGlyph, theme.GlyphCursor) + ansi.Strip(t.row(ord, c, false))
			style := t.st.Timeline.SelectedBlur
			if focused {
				style = t.st.Timeline.Selected
			}
			lines = append(lines, style.Render(cell.Fit(plain, t.w)))
			continue
		}
		r, ok := t.cache[ord]
		if !ok {
			r = " " + t.row(ord, c, true)
			t.cache[ord] = r
		}
		lines = append(lines, r)
	}
	if toCome > 0 && len(lines) <= t.h {
		lines = append(lines, t.st.Muted.Render("  ⋯ "+plain.CountOf(toCome, "event")+" to come"))
	}
	return strings.Join(cell.Block(lines, t.w, t.h+1), "\n")
}

// fillerRow is a row of the side by side that stands opposite an event
// only the other side has: hatched, as split diffs draw it.
func (t *Timeline) fillerRow() string {
	return "  " + t.st.Subtle.Render(strings.Repeat(theme.GlyphFiller, max(t.w-2, 0)))
}

// minSummary is the room the summary column needs to show an item's name
// and the fragment an event added (`get_weather +"{\"loca"`); the other
// columns give way to it.
const minSummary = 30

// typeFull is the widest type the column shows whole
// (function_call_arguments.delta), when the summary keeps roomySummary
// cells beside it; below that, types abbreviate from 26 cells.
const (
	typeFull     = 40
	roomySummary = 56
)

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
func (t *Timeline) columns() tlColumns {
	sh := &t.seen
	c := tlColumns{
		ordW: max(3, len(strconv.Itoa(max(t.s.Events.Len()-1, 0)))),
		seqW: max(3, len(strconv.FormatInt(sh.maxSeq, 10))),
		time: sh.timed && !t.NoTime, gap: sh.timed && !t.NoTime, seq: sh.maxSeq >= 0,
		typeW: sh.typeColumn(typeFull),
	}
	if t.w-c.fixed() < roomySummary {
		c.typeW = sh.typeColumn(26)
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
func (t *Timeline) header(c tlColumns) string {
	var b strings.Builder
	b.WriteString("  " + cell.PadLeft("#", c.ordW) + " ")
	if c.time {
		b.WriteString(cell.PadLeft("time", timeW) + " ")
	}
	if c.gap {
		b.WriteString(cell.PadLeft("gap", gapW) + " ")
	}
	if c.seq {
		b.WriteString(cell.PadLeft("seq", c.seqW) + " ")
	}
	b.WriteString(cell.PadRight("type", c.typeW) + " summary")
	return t.st.Timeline.Header.Render(cell.Fit(b.String(), t.w))
}

// row renders one event, without the cursor column: the finding marker,
// ordinal, time since start, gap since the previous event, sequence number,
// type coloured by kind, summary and flags.
func (t *Timeline) row(ord int, c tlColumns, color bool) string {
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
	b.WriteString(render(ordStyle, cell.PadLeft(strconv.Itoa(ord), c.ordW)+mark))
	if c.time {
		at := ""
		if ev.HasTime() {
			at = plain.FormatTime(ev.At)
		}
		b.WriteString(render(st.Timeline.Time, cell.PadLeft(at, timeW)) + " ")
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
		b.WriteString(render(gapStyle, cell.PadLeft(gapText, gapW)) + " ")
	}
	if c.seq {
		seq := ""
		if ev.Seq >= 0 {
			seq = strconv.FormatInt(ev.Seq, 10)
		}
		b.WriteString(render(st.Timeline.Seq, cell.PadLeft(seq, c.seqW)) + " ")
	}
	typ := plain.ShortType(t.shownType(ev, ord), c.typeW)
	if w := ansi.StringWidth(typ); w > c.typeW {
		typ = theme.GlyphEllipsis + ansi.TruncateLeft(typ, w-c.typeW+1, "")
	}
	b.WriteString(render(st.Kind(ev.Kind), cell.Fit(typ, c.typeW)) + " ")
	var raw []byte
	if ev.Kind == model.KindKeepalive && ev.Source == capture.FrameComment {
		raw, _ = s.Raw(ev)
	}
	b.WriteString(render(st.Timeline.Summary, plain.Summarize(s, ev, ord, raw, t.seen.labelMode(c.sumW))))
	if fl := plain.FlagNames(ev); len(fl) > 0 {
		b.WriteString(render(st.Timeline.Flag, " ["+strings.Join(fl, ",")+"]"))
	}
	return b.String()
}

// marker is the gutter cell of ord: the glyph of the worst finding citing
// it, or a space; or what gutter draws, when set.
func (t *Timeline) marker(ord int, render func(interface{ Render(...string) string }, string) string) string {
	if t.Gutter != nil {
		return t.Gutter(ord)
	}
	sev := t.marks[int32(ord)]
	glyph := " "
	switch sev {
	case theme.SevError:
		glyph = theme.GlyphFindingErr
	case theme.SevWarning:
		glyph = theme.GlyphFindingWarn
	case theme.SevInfo:
		glyph = theme.GlyphFindingInfo
	default:
		return glyph
	}
	return render(t.st.Timeline.Finding[sev], glyph)
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
func (t *Timeline) nextSlow(dir int) int {
	for i := t.cursor + dir; i >= 0 && i < t.len(); i += dir {
		if ord := t.ordAt(i); ord != filler && t.isSlow(ord) {
			return i
		}
	}
	return -1
}
