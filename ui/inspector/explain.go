package inspector

import (
	"strings"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// explainLines lays out the explanation of shape sh for a pane w cells
// wide: a rule naming the shape, then each part word-wrapped under its
// label. Everything goes through Safe.
func explainLines(sh model.Shape, w int) []theme.Line {
	name := termtext.Safe(sh.String())
	head := theme.Line{{Text: "explain ", Class: theme.TokComment}, {Text: name, Class: theme.TokKey}}
	if rest := w - theme.CellWidth("explain ") - theme.CellWidth(name); rest >= 2 {
		head = append(head, theme.Seg{Text: " " + strings.Repeat("─", rest-1), Class: theme.TokComment})
	}
	out := theme.WrapSegs(head, w)
	ex, ok := model.Explain(sh)
	if !ok {
		return append(out, theme.WrapSegs(theme.Line{{Text: "no explanation for this kind of event", Class: theme.TokComment}}, w)...)
	}
	indent := plain.ExplainLabelWidth
	if w-indent < 16 { // too narrow for a column: labels on their own lines
		indent = 0
	}
	for _, p := range plain.ExplainParts(ex) {
		cls := theme.TokPlain
		if p.Label == "rules" {
			cls = theme.TokLiteral
		}
		label := theme.Line{{Text: cell.PadRight(p.Label, indent), Class: theme.TokField}}
		if indent == 0 {
			out = append(out, label)
		}
		for i, line := range plain.WrapWords(termtext.Safe(p.Text), max(w-indent, 1)) {
			l := theme.Line{{Text: strings.Repeat(" ", indent)}, {Text: line, Class: cls}}
			if i == 0 && indent > 0 {
				l[0] = label[0]
			}
			out = append(out, theme.WrapSegs(l, w)...)
		}
	}
	return out
}

// startTeaching applies the options that teach: the sample's lesson in
// the status line, and with Explain the detail pane shown with the
// explanation on.
func (in *Page) startTeaching(o app.Options) {
	in.bar.lesson = o.Lesson
	if o.Explain {
		in.det.explain, in.side = true, in.indexOf(in.det)
	}
	if o.LessonMode {
		in.setLesson(true)
	}
	in.tl.Reveal = o.Reveal
}

// toggleExplain turns the explanation under the detail pane on or off,
// bringing the detail pane into view when another side pane showed.
func (in *Page) toggleExplain() {
	in.det.explain = !in.det.explain
	det := in.indexOf(in.det)
	if in.side == det {
		return
	}
	if in.focus == 0 {
		in.side = det
		return
	}
	in.setFocus(det)
}
