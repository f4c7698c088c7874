package ui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// Options configure the inspector.
type Options struct {
	// Source names the input in the status bar: "stdin", a path, "sample x".
	Source string
	// Live says the source is still being read: frames will arrive as
	// Frames messages and a SourceDone message will end them.
	Live bool
	// TotalBytes is the size of a file source, to show indexing progress.
	TotalBytes int64
	// NoColor drops colours (NO_COLOR, https://no-color.org).
	NoColor bool
	// KeepSecrets shows credential headers unredacted.
	KeepSecrets bool
	// SlowGap is the gap from which an event counts as slow (default 1s).
	SlowGap time.Duration
	// Save writes the first n bytes of the capture somewhere and returns
	// where; nil disables the save key. It runs as a command, off the
	// event loop.
	Save func(n int64) (string, error)
	// Checks computes the protocol findings of a session (StrictChecks
	// does as `streamtap check`); nil hides them. It is called from Update
	// when the stream ends and at most once a second while it streams, so
	// it must be linear in the stream.
	Checks func(s *model.Session) []checks.Finding
	// Replay, when above 0, plays the stream from its first event at this
	// speed once it has been read (streamtap replay on a terminal).
	Replay float64
	// Explain opens the inspector with the selected event's explanation
	// shown under the detail pane (the x key toggles it).
	Explain bool
	// Lesson is the one-line lesson of the sample opened, shown in the
	// status line until the first key press; "" shows none.
	Lesson string
}

// Model is the one tea.Model of the inspector. It owns the session: frames
// reach it only through Update, so nothing else may touch the session while
// the program runs. Made by NewSessions, it shows the proxy's exchanges
// instead, as a list until one is opened in the panes: their sessions are
// the proxy's (model.Live), read under their lock (see hold).
type Model struct {
	s    *model.Session
	o    Options
	keys keyMap
	st   styles

	w, h int
	r    rects
	help bool

	// panes lists every pane in the order of their number keys (see
	// registerPanes); focus is the index of the one that has the keys,
	// side the index of the one shown beside the timeline (panes[0]).
	panes []pane
	focus int
	side  int
	// attachGen counts the sessions attached, to drop the results of
	// work started for one before (see paneMsg).
	attachGen int

	tl    *timelinePane
	det   *detailPane
	calls *callsPane
	diff  *diffPane
	find  *findingsPane
	bar   statusBar

	prompt  prompt
	query   string
	gen     int // search generation
	filt    filter
	live    bool
	rep     replay
	notice  string
	noticeE bool
	noticeG int

	lastCheck time.Time

	// The proxy's sessions list (NewSessions); proxy is false otherwise.
	proxy   bool
	screen  screen
	px      []*proxied
	byID    map[int]*proxied
	pxCount [numClasses]int
	cur     *proxied // the session open in the panes, or nil
	held    *model.Live
	sl      sessionsPane
	req     *requestPane // only in a proxy's inspector
}

// New returns the inspector over s. A live session keeps receiving frames
// through Frames messages; otherwise s must be complete.
func New(s *model.Session, o Options) *Model {
	if o.SlowGap <= 0 {
		o.SlowGap = time.Second
	}
	m := &Model{s: s, o: o, keys: defaultKeyMap(), live: o.Live}
	m.st = newStyles(true, o.NoColor)
	m.registerPanes()
	m.side = m.indexOf(m.calls)
	m.attach(s)
	m.startTeaching(o)
	m.rep.speed = 1
	if !o.Live {
		m.runChecks()
	}
	m.updateKeybindings()
	return m
}

// registerPanes makes the inspector's panes, in the order of their number
// keys: the timeline first (it sits on the left and owns the selection),
// then the side panes, shown one at a time as tabs beside it. A new pane
// is a file with its type, which implements pane, and one line here.
func (m *Model) registerPanes() {
	k, st := &m.keys, &m.st
	m.tl = register(m, newTimelinePane(st, k, m, m.o.SlowGap))
	m.det = register(m, newDetailPane(st, k, m.o.KeepSecrets))
	m.calls = register(m, newCallsPane(st, k))
	m.diff = register(m, newDiffPane(st, k))
	m.find = register(m, newFindingsPane(st, k, m, m.o.Checks != nil))
}

// register adds p to the end of the panes, pointed at the session shown,
// and returns it.
func register[P pane](m *Model, p P) P {
	m.panes = append(m.panes, p)
	p.attach(m.s)
	if m.w > 0 {
		m.handleSize(m.w, m.h)
	}
	return p
}

// indexOf is p's place in the panes, or -1.
func (m *Model) indexOf(p pane) int {
	for i, q := range m.panes {
		if q == p {
			return i
		}
	}
	return -1
}

// attach points every pane at s, dropping what they showed before; the
// caller sizes them again.
func (m *Model) attach(s *model.Session) {
	m.s = s
	m.attachGen++
	for _, p := range m.panes {
		p.attach(s)
	}
	m.tl.follow = m.live
	m.bar = statusBar{s: s, st: &m.st}
}

// The inspector is its panes' host (paneHost).

func (m *Model) selectEvent(ord int) {
	m.rep.playing = false
	m.tl.selectOrd(ord)
}

func (m *Model) stopReplay() { m.rep.playing = false }

func (m *Model) isLive() bool { return m.live }

// framesMsg is a batch of frames from the reader (see ingest.Pump), and
// the function that gives the batch back once it is added.
type framesMsg struct {
	batch *model.Batch
	done  func()
}

// sourceDoneMsg says the source ended: err is nil at a clean EOF.
type sourceDoneMsg struct{ err error }

// Frames wraps a batch of frames for Program.Send: the one way frames
// reach the inspector. The batch is the inspector's until Update has
// added it to the session and called done (when not nil); the sender may
// reuse it after that. A batch that keeps its frames' Raw bytes
// (model.Batch.KeepRaw) lets the checks see them as `streamtap check`
// does.
func Frames(b *model.Batch, done func()) tea.Msg { return framesMsg{b, done} }

// SourceDone tells the inspector the source ended; err is nil at a clean
// end of input.
func SourceDone(err error) tea.Msg { return sourceDoneMsg{err} }

// noticeDoneMsg fades a status notice.
type noticeDoneMsg struct{ gen int }

// savedMsg reports a save.
type savedMsg struct {
	path string
	err  error
}

// Init asks the terminal for its background colour, to pick the theme.
func (m *Model) Init() tea.Cmd { return tea.RequestBackgroundColor }

// Update routes each message to its handler.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.hold(m.openLive())
	defer m.hold(nil)
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.handleSize(msg.Width, msg.Height)
	case tea.BackgroundColorMsg:
		m.handleTheme(msg.IsDark())
	case framesMsg:
		cmd = m.handleFrames(msg.batch, msg.done)
	case sourceDoneMsg:
		cmd = m.handleSourceDone(msg.err)
	case sessionsMsg:
		cmd = m.handleSessions(msg.batch)
	case tea.KeyPressMsg:
		cmd = m.handleKey(msg)
	case tea.MouseClickMsg:
		m.handleClick(msg.Mouse())
	case tea.MouseWheelMsg:
		m.handleWheel(msg.Mouse())
	case tea.PasteMsg:
		cmd = m.handlePaste(msg)
	case searchResultMsg:
		cmd = m.handleSearchResult(msg)
	case filterResultMsg:
		m.handleFilterResult(msg)
	case replayTickMsg:
		cmd = m.handleReplayTick(msg)
	case paneMsg:
		cmd = m.handlePaneMsg(msg)
	case noticeDoneMsg:
		if msg.gen == m.noticeG {
			m.notice = ""
		}
	case savedMsg:
		if msg.err != nil {
			cmd = m.flash("save failed: "+msg.err.Error(), true)
		} else {
			cmd = m.flash("saved to "+msg.path, false)
		}
	}
	cmd = tea.Batch(cmd, m.layoutWork())
	m.updateKeybindings()
	return m, cmd
}

func (m *Model) handleSize(w, h int) {
	m.w, m.h = w, h
	m.r = layout(w, h)
	if m.r.tooSmall {
		return
	}
	// Each pane's content goes under its title line.
	m.tl.setSize(m.r.timeline.w, m.r.timeline.h-1)
	for _, p := range m.panes[1:] {
		p.setSize(m.r.side.w, m.r.side.h-1)
	}
	m.bar.setSize(w)
	m.sl.setSize(w, h-4) // title, selected session, help and status lines
	if m.prompt.active() {
		m.prompt.setWidth(w)
	}
	m.sl.clampTo(len(m.px))
}

func (m *Model) handleTheme(dark bool) {
	if dark == m.st.isDark {
		return
	}
	m.st = newStyles(dark, m.o.NoColor)
	for _, p := range m.panes {
		p.restyle()
	}
}

// handleFrames adds a whole batch to the session in one step, and gives
// the batch back.
func (m *Model) handleFrames(b *model.Batch, done func()) tea.Cmd {
	first := m.s.Len()
	_ = m.s.AddBatch(b, nil) // without a callback it cannot fail
	if done != nil {
		done()
	}
	return m.grew(first)
}

// grew brings the panes up to date with the events the session got from
// first on.
func (m *Model) grew(first int) tea.Cmd {
	m.tl.appended()
	if m.o.Checks != nil && time.Since(m.lastCheck) > time.Second {
		m.runChecks()
	}
	// Keep the filter and the search current: look through the new
	// events too.
	var cmds []tea.Cmd
	if m.tl.rows != nil && !m.filt.empty() {
		cmds = append(cmds, m.filterCmd(first))
	}
	if m.query != "" {
		cmds = append(cmds, m.searchCmd(first))
	}
	return tea.Batch(cmds...)
}

func (m *Model) handleSourceDone(err error) tea.Cmd {
	m.s.End(err)
	return m.sourceEnded(err)
}

// sourceEnded updates the panes for a session that ended with err.
func (m *Model) sourceEnded(err error) tea.Cmd {
	m.live = false
	m.tl.invalidate()
	m.runChecks()
	o := m.s.Outcome()
	text := "stream ended: " + o.State
	if o.Detail != "" {
		text += " (" + o.Detail + ")"
	}
	if err != nil {
		return m.flash("read error: "+err.Error(), true)
	}
	flash := m.flash(text, o.State != "completed")
	if m.o.Replay > 0 && !m.rep.playing {
		m.rep.speed = m.o.Replay
		m.tl.moveTo(0)
		m.o.Replay = 0 // once
		return tea.Batch(flash, m.togglePlay())
	}
	return flash
}

func (m *Model) runChecks() {
	if m.o.Checks == nil {
		return
	}
	m.lastCheck = time.Now()
	m.find.set(m.o.Checks(m.s))
	m.tl.setMarks(m.find.list)
	if m.cur != nil {
		m.cur.findings, m.cur.lastCheck = len(m.find.list), m.lastCheck
	}
}

// flash shows a notice in the status bar for a few seconds.
func (m *Model) flash(text string, isErr bool) tea.Cmd {
	m.noticeG++
	m.notice, m.noticeE = text, isErr
	gen := m.noticeG
	return tea.Tick(4*time.Second, func(time.Time) tea.Msg { return noticeDoneMsg{gen} })
}

// selected is the selected event's ordinal, or -1.
func (m *Model) selected() int { return m.tl.selected() }

// handleKey routes a key: the prompt first, then global keys, then the
// focused pane.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys
	m.bar.lesson = "" // the lesson stays until the first key
	if m.prompt.active() {
		return m.handlePromptKey(msg)
	}
	if m.help {
		if key.Matches(msg, k.App.Help, k.Prompt.Cancel) {
			m.help = false
		} else if key.Matches(msg, k.App.Quit) {
			return tea.Quit
		}
		return nil
	}
	if m.screen == screenSessions {
		return m.handleSessionsKey(msg)
	}
	switch {
	case key.Matches(msg, k.App.Quit):
		return tea.Quit
	case key.Matches(msg, k.App.Help):
		m.help = true
	case key.Matches(msg, k.Nav.Next):
		m.setFocus((m.focus + 1) % len(m.panes))
	case key.Matches(msg, k.Nav.Prev):
		m.setFocus((m.focus + len(m.panes) - 1) % len(m.panes))
	case key.Matches(msg, k.Nav.Pane):
		m.setFocus(int(msg.String()[0] - '1'))
	case key.Matches(msg, k.Search.Search):
		return m.openPrompt(promptSearch)
	case key.Matches(msg, k.Search.Filter):
		return m.openPrompt(promptFilter)
	case key.Matches(msg, k.Nav.Goto):
		return m.openPrompt(promptGoto)
	case key.Matches(msg, k.Search.NextMatch):
		m.jumpMatch(1)
	case key.Matches(msg, k.Search.PrevMatch):
		m.jumpMatch(-1)
	case key.Matches(msg, k.Search.Clear):
		m.query, m.tl.matches = "", nil
		m.gen++ // drop results still on their way
		m.tl.invalidate()
		return m.applyFilter("")
	case key.Matches(msg, k.Sessions.Back):
		m.closeSession()
	case key.Matches(msg, k.Stream.Follow):
		m.tl.follow = !m.tl.follow
		if m.tl.follow {
			m.rep.playing = false
			m.tl.moveTo(m.tl.len() - 1)
			m.tl.follow = true
		}
	case key.Matches(msg, k.Stream.Play):
		return m.togglePlay()
	case key.Matches(msg, k.Stream.StepBack):
		m.rep.playing = false
		m.tl.moveTo(m.tl.cursor - 1)
	case key.Matches(msg, k.Stream.StepFwd):
		m.rep.playing = false
		m.tl.moveTo(m.tl.cursor + 1)
	case key.Matches(msg, k.Stream.Faster):
		m.rep.speed = min(m.rep.speed*2, 64)
	case key.Matches(msg, k.Stream.Slower):
		m.rep.speed = max(m.rep.speed/2, 1.0/16)
	case key.Matches(msg, k.Stream.Save):
		return m.saveCmd()
	case key.Matches(msg, k.Inspect.Raw):
		m.det.raw = !m.det.raw
		if m.focus == 0 {
			m.side = m.indexOf(m.det)
		}
	case key.Matches(msg, k.Inspect.Explain):
		m.toggleExplain()
	case key.Matches(msg, k.Inspect.Copy):
		return m.copyCmd()
	case key.Matches(msg, k.Inspect.NextFinding):
		m.jumpFinding(1)
	case key.Matches(msg, k.Inspect.PrevFinding):
		m.jumpFinding(-1)
	case key.Matches(msg, k.Inspect.NextSlow):
		if i := m.tl.nextSlow(1); i >= 0 {
			m.tl.moveTo(i)
		}
	case key.Matches(msg, k.Inspect.PrevSlow):
		if i := m.tl.nextSlow(-1); i >= 0 {
			m.tl.moveTo(i)
		}
	default:
		return m.panes[m.focus].update(msg)
	}
	return nil
}

// setFocus gives the keys to pane f, and shows it beside the timeline
// when it is a side pane.
func (m *Model) setFocus(f int) {
	if f < 0 || f >= len(m.panes) {
		return
	}
	m.focus = f
	if f != 0 {
		m.side = f
	}
}

func (m *Model) jumpFinding(dir int) {
	e, i := m.find.next(m.selected(), dir)
	if e < 0 {
		return
	}
	m.find.cursor = i
	m.rep.playing = false
	m.tl.selectOrd(e)
}

// copyCmd copies the selected call's arguments as of the selected event (a
// .done's once it has come, as the calls pane shows them), or
// the event's data, to the clipboard with OSC 52.
func (m *Model) copyCmd() tea.Cmd {
	ord := m.selected()
	if ord < 0 {
		return nil
	}
	text := ""
	if ev := m.s.Events.At(ord); ev.Item >= 0 && int(ev.Item) < len(m.s.Items) && m.s.Items[ev.Item].IsCall() && m.panes[m.side] != pane(m.det) {
		text = m.s.Items[ev.Item].FinalArgsAsOf(ord) // what the calls pane shows
	}
	if text == "" {
		raw, err := m.s.Raw(m.s.Events.At(ord))
		if err != nil {
			return m.flash("cannot read the event back", true)
		}
		if data, ok := eventData(raw); ok && !m.det.raw {
			text = string(data)
		} else {
			text = string(raw)
		}
	}
	return tea.Batch(tea.SetClipboard(text), m.flash(fmt.Sprintf("copied %d bytes", len(text)), false))
}

func (m *Model) saveCmd() tea.Cmd {
	if m.o.Save == nil {
		return nil
	}
	save, n := m.o.Save, m.s.Bytes()
	return func() tea.Msg {
		path, err := save(n)
		return savedMsg{path, err}
	}
}

// updateKeybindings enables only the keys that work now, so help never
// offers a key that does nothing.
func (m *Model) updateKeybindings() {
	k := &m.keys
	has := m.s.Len() > 0
	k.Search.NextMatch.SetEnabled(len(m.tl.matches) > 0)
	k.Search.PrevMatch.SetEnabled(len(m.tl.matches) > 0)
	k.Search.Clear.SetEnabled(m.query != "" || !m.filt.empty())
	k.Stream.Save.SetEnabled(m.o.Save != nil && has)
	k.Stream.Follow.SetEnabled(m.live)
	k.Inspect.Copy.SetEnabled(has)
	k.Inspect.NextFinding.SetEnabled(len(m.find.list) > 0)
	k.Inspect.PrevFinding.SetEnabled(len(m.find.list) > 0)
	k.Stream.Play.SetEnabled(has)
	k.Stream.Faster.SetEnabled(m.rep.playing)
	k.Stream.Slower.SetEnabled(m.rep.playing)
	k.Sessions.Open.SetEnabled(m.proxy && m.screen == screenSessions && len(m.px) > 0)
	k.Sessions.Back.SetEnabled(m.proxy && m.screen == screenInspect)
	k.Sessions.Follow.SetEnabled(m.proxy && m.screen == screenSessions)
	m.updatePaneKeys()
	for i, p := range m.panes {
		p.updateKeys(i == m.focus)
	}
	if m.proxy && m.screen == screenSessions {
		// The list has no events: only its own keys work.
		for _, b := range []*key.Binding{
			&k.Search.Search, &k.Search.Filter, &k.Search.Clear, &k.Stream.Save, &k.Stream.Follow,
			&k.Stream.Play, &k.Stream.StepBack, &k.Stream.StepFwd, &k.Inspect.Raw, &k.Inspect.Explain, &k.Inspect.Copy,
			&k.Inspect.NextSlow, &k.Inspect.PrevSlow, &k.Nav.Next, &k.Nav.Prev, &k.Nav.Pane, &k.Nav.Goto,
			&k.Inspect.Cited,
		} {
			b.SetEnabled(false)
		}
	} else if m.proxy {
		for _, b := range []*key.Binding{
			&k.Search.Search, &k.Search.Filter, &k.Stream.StepBack, &k.Stream.StepFwd,
			&k.Inspect.Raw, &k.Inspect.Explain, &k.Inspect.NextSlow, &k.Inspect.PrevSlow, &k.Nav.Next, &k.Nav.Prev, &k.Nav.Pane,
			&k.Nav.Goto,
		} {
			b.SetEnabled(true)
		}
	}
}

// paneKeys holds the number keys of up to nine panes.
var paneKeys = [...]string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}

// updatePaneKeys binds a number key to each pane (the first nine).
func (m *Model) updatePaneKeys() {
	k := &m.keys.Nav.Pane
	n := min(len(m.panes), len(paneKeys))
	if len(k.Keys()) == n {
		return
	}
	k.SetKeys(paneKeys[:n]...)
	k.SetHelp(fmt.Sprintf("1-%d", n), k.Help().Desc)
}

// mergeSorted returns the sorted union of two sorted lists.
func mergeSorted(a, b []int32) []int32 {
	if len(b) == 0 {
		return a
	}
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}
