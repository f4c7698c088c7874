package doc

import (
	"github.com/streamtap/streamtap/ui/theme"
)

// layoutDoc lays out a whole document at once, the reference the lazy
// layout's tests compare with: the panes lay out a screen at a time from
// saved states (doc.go), never a whole document.
func layoutDoc(sp *Spec) []theme.Line {
	st := sp.start()
	out := lineOut{keep: true}
	var res []theme.Line
	for sp.fill(&st, &out) {
		res = append(res, out.segs)
	}
	return res
}

// prettyPartial pretty-prints JSON that may be cut short or invalid, as
// the panes do for arguments as they stream in, the whole text at once.
// The bytes in [markStart, markEnd) are marked: the fragment the selected
// event added.
func prettyPartial(src []byte, markStart, markEnd int) []theme.Line {
	return layoutDoc(&Spec{Src: src, Mode: JSON, MarkStart: markStart, MarkEnd: markEnd})
}
