package diffview

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/inspector"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// diffRects names the regions of the diff page above the help and
// status lines. A side's rectangle holds its header line and its
// timeline; the panel's, its title line and the list.
type diffRects struct {
	tooSmall bool
	stacked  bool
	side     [2]cell.Rect
	panel    cell.Rect
}

// diffLayout lays the diff page out for a w×h terminal: the sides next
// to each other from inspector.WideWidth columns, A above B below that, and the
// panel under both. It runs on resize only.
func diffLayout(w, h int) diffRects {
	var r diffRects
	if w < app.MinWidth || h < app.MinHeight {
		r.tooSmall = true
		return r
	}
	body := h - 2
	if w >= inspector.WideWidth {
		ph := max(6, body/4)
		th := body - ph
		lw := (w - 1) / 2 // one column of separator
		r.side[0] = cell.Rect{X: 0, Y: 0, W: lw, H: th}
		r.side[1] = cell.Rect{X: lw + 1, Y: 0, W: w - lw - 1, H: th}
		r.panel = cell.Rect{X: 0, Y: th, W: w, H: ph}
		return r
	}
	r.stacked = true
	ph := max(5, body*3/10)
	th := body - ph
	ha := (th + 1) / 2
	r.side[0] = cell.Rect{X: 0, Y: 0, W: w, H: ha}
	r.side[1] = cell.Rect{X: 0, Y: ha, W: w, H: th - ha}
	r.panel = cell.Rect{X: 0, Y: th, W: w, H: ph}
	return r
}

// Body draws both sides and the panel, or the inspector shown.
func (dp *Page) Body() []string {
	if in := dp.opened(); in != nil {
		return in.Body()
	}
	for _, sd := range dp.side {
		if sd.s != nil {
			sd.grew()
		}
	}
	if dp.aligned {
		// The rows line up: the passive side shows the rows the active
		// one does.
		dp.side[dp.active^1].tl.ScrollTo(dp.side[dp.active].tl.Offset())
	}
	a, b := dp.sideLines(streamdiff.SideA), dp.sideLines(streamdiff.SideB)
	var lines []string
	if dp.r.stacked {
		lines = append(a, b...)
	} else {
		sep := dp.Styles.Sep.Render(theme.GlyphSep)
		lines = make([]string, len(a))
		for i := range a {
			lines[i] = a[i] + sep + b[i]
		}
	}
	return append(lines, dp.panelLines()...)
}

// sideLines draws side w in exactly its rectangle: its header, then its
// timeline, or why it has none yet.
func (dp *Page) sideLines(w streamdiff.Which) []string {
	sd, r := dp.side[w], dp.r.side[w]
	if sd.tl != nil {
		// The same columns on both sides: the time columns only when
		// both streams are timed (a live A beside a file B is not), so
		// that a row of A and its counterpart in B line up.
		other := dp.side[w^1].tl
		sd.tl.NoTime = !(sd.tl.Timed() && other != nil && other.Timed())
	}
	lines := []string{dp.sideHeader(w)}
	switch {
	case sd.tl != nil:
		sd.tl.CursorGlyph = ""
		if w != dp.active {
			switch near, none := dp.counterpart(); {
			case none:
				sd.tl.CursorGlyph = theme.GlyphNoMatch
			case near:
				sd.tl.CursorGlyph = theme.GlyphNear
			}
		}
		lines = append(lines, strings.Split(sd.tl.View(sd.Selected(), w == dp.active), "\n")...)
	case sd.err != nil:
		lines = append(lines, dp.Styles.Err.Render(termtext.Safe("cannot read "+sideLabel(w)+": "+sd.err.Error())))
	default:
		lines = append(lines, dp.Styles.Muted.Render("  reading "+sideLabel(w)+"…"))
	}
	return cell.Block(lines, r.W, r.H)
}

// sideHeader is a side's first line: its letter (highlighted on the
// active side), name, how it ended, its size and dialect, what matters
// most first, as what does not fit is cut from the end; at the right, on
// the passive side, how its selection stands to the active side's.
func (dp *Page) sideHeader(w streamdiff.Which) string {
	sd, st := dp.side[w], &dp.Styles
	sep := st.Subtle.Render(" · ")
	letter := st.Title.Blurred.Render(sideLabel(w))
	if w == dp.active {
		letter = st.Title.Focused.Render(sideLabel(w))
	}
	left := letter + " " + st.Accent.Render(termtext.Safe(sd.name))
	if sd.s != nil {
		left += sep + dp.sideState(sd) + sep + st.Base.Render(plain.CountOf(sd.s.Len(), "event"))
		if d := sd.s.Dialect(); d != model.DialectUnknown {
			left += sep + st.Muted.Render(d.String())
		}
	}
	return cell.JoinLR(left, dp.linkText(w), dp.r.side[w].W)
}

// sideState says how a side's stream stands: live, or how it ended.
func (dp *Page) sideState(sd *diffSide) string {
	st := &dp.Styles
	if sd.IsLive() {
		return st.Status.Live.Render("live")
	}
	o := sd.outcome.Of(sd.s)
	w := oneLineMax(dp.r.side[sd.which].W)
	text := termtext.Safe(plain.Truncate(o.State, w))
	if o.Detail != "" {
		text += " (" + termtext.Safe(plain.Truncate(o.Detail, w)) + ")"
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
func (dp *Page) linkText(w streamdiff.Which) string {
	if w == dp.active || !dp.linked() {
		return ""
	}
	st := &dp.Styles
	sel := dp.side[dp.active].Selected()
	if sel < 0 {
		return st.Muted.Render("nothing selected on " + sideLabel(dp.active))
	}
	ref := sideEventRef(dp.active, sel)
	switch near, none := dp.counterpart(); {
	case none:
		return st.Warn.Render(theme.GlyphNoMatch + " no match for " + ref)
	case near:
		return st.Warn.Render(theme.GlyphNear + " near " + ref)
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
// A row the search matches shows • there, or, when a difference marks
// it too, that difference's glyph in reverse video.
func (sd *diffSide) gutter(ord int) string {
	match := sd.dp.search.sides[sd.which].has(ord)
	v := sd.dp.view
	i := -1
	if v != nil {
		i = v.markAt(sd.which, ord)
	}
	switch {
	case i < 0 && match:
		return sd.dp.Styles.Timeline.Match.Render(glyphMatch)
	case i < 0:
		return " "
	}
	k := v.res.Differences[i].Kind
	style := sd.dp.kindStyle(k)
	if match {
		style = style.Reverse(true)
	}
	return style.Render(kindGlyph(k))
}

// kindGlyph is the gutter glyph of a kind of difference.
func kindGlyph(k streamdiff.Kind) string {
	switch k {
	case streamdiff.OnlyInA:
		return theme.GlyphOnlyInA
	case streamdiff.OnlyInB:
		return theme.GlyphOnlyInB
	case streamdiff.Reordered:
		return theme.GlyphReordered
	case streamdiff.Field:
		return theme.GlyphField
	case streamdiff.Chunking:
		return theme.GlyphChunking
	case streamdiff.Sequence:
		return theme.GlyphSequence
	}
	return theme.GlyphSemantic
}

// kindStyle colours a kind of difference as the plain report does: gone
// red, added green, changed yellow, moved blue, timing muted.
func (dp *Page) kindStyle(k streamdiff.Kind) lipgloss.Style {
	st := &dp.Styles
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
func (dp *Page) panelLines() []string {
	r, st := dp.r.panel, &dp.Styles
	title := st.Title.Focused.Render("differences")
	var body []string
	verdict := ""
	switch {
	case dp.view != nil:
		title += st.Muted.Render("  at " + sideEventRef(streamdiff.SideA, dp.side[0].Selected()) + " · " + sideEventRef(streamdiff.SideB, dp.side[1].Selected()))
		verdict = dp.verdict()
		body = dp.differencesHere(r.W, r.H-1)
	case dp.side[1].err != nil:
		verdict = st.Status.Error.Render("B could not be read")
		body = []string{st.Muted.Render("nothing to compare A with")}
	default:
		verdict = st.Status.Live.Render(dp.waiting())
		body = wrapStyled(st.Muted, "the streams are compared once A has ended and B is read; until then each side moves on its own", r.W)
	}
	lines := []string{cell.JoinLR(title, verdict, r.W)}
	return cell.Block(append(lines, body...), r.W, r.H)
}

// waiting says what the comparison waits for.
func (dp *Page) waiting() string {
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
func (dp *Page) verdict() string {
	res, st := dp.view.res, &dp.Styles
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
func (dp *Page) differencesHere(w, h int) []string {
	st, res := &dp.Styles, dp.view.res
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
	here := dp.view.at(dp.side[0].Selected(), dp.side[1].Selected())
	if len(here) == 0 {
		if dp.searching() {
			return append(lines, wrapStyled(st.Muted, "no difference at these events; n and N go to the search's matches, and to the differences once esc has cleared it", w)...)
		}
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
func (dp *Page) differenceLines(d *streamdiff.Difference, w int) []string {
	st := &dp.Styles
	style := dp.kindStyle(d.Kind)
	refs := plain.EventRef("A", d.EventA, d.LastA) + " " + plain.EventRef("B", d.EventB, d.LastB)
	text := cell.PadRight(d.Kind.String(), 10) + " " + refs + " " + termtext.Safe(plain.Truncate(messageHead(d), diffMessageMax))
	wrapped := plain.WrapWords(text, max(w-2, 1))
	out := make([]string, len(wrapped))
	for i, l := range wrapped {
		if i == 0 {
			kind, rest := cutCells(l, 10)
			out[i] = style.Render(kindGlyph(d.Kind)) + " " + style.Render(kind) + st.Base.Render(rest)
			continue
		}
		out[i] = "  " + st.Base.Render(l)
	}
	if d.ArgsChanges != nil {
		// The arguments decoded as JSON: each change once, with where
		// each side diverges, instead of both escaped strings whole.
		for _, c := range d.ArgsChanges[:min(len(d.ArgsChanges), argsChangesShown)] {
			out = append(out, "  "+st.Base.Render(cell.Fit(termtext.Safe(plain.Truncate(c.String(), oneLineMax(w))), max(w-2, 1))))
		}
		if more := len(d.ArgsChanges) - argsChangesShown + d.ArgsChangesMore; more > 0 {
			out = append(out, "  "+st.Muted.Render(fmt.Sprintf("and %d more", more)))
		}
		return out
	}
	if d.Kind == streamdiff.Call && d.Path == "arguments" || d.Kind == streamdiff.Text {
		for _, v := range [2]struct {
			side string
			val  []byte
		}{{"A", d.A}, {"B", d.B}} {
			val := "(absent)"
			if len(v.val) > 0 {
				val = termtext.Safe(plain.Truncate(string(v.val), oneLineMax(w)))
			}
			out = append(out, "  "+st.Muted.Render(v.side)+" "+st.Base.Render(cell.Fit(val, max(w-4, 1))))
		}
	}
	return out
}

// messageHead is d's message without the argument changes it ends with
// when the panel lists them a line each below: said once, not twice.
func messageHead(d *streamdiff.Difference) string {
	if len(d.ArgsChanges) == 0 {
		return d.Message
	}
	if head, _, ok := strings.Cut(d.Message, ": "+d.ArgsChanges[0].String()); ok {
		return head + ":"
	}
	return d.Message
}

// argsChangesShown is how many of a call's argument changes the panel
// lists before "and N more": `streamtap diff` lists them all.
const argsChangesShown = 8

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
	lines := plain.WrapWords(text, max(w, 1))
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return lines
}

// Status draws the status line: both streams, and the page's notice, or
// the warning it opened with (an --ignore name that matches nothing).
func (dp *Page) Status() string {
	if in := dp.opened(); in != nil {
		return in.Status()
	}
	st := &dp.Styles
	sep := st.Subtle.Render(" · ")
	left := st.Accent.Render("diff") + sep + st.Base.Render("A "+termtext.Safe(dp.side[0].name)) + sep + st.Base.Render("B "+termtext.Safe(dp.side[1].name))
	right := ""
	switch {
	case dp.Note.Text != "":
		style := st.Status.Info
		if dp.Note.IsErr {
			style = st.Status.Error
		}
		right = style.Render(termtext.Safe(dp.Note.Text))
	case dp.search.query != "":
		right = st.Status.Info.Render(dp.searchStatus())
	case dp.Opts.Warning != "":
		right = st.Status.Warn.Render(termtext.Safe(dp.Opts.Warning))
	case dp.view != nil:
		right = st.Muted.Render(ignoredText(dp.view.res))
	}
	return cell.JoinLR(left, right, dp.w)
}

// ignoredText says in a few words what the comparison ignored.
func ignoredText(res *streamdiff.Result) string {
	if len(res.Ignored) == 0 {
		return "ignoring nothing (--strict)"
	}
	return fmt.Sprintf("ignoring %d names", len(res.Ignored))
}
