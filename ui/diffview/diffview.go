package diffview

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/inspector"
	"github.com/streamtap/streamtap/ui/keys"
)

// Page is the page of `streamtap A --diff B`: both streams side by side
// (stacked when the terminal is narrow), each a timeline under a header,
// with the selection linked: moving on the active side moves the other to
// the counterpart of the selected event. Rows that differ carry a glyph
// in the gutter, and a panel under both lists the differences at the
// selected events and counts them all.
//
// Stream A arrives as Frames messages, live or from a file, which the page
// hands to A's inspector. Stream B is read by the
// caller and handed over whole (SideRead). Once A has ended and B is read,
// the comparison runs as a command, off the event loop; until then the
// sides move on their own.
//
// enter opens the active side in the normal inspector, at the selected
// event, with every pane (detail, calls, diffs, findings); esc comes back
// with the selection that inspector left. Each side has its inspector;
// B's background work comes back wrapped in a sideMsg so that it reaches
// B's inspector, not A's.
type Page struct {
	*app.Env
	w, h int
	r    diffRects

	side   [2]*diffSide
	active streamdiff.Which
	// open is the side shown in its inspector (enter), or -1: the page.
	open int
	opts streamdiff.Options

	view      *diffView // the comparison, once made
	comparing bool
	// aligned says the sides' rows are lined up (align).
	aligned  bool
	compared time.Duration
	// jumped is where the last n or N stopped, to go on from there while
	// the selections stay where it left them.
	jumped diffJump
	// gotoPrompt is the :N prompt: the sides are timelines, and an
	// event number goes to that event on the active side.
	gotoPrompt inspector.GotoPrompt
	// search is the page's / search over both sides (search.go), typed
	// at searchPrompt.
	search       diffSearch
	searchPrompt searchPrompt
}

// diffJump is where n or N last stopped, and the selections it left.
type diffJump struct {
	ok         bool
	side       streamdiff.Which
	selA, selB int
	at         int
}

// diffSide is one stream of the diff page.
type diffSide struct {
	dp    *Page
	which streamdiff.Which
	name  string
	// in is the side's inspector (enter); tl the side's timeline on the
	// page, over the same session. Both are nil until the side is read.
	in  *inspector.Page
	tl  *inspector.Timeline
	s   *model.Session
	rec *streamdiff.Recorder
	sd  *streamdiff.Side // B as read; A once it has ended
	err error            // why the side could not be read
	// seen is the number of events the timeline was told about (A grows
	// while it is live).
	seen    int
	outcome inspector.OutcomeCache // how the stream ended, read once
}

// sideLabel is "A" or "B".
func sideLabel(w streamdiff.Which) string { return "AB"[w&1 : w&1+1] }

// diffPageMsg is a message for the diff page: the root gives every one to
// it.
type diffPageMsg interface{ forDiffPage() }

// SideReadMsg hands over stream B, read whole, or why it could not be.
type SideReadMsg struct {
	Side *streamdiff.Side
	Err  error
}

// comparedMsg is the comparison, laid out for the page.
type comparedMsg struct {
	view *diffView
	took time.Duration
}

// sideMsg carries the result of B's inspector's work back to it.
type sideMsg struct{ msg tea.Msg }

func (SideReadMsg) forDiffPage() {}
func (comparedMsg) forDiffPage() {}
func (sideMsg) forDiffPage()     {}

// Config configures the diff page (NewDiff).
type Config struct {
	// B names stream B until it is read: "b.sse", "sample x".
	B string
	// Compare says what the comparison ignores.
	Compare streamdiff.Options
}

// New returns the diff page of a program made with e: stream A is
// session a, its inspector fed as New's, whose recorder rec was attached
// when a was built; B comes later as a SideRead message.
func New(e *app.Env, a *model.Session, rec *streamdiff.Recorder, d Config) *Page {
	in := inspector.New(e, a)
	dp := &Page{Env: e, open: -1, opts: d.Compare}
	dp.side[0] = &diffSide{dp: dp, which: streamdiff.SideA, name: e.Opts.Source, rec: rec}
	dp.side[1] = &diffSide{dp: dp, which: streamdiff.SideB, name: d.B}
	dp.side[0].attach(in, a)
	in.Back = dp.closeSide
	in.Source = "A " + e.Opts.Source
	e.Keys.Sessions.Back.SetHelp("esc", "back to the diff")
	return dp
}

// attach gives the side its inspector and session, and a timeline of its
// own on the page.
func (sd *diffSide) attach(in *inspector.Page, s *model.Session) {
	sd.in, sd.s = in, s
	sd.tl = inspector.NewTimeline(&sd.dp.Styles, &sd.dp.Keys, sd, sd.dp.Opts.SlowGap)
	sd.tl.Attach(s)
	sd.tl.Follow = in.Live
	sd.tl.Gutter = sd.gutter
	sd.seen = s.Len()
	if sd.dp.w > 0 {
		sd.dp.SetSize(sd.dp.w, sd.dp.h)
	}
}

// The side is its timeline's host (pane.Host).

func (sd *diffSide) Selected() int {
	if sd.tl == nil {
		return -1
	}
	return sd.tl.Selected()
}

func (sd *diffSide) SelectEvent(ord int) { sd.tl.SelectOrd(ord) }

func (sd *diffSide) StopReplay() {}

func (sd *diffSide) IsLive() bool { return sd.in != nil && sd.in.Live }

func (sd *diffSide) Flash(text string, isErr bool) tea.Cmd { return sd.dp.Flash(text, isErr) }

// ended says the side's stream is whole: read, and (A) at its end.
func (sd *diffSide) ended() bool { return sd.s != nil && !sd.in.Live }

// grew tells the timeline about the events A got since it last looked.
func (sd *diffSide) grew() {
	if sd.tl != nil && sd.s.Len() != sd.seen {
		sd.seen = sd.s.Len()
		sd.tl.Appended()
	}
}

// handleMsg handles the messages meant for the page.
func (dp *Page) handleMsg(msg diffPageMsg) tea.Cmd {
	switch msg := msg.(type) {
	case SideReadMsg:
		return dp.handleSideRead(msg)
	case comparedMsg:
		return dp.handleCompared(msg)
	case sideMsg:
		if b := dp.side[1].in; b != nil {
			return tagSideB(b.Update(msg.msg))
		}
	case searchFoundMsg, searchStepMsg:
		return dp.handleSearchMsg(msg)
	}
	return nil
}

// handleSideRead takes stream B: its own inspector, opened on it, and its
// timeline on the page.
func (dp *Page) handleSideRead(msg SideReadMsg) tea.Cmd {
	b := dp.side[1]
	if msg.Err != nil {
		b.err = msg.Err
		return dp.Flash("B: "+msg.Err.Error(), true)
	}
	b.name, b.sd, b.rec = msg.Side.Name, msg.Side, nil
	in := inspector.New(dp.Env, msg.Side.S)
	in.Open(msg.Side.S, false, "B "+msg.Side.Name)
	in.DropLesson()
	in.Back = dp.closeSide
	b.attach(in, msg.Side.S)
	return dp.searchMore(streamdiff.SideB) // a search typed while B was read
}

// Work starts the comparison once both streams are whole, or the work of
// the inspector shown.
func (dp *Page) Work() tea.Cmd {
	if in := dp.opened(); in != nil {
		return dp.tag(in.Work())
	}
	for _, sd := range dp.side {
		if sd.s != nil {
			sd.grew()
		}
	}
	// The search goes on through the events A got since.
	search := dp.searchMore(streamdiff.SideA)
	if dp.view != nil || dp.comparing || !dp.side[0].ended() || dp.side[1].sd == nil {
		return search
	}
	return tea.Batch(search, dp.compareCmd())
}

// compareCmd compares the two streams off the event loop. Both sessions
// have ended, so the command reads what nothing changes any more; the
// sessions' lazily sorted item lists are put in order here first, on the
// loop, so that the command's reads and the panes' never race on them.
func (dp *Page) compareCmd() tea.Cmd {
	a, b := dp.side[0], dp.side[1]
	a.sd = streamdiff.NewSide(a.name, a.s, a.rec)
	a.s.ItemsAsOf(-1)
	b.s.ItemsAsOf(-1)
	dp.comparing = true
	sa, sb, opts := a.sd, b.sd, dp.opts
	return func() tea.Msg {
		start := time.Now()
		res := streamdiff.Compare(sa, sb, opts)
		return comparedMsg{newDiffView(res, sa, sb), time.Since(start)}
	}
}

// handleCompared shows the comparison, at its first difference.
func (dp *Page) handleCompared(msg comparedMsg) tea.Cmd {
	dp.view, dp.comparing, dp.compared = msg.view, false, msg.took
	for _, sd := range dp.side {
		sd.tl.Invalidate() // the gutters have marks now
	}
	dp.align()
	if !dp.view.res.Equal() {
		// From the top of each side, whatever it showed while it was read
		// (a live A followed its tail): the first screen is the same
		// whether the terminal's size came before the comparison or after.
		for _, sd := range dp.side {
			sd.tl.ScrollTo(0)
		}
		dp.jump(1, true)
		return nil
	}
	// Nothing to jump to: the other side joins the event the active one
	// shows (a live A followed its tail while B stood at its start).
	dp.link(dp.active)
	return nil
}

// linked says whether the selections follow each other: events were
// aligned (one dialect).
func (dp *Page) linked() bool {
	return dp.view != nil && dp.view.res.Mode != "semantic"
}

// link moves the side other than w to the counterpart of w's selection:
// exact, or the nearest (see streamdiff.Links.Counterpart); to the first
// event when there is none.
func (dp *Page) link(w streamdiff.Which) {
	from, to := dp.side[w], dp.side[w^1]
	if !dp.linked() || from.tl == nil || to.tl == nil {
		return
	}
	ord, _ := dp.view.links.Counterpart(w, from.Selected())
	to.tl.SelectOrd(max(ord, 0))
}

// counterpart says how the passive side's selection stands to the active
// side's: the exact counterpart (none false, near false), the nearest
// (near), or there is none (none).
func (dp *Page) counterpart() (near, none bool) {
	act, pas := dp.side[dp.active], dp.side[dp.active^1]
	if !dp.linked() || act.tl == nil || pas.tl == nil {
		return false, false
	}
	ord, exact := dp.view.links.Counterpart(dp.active, act.Selected())
	if ord < 0 {
		return false, true
	}
	return !exact || ord != pas.Selected(), false
}

// jump goes to the next (dir 1) or previous (dir -1) difference on the
// active side; from the start when fromStart.
func (dp *Page) jump(dir int, fromStart bool) {
	if dp.view == nil {
		return
	}
	w := dp.active
	sel := dp.side[w].Selected()
	at := 2 * sel
	switch {
	case fromStart:
		at = -2
	case dp.jumped.ok && dp.jumped.side == w && dp.jumped.selA == dp.side[0].Selected() && dp.jumped.selB == dp.side[1].Selected():
		at = dp.jumped.at
	}
	stop, ok := dp.view.next(w, at, dir)
	if !ok {
		return
	}
	if first := dp.view.firstOn(w, stop.diff); first >= 0 {
		dp.side[w].tl.SelectOrd(first)
		dp.link(w)
	} else if other := dp.view.firstOn(w^1, stop.diff); other >= 0 {
		dp.side[w^1].tl.SelectOrd(other)
		dp.link(w ^ 1)
	}
	dp.jumped = diffJump{ok: true, side: w, selA: dp.side[0].Selected(), selB: dp.side[1].Selected(), at: stop.at}
}

func (dp *Page) DropLesson() { dp.side[0].in.DropLesson() }

func (dp *Page) Findings() []checks.Finding { return dp.side[0].in.Findings() }

// opened is the inspector shown instead of the page, or nil.
func (dp *Page) opened() *inspector.Page {
	if dp.open < 0 {
		return nil
	}
	return dp.side[dp.open].in
}

// openSide shows the active side in its inspector, at the selected event.
func (dp *Page) openSide() {
	sd := dp.side[dp.active]
	if sd.in == nil {
		return
	}
	sd.in.SetSize(dp.w, dp.h)
	if sel := sd.Selected(); sel >= 0 {
		sd.in.Show(sel)
	}
	dp.open = int(dp.active)
}

// closeSide comes back from a side's inspector (its Back key), with the
// selection it left, linked.
func (dp *Page) closeSide() {
	if dp.open < 0 {
		return
	}
	sd := dp.side[dp.open]
	sd.in.Close()
	if sel := sd.in.Selected(); sel >= 0 {
		sd.tl.SelectOrd(sel)
	}
	dp.active, dp.open = sd.which, -1
	dp.link(sd.which)
}

// tag addresses the messages of cmd, work of the inspector shown, to
// that inspector: B's are wrapped, A's come back as they are, and update
// hands them to A's inspector.
func (dp *Page) tag(cmd tea.Cmd) tea.Cmd {
	if dp.open == int(streamdiff.SideB) {
		return tagSideB(cmd)
	}
	return cmd
}

// tagSideB wraps the messages of cmd that the inspector handles (the
// results of its work) in a sideMsg, so that they reach B's inspector;
// other messages (the clipboard, a notice's fade) pass as they are. A
// tea.Batch is wrapped command by command.
func tagSideB(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		switch msg := cmd().(type) {
		case tea.BatchMsg:
			out := make(tea.BatchMsg, len(msg))
			for i, c := range msg {
				out[i] = tagSideB(c)
			}
			return out
		default:
			if inspector.Handles(msg) {
				return sideMsg{msg}
			}
			return msg
		}
	}
}

// Update takes the page's messages, A's inspector's (A is read into it
// as into any inspector), and a key, the mouse or a paste: the
// inspector's while one is shown, else the page's.
func (dp *Page) Update(msg tea.Msg) tea.Cmd {
	if m, ok := msg.(diffPageMsg); ok {
		return dp.handleMsg(m)
	}
	if inspector.Handles(msg) {
		return dp.side[0].in.Update(msg)
	}
	if in := dp.opened(); in != nil {
		return dp.tag(in.Update(msg))
	}
	if dp.gotoPrompt.Active() {
		return dp.handleGoto(msg)
	}
	if dp.searchPrompt.on {
		text, done, cmd := dp.searchPrompt.update(&dp.Keys, msg)
		if done {
			return dp.applySearch(strings.TrimSpace(text))
		}
		return cmd
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return dp.handleKey(msg)
	case tea.MouseClickMsg:
		dp.handleClick(msg.Mouse())
	case tea.MouseWheelMsg:
		dp.handleWheel(msg.Mouse())
	}
	return nil
}

// handleKey: tab, /, n, N, esc and enter are the page's; the navigation
// keys move the active side's timeline, and the other follows. n and N go
// to the matches of a search while one has matches, else to the
// differences.
func (dp *Page) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &dp.Keys
	switch {
	case key.Matches(msg, k.Nav.Goto) && dp.side[dp.active].tl != nil:
		return dp.gotoPrompt.Open(&dp.Styles, dp.w)
	case msg.String() == "/":
		return dp.searchPrompt.open(&dp.Styles, dp.search.query, dp.w)
	case key.Matches(msg, k.Diff.Side):
		if dp.side[dp.active^1].tl != nil {
			dp.active ^= 1
		}
	case dp.searching() && msg.String() == "n":
		dp.jumpMatch(1)
	case dp.searching() && msg.String() == "N":
		dp.jumpMatch(-1)
	case dp.search.query != "" && msg.String() == "esc":
		dp.clearSearch()
	case key.Matches(msg, k.Diff.NextDiff):
		dp.jump(1, false)
	case key.Matches(msg, k.Diff.PrevDiff):
		dp.jump(-1, false)
	case key.Matches(msg, k.Diff.Open):
		dp.openSide()
	default:
		if sd := dp.side[dp.active]; sd.tl != nil {
			sd.tl.Update(msg)
			dp.link(dp.active)
		}
	}
	return nil
}

// handleGoto edits the :N prompt; enter goes to event N on the active
// side, the other side linked to it.
func (dp *Page) handleGoto(msg tea.Msg) tea.Cmd {
	text, done, cmd := dp.gotoPrompt.Update(&dp.Keys, msg)
	if !done {
		return cmd
	}
	sd := dp.side[dp.active]
	ord, problem := inspector.ParseEvent(text, sd.s.Len())
	if problem != "" {
		return dp.Flash(sideLabel(dp.active)+": "+problem, true)
	}
	if ord >= 0 {
		sd.tl.SelectOrd(ord)
		dp.link(dp.active)
	}
	return nil
}

// handleClick makes the side clicked active and selects the row clicked.
func (dp *Page) handleClick(ms tea.Mouse) {
	for w, sd := range dp.side {
		// Each side's rectangle starts with its header line.
		if r := dp.r.side[w]; sd.tl != nil && r.Contains(ms.X, ms.Y) {
			dp.active = streamdiff.Which(w)
			sd.tl.Click(ms.X-r.X, ms.Y-r.Y-1)
			dp.link(dp.active)
		}
	}
}

// handleWheel scrolls the side under the pointer, which becomes active.
func (dp *Page) handleWheel(ms tea.Mouse) {
	delta := inspector.WheelDelta(ms)
	for w, sd := range dp.side {
		if r := dp.r.side[w]; delta != 0 && sd.tl != nil && r.Contains(ms.X, ms.Y) {
			dp.active = streamdiff.Which(w)
			sd.tl.Wheel(delta)
			dp.link(dp.active)
		}
	}
}

// Typing says a prompt takes every key: the page's :N, or one of the
// inspector shown.
func (dp *Page) Typing() bool {
	if in := dp.opened(); in != nil {
		return in.Typing()
	}
	return dp.gotoPrompt.Active() || dp.searchPrompt.on
}

// SetSize lays the page out, and sizes the inspectors enter opens.
func (dp *Page) SetSize(w, h int) {
	dp.side[0].in.SetSize(w, h)
	dp.w, dp.h = w, h
	dp.r = diffLayout(w, h)
	dp.gotoPrompt.SetWidth(w)
	dp.searchPrompt.setWidth(w)
	if b := dp.side[1].in; b != nil {
		b.SetSize(w, h)
	}
	for i, sd := range dp.side {
		if sd.tl != nil && !dp.r.tooSmall {
			// The side's header line, then the timeline with its column
			// header.
			sd.tl.SetSize(dp.r.side[i].W, dp.r.side[i].H-1)
		}
	}
	dp.align()
}

// align lines the sides' rows up while they stand side by side and the
// events were aligned: a filler row stands opposite an event only one
// side has (alignRows). Stacked, each side lists its events alone; and a
// side without events says so rather than show fillers.
func (dp *Page) align() {
	want := dp.view != nil && dp.view.rows[0] != nil && !dp.r.stacked && !dp.r.tooSmall &&
		dp.side[0].s.Len() > 0 && dp.side[1].s.Len() > 0
	if want == dp.aligned {
		return
	}
	dp.aligned = want
	for w, sd := range dp.side {
		if sd.tl == nil {
			continue
		}
		if want {
			sd.tl.SetAligned(dp.view.rows[w])
		} else {
			sd.tl.SetAligned(nil)
		}
	}
}

// Restyle drops what was rendered with the styles before.
func (dp *Page) Restyle() {
	dp.side[0].in.Restyle()
	for _, sd := range dp.side {
		if sd.tl != nil {
			sd.tl.Invalidate()
		}
	}
	if b := dp.side[1].in; b != nil {
		b.Restyle()
	}
}

// UpdateKeys enables the page's keys while it is shown and turns off the
// inspector's that do nothing on it; while a side's inspector is shown,
// that inspector's own keys.
func (dp *Page) UpdateKeys() {
	k := &dp.Keys
	dp.side[0].in.UpdateKeys()
	in := dp.opened()
	if in != nil && in != dp.side[0].in {
		in.UpdateKeys()
	}
	shown := in == nil
	k.Diff.Side.SetEnabled(shown && dp.side[1].tl != nil)
	// n and N are the matches' while a search has some, else the
	// differences'.
	diffs := shown && dp.view != nil && !dp.view.res.Equal() && !dp.searching()
	k.Diff.NextDiff.SetEnabled(diffs)
	k.Diff.PrevDiff.SetEnabled(diffs)
	k.Diff.Open.SetEnabled(shown)
	if !shown {
		return
	}
	k.Nav.Goto.SetEnabled(dp.side[dp.active].tl != nil) // :N on the active side
	k.Search.Search.SetEnabled(dp.side[dp.active].tl != nil)
	k.Search.NextMatch.SetEnabled(dp.searching())
	k.Search.PrevMatch.SetEnabled(dp.searching())
	k.Search.Clear.SetEnabled(dp.search.query != "")
	for _, b := range []*key.Binding{
		&k.Sessions.Back, &k.Nav.Next, &k.Nav.Prev, &k.Nav.Pane, &k.Search.Filter,
		&k.Stream.Save, &k.Stream.Follow, &k.Stream.Play, &k.Stream.StepBack, &k.Stream.StepFwd,
		&k.Stream.Faster, &k.Stream.Slower, &k.Stream.Lesson, &k.Stream.Reveal, &k.View.Zoom, &k.View.Left, &k.View.Right,
		&k.Inspect.Raw, &k.Inspect.Explain, &k.Inspect.Copy, &k.Inspect.NextFinding, &k.Inspect.PrevFinding,
		&k.Inspect.Cited, &k.Inspect.OpenFinding, &k.Inspect.NextSlow, &k.Inspect.PrevSlow,
	} {
		b.SetEnabled(false)
	}
}

// ShortHelp lists the keys that work now.
func (dp *Page) ShortHelp() []key.Binding {
	if in := dp.opened(); in != nil {
		return in.ShortHelp()
	}
	k := &dp.Keys
	if dp.searching() {
		return []key.Binding{k.Search.NextMatch, k.Search.PrevMatch, k.Search.Clear, k.Diff.Side, k.Diff.Open, k.Nav.Down, k.Nav.Up, k.Search.Search, k.App.Help, k.App.Quit}
	}
	return []key.Binding{k.Diff.NextDiff, k.Diff.PrevDiff, k.Diff.Side, k.Diff.Open, k.Nav.Down, k.Nav.Up, k.Search.Search, k.Nav.Goto, k.App.Help, k.App.Quit}
}

// HelpLine is the short help. In a side's inspector the way back comes
// first, where a narrow help line cannot cut it off.
func (dp *Page) HelpLine() string {
	in := dp.opened()
	if in == nil && dp.gotoPrompt.Active() {
		return dp.gotoPrompt.View(&dp.Styles, dp.w)
	}
	if in == nil && dp.searchPrompt.on {
		return dp.searchPrompt.view(&dp.Styles, dp.w)
	}
	if in == nil {
		return keys.ShortHelp(&dp.Styles, dp.ShortHelp(), dp.w)
	}
	if in.Typing() {
		return in.HelpLine()
	}
	back := dp.Keys.Sessions.Back
	list := []key.Binding{back}
	for _, b := range in.ShortHelp() {
		if b.Help() != back.Help() {
			list = append(list, b)
		}
	}
	return keys.ShortHelp(&dp.Styles, list, dp.w)
}
