package inspector

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/doc"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/pane"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// sideBySideMax is the size up to which the values of sources that
// disagree are shown whole beside each other; of larger ones the pane
// shows the size and the part that differs.
const sideBySideMax = 64 << 10

// callsPane shows every tool call, message text and reasoning item as it
// stood at the selected event: arguments shrink back to what had arrived,
// the fragment the event added is marked, and the JSON state is named.
// Arguments and text are laid out lazily (see doc), so a 50 MB argument
// shows at once from its first byte and scrolls to its last.
type callsPane struct {
	pane.Base
	s    *model.Session
	st   *theme.Styles
	keys *keys.Map
	w, h int

	scroll int
	start  int // first item laid out
	more   int // items after the laid-out window
	firstH int // lines of the first laid-out item
	key    callsKey
	laid   bool // list is laid out for key
	dirty  bool // a document in the window finished indexing: lay out again
	list   lineList
	focus  int // header line of the selected event's item, -1 if none
	mark   int // first line holding the selected event's fragment, -1 if none
	// markEnd is the last line of what the selected event brought that the
	// view should show whole (the sources it made disagree), else mark.
	markEnd int
	// jump says the view should still move to the selected item and its
	// fragment, whose line waits for the fragment's document to be indexed
	// as far as pend (at byte pendAt, the doc starting at line pendBase).
	jump     bool
	pend     *doc.Layout
	pendAt   int
	pendBase int
	bottom   bool                       // G waits for the document being indexed
	docs     map[callDocKey]*doc.Layout // the documents laid out, kept while they stay in the window
}

type callsKey struct{ ord, w, n int }

// callDocKey names one laid-out text of an item as of an event.
type callDocKey struct {
	it     *model.Item
	buf    int // 0 arguments, 1 text, 2 refusal
	ord, w int
	n      int // bytes as of ord
	closed bool
}

// newCallsPane returns the calls pane, pointed at no session yet.
func newCallsPane(st *theme.Styles, keys *keys.Map) *callsPane { return &callsPane{st: st, keys: keys} }

func (c *callsPane) Title() string { return "calls" }

func (c *callsPane) Attach(s *model.Session) { *c = callsPane{s: s, st: c.st, keys: c.keys} }

func (c *callsPane) SetSize(w, h int) { c.w, c.h = w, max(h, 1) }

func (c *callsPane) Restyle() { c.key = callsKey{ord: -2} }

func (c *callsPane) ShortHelp() []key.Binding {
	k := c.keys
	return []key.Binding{k.Nav.Down, k.Nav.Up, k.Inspect.Copy, k.Stream.StepBack, k.Stream.StepFwd}
}

// Update scrolls on a navigation key, and takes the results of work.
func (c *callsPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if delta, ok := keys.NavDelta(c.keys, msg, c.h); ok {
			c.scrollBy(delta)
		}
	case doc.IndexedMsg:
		c.applyIndex(msg)
	}
	return nil
}

func (c *callsPane) Wheel(delta int) { c.scrollBy(delta) }

// scrollBy scrolls by lines. Only a window of items is laid out (a frame
// must not cost O(items)), so scrolling past either end of the window moves
// the window by one item. A document still being indexed ends the window:
// scrolling into it lays out a page more, and G waits for its end.
func (c *callsPane) scrollBy(n int) {
	c.jump, c.pend, c.bottom = false, nil, false
	next := c.scroll + n
	if d, at := c.list.incomplete(); d != nil && next+c.h > c.list.len() {
		d.Extend(next+c.h-at, doc.SyncBudget)
		if n >= 1<<29 && !d.Done() {
			c.bottom = true
		}
		c.scroll = cell.Clamp(next, 0, max(c.list.len()-c.h, 0))
		return
	}
	switch {
	case next > c.list.len()-c.h && c.more > 0:
		c.start++
		c.scroll = max(c.scroll+n-c.firstH, 0)
		c.laid = false
	case next < 0 && c.start > 0:
		c.start--
		c.scroll = 0
		c.laid = false
	default:
		c.scroll = cell.Clamp(next, 0, max(c.list.len()-c.h, 0))
	}
}

func (c *callsPane) View(ord int, _ bool) string {
	c.prepare(ord)
	if c.jump && c.pend != nil {
		if l := c.pend.LineOf(c.pendAt, false); l >= 0 {
			c.mark, c.markEnd, c.pend = c.pendBase+l, c.pendBase+l, nil
			c.reveal()
		}
	}
	if d, at := c.list.incomplete(); d != nil {
		// Lay out as much of the document as the screen shows, at once.
		d.Extend(c.scroll+c.h-at, doc.SyncBudget)
	}
	c.scroll = cell.Clamp(c.scroll, 0, max(c.list.len()-c.h, 0))
	return strings.Join(cell.Block(c.list.slice(c.scroll, c.scroll+c.h, c.st), c.w, c.h), "\n")
}

// Work starts indexing the document that ends the window, and judging
// the JSON state of big arguments, whatever is still to do, as of event
// ord.
func (c *callsPane) Work(ord int) tea.Cmd {
	c.prepare(ord)
	var cmds []tea.Cmd
	for _, d := range c.docs {
		cmds = append(cmds, d.IndexCmd())
	}
	return tea.Batch(cmds...)
}

// applyIndex takes an index command's result; once the document is done,
// the window is laid out again to go on past it.
func (c *callsPane) applyIndex(msg doc.IndexedMsg) {
	for _, d := range c.docs {
		if d.Spec != msg.Spec {
			continue
		}
		d.Apply(msg)
		if d.Done() || msg.State != nil {
			c.dirty = true // go on past it, or show its JSON state
		}
	}
}

// Status says what the pane is still working on, for its title.
func (c *callsPane) Status() string {
	if d, _ := c.list.incomplete(); d != nil {
		return fmt.Sprintf("indexing %d%%", int(100*d.Progress()))
	}
	return ""
}

// prepare lays out the pane for ord, once per (ord, width, events, window).
func (c *callsPane) prepare(ord int) {
	k := callsKey{ord: ord, w: c.w, n: c.s.Len()}
	if k == c.key && c.laid && !c.dirty {
		return
	}
	moved := k.ord != c.key.ord || k.w != c.key.w
	c.key, c.laid, c.dirty = k, true, false
	c.list, c.focus, c.mark, c.markEnd, c.more, c.pend = lineList{}, -1, -1, -1, 0, nil
	old := c.docs
	c.docs = map[callDocKey]*doc.Layout{}
	defer func() {
		// G waited for the document that ended the window: go on now.
		if d, _ := c.list.incomplete(); c.bottom && d == nil {
			c.bottom = false
			if c.scrollBy(1 << 30); !c.laid {
				c.prepare(ord)
			}
		}
	}()
	if ord < 0 {
		c.list.add(c.st.Muted.Render("no event selected"))
		return
	}
	items, ncalls := shownItems(c.s, ord)
	var sel *model.Item
	if ev := c.s.Events.At(ord); ev.Item >= 0 && int(ev.Item) < len(c.s.Items) {
		sel = c.s.Items[ev.Item]
	}
	if moved {
		c.start, c.scroll, c.jump, c.bottom = 0, 0, true, false
		for i, it := range items {
			if it == sel {
				c.start = max(i-1, 0)
			}
		}
	}
	c.start = cell.Clamp(c.start, 0, max(len(items)-1, 0))
	c.list.add(c.st.Muted.Render(fmt.Sprintf("as of event #%d: %s, %s", ord, plain.CountOf(ncalls, "call"), plain.CountOf(len(items), "item"))))
	if len(items) == 0 {
		c.list.add("", c.st.Muted.Render("nothing assembled yet"))
	}
	if c.start > 0 {
		c.list.add(c.st.Muted.Render("↑ " + plain.CountOf(c.start, "earlier item")))
	}
	budget := c.scroll + 3*c.h
	for i := c.start; i < len(items); i++ {
		if c.list.len() > budget {
			c.more = len(items) - i
			c.list.add("", c.st.Muted.Render("↓ "+plain.CountOf(c.more, "more item")))
			break
		}
		it := items[i]
		before := c.list.len()
		c.list.add("")
		if it == sel {
			c.focus = c.list.len()
		}
		c.item(it, ord, it == sel, old)
		if i == c.start {
			c.firstH = c.list.len() - before
		}
		if d, _ := c.list.incomplete(); d != nil {
			// The rest waits until the document's length is known.
			c.more = len(items) - i - 1
			c.list.add(c.st.Muted.Render("⋯ laying out the rest"))
			break
		}
	}
	switch {
	case !c.jump, c.pend != nil: // nothing to do, or wait for the fragment's line
	case c.focus >= 0:
		c.reveal()
	default:
		c.jump = false
	}
}

// reveal scrolls so that the selected event's item, and the fragment or
// the disagreement it brought, are in view.
func (c *callsPane) reveal() {
	c.jump = false
	target := c.focus
	end := max(c.focus, c.mark, c.markEnd)
	if c.mark >= 0 && c.mark-c.focus >= c.h-1 {
		target = c.mark - c.h/2
	}
	if c.focus < c.scroll || end >= c.scroll+c.h {
		c.scroll = max(target-1, 0)
	}
	if c.mark >= 0 && end >= c.scroll+c.h {
		// Show what the event brought whole, or at least its start.
		c.scroll = max(min(end-c.h+1, c.mark), 0)
	}
}

// docFor returns the laid-out document of an item's text as of an event,
// from the previous layout when it is still the same, with the fragment
// [ms, me) marked.
func (c *callsPane) docFor(k callDocKey, old map[callDocKey]*doc.Layout, src []byte, mode doc.Mode, ms, me int) *doc.Layout {
	d := old[k]
	if d == nil {
		sp := &doc.Spec{Src: src, Mode: mode, W: c.w, Prefix: "  ", MarkStart: ms, MarkEnd: me}
		if mode == doc.JSON {
			d = doc.NewJudged(sp, k.closed)
		} else {
			d = doc.New(sp)
		}
	}
	c.docs[k] = d
	return d
}

// addDoc appends d to the pane; for the selected item it notes the line
// that shows the fragment starting at byte ms, or waits for the layout to
// get there.
func (c *callsPane) addDoc(d *doc.Layout, ms int, selected bool) {
	base := c.list.len()
	c.list.addDoc(d)
	if !selected || ms < 0 || c.mark >= 0 || c.pend != nil {
		return
	}
	if l := d.LineOf(ms, true); l >= 0 {
		c.mark, c.markEnd = base+l, base+l
	} else {
		c.pend, c.pendAt, c.pendBase = d, ms, base
	}
}

// shownItems returns the items the pane lists as of event ord: the
// calls, reasoning and text begun by then, in output order (the order
// the session indexes each response's items in, and the lanes pane's),
// so that reasoning the model wrote before a call is read before it; and
// how many are calls.
func shownItems(s *model.Session, ord int) ([]*model.Item, int) {
	var items []*model.Item
	calls := 0
	for r := -1; r < len(s.Responses); r++ {
		for _, it := range s.ResponseItems(r) {
			switch {
			case it.First > ord:
			case it.Role == model.RoleCall:
				items = append(items, it)
				calls++
			case it.Role == model.RoleReasoning, it.Role == model.RoleMessage:
				items = append(items, it)
			}
		}
	}
	return items, calls
}

// item lays out one item as of ord.
func (c *callsPane) item(it *model.Item, ord int, selected bool, old map[callDocKey]*doc.Layout) {
	st := c.st
	closed := it.Closed >= 0 && it.Closed <= ord
	status := it.Status.AsOf(ord)
	if status == "" {
		status = "in_progress"
		if closed {
			status = "done"
		}
	}
	glyph, gs := theme.GlyphPending, st.Calls.StateWarn
	switch status {
	case "completed", "done", model.ToolInputAvailable, model.ToolOutputAvailable, model.ToolApprovalResponded:
		glyph, gs = theme.GlyphDone, st.Calls.StateOK
	case "failed", "incomplete", "error", model.ToolInputError, model.ToolOutputError, model.ToolOutputDenied:
		glyph, gs = theme.GlyphFailed, st.Calls.StateErr
	}
	var h strings.Builder
	h.WriteString(gs.Render(glyph) + " ")
	switch it.Role {
	case model.RoleCall:
		name := it.Name
		if name == "" {
			name = "(no name)"
		}
		h.WriteString(st.Calls.Name.Render(plain.SafeLabel(name)))
	case model.RoleReasoning:
		h.WriteString(st.Calls.Header.Render("reasoning"))
	default:
		h.WriteString(st.Calls.Header.Render("text"))
	}
	h.WriteString("  " + gs.Render(plain.SafeLabel(status)))
	if selected {
		h.WriteString(st.Accent.Render("  ◀ this event"))
	}
	ids := "  " + plain.SafeLabel(it.Type)
	if it.CallID != "" {
		ids += "  id " + plain.SafeLabel(it.CallID)
	}
	if it.ItemID != "" {
		ids += "  item " + plain.SafeLabel(it.ItemID)
	}
	if it.Position >= 0 {
		ids += fmt.Sprintf("  #%d", it.Position)
	}
	if it.Choice > 0 {
		ids += fmt.Sprintf("  choice %d", it.Choice)
	}
	c.list.add(h.String(), st.Calls.ID.Render(ids))
	if it.IsCall() {
		c.args(it, ord, closed, selected, old)
		c.run(it, status, ord)
		return
	}
	c.text(it, ord, selected, old)
}

// run lays out what an application's stream said became of a call by ord
// (model.ToolRun): who ran it, its output, its error, the approval it
// waits for; each on one line, cut to a label's length.
func (c *callsPane) run(it *model.Item, status string, ord int) {
	r := it.Run()
	if r == nil {
		return
	}
	st := c.st
	if r.ProviderExecuted || r.Dynamic {
		var who []string
		if r.ProviderExecuted {
			who = append(who, "provider-executed")
		}
		if r.Dynamic {
			who = append(who, "dynamic")
		}
		c.list.add(st.Muted.Render("  " + strings.Join(who, " · ")))
	}
	if r.OutputAt >= 0 && r.OutputAt <= ord {
		c.list.add(st.Muted.Render("  output ") + plain.SafeLabel(string(r.Output)))
	}
	switch status {
	case model.ToolInputError, model.ToolOutputError:
		c.list.add(st.Calls.StateErr.Render("  error ") + plain.SafeLabel(r.Error))
	case model.ToolApprovalRequested:
		c.list.add(st.Calls.StateWarn.Render("  waits for approval ") + plain.SafeLabel(r.ApprovalID))
	}
}

// args lays out a call's arguments as they stood at ord: the ones `calls`
// would report had the stream ended there (a .done's once it has come),
// with the event's fragment marked when they are the fragments, their JSON
// state, and the sources that disagree by then, side by side.
func (c *callsPane) args(it *model.Item, ord int, closed, selected bool, old map[callDocKey]*doc.Layout) {
	st := c.st
	args, frags := finalArgs(it, ord)
	// The statements are strings (the deltas copied): made only when they
	// are shown, never for a healthy call.
	var stmts []model.Statement
	differ := it.SourcesDisagreeAsOf(ord)
	if differ || !frags {
		stmts, _ = it.SourcesAsOf(ord)
	}
	from := ""
	if !frags && len(stmts) > 0 && stmts[0].Name != model.SourceDeltas.String() {
		from = fmt.Sprintf(" (%s #%d)", stmts[0].Name, stmts[0].Ordinal)
	}
	info := st.Muted.Render(fmt.Sprintf("  args %d bytes%s, %s · json ", len(args), from, plain.CountOf(it.ArgsFragmentsAsOf(ord), "fragment")))
	if len(args) == 0 {
		c.list.add(info+st.Calls.StateWarn.Render(model.ArgsState(args, closed).String()), st.Muted.Render("  (no arguments yet)"))
	} else {
		ms, me := -1, -1
		// The fragment is marked only while the fragments are what is
		// shown, and only where the dialect's fragments are spans of them.
		if frags {
			if s, e, ok := it.ArgsFragmentAt(ord); ok && e <= len(args) {
				ms, me = s, e
			}
		}
		d := c.docFor(callDocKey{it: it, ord: ord, w: c.w, n: len(args), closed: closed}, old, args, doc.JSON, ms, me)
		state := st.Muted.Render("checking…") // judged off the event loop, shown when known
		if d.Judged {
			state = c.stateStyle(d.State).Render(d.State.String())
		}
		c.list.add(info + state)
		if c.addDoc(d, ms, selected); !d.Done() {
			return // the rest comes when the arguments are indexed
		}
	}
	if differ {
		c.disagreement("arguments", stmts, string(args), ord, selected)
	}
}

// disagreement lays out the statements of an item's final arguments or
// text that disagree as of ord. When the selected event made one of them
// (a .done, a snapshot), the view goes there.
func (c *callsPane) disagreement(what string, stmts []model.Statement, shown string, ord int, selected bool) {
	start := c.list.len()
	c.list.add(c.st.Calls.StateErr.Render("  sources of the final " + what + " disagree:"))
	c.sideBySide(stmts, shown)
	brought := slices.ContainsFunc(stmts, func(s model.Statement) bool {
		return s.Ordinal == ord && s.Name != model.SourceDeltas.String()
	})
	if selected && brought && c.mark < 0 && c.pend == nil {
		c.mark, c.markEnd = start, c.list.len()-1
	}
}

// finalArgs returns the arguments `calls` reports for a call as of ord,
// and whether they are the fragments received by then, so that the
// event's fragment can be marked in them. They are the assembled bytes as
// they lie whenever they can be: a frame must not copy 20 MB arguments.
func finalArgs(it *model.Item, ord int) ([]byte, bool) {
	frags := it.ArgsAsOf(ord)
	if it.Dialect.Info().ArgsRebuilt {
		return frags, true // rebuilt from values: what calls reports
	}
	b, v := it.FinalArgsViewAsOf(ord)
	switch {
	case b != nil && len(b) == len(frags), b == nil && v == string(frags):
		return frags, true // both prefixes of the assembled bytes, or equal
	case b != nil:
		return b, false
	}
	return []byte(v), false
}

// stateStyle colours a JSON state: fine, still to come, or broken.
func (c *callsPane) stateStyle(s model.JSONState) lipgloss.Style {
	switch {
	case s.Incomplete, s.Empty:
		return c.st.Calls.StateWarn
	case !s.Complete:
		return c.st.Calls.StateErr
	}
	return c.st.Calls.StateOK
}

// text lays out message text or reasoning as of ord, the event's fragment
// marked, then the sources of the text that disagree by then, and the
// refusal.
func (c *callsPane) text(it *model.Item, ord int, selected bool, old map[callDocKey]*doc.Layout) {
	txt := it.FinalTextAsOf(ord)
	if !c.textDoc(it, 1, &it.Text, txt, ord, selected, old) {
		return
	}
	if it.TextSourcesDisagreeAsOf(ord) {
		stmts, _ := it.TextSourcesAsOf(ord)
		c.disagreement("text", stmts, string(txt), ord, selected)
	}
	refusal, _ := it.Refusal.AsOf(ord)
	if len(refusal) > 0 {
		c.list.add(c.st.Calls.StateErr.Render("  refusal:"))
	}
	c.textDoc(it, 2, it.Refusal, refusal, ord, selected, old)
}

// textDoc lays out txt, buffer buf of the item as of ord (1 text, 2
// refusal), with the fragment event ord added marked. It reports whether
// the document is laid out to its end, so what follows it can be.
func (c *callsPane) textDoc(it *model.Item, buf int, b *model.Buffer, txt []byte, ord int, selected bool, old map[callDocKey]*doc.Layout) bool {
	if len(txt) == 0 {
		return true
	}
	ms, me := -1, -1
	if s, e, ok := b.FragmentAt(ord); ok && e <= len(txt) {
		ms, me = s, e
	}
	d := c.docFor(callDocKey{it: it, buf: buf, ord: ord, w: c.w, n: len(txt)}, old, txt, doc.Text, ms, me)
	c.addDoc(d, ms, selected)
	return d.Done()
}

// sideBySide shows the distinct values of the statements in two columns,
// each titled by the sources that state it and the event that did: the
// value shown above (shown) on the left, beside each other one, with the
// differing middle marked.
func (c *callsPane) sideBySide(stmts []model.Statement, shown string) {
	type group struct {
		names []string
		value string
	}
	groups := []group{{value: shown}}
	for _, s := range stmts {
		name := fmt.Sprintf("%s #%d", s.Name, s.Ordinal)
		i := slices.IndexFunc(groups, func(g group) bool { return g.value == s.Value })
		if i < 0 {
			i = len(groups)
			groups = append(groups, group{value: s.Value})
		}
		groups[i].names = append(groups[i].names, name)
	}
	if len(groups[0].names) == 0 { // the value shown is no statement's (output_item.added's)
		groups[0].names = []string{"shown"}
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
			c.list.add("  " + cell.Fit(l, colW) + c.st.Sep.Render(" "+theme.GlyphSep+" ") + r)
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
	out := []string{c.st.Calls.Header.Render(termtext.Safe(name))}
	if len(v) > sideBySideMax {
		out = append(out, c.st.Muted.Render(fmt.Sprintf("(%d bytes)", len(v))))
	} else {
		for _, wl := range theme.WrapSegs(theme.Line{{Text: termtext.Safe(v)}}, w) {
			out = append(out, theme.RenderSegs(wl, c.st))
		}
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
		line += theme.GlyphEllipsis
	}
	line += termtext.Safe(v[from:p]) + c.st.Calls.Diff.Render(termtext.Safe(v[p:len(v)-s])) + termtext.Safe(v[len(v)-s:to])
	if to < len(v) {
		line += theme.GlyphEllipsis
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

// lineList is a pane's content addressed by line: lines laid out whole and
// lazily laid-out documents, in order. A document counts the lines laid
// out so far, so the list grows as it is indexed.
type lineList struct{ parts []linePart }

type linePart struct {
	lines []string
	doc   *doc.Layout
}

// add appends lines laid out whole.
func (l *lineList) add(lines ...string) {
	if n := len(l.parts); n > 0 && l.parts[n-1].doc == nil {
		l.parts[n-1].lines = append(l.parts[n-1].lines, lines...)
		return
	}
	l.parts = append(l.parts, linePart{lines: lines})
}

// addDoc appends a document.
func (l *lineList) addDoc(d *doc.Layout) { l.parts = append(l.parts, linePart{doc: d}) }

func (p *linePart) height() int {
	if p.doc != nil {
		return p.doc.Known()
	}
	return len(p.lines)
}

// len is the number of lines known.
func (l *lineList) len() int {
	n := 0
	for i := range l.parts {
		n += l.parts[i].height()
	}
	return n
}

// incomplete returns the document still being indexed, if any, and the
// line it starts at.
func (l *lineList) incomplete() (*doc.Layout, int) {
	at := 0
	for i := range l.parts {
		if d := l.parts[i].doc; d != nil && !d.Done() {
			return d, at
		}
		at += l.parts[i].height()
	}
	return nil, 0
}

// slice renders lines [from, to).
func (l *lineList) slice(from, to int, st *theme.Styles) []string {
	var out []string
	at := 0
	for i := range l.parts {
		p := &l.parts[i]
		n := p.height()
		if at+n > from && at < to {
			a, b := max(from-at, 0), min(to-at, n)
			if p.doc == nil {
				out = append(out, p.lines[a:b]...)
			} else {
				for _, sl := range p.doc.Lines(a, b) {
					out = append(out, theme.RenderSegs(sl, st))
				}
			}
		}
		at += n
	}
	return out
}
