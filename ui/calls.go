package ui

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/streamtap/streamtap/model"
)

// callsShowMax bounds how many bytes of one call's arguments are laid out;
// beyond it only the tail (where fragments land) is shown.
const callsShowMax = 64 << 10

// callsPane shows every tool call, message text and reasoning item as it
// stood at the selected event: arguments shrink back to what had arrived,
// the fragment the event added is marked, and the JSON state is named.
type callsPane struct {
	s    *model.Session
	st   *styles
	w, h int

	scroll int
	start  int // first item laid out
	more   int // items after the laid-out window
	firstH int // lines of the first laid-out item
	key    callsKey
	lines  []string
	focus  int // header line of the selected event's item, -1 if none
	mark   int // first line holding the selected event's fragment, -1 if none
	// copyText is what y copies: the arguments of the call the selected
	// event belongs to, as of that event.
	copyText string
}

type callsKey struct{ ord, w, n int }

func (c *callsPane) setSize(w, h int) { c.w, c.h = w, max(h, 1) }

// scrollBy scrolls by lines. Only a window of items is laid out (a frame
// must not cost O(items)), so scrolling past either end of the window moves
// the window by one item.
func (c *callsPane) scrollBy(n int) {
	next := c.scroll + n
	switch {
	case next > len(c.lines)-c.h && c.more > 0:
		c.start++
		c.scroll = max(c.scroll+n-c.firstH, 0)
		c.lines = nil
	case next < 0 && c.start > 0:
		c.start--
		c.scroll = 0
		c.lines = nil
	default:
		c.scroll = clamp(next, 0, max(len(c.lines)-c.h, 0))
	}
}

func (c *callsPane) view(ord int) string {
	c.prepare(ord)
	c.scroll = clamp(c.scroll, 0, max(len(c.lines)-c.h, 0))
	end := min(c.scroll+c.h, len(c.lines))
	return strings.Join(block(c.lines[c.scroll:end], c.w, c.h), "\n")
}

// prepare lays out the pane for ord, once per (ord, width, events, window).
func (c *callsPane) prepare(ord int) {
	k := callsKey{ord: ord, w: c.w, n: c.s.Len()}
	if k == c.key && c.lines != nil {
		return
	}
	moved := k.ord != c.key.ord || k.w != c.key.w
	c.key = k
	c.lines, c.focus, c.mark, c.copyText, c.more = nil, -1, -1, "", 0
	if ord < 0 {
		c.lines = []string{c.st.Muted.Render("no event selected")}
		return
	}
	all := c.s.ItemsAsOf(ord)
	items := all[:0]
	ncalls := 0
	for _, it := range all {
		if it.Role != model.RoleOther {
			items = append(items, it)
		}
		if it.IsCall() {
			ncalls++
		}
	}
	// Calls first, then reasoning and text, each in output order.
	sort.SliceStable(items, func(i, j int) bool { return roleRank(items[i]) < roleRank(items[j]) })
	var sel *model.Item
	if ev := c.s.Events.At(ord); ev.Item >= 0 && int(ev.Item) < len(c.s.Items) {
		sel = c.s.Items[ev.Item]
	}
	if moved {
		c.start, c.scroll = 0, 0
		for i, it := range items {
			if it == sel {
				c.start = max(i-1, 0)
			}
		}
	}
	c.start = clamp(c.start, 0, max(len(items)-1, 0))
	c.lines = append(c.lines, c.st.Muted.Render(fmt.Sprintf("as of event #%d: %d call(s), %d item(s)", ord, ncalls, len(items))))
	if len(items) == 0 {
		c.lines = append(c.lines, "", c.st.Muted.Render("nothing assembled yet"))
	}
	if c.start > 0 {
		c.lines = append(c.lines, c.st.Muted.Render(fmt.Sprintf("↑ %d earlier item(s)", c.start)))
	}
	budget := c.scroll + 3*c.h
	for i := c.start; i < len(items); i++ {
		if len(c.lines) > budget {
			c.more = len(items) - i
			c.lines = append(c.lines, "", c.st.Muted.Render(fmt.Sprintf("↓ %d more item(s)", c.more)))
			break
		}
		it := items[i]
		before := len(c.lines)
		c.lines = append(c.lines, "")
		if it == sel {
			c.focus = len(c.lines)
		}
		c.item(it, ord, it == sel)
		if i == c.start {
			c.firstH = len(c.lines) - before
		}
	}
	if moved && c.focus >= 0 {
		// Keep the selected event's item, and the fragment it added, in view.
		target := c.focus
		if c.mark >= 0 && c.mark-c.focus >= c.h-1 {
			target = c.mark - c.h/2
		}
		if c.focus < c.scroll || max(c.focus, c.mark) >= c.scroll+c.h {
			c.scroll = max(target-1, 0)
		}
	}
}

func roleRank(it *model.Item) int {
	switch it.Role {
	case model.RoleCall:
		return 0
	case model.RoleReasoning:
		return 1
	case model.RoleMessage:
		return 2
	}
	return 3
}

// item lays out one item as of ord.
func (c *callsPane) item(it *model.Item, ord int, selected bool) {
	st := c.st
	closed := it.Closed >= 0 && it.Closed <= ord
	status := it.Status.AsOf(ord)
	if status == "" {
		status = "in_progress"
		if closed {
			status = "done"
		}
	}
	glyph, gs := glyphPending, st.Calls.StateWarn
	switch {
	case status == "completed" || status == "done":
		glyph, gs = glyphDone, st.Calls.StateOK
	case status == "failed" || status == "incomplete" || status == "error":
		glyph, gs = glyphFailed, st.Calls.StateErr
	}
	var h strings.Builder
	h.WriteString(gs.Render(glyph) + " ")
	switch it.Role {
	case model.RoleCall:
		name := it.Name
		if name == "" {
			name = "(no name)"
		}
		h.WriteString(st.Calls.Name.Render(Safe(name)))
	case model.RoleReasoning:
		h.WriteString(st.Calls.Header.Render("reasoning"))
	default:
		h.WriteString(st.Calls.Header.Render("text"))
	}
	h.WriteString("  " + gs.Render(Safe(status)))
	if selected {
		h.WriteString(st.Accent.Render("  ◀ this event"))
	}
	ids := "  " + Safe(it.Type)
	if it.CallID != "" {
		ids += "  id " + Safe(it.CallID)
	}
	if it.ItemID != "" {
		ids += "  item " + Safe(it.ItemID)
	}
	if it.Position >= 0 {
		ids += fmt.Sprintf("  #%d", it.Position)
	}
	if it.Choice > 0 {
		ids += fmt.Sprintf("  choice %d", it.Choice)
	}
	c.lines = append(c.lines, h.String(), st.Calls.ID.Render(ids))
	if it.IsCall() {
		c.args(it, ord, closed, selected)
		return
	}
	c.text(it, ord)
}

// args lays out a call's arguments as of ord with the event's fragment
// marked, its JSON state, and the disagreement of its sources.
func (c *callsPane) args(it *model.Item, ord int, closed, selected bool) {
	st := c.st
	args := it.ArgsAsOf(ord)
	state := model.ArgsState(args, closed)
	ss := st.Calls.StateOK
	switch {
	case state.Incomplete, state.Empty:
		ss = st.Calls.StateWarn
	case !state.Complete:
		ss = st.Calls.StateErr
	}
	info := fmt.Sprintf("  args %d bytes, %d fragment(s) · json ", len(args), fragmentsAsOf(&it.Args, ord))
	c.lines = append(c.lines, st.Muted.Render(info)+ss.Render(state.String()))
	if selected {
		c.copyText = string(args)
	}
	if len(args) == 0 {
		c.lines = append(c.lines, st.Muted.Render("  (no arguments yet)"))
	} else {
		ms, me := -1, -1
		// Gemini arguments are rebuilt from partial values, so fragment
		// offsets do not map onto the rendering; mark only plain buffers.
		if it.Dialect != model.DialectGemini {
			if s, e, ok := it.Args.FragmentAt(ord); ok && e <= len(args) {
				ms, me = s, e
			}
		}
		c.json(args, ms, me)
	}
	src, differ := it.SourcesDisagree()
	if !differ || !sourcesKnownBy(it, ord) {
		return
	}
	c.lines = append(c.lines, st.Calls.StateErr.Render("  sources of the final arguments disagree:"))
	c.sideBySide(src)
}

// json lays out (possibly partial) JSON with [ms, me) marked.
func (c *callsPane) json(b []byte, ms, me int) {
	off := 0
	if len(b) > callsShowMax {
		off = len(b) - callsShowMax
		c.lines = append(c.lines, c.st.Muted.Render(fmt.Sprintf("  … %d earlier bytes not shown", off)))
		b = b[off:]
		ms, me = ms-off, me-off
	}
	for _, l := range prettyPartial(b, ms, me) {
		for _, wl := range wrapSegs(append(segLine{{text: "  "}}, l...), c.w) {
			if c.mark < 0 && containsMark(wl) {
				c.mark = len(c.lines)
			}
			c.lines = append(c.lines, renderSegs(wl, c.st))
		}
	}
}

func containsMark(l segLine) bool {
	for _, s := range l {
		if s.mark {
			return true
		}
	}
	return false
}

// text lays out message text or reasoning as of ord, the event's fragment
// marked.
func (c *callsPane) text(it *model.Item, ord int) {
	for _, b := range []struct {
		name string
		buf  *model.Buffer
	}{{"", &it.Text}, {"refusal", it.Refusal}} {
		txt, _ := b.buf.AsOf(ord)
		if len(txt) == 0 {
			continue
		}
		if b.name != "" {
			c.lines = append(c.lines, c.st.Calls.StateErr.Render("  "+b.name+":"))
		}
		ms, me := -1, -1
		if s, e, ok := b.buf.FragmentAt(ord); ok {
			ms, me = s, e
		}
		off := 0
		if len(txt) > callsShowMax {
			off = len(txt) - callsShowMax
			c.lines = append(c.lines, c.st.Muted.Render(fmt.Sprintf("  … %d earlier bytes not shown", off)))
		}
		// Text keeps its line breaks; each piece is made safe on its own.
		var pieces []seg
		for _, r := range [][2]int{{off, max(ms, off)}, {max(ms, off), me}, {max(me, off), len(txt)}} {
			if r[0] < r[1] && r[1] <= len(txt) {
				pieces = append(pieces, seg{text: string(txt[r[0]:r[1]]), mark: r[0] == ms && r[1] == me})
			}
		}
		if ms < 0 {
			pieces = []seg{{text: string(txt[off:])}}
		}
		for _, l := range splitLines(pieces) {
			for _, wl := range wrapSegs(append(segLine{{text: "  "}}, l...), c.w) {
				c.lines = append(c.lines, renderSegs(wl, c.st))
			}
		}
	}
}

// splitLines cuts raw text segments at line breaks into lines of safe
// segments.
func splitLines(pieces []seg) []segLine {
	out := []segLine{nil}
	for _, p := range pieces {
		for i, part := range strings.Split(p.text, "\n") {
			if i > 0 {
				out = append(out, nil)
			}
			if part != "" {
				out[len(out)-1] = append(out[len(out)-1], seg{text: Safe(part), mark: p.mark})
			}
		}
	}
	return out
}

// fragmentsAsOf counts the fragments added by the end of ord.
func fragmentsAsOf(b *model.Buffer, ord int) int {
	_, i := b.AsOf(ord)
	return i + 1
}

// sourcesKnownBy reports whether every stated source had arrived by ord.
func sourcesKnownBy(it *model.Item, ord int) bool {
	last := it.Last
	for name := range model.SourceAdded + 1 { // every source, the placeholder too
		if s := it.Source(name); s.Present {
			last = max(last, s.Ordinal)
		}
	}
	return ord >= last
}

// sideBySide shows the distinct values of the sources in two columns (the
// first beside each other one), each titled by the sources that state it,
// with the differing middle marked.
func (c *callsPane) sideBySide(src map[string]string) {
	type group struct {
		names []string
		value string
	}
	var groups []group
	for _, n := range []string{"deltas", "arguments_done", "item_done", "terminal"} {
		v, ok := src[n]
		if !ok {
			continue
		}
		found := false
		for i := range groups {
			if groups[i].value == v {
				groups[i].names = append(groups[i].names, n)
				found = true
			}
		}
		if !found {
			groups = append(groups, group{[]string{n}, v})
		}
	}
	colW := max((c.w-5)/2, 8)
	for _, other := range groups[1:] {
		a, b := groups[0], other
		left := c.diffCol(strings.Join(a.names, " = "), a.value, b.value, colW)
		right := c.diffCol(strings.Join(b.names, " = "), b.value, a.value, colW)
		for i := range max(len(left), len(right)) {
			var l, r string
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			c.lines = append(c.lines, "  "+fit(l, colW)+c.st.Sep.Render(" "+glyphSep+" ")+r)
		}
	}
}

// diffContext is how much unchanged text the difference line keeps around
// the part that differs.
const diffContext = 16

// diffCol lays out value v (titled name) wrapped to w, then one line with
// the part that differs from other marked and a little context around it.
func (c *callsPane) diffCol(name, v, other string, w int) []string {
	p := commonPrefix(v, other)
	s := commonSuffix(v[p:], other[p:])
	out := []string{c.st.Calls.Header.Render(Safe(name))}
	for _, wl := range wrapSegs(segLine{{text: Safe(v)}}, w) {
		out = append(out, renderSegs(wl, c.st))
	}
	from := p - diffContext
	for from > 0 && !utf8.RuneStart(v[from]) {
		from--
	}
	to := len(v) - s + diffContext/2
	for to < len(v) && !utf8.RuneStart(v[to]) {
		to++
	}
	from, to = max(from, 0), min(to, len(v))
	line := c.st.Muted.Render("≠ ")
	if from > 0 {
		line += glyphEllipsis
	}
	line += Safe(v[from:p]) + c.st.Calls.Diff.Render(Safe(v[p:len(v)-s])) + Safe(v[len(v)-s:to])
	if to < len(v) {
		line += glyphEllipsis
	}
	return append(out, line)
}

// commonPrefix is the length of the common prefix, cut at a rune start.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return n
}

// commonSuffix is the length of the common suffix, cut at a rune start.
func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	for n > 0 && !utf8.RuneStart(a[len(a)-n]) {
		n--
	}
	return n
}
