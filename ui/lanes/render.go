package lanes

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// laneSpan is the events between which a lane is alive, drawn as its
// lifeline where it has no mark: from the event that opened its item (or
// started its response) to the one that closed it (or ended it). A lane
// never closed ends at its last event, or runs on while the stream is
// live.
type laneSpan struct{ from, to int }

const stillOpen = 1<<31 - 1

// span is lane l's life.
func (p *Pane) span(l laneID) laneSpan {
	s := p.s
	live := p.host.IsLive()
	if i := l.item(); i >= 0 {
		it := s.Items[i]
		sp := laneSpan{it.First, it.Closed}
		if it.Opened >= 0 {
			sp.from = it.Opened
		}
		if sp.to < 0 {
			sp.to = it.Last
			if live {
				sp.to = stillOpen
			}
		}
		return sp
	}
	r := l.response()
	if r < 0 || r >= len(s.Responses) {
		return laneSpan{-1, -1} // the stream's lane has no life of its own
	}
	resp := s.Responses[r]
	sp := laneSpan{resp.First, resp.Terminal}
	switch {
	case sp.to >= 0:
	case r+1 < len(s.Responses):
		sp.to = s.Responses[r+1].First - 1
	case live:
		sp.to = stillOpen
	default:
		sp.to = s.Len() - 1
	}
	return sp
}

// header draws the lane headers: each lane's name, then its type, place
// and id; the gutter says how many lanes are hidden to the left, the
// right edge how many to the right.
func (p *Pane) header() []string {
	g, st := &p.geo, p.st
	names := make([]string, 0, g.vis)
	details := make([]string, 0, g.vis)
	for c := g.col0; c < g.col0+g.vis; c++ {
		name, detail := p.laneTitle(g.cols[c])
		names = append(names, cell.Fit(" "+name, g.laneW))
		details = append(details, cell.Fit(" "+detail, g.laneW))
	}
	left, right := "", ""
	if g.col0 > 0 {
		left = "‹+" + strconv.Itoa(g.col0)
	}
	if hidden := len(g.cols) - g.col0 - g.vis; hidden > 0 {
		right = " +" + strconv.Itoa(hidden) + "›"
	}
	line1 := st.Muted.Render(cell.Fit(left, g.gutter))
	for _, n := range names {
		line1 += st.Calls.Name.Render(n)
	}
	if right != "" {
		rw := ansi.StringWidth(right)
		line1 = cell.Fit(line1, p.w-rw) + st.Muted.Render(right)
	}
	out := []string{cell.Fit(line1, p.w)}
	if p.headerH() > 1 {
		out = append(out, cell.Fit(strings.Repeat(" ", g.gutter)+st.Calls.ID.Render(strings.Join(details, "")), p.w))
	}
	return out
}

// laneTitle names a lane: an item by its name (or type), then its type,
// choice, position and the end of its id; a response by its place, then
// the end of its id and its model.
func (p *Pane) laneTitle(l laneID) (name, detail string) {
	s := p.s
	if i := l.item(); i >= 0 {
		it := s.Items[i]
		name = it.Name
		if name == "" {
			name = it.Type
		}
		var parts []string
		if it.Choice != 0 {
			parts = append(parts, "c"+strconv.Itoa(it.Choice))
		}
		if it.Position >= 0 {
			parts = append(parts, "#"+strconv.Itoa(it.Position))
		}
		id := it.ItemID
		if id == "" {
			id = it.CallID
		}
		if id != "" {
			parts = append(parts, plain.IDEnd(id))
		}
		if it.Name != "" {
			parts = append(parts, plain.Truncate(it.Type, plain.LabelMax))
		}
		return plain.SafeLabel(name), plain.SafeLabel(strings.Join(parts, " "))
	}
	r := l.response()
	if r < 0 || r >= len(s.Responses) {
		return "stream", "before any response"
	}
	resp := s.Responses[r]
	name = "response"
	if len(s.Responses) > 1 {
		name += " " + strconv.Itoa(r+1)
	}
	var parts []string
	if resp.ID != "" {
		parts = append(parts, plain.IDEnd(resp.ID))
	}
	if resp.Model != "" {
		parts = append(parts, plain.Truncate(resp.Model, plain.LabelMax))
	}
	return name, plain.SafeLabel(strings.Join(parts, " "))
}

// row draws row i: the ordinal, then each lane in view, with its mark, its
// lifeline or nothing; "‹" and "›" say the row has marks in lanes out of
// view. Without color it is plain text, for the selected row's
// highlight.
func (p *Pane) row(i, sel int, color bool) string {
	g, st := &p.geo, p.st
	r := &p.idx.rows[i]
	var buf [4]laneCell
	cells := p.idx.cells(i, buf[:0])
	render := func(sty interface{ Render(...string) string }, text string) string {
		if !color {
			return text
		}
		return sty.Render(text)
	}
	left, right := false, false
	for _, c := range cells {
		col := p.idx.colOf(c.lane)
		left = left || (col >= 0 && col < g.col0)
		right = right || col >= g.col0+g.vis
	}
	var b strings.Builder
	b.WriteString(" ")
	b.WriteString(render(st.Timeline.Ord, cell.PadLeft(strconv.Itoa(int(r.ord)), g.ordW)))
	if left {
		b.WriteString(render(st.Muted, "‹"))
	} else {
		b.WriteString(" ")
	}
	mark := p.markOf(r)
	for k := range g.vis {
		lane := g.cols[g.col0+k]
		b.WriteString(p.cell(r, cells, lane, g.spans[k], mark, sel, color))
	}
	line := b.String()
	if right {
		line = cell.Fit(line, p.w-1) + render(st.Muted, "›")
	}
	return cell.Fit(line, p.w)
}

// cell draws lane's part of row r, exactly laneW cells: its mark if the
// row has one in the lane, with the finding marker, glyph and label, else
// its lifeline where it is alive, else blank; without color, plain.
func (p *Pane) cell(r *laneRow, cells []laneCell, lane laneID, sp laneSpan, mark theme.Severity, sel int, color bool) string {
	g, st := &p.geo, p.st
	render := func(sty interface{ Render(...string) string }, text string) string {
		if !color {
			return text
		}
		return sty.Render(text)
	}
	for _, c := range cells {
		if c.lane != lane {
			continue
		}
		marker := " "
		if mark != theme.SevNone {
			marker = render(st.Timeline.Finding[mark], markerGlyph(mark))
		}
		kindStyle := st.Kind(cellEventKind(c.kind))
		label := p.label(r, c, sel, max(g.laneW-4, 1))
		return cell.Fit(marker+render(kindStyle, cellGlyph(c.kind))+" "+render(st.Muted, label), g.laneW)
	}
	switch {
	case int(r.ord) <= sp.from || int(r.ord) > sp.to:
		return g.blank
	case color:
		return g.life
	}
	return g.lifePlain
}

// markerGlyph is the timeline's gutter marker of a severity.
func markerGlyph(sev theme.Severity) string {
	switch sev {
	case theme.SevError:
		return theme.GlyphFindingErr
	case theme.SevWarning:
		return theme.GlyphFindingWarn
	}
	return theme.GlyphFindingInfo
}

// cellGlyph draws a mark.
func cellGlyph(k cellKind) string {
	switch k {
	case cellOpen, cellStart:
		return theme.GlyphLaneOpen
	case cellArgs:
		return theme.GlyphLaneArgs
	case cellText:
		return theme.GlyphLaneText
	case cellFinal:
		return theme.GlyphLaneFinal
	case cellDone, cellWhole:
		return theme.GlyphLaneDone
	case cellTerminal:
		return theme.GlyphLaneTerminal
	case cellError:
		return theme.GlyphFailed
	case cellSentinel:
		return theme.GlyphLaneSentinel
	}
	return theme.GlyphLaneTouch
}

// cellEventKind is the event kind whose timeline colour a mark takes.
func cellEventKind(k cellKind) model.Kind {
	switch k {
	case cellOpen:
		return model.KindItemOpen
	case cellArgs:
		return model.KindArgsDelta
	case cellText:
		return model.KindTextDelta
	case cellFinal:
		return model.KindArgsDone
	case cellDone, cellWhole:
		return model.KindItemDone
	case cellTerminal:
		return model.KindTerminal
	case cellError:
		return model.KindError
	case cellKeepalive:
		return model.KindKeepalive
	case cellSentinel:
		return model.KindSentinel
	}
	return model.KindLifecycle
}

// label says in w cells what the row's event did to the lane: the
// fragment a delta added, how many deltas a run holds and how much they
// added (which of them is selected, and its fragment, when one is), a
// status, a type.
func (p *Pane) label(r *laneRow, c laneCell, sel, w int) string {
	s := p.s
	ord := int(r.ord)
	ev := s.Events.At(ord)
	if i := c.lane.item(); i >= 0 {
		it := s.Items[i]
		text := p.itemLabel(it, r, c.kind, sel)
		if r.n == 1 {
			if ch := idChange(it, ord); ch != "" {
				text += " " + ch
			}
		}
		if (c.kind == cellDone || c.kind == cellWhole) && it.IsCall() {
			b, v := it.FinalArgsViewAsOf(ord)
			text += " " + plain.Bytes(int64(max(len(b), len(v))))
		}
		return truncateCells(text, w)
	}
	var resp *model.Response
	if ri := c.lane.response(); ri >= 0 && ri < len(s.Responses) {
		resp = s.Responses[ri]
	}
	return truncateCells(p.responseLabel(resp, ev, ord, c.kind), w)
}

// itemLabel is label for an item's lane.
func (p *Pane) itemLabel(it *model.Item, r *laneRow, k cellKind, sel int) string {
	ord := int(r.ord)
	switch k {
	case cellArgs, cellText:
		if r.n > 1 {
			return p.runLabel(it, r, sel)
		}
		if frag, ok := itemFragment(it, ord); ok {
			return "+" + plain.QuoteShort(frag)
		}
		return "delta"
	case cellOpen:
		if frag, ok := itemFragment(it, ord); ok && frag != "" {
			return "+" + plain.QuoteShort(frag)
		}
		return "open"
	case cellWhole, cellDone:
		text := "done"
		if k == cellWhole {
			text = "open+done"
		}
		if st := it.Status.AsOf(ord); st != "" && st != "completed" {
			text += " " + plain.SafeLabel(st)
		}
		return text
	case cellFinal:
		if ev := p.s.Events.At(ord); ev.Kind == model.KindArgsDone {
			b, v := it.FinalArgsViewAsOf(ord)
			return "args " + plain.Bytes(int64(max(len(b), len(v))))
		}
		return "text done"
	case cellError:
		return p.errorText(ord)
	}
	return p.typeLabel(p.s.Events.At(ord), ord, nil)
}

// runLabel describes a run of deltas: how many, and the bytes they added;
// with the selection in the run, which delta it is and its fragment.
func (p *Pane) runLabel(it *model.Item, r *laneRow, sel int) string {
	n := int(r.n)
	if sel >= int(r.ord) && sel <= r.last() {
		text := strconv.Itoa(sel-int(r.ord)+1) + "/" + strconv.Itoa(n)
		if frag, ok := itemFragment(it, sel); ok {
			text += " +" + plain.QuoteShort(frag)
		}
		return text
	}
	text := "×" + strconv.Itoa(n)
	for _, b := range []*model.Buffer{&it.Args, &it.Text, it.Refusal, it.Sign} {
		start, _, ok := b.FragmentAt(int(r.ord))
		if !ok {
			continue
		}
		if _, end, ok := b.FragmentAt(r.last()); ok {
			text += " " + plain.Bytes(int64(end-start))
		}
		break
	}
	return text
}

// idChange says which id of it event ord named otherwise than the item
// is known by ("item_id→…0865"), or "".
func idChange(it *model.Item, ord int) string {
	for _, x := range it.IDs {
		if x.Ordinal != ord || x.Value == "" {
			continue
		}
		own := it.CallID
		switch x.Field {
		case "item_id":
			own = it.ItemID
		case "name":
			own = it.Name
		}
		if x.Value != own {
			return plain.SafeLabel(x.Field + "→" + plain.IDEnd(x.Value))
		}
	}
	return ""
}

// itemFragment is the start of the fragment event ord added to it: to
// its arguments, text, refusal or signature.
func itemFragment(it *model.Item, ord int) (string, bool) {
	for _, b := range []*model.Buffer{&it.Args, &it.Text, it.Refusal, it.Sign} {
		if frag, ok := plain.Fragment(b, ord); ok {
			return frag, true
		}
	}
	return "", false
}

// responseLabel is label for a response's lane (resp nil: the stream's).
func (p *Pane) responseLabel(resp *model.Response, ev *model.Event, ord int, k cellKind) string {
	switch k {
	case cellError:
		return p.errorText(ord)
	case cellSentinel:
		return model.TypeDone
	case cellTerminal:
		if resp != nil && (chunkType(p.s.TypeName(ev.Type)) || ev.Kind == model.KindSentinel) {
			return plain.SafeLabel(resp.Status.AsOf(ord))
		}
	}
	return p.typeLabel(ev, ord, resp)
}

// typeLabel names an event by its type (an HTTP head by its status line),
// or, for the dialects whose every
// event has one type (a Chat chunk, a Gemini chunk), by what it changed
// in the response: a status, a finish reason.
func (p *Pane) typeLabel(ev *model.Event, ord int, resp *model.Response) string {
	if ev.Source == capture.FrameHead {
		for _, h := range p.s.Heads {
			if h.Ordinal == ord {
				return plain.SafeLabel(h.Proto) + " " + strconv.Itoa(h.Status)
			}
		}
	}
	typ := p.s.TypeName(ev.Type)
	if !chunkType(typ) {
		return plain.ShortType(plain.SafeLabel(typ), 1<<30)
	}
	if resp != nil {
		for _, cf := range resp.Finish {
			for _, c := range cf.Reasons {
				if c.Ordinal == ord {
					return "finish " + plain.SafeLabel(c.Value)
				}
			}
		}
		for i, c := range resp.Status {
			if c.Ordinal == ord && (i == 0 || ord == resp.First) {
				return plain.SafeLabel(c.Value)
			}
		}
	}
	return "chunk"
}

// chunkType reports whether typ is the one type of every event of a
// dialect (a Chat or Gemini chunk, an Ollama line: model.NamedByShape):
// it says nothing of what the event did.
func chunkType(typ string) bool { return model.NamedByShape(typ) }

// errorText is the message of the error event ord reported.
func (p *Pane) errorText(ord int) string {
	for _, e := range p.s.Errors {
		if e.Ordinal == ord {
			if e.Code != "" {
				return plain.SafeLabel(e.Code) + ": " + plain.SafeLabel(e.Message)
			}
			return plain.SafeLabel(e.Message)
		}
	}
	return "error"
}

// truncateCells cuts s, already terminal-safe, to w cells.
func truncateCells(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, theme.GlyphEllipsis)
}
