package inspector

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/lanes"
	"github.com/streamtap/streamtap/ui/pane"
)

// Page is the page that shows one stream: the timeline and the side
// panes, the search, the filter and the replay. It owns its session while
// it shows it (the proxy's sessions list lends it one at a time, under the
// session's lock).
type Page struct {
	*app.Env
	s    *model.Session
	w, h int
	r    rects

	// panes lists every pane in the order of their number keys (see
	// registerPanes); focus is the index of the one that has the keys,
	// side the index of the one shown beside the timeline (panes[0]).
	panes []pane.Pane
	focus int
	side  int
	// attachGen counts the sessions attached, to drop the results of
	// work started for one before (see pane.Msg).
	attachGen int

	// The panes the inspector itself acts on.
	tl    *Timeline
	det   *detailPane
	calls *callsPane
	diff  *diffPane
	find  *findingsPane
	lanes *lanes.Pane
	bar   statusBar

	// zoom shows the focused pane alone, over the whole body.
	zoom bool

	prompt prompt
	query  string
	gen    int // search generation
	filt   filter
	Live   bool
	rep    replay
	les    lessonMode

	LastCheck time.Time

	// Source, when set, names the stream in the status bar instead of
	// Options.Source: the proxy's session open.
	Source string
	// Back, when set, is what the Back key (esc, when no search or filter
	// takes it) does: the proxy's sessions list returns to itself.
	Back func()
}

// New returns the inspector over s (see New).
func New(e *app.Env, s *model.Session) *Page {
	in := &Page{Env: e, s: s, Live: e.Opts.Live}
	in.registerPanes()
	in.side = in.indexOf(in.calls)
	in.Attach(s)
	in.startTeaching(e.Opts)
	in.rep.speed = 1
	if !e.Opts.Live {
		in.runChecks()
	}
	return in
}

// registerPanes makes the inspector's panes, in the order of their number
// keys: the timeline first (it sits on the left and owns the selection),
// then the side panes, shown one at a time as tabs beside it. A new pane
// is a file with its type, which implements pane, and one line here.
func (in *Page) registerPanes() {
	k, st := &in.Keys, &in.Styles
	in.tl = Register(in, NewTimeline(st, k, in, in.Opts.SlowGap))
	in.det = Register(in, newDetailPane(st, k, in.Opts.KeepSecrets))
	in.calls = Register(in, newCallsPane(st, k))
	in.diff = Register(in, newDiffPane(st, k))
	in.find = Register(in, newFindingsPane(st, k, in, in.Opts.Checks != nil))
	in.lanes = Register(in, lanes.New(st, k, in))
}

// Register adds p to the end of in's panes, pointed at the session shown
// and sized, and returns it.
func Register[P pane.Pane](in *Page, p P) P {
	in.panes = append(in.panes, p)
	p.Attach(in.s)
	if in.w > 0 {
		in.SetSize(in.w, in.h)
	}
	return p
}

// indexOf is p's place in the panes, or -1.
func (in *Page) indexOf(p pane.Pane) int {
	for i, q := range in.panes {
		if q == p {
			return i
		}
	}
	return -1
}

// Attach points every pane at s, dropping what they showed before; the
// caller sizes them again.
func (in *Page) Attach(s *model.Session) {
	in.s = s
	in.attachGen++
	for _, p := range in.panes {
		p.Attach(s)
	}
	in.tl.Follow = in.Live && !in.les.on
	in.bar = statusBar{s: s, st: &in.Styles}
}

// Open shows session s from scratch, as the proxy's list opens one of its
// sessions: no search, no filter, following its tail while it is live.
func (in *Page) Open(s *model.Session, live bool, source string) {
	in.Live, in.Source = live, source
	in.query, in.gen, in.filt = "", in.gen+1, filter{}
	in.rep.stop()
	in.Attach(s)
	if in.Live {
		in.tl.moveTo(in.tl.len() - 1)
		in.tl.Follow = true
	}
	in.focus, in.side = 0, in.indexOf(in.calls)
	if in.les.on {
		in.setLesson(true) // each session opened is a lesson from its #0
	}
	in.runChecks()
	in.SetSize(in.w, in.h)
}

// Close stops what must not go on while the inspector is not shown: the
// replay, the prompt.
func (in *Page) Close() {
	in.rep.stop()
	in.prompt = prompt{}
}

// The inspector is its panes' host (pane.Host).

func (in *Page) Selected() int { return in.tl.Selected() }

func (in *Page) SelectEvent(ord int) {
	in.rep.playing = false
	in.tl.SelectOrd(ord)
}

func (in *Page) StopReplay() { in.rep.playing = false }

func (in *Page) IsLive() bool { return in.Live }

// SetSize lays the panes out for a w×h terminal.
func (in *Page) SetSize(w, h int) {
	in.w, in.h = w, h
	in.r = layout(w, h)
	if in.r.tooSmall {
		return
	}
	switch {
	case in.zoom:
		in.r = zoomed(in.r)
	case in.les.on && w >= LessonWideWidth:
		in.r = lessonLayout(in.r, w)
	}
	in.lessonResized()
	// Each pane's content goes under its title line.
	in.panes[0].SetSize(in.r.timeline.W, in.r.timeline.H-1)
	for _, p := range in.panes[1:] {
		p.SetSize(in.r.side.W, in.r.side.H-1)
	}
	in.bar.setSize(w)
	if in.prompt.active() {
		in.prompt.setWidth(w)
	}
}

// Restyle drops what the panes rendered with the styles before.
func (in *Page) Restyle() {
	for _, p := range in.panes {
		p.Restyle()
	}
}

// Show selects event ord in the timeline, which stops following the
// stream's tail.
func (in *Page) Show(ord int) {
	in.tl.SelectOrd(ord)
	in.tl.Follow = false
}

// Session is the session shown.
func (in *Page) Session() *model.Session { return in.s }

// SideTitle is the title of the side pane shown beside the timeline.
func (in *Page) SideTitle() string { return in.panes[in.side].Title() }

// Matches is the number of events the search found.
func (in *Page) Matches() int { return len(in.tl.matches) }

// Findings are the findings the findings pane lists.
func (in *Page) Findings() []checks.Finding { return in.find.list }

// DropLesson drops the sample's lesson from the status line: a key was
// pressed.
func (in *Page) DropLesson() { in.bar.lesson = "" }

// Handles says msg is the inspector's: its data (frames, the source's
// end) or the result of its work. A page that holds inspectors hands
// these on.
func Handles(msg tea.Msg) bool {
	switch msg.(type) {
	case app.FramesMsg, app.SourceDoneMsg, searchResultMsg, filterResultMsg, replayTickMsg, pane.Msg, savedMsg:
		return true
	}
	return false
}

// Update routes the messages the root gives the inspector to their
// handlers.
func (in *Page) Update(msg tea.Msg) tea.Cmd {
	switch typed := msg.(type) {
	case tea.KeyPressMsg:
		return in.handleKey(typed, msg)
	case tea.MouseClickMsg:
		in.handleClick(typed.Mouse())
	case tea.MouseWheelMsg:
		in.handleWheel(typed.Mouse())
	case tea.PasteMsg:
		return in.handlePaste(typed)
	case app.FramesMsg:
		return in.handleFrames(typed.Batch, typed.Done)
	case app.SourceDoneMsg:
		return in.handleSourceDone(typed.Err)
	case searchResultMsg:
		return in.handleSearchResult(typed)
	case filterResultMsg:
		in.handleFilterResult(typed)
	case replayTickMsg:
		return in.handleReplayTick(typed)
	case pane.Msg:
		return in.handlePaneMsg(typed)
	case savedMsg:
		return in.handleSaved(typed)
	}
	return nil
}

// handleFrames adds a whole batch to the session in one step, and gives
// the batch back.
func (in *Page) handleFrames(b *model.Batch, done func()) tea.Cmd {
	first := in.s.Len()
	_ = in.s.AddBatch(b, nil) // without a callback it cannot fail
	if done != nil {
		done()
	}
	return in.Grew(first)
}

// Grew brings the panes up to date with the events the session got from
// first on.
func (in *Page) Grew(first int) tea.Cmd {
	in.tl.Appended()
	if in.Opts.Checks != nil && time.Since(in.LastCheck) > time.Second {
		in.runChecks()
	}
	// Keep the filter and the search current: look through the new
	// events too.
	var cmds []tea.Cmd
	if in.tl.rows != nil && !in.filt.empty() {
		cmds = append(cmds, in.filterCmd(first))
	}
	if in.query != "" {
		cmds = append(cmds, in.searchCmd(first))
	}
	return tea.Batch(cmds...)
}

func (in *Page) handleSourceDone(err error) tea.Cmd {
	in.s.End(err)
	return in.SourceEnded(err)
}

// SourceEnded updates the panes for a session that ended with err.
func (in *Page) SourceEnded(err error) tea.Cmd {
	in.Live = false
	in.tl.Invalidate()
	in.runChecks()
	if err != nil {
		return in.Flash("read error: "+err.Error(), true)
	}
	if in.Opts.Replay > 0 && !in.rep.playing {
		// The replay starts at the first event: saying the stream ended
		// now would say it while the class watches event 0.
		in.rep.speed = in.Opts.Replay
		in.tl.moveTo(0)
		in.Opts.Replay = 0 // once
		return in.togglePlay()
	}
	// The status bar's state segment says how the stream ended ("ended:
	// completed", or where a lesson or replay stands): a notice saying it
	// again took the room of the facts beside it (issue 19).
	return nil
}

// runChecks judges the session again, for the findings pane and the marks
// in the timeline.
func (in *Page) runChecks() {
	if in.Opts.Checks == nil {
		return
	}
	in.LastCheck = time.Now()
	in.find.set(in.Opts.Checks(in.s))
	in.tl.setMarks(in.find.list)
	in.lanes.SetMarks(in.find.list)
}

// Work starts the work the side pane on screen waits for: reading a big
// event whole, indexing the layout of a big document, comparing big
// snapshots. It runs after every message, so work starts as soon as a
// pane needs it; each piece comes back to the pane as a pane.Msg, and the
// next piece starts then.
func (in *Page) Work() tea.Cmd {
	if in.w == 0 || in.r.tooSmall {
		return nil
	}
	return pane.Route(in.side, in.attachGen, in.panes[in.side].Work(in.Selected()))
}

// handlePaneMsg gives the result of a pane's work to that pane, unless
// it was started for a session attached before: the pane shows another
// now. Each pane drops a result for what it no longer shows itself.
func (in *Page) handlePaneMsg(msg pane.Msg) tea.Cmd {
	if msg.Gen != in.attachGen || msg.Pane >= len(in.panes) {
		return nil
	}
	return in.panes[msg.Pane].Update(msg.Msg)
}
