package ui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/termtext"
)

// diffRects names the regions of the diff page above the help and
// status lines. A side's rectangle holds its header line and its
// timeline; the panel's, its title line and the list.
type diffRects struct {
	tooSmall bool
	stacked  bool
	side     [2]rect
	panel    rect
}

// diffLayout lays the diff page out for a w×h terminal: the sides next
// to each other from wideWidth columns, A above B below that, and the
// panel under both. It runs on resize only.
func diffLayout(w, h int) diffRects {
	var r diffRects
	if w < minWidth || h < minHeight {
		r.tooSmall = true
		return r
	}
	body := h - 2
	if w >= wideWidth {
		ph := max(6, body/4)
		th := body - ph
		lw := (w - 1) / 2 // one column of separator
		r.side[0] = rect{0, 0, lw, th}
		r.side[1] = rect{lw + 1, 0, w - lw - 1, th}
		r.panel = rect{0, th, w, ph}
		return r
	}
	r.stacked = true
	ph := max(5, body*3/10)
	th := body - ph
	ha := (th + 1) / 2
	r.side[0] = rect{0, 0, w, ha}
	r.side[1] = rect{0, ha, w, th - ha}
	r.panel = rect{0, th, w, ph}
	return r
}

// body draws both sides and the panel, or the inspector shown.
func (dp *diffPage) body() []string {
	if in := dp.opened(); in != nil {
		return in.body()
	}
	for _, sd := range dp.side {
		if sd.s != nil {
			sd.grew()
		}
	}
	a, b := dp.sideLines(streamdiff.SideA), dp.sideLines(streamdiff.SideB)
	var lines []string
	if dp.r.stacked {
		lines = append(a, b...)
	} else {
		sep := dp.st.Sep.Render(glyphSep)
		lines = make([]string, len(a))
		for i := range a {
			lines[i] = a[i] + sep + b[i]
		}
	}
	return append(lines, dp.panelLines()...)
}

// sideLines draws side w in exactly its rectangle: its header, then its
// timeline, or why it has none yet.
func (dp *diffPage) sideLines(w streamdiff.Which) []string {
	sd, r := dp.side[w], dp.r.side[w]
	lines := []string{dp.sideHeader(w)}
	switch {
	case sd.tl != nil:
		sd.tl.cursorGlyph = ""
		if w != dp.active {
			switch near, none := dp.counterpart(); {
			case none:
				sd.tl.cursorGlyph = glyphNoMatch
			case near:
				sd.tl.cursorGlyph = glyphNear
			}
		}
		lines = append(lines, strings.Split(sd.tl.view(sd.selected(), w == dp.active), "\n")...)
	case sd.err != nil:
		lines = append(lines, dp.st.Err.Render(termtext.Safe("cannot read "+sideLabel(w)+": "+sd.err.Error())))
	default:
		lines = append(lines, dp.st.Muted.Render("  reading "+sideLabel(w)+"…"))
	}
	return block(lines, r.w, r.h)
}

// sideHeader is a side's first line: its letter (highlighted on the
// active side), name, how it ended, its size and dialect, what matters
// most first, as what does not fit is cut from the end; at the right, on
// the passive side, how its selection stands to the active side's.
func (dp *diffPage) sideHeader(w streamdiff.Which) string {
	sd, st := dp.side[w], &dp.st
	sep := st.Subtle.Render(" · ")
	letter := st.Title.Blurred.Render(sideLabel(w))
	if w == dp.active {
		letter = st.Title.Focused.Render(sideLabel(w))
	}
	left := letter + " " + st.Accent.Render(termtext.Safe(sd.name))
	if sd.s != nil {
		left += sep + dp.sideState(sd) + sep + st.Base.Render(countOf(sd.s.Len(), "event"))
		if d := sd.s.Dialect(); d != model.DialectUnknown {
			left += sep + st.Muted.Render(d.String())
		}
	}
	return joinLR(left, dp.linkText(w), dp.r.side[w].w)
}

// sideState says how a side's stream stands: live, or how it ended.
func (dp *diffPage) sideState(sd *diffSide) string {
	st := &dp.st
	if sd.isLive() {
		return st.Status.Live.Render("live")
	}
	o := sd.outcome.of(sd.s)
	w := oneLineMax(dp.r.side[sd.which].w)
	text := termtext.Safe(truncate(o.State, w))
	if o.Detail != "" {
		text += " (" + termtext.Safe(truncate(o.Detail, w)) + ")"
	}
	switch o.State {
	case "completed":
		return st.OK.Render(text)
	case "incomplete":
		return st.Status.Warn.Render(text)
	}
	return st.Status.Error.Render(text)
}

// linkText says, on the passive side, how its selection stands to the
// active side's: its counterpart (= A#3), only near it (≈ near A#11: one
// of them has no counterpart, or the deltas were cut differently), or
// nothing matches it (∅).
func (dp *diffPage) linkText(w streamdiff.Which) string {
	if w == dp.active || !dp.linked() {
		return ""
	}
	st := &dp.st
	sel := dp.side[dp.active].selected()
	if sel < 0 {
		return st.Muted.Render("nothing selected on " + sideLabel(dp.active))
	}
	ref := sideEventRef(dp.active, sel)
	switch near, none := dp.counterpart(); {
	case none:
		return st.Warn.Render(glyphNoMatch + " no match for " + ref)
	case near:
		return st.Warn.Render(glyphNear + " near " + ref)
	}
	return st.Muted.Render("= " + ref)
}

// sideEventRef names event ord of side w, "A#3", or says that nothing is
// selected there ("A: none"): a side with no events, or none shown.
func sideEventRef(w streamdiff.Which, ord int) string {
	if ord < 0 {
		return sideLabel(w) + ": none"
	}
	return sideLabel(w) + "#" + strconv.Itoa(ord)
}

// gutter marks the row of event ord with the glyph of the difference
// marked on it, coloured by kind.
func (sd *diffSide) gutter(ord int) string {
	v := sd.dp.view
	if v == nil {
		return " "
	}
	i := v.markAt(sd.which, ord)
	if i < 0 {
		return " "
	}
	k := v.res.Differences[i].Kind
	return sd.dp.kindStyle(k).Render(kindGlyph(k))
}

// kindGlyph is the gutter glyph of a kind of difference.
func kindGlyph(k streamdiff.Kind) string {
	switch k {
	case streamdiff.OnlyInA:
		return glyphOnlyInA
	case streamdiff.OnlyInB:
		return glyphOnlyInB
	case streamdiff.Reordered:
		return glyphReordered
	case streamdiff.Field:
		return glyphField
	case streamdiff.Chunking:
		return glyphChunking
	case streamdiff.Sequence:
		return glyphSequence
	}
	return glyphSemantic
}

// kindStyle colours a kind of difference as the plain report does: gone
// red, added green, changed yellow, moved blue, timing muted.
func (dp *diffPage) kindStyle(k streamdiff.Kind) lipgloss.Style {
	st := &dp.st
	switch k {
	case streamdiff.OnlyInA:
		return st.Diff.Del
	case streamdiff.OnlyInB:
		return st.Diff.Add
	case streamdiff.Reordered, streamdiff.Chunking, streamdiff.Sequence, streamdiff.IDs:
		return st.Status.Info
	case streamdiff.Timing:
		return st.Muted
	}
	return st.Diff.Change
}

// panelLines draws the panel: a title with the verdict, then the
// differences at the selected events.
func (dp *diffPage) panelLines() []string {
	r, st := dp.r.panel, &dp.st
	title := st.Title.Focused.Render("differences")
	var body []string
	verdict := ""
	switch {
	case dp.view != nil:
		title += st.Muted.Render("  at " + sideEventRef(streamdiff.SideA, dp.side[0].selected()) + " · " + sideEventRef(streamdiff.SideB, dp.side[1].selected()))
		verdict = dp.verdict()
		body = dp.differencesHere(r.w, r.h-1)
	case dp.side[1].err != nil:
		verdict = st.Status.Error.Render("B could not be read")
		body = []string{st.Muted.Render("nothing to compare A with")}
	default:
		verdict = st.Status.Live.Render(dp.waiting())
		body = wrapStyled(st.Muted, "the streams are compared once A has ended and B is read; until then each side moves on its own", r.w)
	}
	lines := []string{joinLR(title, verdict, r.w)}
	return block(append(lines, body...), r.w, r.h)
}

// waiting says what the comparison waits for.
func (dp *diffPage) waiting() string {
	switch {
	case dp.comparing:
		return "comparing…"
	case dp.side[1].sd == nil:
		return "reading B…"
	}
	return "waiting for A to end…"
}

// verdict counts the differences by kind, or says the streams are
// equivalent.
func (dp *diffPage) verdict() string {
	res, st := dp.view.res, &dp.st
	if res.Equal() {
		return st.OK.Render("equivalent")
	}
	total := 0
	var parts []string
	for _, k := range streamdiff.Kinds() {
		if n := res.Counts[k.String()]; n > 0 {
			total += n
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return st.Warn.Render(fmt.Sprintf("%d in all", total)) + st.Muted.Render(": "+strings.Join(parts, ", "))
}

// differencesHere lists the differences at the selected events in at
// most h lines of w cells: each on its own lines, wrapped, and the values
// of a call's arguments or a text that differ.
func (dp *diffPage) differencesHere(w, h int) []string {
	st, res := &dp.st, dp.view.res
	var lines []string
	if res.Note != "" {
		lines = append(lines, wrapStyled(st.Muted, res.Note, w)...)
	}
	if res.Equal() {
		lines = append(lines, st.OK.Render("no differences beyond the ignored ones"))
		ignored := "ignoring nothing (--strict)"
		if len(res.Ignored) > 0 {
			ignored = "ignoring: " + strings.Join(res.Ignored, ", ")
		}
		return append(lines, wrapStyled(st.Muted, termtext.Safe(ignored), w)...)
	}
	here := dp.view.at(dp.side[0].selected(), dp.side[1].selected())
	if len(here) == 0 {
		return append(lines, st.Muted.Render("no difference at these events; n and N go to the next and previous"))
	}
	for n, i := range here {
		entry := dp.differenceLines(&res.Differences[i], w)
		if len(lines)+len(entry) > h {
			left := len(here) - n
			more := st.Muted.Render(fmt.Sprintf("… %d more here (streamtap diff lists them all)", left))
			if len(lines) >= h {
				lines = lines[:h-1]
			}
			return append(lines, more)
		}
		lines = append(lines, entry...)
	}
	return lines
}

// differenceLines draws one difference: its glyph, kind, events on each
// side and message, wrapped to w with a hanging indent; for a call's
// arguments or a text, each side's value on a line of its own.
func (dp *diffPage) differenceLines(d *streamdiff.Difference, w int) []string {
	st := &dp.st
	style := dp.kindStyle(d.Kind)
	refs := eventRef("A", d.EventA, d.LastA) + " " + eventRef("B", d.EventB, d.LastB)
	text := padRight(d.Kind.String(), 10) + " " + refs + " " + termtext.Safe(truncate(d.Message, diffMessageMax))
	wrapped := wrapWords(text, max(w-2, 1))
	out := make([]string, len(wrapped))
	for i, l := range wrapped {
		if i == 0 {
			kind, rest := cutCells(l, 10)
			out[i] = style.Render(kindGlyph(d.Kind)) + " " + style.Render(kind) + st.Base.Render(rest)
			continue
		}
		out[i] = "  " + st.Base.Render(l)
	}
	if d.Kind == streamdiff.Call && d.Path == "arguments" || d.Kind == streamdiff.Text {
		for _, v := range [2]struct {
			side string
			val  []byte
		}{{"A", d.A}, {"B", d.B}} {
			val := "(absent)"
			if len(v.val) > 0 {
				val = termtext.Safe(truncate(string(v.val), oneLineMax(w)))
			}
			out = append(out, "  "+st.Muted.Render(v.side)+" "+st.Base.Render(fit(val, max(w-4, 1))))
		}
	}
	return out
}

// diffMessageMax bounds, in bytes, the message of a difference the panel
// wraps: more than the panel's lines can show at any size, and small, so
// that a frame never makes safe and wraps a message that quotes a
// megabyte-long name or value whole.
const diffMessageMax = 8 << 10

// oneLineMax is how many bytes of stream text a line of w cells starts
// from: enough for w cells of any text, cut to w cells after.
func oneLineMax(w int) int { return 4*max(w, 1) + 16 }

// cutCells splits s after its first n cells.
func cutCells(s string, n int) (string, string) {
	return ansi.Cut(s, 0, n), ansi.Cut(s, n, ansi.StringWidth(s))
}

// wrapStyled wraps text to w cells, each line in style.
func wrapStyled(style lipgloss.Style, text string, w int) []string {
	lines := wrapWords(text, max(w, 1))
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return lines
}

// status draws the status line: both streams, and the page's notice.
func (dp *diffPage) status() string {
	if in := dp.opened(); in != nil {
		return in.status()
	}
	st := &dp.st
	sep := st.Subtle.Render(" · ")
	left := st.Accent.Render("diff") + sep + st.Base.Render("A "+termtext.Safe(dp.side[0].name)) + sep + st.Base.Render("B "+termtext.Safe(dp.side[1].name))
	right := ""
	switch {
	case dp.note.text != "":
		style := st.Status.Info
		if dp.note.isErr {
			style = st.Status.Error
		}
		right = style.Render(termtext.Safe(dp.note.text))
	case dp.view != nil:
		right = st.Muted.Render(ignoredText(dp.view.res))
	}
	return joinLR(left, right, dp.w)
}

// ignoredText says in a few words what the comparison ignored.
func ignoredText(res *streamdiff.Result) string {
	if len(res.Ignored) == 0 {
		return "ignoring nothing (--strict)"
	}
	return fmt.Sprintf("ignoring %d names", len(res.Ignored))
}
