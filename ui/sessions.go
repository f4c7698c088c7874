package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// screen is what the root shows: the proxy's sessions list or the
// inspector over one stream.
type screen uint8

const (
	screenInspect screen = iota
	screenSessions
)

// SessionUpdate is one exchange's news in a batch: its latest
// model.Exchange, and whether it ended. Its session is Live: the proxy
// models it, and the UI reads it under its lock.
type SessionUpdate struct {
	Info model.Exchange
	// Live is the exchange's session. Only the first update of an
	// exchange is read for it.
	Live   *model.Live
	Ended  bool
	EndErr error
}

// sessionsMsg is a batch of session updates from the proxy's feed.
type sessionsMsg struct{ batch []SessionUpdate }

// Sessions wraps a batch of session updates for Program.Send. The UI
// owns the batch once sent.
func Sessions(batch []SessionUpdate) tea.Msg { return sessionsMsg{batch} }

// proxied is the UI's view of one proxied exchange. Its session belongs
// to the proxy: the UI reads it only while holding live's lock, and keeps
// what a row shows of it (dialect, calls, findings) so that drawing the
// list needs no lock.
type proxied struct {
	info      model.Exchange
	live      *model.Live
	s         *model.Session // live's session: use it only under its lock
	seen      int            // events the panes have been told about
	dialect   model.Dialect
	calls     int
	findings  int
	lastCheck time.Time
	ended     bool
	counted   bool // in Model.pxCount
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
		p.findings = len(check(p.s))
	}
}

// NewSessions returns the inspector of a proxy: a sessions list fed by
// Sessions messages, from which enter opens one session in the panes.
// o.Checks judges each session; o.Live is implied.
func NewSessions(o Options) *Model {
	o.Live = true
	m := New(model.NewSession(model.Options{KeepEvents: true}), o)
	m.proxy = true
	m.screen = screenSessions
	m.live = false
	m.byID = map[int]*proxied{}
	m.sl = sessionsPane{st: &m.st, follow: true}
	m.req = register(m, newRequestPane(&m.st, &m.keys, o.KeepSecrets))
	m.updateKeybindings()
	return m
}

// handleSessions applies a batch: new sessions join the list; the open
// session's panes learn of the events the proxy added since.
func (m *Model) handleSessions(batch []SessionUpdate) tea.Cmd {
	if !m.proxy {
		return nil
	}
	var cmds []tea.Cmd
	for i := range batch {
		u := &batch[i]
		ps := m.byID[u.Info.ID]
		if ps == nil {
			ps = &proxied{live: u.Live, s: u.Live.Session()}
			m.byID[u.Info.ID] = ps
			m.insert(ps, u.Info.ID)
		}
		m.pxCount[ps.class()]--
		ps.info, ps.counted = u.Info, true
		m.pxCount[ps.class()]++
		ended := u.Ended && !ps.ended
		ps.ended = ps.ended || u.Ended
		if ps == m.cur && m.screen == screenInspect {
			cmds = append(cmds, m.openGrew(ps, ended, u.EndErr)) // its lock is held
			continue
		}
		ps.live.Lock()
		ps.refresh(m.o.Checks)
		ps.live.Unlock()
	}
	m.sl.clampTo(len(m.px))
	return tea.Batch(cmds...)
}

// openGrew tells the panes about the events the open session got since
// they last heard, and about its end. The session's lock is held.
func (m *Model) openGrew(ps *proxied, ended bool, err error) tea.Cmd {
	var cmds []tea.Cmd
	if first := ps.seen; ps.s.Len() > first {
		ps.seen = ps.s.Len()
		cmds = append(cmds, m.grew(first))
	}
	if ended {
		cmds = append(cmds, m.sourceEnded(err))
		ps.findings = len(m.find.list)
	}
	ps.dialect, ps.calls = ps.s.Dialect(), len(ps.s.Calls())
	m.req.setExchange(ps.info)
	return tea.Batch(cmds...)
}

// openLive is the lock of the session open in the panes, or nil.
func (m *Model) openLive() *model.Live {
	if m.cur == nil {
		return nil
	}
	return m.cur.live
}

// hold makes l the one proxied session's lock the UI holds, releasing
// the one it held. Update and View hold the open session's lock from
// start to end (the panes read its session), and nothing else.
func (m *Model) hold(l *model.Live) {
	if m.held == l {
		return
	}
	if m.held != nil {
		m.held.Unlock()
	}
	if l != nil {
		l.Lock()
	}
	m.held = l
}

// insert adds a session to the list in id order (a request whose body
// came slowly is shown after the ones that started later), keeping the
// cursor on the session it was on, or on the newest when following.
func (m *Model) insert(ps *proxied, id int) {
	i := len(m.px)
	for i > 0 && m.px[i-1].info.ID > id {
		i--
	}
	m.px = slices.Insert(m.px, i, ps)
	switch {
	case m.sl.follow:
		m.sl.cursor = len(m.px) - 1
	case i <= m.sl.cursor && len(m.px) > 1:
		m.sl.cursor++
	}
}

// openSession shows one proxied session in the inspector panes.
func (m *Model) openSession(ps *proxied) {
	m.hold(ps.live)
	m.cur = ps
	m.screen = screenInspect
	m.live = !ps.ended
	m.query, m.gen, m.filt, m.rep.playing = "", m.gen+1, filter{}, false
	m.attach(ps.s)
	ps.seen = ps.s.Len()
	if m.live {
		m.tl.moveTo(m.tl.len() - 1)
		m.tl.follow = true
	}
	m.focus, m.side = 0, m.indexOf(m.calls)
	m.req.setExchange(ps.info)
	m.req.scroll = 0
	m.runChecks()
	m.handleSize(m.w, m.h)
}

// closeSession goes back to the sessions list.
func (m *Model) closeSession() {
	if m.cur != nil && m.o.Checks != nil {
		m.cur.findings = len(m.find.list)
	}
	if m.cur != nil {
		m.cur.refresh(nil) // its lock is held
	}
	m.cur = nil
	m.screen = screenSessions
	m.rep.playing = false
	m.prompt = prompt{}
}

// sessionsPane is the list of proxied sessions, one row each.
type sessionsPane struct {
	st             *styles
	w, h           int
	cursor, offset int
	follow         bool // the newest session stays selected
}

func (p *sessionsPane) setSize(w, h int) { p.w, p.h = w, max(h, 1) }

func (p *sessionsPane) clampTo(n int) {
	p.cursor = clamp(p.cursor, 0, max(n-1, 0))
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+p.h {
		p.offset = p.cursor - p.h + 1
	}
}

func (p *sessionsPane) move(delta, n int) {
	p.cursor += delta
	p.follow = p.cursor >= n-1
	p.clampTo(n)
}

// sessionCol is one column of the list: its title, its width, and
// whether it is shown only when there is room.
type sessionCol struct {
	title string
	w     int
	right bool
}

// Columns in the order they are shown. The path column takes what is left.
var sessionCols = []sessionCol{
	{"#", 4, true}, {"method", 6, false}, {"path", 0, false}, {"st", 3, true},
	{"model", 14, false}, {"dialect", 9, false}, {"dur", 5, true}, {"ttfb", 5, true},
	{"tfe", 5, true}, {"calls", 5, true}, {"find", 4, true}, {"outcome", 16, false}, {"turn", 10, false},
}

// dropOrder lists the columns given up first when the list is narrow.
var dropOrder = []string{"dialect", "tfe", "ttfb", "model", "find", "dur", "turn", "calls", "method"}

// minPathWidth is the narrowest the path column gets before other columns
// are dropped.
const minPathWidth = 12

// visibleCols picks the columns that fit in w and the path width.
func visibleCols(w int) ([]sessionCol, int) {
	drop := map[string]bool{}
	for i := 0; ; i++ {
		total := 0
		var cols []sessionCol
		for _, c := range sessionCols {
			if !drop[c.title] {
				cols = append(cols, c)
				total += c.w + 1
			}
		}
		pathW := w - total
		if pathW >= minPathWidth || i >= len(dropOrder) {
			return cols, max(pathW, 1)
		}
		drop[dropOrder[i]] = true
	}
}

// view draws the list; it costs O(visible rows).
func (p *sessionsPane) view(list []*proxied, keepSecrets, checked bool) string {
	st := p.st
	cols, pathW := visibleCols(p.w)
	cell := func(c sessionCol, s string) string {
		w := c.w
		if c.title == "path" {
			w = pathW
		}
		if c.right {
			if n := w - ansi.StringWidth(s); n > 0 {
				s = strings.Repeat(" ", n) + s
			}
		}
		return fit(s, w)
	}
	var hdr []string
	for _, c := range cols {
		hdr = append(hdr, cell(c, c.title))
	}
	lines := []string{st.Muted.Render(fit(strings.Join(hdr, " "), p.w))}
	rows := p.h - 1
	if len(list) == 0 {
		lines = append(lines, st.Muted.Render("waiting for requests: point a client's base URL at the proxy"))
	}
	for i := p.offset; i < len(list) && i < p.offset+rows; i++ {
		ps := list[i]
		var parts []string
		for _, c := range cols {
			text, style := ps.cell(c.title, keepSecrets, checked, st)
			parts = append(parts, style.Render(cell(c, text)))
		}
		line := strings.Join(parts, " ")
		if i == p.cursor {
			line = st.Timeline.Selected.Render(fit(stripANSI(line), p.w))
		}
		lines = append(lines, line)
	}
	return strings.Join(block(lines, p.w, p.h), "\n")
}

// cell is the text and style of one column of a session's row. Every
// string from the exchange goes through Safe.
func (p *proxied) cell(col string, keepSecrets, checked bool, st *styles) (string, lipgloss.Style) {
	in := &p.info
	switch col {
	case "#":
		return strconv.Itoa(in.ID), st.Timeline.Ord
	case "method":
		return Safe(in.Method), st.Base
	case "path":
		path := in.Path
		if !keepSecrets {
			path = capture.RedactURL(path)
		}
		return Safe(path), st.Base
	case "st":
		switch {
		case in.Status == 0:
			return "-", st.Muted
		case in.Status >= 400:
			return strconv.Itoa(in.Status), st.Err
		}
		return strconv.Itoa(in.Status), st.OK
	case "model":
		return Safe(in.Model), st.Accent
	case "dialect":
		if d := p.dialect; d != model.DialectUnknown {
			return d.Info().Short, st.Base
		}
		return "-", st.Muted
	case "dur":
		return cellDur(in.Dur), st.Timeline.Time
	case "ttfb":
		return cellDur(in.TTFB), st.Timeline.Time
	case "tfe":
		return cellDur(in.TFE), st.Timeline.Time
	case "calls":
		return strconv.Itoa(p.calls), st.Base
	case "find":
		if !checked {
			return "-", st.Muted
		}
		if p.findings > 0 {
			return strconv.Itoa(p.findings), st.Warn
		}
		return "0", st.Muted
	case "outcome":
		return p.outcome(st)
	case "turn":
		var parts []string
		if in.TurnOf > 0 {
			parts = append(parts, "of #"+strconv.Itoa(in.TurnOf))
		}
		if n := len(in.Unanswered); n > 0 {
			// !N: calls of that turn this request sends no output for.
			parts = append(parts, fmt.Sprintf("!%d", n))
			return strings.Join(parts, " "), st.Warn
		}
		return strings.Join(parts, " "), st.Muted
	}
	return "", st.Base
}

// outcome is how the exchange stands: its final state, or how far it got.
func (p *proxied) outcome(st *styles) (string, lipgloss.Style) {
	in := &p.info
	state := in.Outcome
	if state == "" {
		if in.Status == 0 {
			return glyphPending + " waiting", st.Status.Live
		}
		return glyphPending + " streaming", st.Status.Live
	}
	switch state {
	case "completed":
		return glyphDone + " " + state, st.OK
	case "incomplete", "client-canceled", "empty":
		return "! " + Safe(state), st.Status.Warn
	}
	return glyphFailed + " " + Safe(state), st.Status.Error
}

// cellDur prints a duration in at most five cells, "-" when unknown.
func cellDur(d time.Duration) string {
	switch {
	case d == capture.NoTime || d < 0:
		return "-"
	case d < time.Second:
		return strconv.Itoa(int(d/time.Millisecond)) + "ms"
	case d < 100*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < 100*time.Minute:
		return fmt.Sprintf("%dm%02d", int(d/time.Minute), int(d/time.Second)%60)
	}
	return strconv.Itoa(int(d/time.Hour)) + "h"
}

// sessionsStatus is the status line under the list.
func (m *Model) sessionsStatus() string {
	st := &m.st
	live, failed := m.pxCount[classLive], m.pxCount[classFailed]
	sep := st.Subtle.Render(" · ")
	left := st.Accent.Render(Safe(m.o.Source)) + sep + st.Base.Render(fmt.Sprintf("%d sessions", len(m.px)))
	if live > 0 {
		left += sep + st.Status.Live.Render(fmt.Sprintf("%d live", live))
	}
	if failed > 0 {
		left += sep + st.Status.Warn.Render(fmt.Sprintf("%d not completed", failed))
	}
	right := ""
	if m.notice != "" {
		style := st.Status.Info
		if m.noticeE {
			style = st.Status.Error
		}
		right = style.Render(Safe(m.notice))
	}
	if m.sl.follow {
		if right != "" {
			right += sep
		}
		right += st.Status.Live.Render("follow on")
	}
	return joinLR(left, right, m.w)
}

// renderSessions draws the list screen's panes.
func (m *Model) renderSessions() []string {
	title := m.st.Title.Focused.Render("sessions")
	if n := len(m.px); n > 0 {
		title += m.st.Muted.Render(fmt.Sprintf("  %d/%d", m.sl.cursor+1, n))
	}
	lines := []string{fit(title, m.w)}
	lines = append(lines, strings.Split(m.sl.view(m.px, m.o.KeepSecrets, m.o.Checks != nil), "\n")...)
	return append(lines, m.selectedLine())
}

// selectedLine tells what the row of the selected session cannot: the
// turn it answers, the ids of the calls it leaves unanswered, the error,
// the recording.
func (m *Model) selectedLine() string {
	ps := m.selectedSession()
	if ps == nil {
		return fit("", m.w)
	}
	st, in := &m.st, &ps.info
	sep := st.Subtle.Render(" · ")
	parts := []string{st.Accent.Render(fmt.Sprintf("#%d", in.ID))}
	if in.TurnOf > 0 {
		parts = append(parts, st.Base.Render(fmt.Sprintf("answers #%d", in.TurnOf)))
	}
	if len(in.Unanswered) > 0 {
		parts = append(parts, st.Warn.Render("no tool output for "+Safe(strings.Join(in.Unanswered, ", "))))
	}
	if in.Err != "" {
		parts = append(parts, st.Err.Render(Safe(in.Err)))
	}
	if in.Record != "" {
		parts = append(parts, st.Muted.Render("recorded to "+Safe(in.Record)))
	}
	if len(parts) == 1 {
		parts = append(parts, st.Muted.Render("enter opens it"))
	}
	return fit(strings.Join(parts, sep), m.w)
}

// selectedSession is the session under the list cursor, or nil.
func (m *Model) selectedSession() *proxied {
	if m.sl.cursor >= 0 && m.sl.cursor < len(m.px) {
		return m.px[m.sl.cursor]
	}
	return nil
}

// joinLR puts left and right on one line of w cells; the right side wins
// when both do not fit.
func joinLR(left, right string, w int) string {
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		room := w - ansi.StringWidth(right) - 1
		if room < 10 {
			return fit(left, w)
		}
		left, gap = fit(left, room), 1
	}
	return fit(left+strings.Repeat(" ", gap)+right, w)
}

// handleSessionsKey handles a key on the sessions list.
func (m *Model) handleSessionsKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys
	n := len(m.px)
	page := max(m.sl.h-1, 1)
	switch {
	case key.Matches(msg, k.App.Quit):
		return tea.Quit
	case key.Matches(msg, k.App.Help):
		m.help = true
	case key.Matches(msg, k.Sessions.Open):
		if ps := m.selectedSession(); ps != nil {
			m.openSession(ps)
		}
	case key.Matches(msg, k.Sessions.Follow):
		m.sl.follow = !m.sl.follow
		if m.sl.follow {
			m.sl.move(n, n)
		}
	case key.Matches(msg, k.Nav.Up):
		m.sl.move(-1, n)
	case key.Matches(msg, k.Nav.Down):
		m.sl.move(1, n)
	case key.Matches(msg, k.Nav.HalfUp):
		m.sl.move(-page/2, n)
	case key.Matches(msg, k.Nav.HalfDown):
		m.sl.move(page/2, n)
	case key.Matches(msg, k.Nav.PageUp):
		m.sl.move(-page, n)
	case key.Matches(msg, k.Nav.PageDown):
		m.sl.move(page, n)
	case key.Matches(msg, k.Nav.Top):
		m.sl.move(-n, n)
	case key.Matches(msg, k.Nav.Bottom):
		m.sl.move(n, n)
	}
	return nil
}
