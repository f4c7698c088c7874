package ui

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// rowCacheMax bounds the rendered-row cache. Only visible rows are ever
// rendered, so a few screens' worth is plenty.
const rowCacheMax = 2048

// timelinePane is the virtualised event list: it renders only the rows in
// view, so a frame costs O(height), whatever the number of events.
type timelinePane struct {
	s    *model.Session
	st   *styles
	w, h int // content size, without the title line

	cursor int // selected row
	offset int // first visible row
	follow bool
	slow   time.Duration

	// rows lists the ordinals shown when a filter is active; nil shows all.
	rows []int32
	// matches are the ordinals the current search found, sorted.
	matches []int32

	cache      map[int]string // rendered rows (unselected) by ordinal
	cacheWidth int
}

func newTimeline(s *model.Session, st *styles, slow time.Duration) timelinePane {
	return timelinePane{s: s, st: st, slow: slow, cache: map[int]string{}}
}

func (t *timelinePane) setSize(w, h int) {
	t.w, t.h = w, max(h, 1)
	t.invalidate()
	t.scrollToCursor()
}

// invalidate drops the rendered rows: after a resize, a theme change, a new
// search, or new events (which may rename the items older rows mention).
func (t *timelinePane) invalidate() { clear(t.cache) }

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

// view renders the visible rows.
func (t *timelinePane) view(focused bool) string {
	if t.cacheWidth != t.w {
		t.invalidate()
		t.cacheWidth = t.w
	}
	if len(t.cache) > rowCacheMax {
		t.invalidate()
	}
	lines := make([]string, 0, t.h)
	if t.len() == 0 {
		lines = append(lines, t.st.Muted.Render("waiting for events…"))
		return strings.Join(block(lines, t.w, t.h), "\n")
	}
	sel := t.selected()
	for i := t.offset; i < t.len() && len(lines) < t.h; i++ {
		ord := t.ordAt(i)
		if ord == sel {
			plain := glyphCursor + ansi.Strip(t.row(ord, false))
			style := t.st.Timeline.SelectedBlur
			if focused {
				style = t.st.Timeline.Selected
			}
			lines = append(lines, style.Render(fit(plain, t.w)))
			continue
		}
		r, ok := t.cache[ord]
		if !ok {
			r = " " + t.row(ord, true)
			t.cache[ord] = r
		}
		lines = append(lines, r)
	}
	return strings.Join(block(lines, t.w, t.h), "\n")
}

// columns decides which columns fit the width. A stream without timing
// (a file, a sample) has no time columns at all.
func (t *timelinePane) columns() (showTime, showGap, showSeq bool, typeW int) {
	timed := t.s.Events.Len() > 0 && t.s.Events.At(0).HasTime()
	switch {
	case t.w >= 90:
		return timed, timed, true, 26
	case t.w >= 64:
		return timed, timed, true, 18
	case t.w >= 56:
		return false, timed, true, 18
	}
	return false, timed, false, 14
}

// row renders one event: ordinal, time since start, gap since the previous
// event, sequence number, type coloured by kind, summary and flags.
func (t *timelinePane) row(ord int, color bool) string {
	s, st := t.s, t.st
	ev := s.Events.At(ord)
	render := func(sty interface{ Render(...string) string }, text string) string {
		if !color {
			return text
		}
		return sty.Render(text)
	}
	showTime, showGap, showSeq, typeW := t.columns()
	var b strings.Builder
	ordStyle := st.Timeline.Ord
	mark := " "
	if t.isMatch(ord) {
		ordStyle, mark = st.Timeline.Match, "•"
	}
	b.WriteString(render(ordStyle, padLeft(strconv.Itoa(ord), 5)+mark))
	if showTime {
		b.WriteString(render(st.Timeline.Time, padLeft(FormatTime(ev.At), 8)) + " ")
	}
	gapText, slow := "", false
	if g, ok := t.gap(ord); ok {
		gapText = "+" + shortDur(g)
		slow = g >= t.slow
	}
	gapStyle := st.Timeline.Gap
	if slow {
		gapStyle = st.Timeline.SlowGap
	}
	if showGap {
		b.WriteString(render(gapStyle, padLeft(gapText, 7)) + " ")
	}
	if showSeq {
		seq := ""
		if ev.Seq >= 0 {
			seq = strconv.FormatInt(ev.Seq, 10)
		}
		b.WriteString(render(st.Timeline.Seq, padLeft(seq, 4)) + " ")
	}
	typ := shortType(Safe(s.TypeName(ev.Type)), typeW)
	if w := ansi.StringWidth(typ); w > typeW {
		typ = glyphEllipsis + ansi.TruncateLeft(typ, w-typeW+1, "")
	}
	b.WriteString(render(st.kind(ev.Kind), fit(typ, typeW)) + " ")
	var raw []byte
	if ev.Kind == model.KindKeepalive && ev.Source == capture.FrameComment {
		raw, _ = s.Raw(ev)
	}
	b.WriteString(render(st.Timeline.Summary, Summary(s, ev, ord, raw)))
	if fl := FlagNames(ev); len(fl) > 0 {
		b.WriteString(render(st.Timeline.Flag, " ["+strings.Join(fl, ",")+"]"))
	}
	return b.String()
}

// typeAbbrev shortens the long words of event types when they do not fit.
var typeAbbrev = strings.NewReplacer(
	"chat.completion.chunk", "chunk", "function_call_arguments", "fn_args", "reasoning_summary_text", "reasoning_text",
	"reasoning_summary_part", "reasoning_part", "content_block_", "block_", "custom_tool_call_input", "custom_input",
)

// shortType drops the prefix every Responses event type shares, and
// abbreviates what still does not fit in w.
func shortType(t string, w int) string {
	if after, ok := strings.CutPrefix(t, "response."); ok && after != "" {
		t = after
	}
	if len(t) > w {
		t = typeAbbrev.Replace(t)
	}
	return t
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

func padLeft(s string, w int) string {
	if n := w - ansi.StringWidth(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
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
