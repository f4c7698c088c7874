package inspector

import (
	"fmt"
	"strings"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// LessonWideWidth is the width from which lesson mode shows the timeline,
// the calls as of the selected event and its explanation side by side: a
// teacher's projector at 160 columns and more has room for all three, so
// that the class sees the event, what it did to the calls and what the
// protocol says about it at once.
const LessonWideWidth = 160

// LessonCompactHeight is the height below which a lesson narrower than
// LessonWideWidth is compact (so is one narrower than WideWidth, whatever
// its height): a projector at a large font is 80×24, where the
// explanation card would fill the side pane and push the event and the
// calls out of sight. A compact lesson shows a few timeline rows and the
// calls as of the event; the status line says in one line what the event
// does, and x expands that into the whole explanation, in the calls'
// place, until x again.
const LessonCompactHeight = 30

// lessonCompact says a w×h terminal gets the compact lesson.
func lessonCompact(w, h int) bool {
	return w < LessonWideWidth && (w < WideWidth || h < LessonCompactHeight)
}

// lessonShapeDataMax is the most bytes of an event lesson mode reads to
// tell its shape: a streamed event is a few hundred bytes; a bigger one
// is told by its type alone rather than read on the event loop.
const lessonShapeDataMax = 64 << 10

// lessonMode is lesson mode's state (--lesson, the L key): a class steps
// through a stream one event a press from its first, with the explanation
// of each event on screen and its "does" line in the status line.
type lessonMode struct {
	on bool
	// wide says the layout has the explanation column: the side pane
	// shown switches between the calls (wide) and the detail pane with
	// its explanation (narrow) when a resize crosses LessonWideWidth.
	wide bool
	// compact says the layout is the compact one (lessonCompact), and
	// expand that x shows the explanation there in the calls' place.
	compact, expand bool
	// The shape of event ord of session attach gen, and its explanation
	// laid out w cells wide: one event is explained per step, not per
	// frame.
	ord, n, gen int
	shape       model.Shape
	known       bool
	does        string
	lines       []theme.Line
	linesW      int
}

// setLesson turns lesson mode on (at the first event, the explanation
// on, the replay stopped) or off (the layout of the inspector).
func (in *Page) setLesson(on bool) {
	in.les.on = on
	in.rep.stop()
	if on {
		in.tl.Follow = false
		in.tl.moveTo(0)
		in.det.explain = true
		in.focus = 0
		in.les.wide = in.w >= LessonWideWidth
		in.les.compact, in.les.expand = !in.les.wide && lessonCompact(in.w, in.h), false
		in.side = in.lessonSide()
	}
	if in.w > 0 {
		in.SetSize(in.w, in.h)
	}
}

// lessonSide is the side pane lesson mode shows: the calls as of the
// event when the explanation has its own column, or in a compact lesson
// until x expands the explanation; else the detail pane, which carries
// the explanation under the event.
func (in *Page) lessonSide() int {
	if in.les.wide || (in.les.compact && !in.les.expand) {
		return in.indexOf(in.calls)
	}
	return in.indexOf(in.det)
}

// toggleLessonExplain is x in a compact lesson: the whole explanation of
// the event in the calls' place, or the calls again.
func (in *Page) toggleLessonExplain() {
	in.les.expand = !in.les.expand
	in.det.explain = true
	in.side = in.lessonSide()
	if in.focus != 0 {
		in.focus = in.side
	}
}

// lessonLayout is r with three columns for a w-cell-wide lesson: the
// timeline (two fifths), the side pane and the explanation (half the
// rest each), one separator column between each.
func lessonLayout(r rects, w int) rects {
	body := r.help.Y
	tw := w * 2 / 5
	sw := (w - tw - 2) / 2
	r.stacked = false
	r.timeline = cell.Rect{X: 0, Y: 0, W: tw, H: body}
	r.side = cell.Rect{X: tw + 1, Y: 0, W: sw, H: body}
	r.explain = cell.Rect{X: tw + sw + 2, Y: 0, W: w - tw - sw - 2, H: body}
	return r
}

// lessonResized keeps the side pane lesson mode shows in step with the
// layout when a resize crosses LessonWideWidth or the compact lesson's
// bounds.
func (in *Page) lessonResized() {
	wide := in.r.explain.W > 0
	compact := !wide && lessonCompact(in.w, in.h)
	if !in.les.on || (wide == in.les.wide && compact == in.les.compact) {
		return
	}
	in.les.wide, in.les.compact = wide, compact
	in.side = in.lessonSide()
	if in.focus != 0 {
		in.focus = in.side
	}
}

// lessonExplain works out the shape, the "does" line and, for a column w
// cells wide (0: none), the laid-out explanation of event ord, once per
// event.
func (in *Page) lessonExplain(ord, w int) {
	l := &in.les
	if ord != l.ord || in.s.Len() != l.n || in.attachGen != l.gen {
		l.ord, l.n, l.gen, l.lines = ord, in.s.Len(), in.attachGen, nil
		l.known, l.does = false, ""
		if ord >= 0 && ord < in.s.Len() {
			ev := in.s.Events.At(ord)
			var data []byte
			if int(ev.Len) <= lessonShapeDataMax {
				if raw, err := in.s.Raw(ev); err == nil {
					data, _ = plain.EventData(raw)
				}
			}
			l.shape, l.known = in.s.Shape(ev, ord, data), true
			if ex, ok := model.Explain(l.shape); ok {
				l.does = ex.Does
			}
		}
	}
	if w > 0 && l.known && (l.lines == nil || l.linesW != w) {
		l.lines, l.linesW = explainLines(l.shape, w), w
	}
}

// explainColumn draws lesson mode's third column: a title, then the
// selected event's explanation, h lines.
func (in *Page) explainColumn(ord int) []string {
	r := in.r.explain
	in.lessonExplain(ord, r.W)
	title := cell.Fit(in.Styles.Title.Blurred.Render("explain")+in.Styles.Muted.Render(fmt.Sprintf("  #%d", ord)), r.W)
	lines := []string{title}
	if !in.les.known {
		lines = append(lines, in.Styles.Muted.Render("no event selected"))
	}
	for _, l := range in.les.lines {
		lines = append(lines, theme.RenderSegs(l, &in.Styles))
	}
	return cell.Block(lines, r.W, r.H)
}

// lessonStatus is the left of the status line in lesson mode: where the
// class is (#3 of 14) and what the event does, from its explanation.
func (in *Page) lessonStatus() string {
	ord := in.Selected()
	in.lessonExplain(ord, 0)
	st := &in.Styles
	at := st.Status.Info.Render("lesson") + " " + st.Base.Render(fmt.Sprintf("#%d of %d", ord, in.s.Len()))
	if in.les.does == "" {
		return at
	}
	does := strings.Join(strings.Fields(termtext.Safe(in.les.does)), " ")
	return at + st.Subtle.Render(" · ") + st.Base.Render(does)
}

// midStream says where a replay or a lesson stands while it is short of
// the last event ("event #3 of 14"), which the status line shows in place
// of how the stream ended: the class is at event 3, not at the end.
func (in *Page) midStream() string {
	if (!in.rep.playing && !in.rep.started && !in.les.on) || in.Live {
		return ""
	}
	if n := in.tl.len(); n > 0 && in.tl.cursor < n-1 {
		return fmt.Sprintf("event #%d of %d", in.Selected(), in.s.Len())
	}
	return ""
}
