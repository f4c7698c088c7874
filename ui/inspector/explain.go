package ui

import (
	"strings"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
)

// explainLines lays out the explanation of shape sh for a pane w cells
// wide: a rule naming the shape, then each part word-wrapped under its
// label. Everything goes through Safe.
func explainLines(sh model.Shape, w int) []segLine {
	name := termtext.Safe(sh.String())
	head := segLine{{text: "explain ", cls: tokComment}, {text: name, cls: tokKey}}
	if rest := w - cellWidth("explain ") - cellWidth(name); rest >= 2 {
		head = append(head, seg{text: " " + strings.Repeat("─", rest-1), cls: tokComment})
	}
	out := wrapSegs(head, w)
	ex, ok := model.Explain(sh)
	if !ok {
		return append(out, wrapSegs(segLine{{text: "no explanation for this kind of event", cls: tokComment}}, w)...)
	}
	indent := explainLabelWidth
	if w-indent < 16 { // too narrow for a column: labels on their own lines
		indent = 0
	}
	for _, p := range explainParts(ex) {
		cls := tokPlain
		if p.label == "rules" {
			cls = tokLiteral
		}
		label := segLine{{text: padRight(p.label, indent), cls: tokField}}
		if indent == 0 {
			out = append(out, label)
		}
		for i, line := range wrapWords(termtext.Safe(p.text), max(w-indent, 1)) {
			l := segLine{{text: strings.Repeat(" ", indent)}, {text: line, cls: cls}}
			if i == 0 && indent > 0 {
				l[0] = label[0]
			}
			out = append(out, wrapSegs(l, w)...)
		}
	}
	return out
}

// startTeaching applies the options that teach: the sample's lesson in
// the status line, and with Explain the detail pane shown with the
// explanation on.
func (in *inspector) startTeaching(o Options) {
	in.bar.lesson = o.Lesson
	if o.Explain {
		in.det.explain, in.side = true, in.indexOf(in.det)
	}
}

// toggleExplain turns the explanation under the detail pane on or off,
// bringing the detail pane into view when another side pane showed.
func (in *inspector) toggleExplain() {
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
