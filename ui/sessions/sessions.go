package sessions

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/inspector"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/theme"
)

// Msg is a batch of session updates from the proxy's feed.
type Msg struct{ Batch []model.SessionUpdate }

// proxied is the UI's view of one proxied exchange. Its session belongs
// to the proxy: the UI reads it only while holding live's lock, and keeps
// what a row shows of it (dialect, calls, findings) so that drawing the
// list needs no lock.
type proxied struct {
	info      model.Exchange
	live      *model.Live         // nil while the session is evicted (see stored)
	s         *model.Session      // live's session: use it only under its lock
	stored    model.StoredSession // the ended session's copy on disk, or nil
	notKept   string              // why its bytes were not kept (not kept: disk full), when they were let go all the same
	seen      int                 // events the panes have been told about
	dialect   model.Dialect
	calls     int
	findings  findingCounts
	rules     []string // the rule ids of its findings, for the filter
	lastCheck time.Time
	ended     bool
	counted   bool // in Page.pxCount
}

// Session classes, counted for the status line so that drawing it never
// walks the whole list.
const (
	classNone = iota // not in the list yet
	classLive
	classCompleted
	classFailed
	numClasses
)

func (p *proxied) class() int {
	switch {
	case !p.counted:
		return classNone
	case p.info.Outcome == "":
		return classLive
	case p.info.Outcome == "completed":
		return classCompleted
	}
	return classFailed
}

// refresh reads what the row shows from the session, and its findings
// when the stream ended or a second has passed. The lock is held.
func (p *proxied) refresh(check func(*model.Session) []checks.Finding) {
	p.seen = p.s.Len()
	p.dialect, p.calls = p.s.Dialect(), len(p.s.Calls())
	if check != nil && (p.ended || time.Since(p.lastCheck) > time.Second) {
		p.lastCheck = time.Now()
		p.setFindings(check(p.s))
	}
}

// setFindings keeps what the row shows and the filter reads of the
// session's findings.
func (p *proxied) setFindings(fs []checks.Finding) {
	p.findings = countFindings(fs)
	p.rules = p.rules[:0]
	for i := range fs {
		if !slices.Contains(p.rules, fs[i].Rule) {
			p.rules = append(p.rules, fs[i].Rule)
		}
	}
}

// findingCounts counts a session's findings by severity (theme.Severity),
// so that its row says how bad they are, not only how many.
type findingCounts [theme.NumSeverities]int

func countFindings(fs []checks.Finding) findingCounts {
	var c findingCounts
	for i := range fs {
		c[theme.SeverityOf(fs[i].Severity)]++
	}
	return c
}

// worst is the highest severity found, SevNone when there is none.
func (c findingCounts) worst() theme.Severity {
	for s := theme.SevError; s > theme.SevNone; s-- {
		if c[s] > 0 {
			return s
		}
	}
	return theme.SevNone
}

// String is the findings column: a glyph and a count per severity found,
// worst first ("✗1 !2 ◇1"), "0" when there is none.
func (c findingCounts) String() string {
	var parts []string
	for _, s := range []struct {
		sev   theme.Severity
		glyph string
	}{{theme.SevError, theme.GlyphFindingErr}, {theme.SevWarning, theme.GlyphFindingWarn}, {theme.SevInfo, theme.GlyphFindingInfo}} {
		if c[s.sev] > 0 {
			parts = append(parts, s.glyph+strconv.Itoa(c[s.sev]))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, " ")
}

// Page is the proxy's sessions list: a page of its own, fed by
// Sessions messages, from which enter opens one session in the inspector
// (the root shows the inspector while one is open) and esc comes back.
// The sessions are the proxy's (model.Live): the page reads them under
// their lock, and holds the open one's lock while the root runs Update
// and View (see hold).
type Page struct {
	*app.Env
	insp    *inspector.Page
	req     *requestPane // the inspector's pane for the open session's request
	w, h    int
	px      []*proxied
	byID    map[int]*proxied
	pxCount [numClasses]int
	cur     *proxied // the session open in the inspector, or nil
	held    *model.Live
	sl      sessionsPane
	view    listView   // the filter and order (filter.go)
	shown   []*proxied // the sessions the view shows, while it is active

	// Comparing two sessions (diff.go).
	NewDiff NewDiff    // makes the diff page; set by ui's root
	marked  []*proxied // at most two, for d
	diff    DiffPage   // the diff page shown instead of the list, or nil
	diffGen int

	// Sessions kept off the heap (sessions_stored.go).
	blank     *model.Session // what the inspector shows while no session is open
	loadGen   int            // the latest load asked for (see openCmd)
	loading   bool           // a session is loading: keys wait for it (typeAhead)
	typeahead []tea.KeyPressMsg
	replay    []tea.KeyPressMsg // keys typed ahead of a load, for the root (typedAhead)
	dropped   int               // sessions let go past Options.Keep
	notKept   int               // sessions let go without a copy (model.SessionUpdate.NotKept)
	notKeptAs string            // the latest one's reason
}

// New returns the sessions list of a program made with e, and
// the inspector it opens sessions in. Its sessions are live: e's Live is
// set.
func New(e *app.Env) *Page {
	e.Opts.Live = true
	blank := model.NewSession(model.Options{KeepEvents: true})
	in := inspector.New(e, blank)
	in.Live = false
	sp := &Page{Env: e, insp: in, byID: map[int]*proxied{}, blank: blank}
	sp.sl = sessionsPane{st: &e.Styles, follow: !e.Opts.FirstSession}
	sp.req = inspector.Register(in, newRequestPane(&e.Styles, &e.Keys, e.Opts.KeepSecrets))
	in.Back = sp.closeSession
	return sp
}

// handleSessions applies a batch: new sessions join the list; the open
// session's panes learn of the events the proxy added since.
func (sp *Page) handleSessions(batch []model.SessionUpdate) tea.Cmd {
	var cmds []tea.Cmd
	sel := sp.selectedSession()
	for i := range batch {
		u := &batch[i]
		ps := sp.byID[u.Info.ID]
		if u.Relink {
			if ps != nil {
				in := &ps.info
				in.LegOf, in.Step, in.Legs, in.LegsBy = u.Info.LegOf, u.Info.Step, u.Info.Legs, u.Info.LegsBy
			}
			continue
		}
		if ps == nil {
			if u.Live == nil {
				continue // news of a session already let go
			}
			ps = &proxied{live: u.Live, s: u.Live.Session()}
			sp.byID[u.Info.ID] = ps
			sp.insert(ps, u.Info.ID)
		}
		sp.pxCount[ps.class()]--
		ps.info, ps.counted = u.Info, true
		sp.pxCount[ps.class()]++
		ended := u.Ended && !ps.ended
		ps.ended = ps.ended || u.Ended
		if u.Stored != nil {
			ps.stored = u.Stored
		}
		if u.NotKept != "" && ps.notKept == "" {
			ps.notKept = u.NotKept
			sp.notKept++
			sp.notKeptAs = u.NotKept
		}
		if ps == sp.cur {
			cmds = append(cmds, sp.openGrew(ps, ended, u.EndErr)) // its lock is held
			continue
		}
		if ps.live != nil {
			ps.live.Lock()
			ps.refresh(sp.Opts.Checks)
			ps.live.Unlock()
		}
		sp.evict(ps)
	}
	cmds = append(cmds, sp.prune())
	if sp.view.active() {
		sp.reshape(sel)
	}
	sp.sl.clampTo(len(sp.list()))
	return tea.Batch(cmds...)
}

// openGrew tells the inspector about the events the open session got
// since it last heard, and about its end. The session's lock is held.
func (sp *Page) openGrew(ps *proxied, ended bool, err error) tea.Cmd {
	var cmds []tea.Cmd
	if first := ps.seen; ps.s.Len() > first {
		ps.seen = ps.s.Len()
		cmds = append(cmds, sp.insp.Grew(first))
		sp.syncFindings()
	}
	if ended {
		cmds = append(cmds, sp.insp.SourceEnded(err))
		sp.syncFindings()
		ps.setFindings(sp.insp.Findings())
	}
	ps.dialect, ps.calls = ps.s.Dialect(), len(ps.s.Calls())
	sp.req.setExchange(ps.info)
	return tea.Batch(cmds...)
}

// syncFindings keeps what the open session's row shows of its findings
// as the inspector last judged it, so that its row does not judge it
// again within the second.
func (sp *Page) syncFindings() {
	if sp.cur != nil && sp.Opts.Checks != nil {
		sp.cur.setFindings(sp.insp.Findings())
		sp.cur.lastCheck = sp.insp.LastCheck
	}
}

// Release lets go of the lock holdOpen took.
func (sp *Page) Release() { sp.hold(nil) }

// HoldOpen holds the lock of the session open in the inspector, if any
// (see hold).
func (sp *Page) HoldOpen() {
	if sp.cur != nil {
		sp.hold(sp.cur.live)
	}
}

// hold makes l the one proxied session's lock the UI holds, releasing
// the one it held. Update and View hold the open session's lock from
// start to end (the panes read its session), and nothing else.
func (sp *Page) hold(l *model.Live) {
	if sp.held == l {
		return
	}
	if sp.held != nil {
		sp.held.Unlock()
	}
	if l != nil {
		l.Lock()
	}
	sp.held = l
}

// insert adds a session to the list in id order (a request whose body
// came slowly is shown after the ones that started later), keeping the
// cursor on the session it was on, or on the newest when following.
func (sp *Page) insert(ps *proxied, id int) {
	i := len(sp.px)
	for i > 0 && sp.px[i-1].info.ID > id {
		i--
	}
	sp.px = slices.Insert(sp.px, i, ps)
	if sp.view.active() {
		return // reshape keeps the cursor on its session
	}
	switch {
	case sp.sl.follow:
		sp.sl.cursor = len(sp.px) - 1
	case i <= sp.sl.cursor && len(sp.px) > 1:
		sp.sl.cursor++
	}
}

// openSession shows one proxied session in the inspector: the root shows
// the inspector from now on. The session is in memory (see openCmd).
func (sp *Page) openSession(ps *proxied) {
	sp.hold(ps.live)
	sp.cur = ps
	ps.seen = ps.s.Len()
	sp.req.setExchange(ps.info)
	sp.req.scroll = 0
	path := ps.info.Path
	if !sp.Opts.KeepSecrets {
		path = capture.RedactURL(path)
	}
	sp.insp.Open(ps.s, !ps.ended, fmt.Sprintf("#%d %s %s", ps.info.ID, ps.info.Method, path))
	sp.syncFindings()
}

// closeSession goes back to the sessions list: the inspector's Back key.
func (sp *Page) closeSession() {
	if sp.cur != nil && sp.Opts.Checks != nil {
		sp.cur.setFindings(sp.insp.Findings())
	}
	closed := sp.cur
	sp.cur = nil
	if closed != nil {
		closed.refresh(nil) // its lock is held
		sp.evict(closed)
	}
	sp.insp.Close()
	// The inspector lets go of the session too: an evicted one is freed.
	sp.insp.Attach(sp.blank)
}

// handleKey handles a key on the sessions list.
func (sp *Page) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if sp.loading {
		sp.typeAhead(msg)
		return nil
	}
	k := &sp.Keys
	n := len(sp.list())
	page := sp.sl.rows()
	switch {
	case key.Matches(msg, k.Sessions.Filter):
		return sp.openFilter()
	case key.Matches(msg, k.Sessions.Mark):
		sp.toggleMark()
	case key.Matches(msg, k.Sessions.Diff):
		return sp.diffCmd()
	case key.Matches(msg, k.Sessions.Sort):
		sel := sp.selectedSession()
		sp.view.byFindings = !sp.view.byFindings
		sp.reshape(sel)
	case sp.view.query != "" && key.Matches(msg, k.Prompt.Cancel):
		sel := sp.selectedSession()
		sp.view.query = ""
		sp.reshape(sel)
	case key.Matches(msg, k.Sessions.Open):
		if ps := sp.selectedSession(); ps != nil {
			return sp.openCmd(ps)
		}
	case key.Matches(msg, k.Sessions.Follow):
		sp.sl.follow = !sp.sl.follow
		if sp.sl.follow {
			sp.sl.move(n, n)
		}
		if sp.view.byFindings {
			sp.reshape(sp.selectedSession())
		}
	case key.Matches(msg, k.Nav.Up):
		sp.sl.move(-1, n)
	case key.Matches(msg, k.Nav.Down):
		sp.sl.move(1, n)
	case key.Matches(msg, k.Nav.HalfUp):
		sp.sl.move(-page/2, n)
	case key.Matches(msg, k.Nav.HalfDown):
		sp.sl.move(page/2, n)
	case key.Matches(msg, k.Nav.PageUp):
		sp.sl.move(-page, n)
	case key.Matches(msg, k.Nav.PageDown):
		sp.sl.move(page, n)
	case key.Matches(msg, k.Nav.Top):
		sp.sl.move(-n, n)
	case key.Matches(msg, k.Nav.Bottom):
		sp.sl.move(n, n)
	}
	return nil
}

// The sessions list is a page (see page). While a session is open, the
// page is its inspector: the list hands it every message and draws it.

func (sp *Page) Typing() bool {
	if sp.diff != nil {
		return sp.diff.Typing()
	}
	if sp.cur == nil {
		return sp.view.typing
	}
	return sp.insp.Typing()
}

func (sp *Page) Work() tea.Cmd {
	if sp.diff != nil {
		return sp.diff.Work()
	}
	if sp.cur != nil {
		return sp.insp.Work()
	}
	return nil
}

// SetSize sizes the inspector and the list: the whole screen but its
// title, the selected session's line and the help and status lines.
func (sp *Page) SetSize(w, h int) {
	sp.insp.SetSize(w, h)
	if sp.diff != nil {
		sp.diff.SetSize(w, h)
	}
	sp.w, sp.h = w, h
	if app.TooSmall(w, h) {
		return
	}
	sp.sl.setSize(w, h-4)
	sp.sl.clampTo(len(sp.list()))
}

func (sp *Page) Restyle() {
	sp.insp.Restyle()
	if sp.diff != nil {
		sp.diff.Restyle()
	}
}

func (sp *Page) DropLesson() { sp.insp.DropLesson() }

func (sp *Page) Findings() []checks.Finding { return sp.insp.Findings() }

// TypedAhead gives the root the keys typed while a session loaded, once
// it has opened.
func (sp *Page) TypedAhead() []tea.KeyPressMsg {
	keys := sp.replay
	sp.replay = nil
	return keys
}

// Update takes the proxy's sessions, a loaded session, and the inspector's
// messages; keys and the mouse go to the list, or to the inspector while
// a session is open.
func (sp *Page) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case Msg:
		return sp.handleSessions(msg.Batch)
	case sessionLoadedMsg:
		cmd, keys := sp.handleLoaded(msg)
		sp.replay = keys
		return cmd
	case diffReadyMsg:
		return sp.handleDiffReady(msg)
	}
	if sp.diff != nil {
		return sp.updateDiff(msg)
	}
	if inspector.Handles(msg) || sp.cur != nil {
		return sp.insp.Update(msg)
	}
	if sp.view.typing {
		switch msg.(type) {
		case tea.KeyPressMsg, tea.PasteMsg:
			return sp.filterKey(msg)
		}
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return sp.handleKey(msg)
	case tea.MouseClickMsg:
		// Rows start below the title and the column header.
		if n := len(sp.list()); msg.Y-2 >= 0 && sp.sl.offset+msg.Y-2 < n {
			sp.sl.move(sp.sl.offset+msg.Y-2-sp.sl.cursor, n)
		}
	case tea.MouseWheelMsg:
		if delta := inspector.WheelDelta(msg.Mouse()); delta != 0 {
			sp.sl.move(delta, len(sp.list()))
		}
	}
	return nil
}

func (sp *Page) ShortHelp() []key.Binding {
	if sp.diff != nil {
		return append([]key.Binding{sp.Keys.Sessions.Back}, sp.diff.ShortHelp()...)
	}
	if sp.cur != nil {
		return sp.insp.ShortHelp()
	}
	k := &sp.Keys
	// What the list adds to moving comes first, so that at 80 columns the
	// line keeps help and quit.
	return []key.Binding{k.Sessions.Open, k.Sessions.Filter, k.Sessions.Sort, k.App.Help, k.App.Quit, k.Sessions.Mark, k.Sessions.Diff, k.Sessions.Follow, k.Nav.Down, k.Nav.Up}
}

func (sp *Page) HelpLine() string {
	if sp.diff != nil {
		if sp.diff.ShowsSide() || sp.diff.Typing() {
			return sp.diff.HelpLine()
		}
		return keys.ShortHelp(&sp.Styles, sp.ShortHelp(), sp.w)
	}
	if sp.cur != nil {
		return sp.insp.HelpLine()
	}
	if sp.view.typing {
		return sp.filterLine()
	}
	return keys.ShortHelp(&sp.Styles, sp.ShortHelp(), sp.w)
}

// UpdateKeys brings the inspector's keys up to date, then the list's.
func (sp *Page) UpdateKeys() {
	if sp.diff != nil {
		sp.diffKeys()
		return
	}
	sp.insp.UpdateKeys()
	sp.updateListKeys(sp.cur == nil)
}

// updateListKeys enables the list's keys while it is shown, and turns off
// the inspector's: the list has no events.
func (sp *Page) updateListKeys(shown bool) {
	k := &sp.Keys
	k.Sessions.Open.SetEnabled(shown && len(sp.list()) > 0)
	k.Sessions.Follow.SetEnabled(shown)
	k.Sessions.Filter.SetEnabled(shown)
	k.Sessions.Sort.SetEnabled(shown)
	k.Sessions.Mark.SetEnabled(shown && len(sp.list()) > 0)
	k.Sessions.Diff.SetEnabled(shown && sp.NewDiff != nil && len(sp.marked) > 0)
	if !shown {
		return
	}
	for _, b := range []*key.Binding{
		&k.Sessions.Back,
		&k.Search.Search, &k.Search.Filter, &k.Search.Clear, &k.Stream.Save, &k.Stream.Follow,
		&k.Stream.Play, &k.Stream.StepBack, &k.Stream.StepFwd, &k.Inspect.Raw, &k.Inspect.Explain, &k.Inspect.Copy,
		&k.Inspect.NextSlow, &k.Inspect.PrevSlow, &k.Nav.Next, &k.Nav.Prev, &k.Nav.Pane, &k.Nav.Goto,
		&k.Inspect.Cited, &k.Inspect.OpenFinding, &k.View.Zoom, &k.View.Left, &k.View.Right,
	} {
		b.SetEnabled(false)
	}
	k.Stream.Lesson.SetEnabled(false) // a lesson steps through a session's events: open one
	k.Stream.Reveal.SetEnabled(false)
	// While a session loads, esc gives the load up (see typeAhead).
	k.Sessions.Back.SetEnabled(sp.loading)
}
