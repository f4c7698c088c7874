package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// inspector is the page that shows one stream: the timeline and the side
// panes, the search, the filter and the replay. It owns its session while
// it shows it (the proxy's sessions list lends it one at a time, under the
// session's lock).
type inspector struct {
	*env
	s    *model.Session
	w, h int
	r    rects

	// panes lists every pane in the order of their number keys (see
	// registerPanes); focus is the index of the one that has the keys,
	// side the index of the one shown beside the timeline (panes[0]).
	panes []pane
	focus int
	side  int
	// attachGen counts the sessions attached, to drop the results of
	// work started for one before (see paneMsg).
	attachGen int

	// The panes the inspector itself acts on.
	tl    *timelinePane
	det   *detailPane
	calls *callsPane
	diff  *diffPane
	find  *findingsPane
	lanes *lanesPane
	bar   statusBar

	// zoom shows the focused pane alone, over the whole body.
	zoom bool

	prompt prompt
	query  string
	gen    int // search generation
	filt   filter
	live   bool
	rep    replay

	lastCheck time.Time

	// source, when set, names the stream in the status bar instead of
	// Options.Source: the proxy's session open.
	source string
	// back, when set, is what the Back key (esc, when no search or filter
	// takes it) does: the proxy's sessions list returns to itself.
	back func()
}

// newInspector returns the inspector over s (see New).
func newInspector(e *env, s *model.Session) *inspector {
	in := &inspector{env: e, s: s, live: e.o.Live}
	in.registerPanes()
	in.side = in.indexOf(in.calls)
	in.attach(s)
	in.startTeaching(e.o)
	in.rep.speed = 1
	if !e.o.Live {
		in.runChecks()
	}
	return in
}

// registerPanes makes the inspector's panes, in the order of their number
// keys: the timeline first (it sits on the left and owns the selection),
// then the side panes, shown one at a time as tabs beside it. A new pane
// is a file with its type, which implements pane, and one line here.
func (in *inspector) registerPanes() {
	k, st := &in.keys, &in.st
	in.tl = register(in, newTimelinePane(st, k, in, in.o.SlowGap))
	in.det = register(in, newDetailPane(st, k, in.o.KeepSecrets))
	in.calls = register(in, newCallsPane(st, k))
	in.diff = register(in, newDiffPane(st, k))
	in.find = register(in, newFindingsPane(st, k, in, in.o.Checks != nil))
	in.lanes = register(in, newLanesPane(st, k, in))
}

// register adds p to the end of in's panes, pointed at the session shown
// and sized, and returns it.
func register[P pane](in *inspector, p P) P {
	in.panes = append(in.panes, p)
	p.attach(in.s)
	if in.w > 0 {
		in.setSize(in.w, in.h)
	}
	return p
}

// indexOf is p's place in the panes, or -1.
func (in *inspector) indexOf(p pane) int {
	for i, q := range in.panes {
		if q == p {
			return i
		}
	}
	return -1
}

// attach points every pane at s, dropping what they showed before; the
// caller sizes them again.
func (in *inspector) attach(s *model.Session) {
	in.s = s
	in.attachGen++
	for _, p := range in.panes {
		p.attach(s)
	}
	in.tl.follow = in.live
	in.bar = statusBar{s: s, st: &in.st}
}

// open shows session s from scratch, as the proxy's list opens one of its
// sessions: no search, no filter, following its tail while it is live.
func (in *inspector) open(s *model.Session, live bool, source string) {
	in.live, in.source = live, source
	in.query, in.gen, in.filt, in.rep.playing = "", in.gen+1, filter{}, false
	in.attach(s)
	if in.live {
		in.tl.moveTo(in.tl.len() - 1)
		in.tl.follow = true
	}
	in.focus, in.side = 0, in.indexOf(in.calls)
	in.runChecks()
	in.setSize(in.w, in.h)
}

// close stops what must not go on while the inspector is not shown: the
// replay, the prompt.
func (in *inspector) close() {
	in.rep.playing = false
	in.prompt = prompt{}
}

// The inspector is its panes' host (paneHost).

func (in *inspector) selected() int { return in.tl.selected() }

func (in *inspector) selectEvent(ord int) {
	in.rep.playing = false
	in.tl.selectOrd(ord)
}

func (in *inspector) stopReplay() { in.rep.playing = false }

func (in *inspector) isLive() bool { return in.live }

// setSize lays the panes out for a w×h terminal.
func (in *inspector) setSize(w, h int) {
	in.w, in.h = w, h
	in.r = layout(w, h)
	if in.r.tooSmall {
		return
	}
	if in.zoom {
		in.r = zoomed(in.r)
	}
	// Each pane's content goes under its title line.
	in.panes[0].setSize(in.r.timeline.w, in.r.timeline.h-1)
	for _, p := range in.panes[1:] {
		p.setSize(in.r.side.w, in.r.side.h-1)
	}
	in.bar.setSize(w)
	if in.prompt.active() {
		in.prompt.setWidth(w)
	}
}

// restyle drops what the panes rendered with the styles before.
func (in *inspector) restyle() {
	for _, p := range in.panes {
		p.restyle()
	}
}

// show selects event ord in the timeline, which stops following the
// stream's tail.
func (in *inspector) show(ord int) {
	in.tl.selectOrd(ord)
	in.tl.follow = false
}

// findings are the findings the findings pane lists.
func (in *inspector) findings() []checks.Finding { return in.find.list }

// dropLesson drops the sample's lesson from the status line: a key was
// pressed.
func (in *inspector) dropLesson() { in.bar.lesson = "" }

// handles says msg is the inspector's: its data (frames, the source's
// end) or the result of its work. A page that holds inspectors hands
// these on.
func handles(msg tea.Msg) bool {
	switch msg.(type) {
	case framesMsg, sourceDoneMsg, searchResultMsg, filterResultMsg, replayTickMsg, paneMsg, savedMsg:
		return true
	}
	return false
}

// update routes the messages the root gives the inspector to their
// handlers.
func (in *inspector) update(msg tea.Msg) tea.Cmd {
	switch typed := msg.(type) {
	case tea.KeyPressMsg:
		return in.handleKey(typed, msg)
	case tea.MouseClickMsg:
		in.handleClick(typed.Mouse())
	case tea.MouseWheelMsg:
		in.handleWheel(typed.Mouse())
	case tea.PasteMsg:
		return in.handlePaste(typed)
	case framesMsg:
		return in.handleFrames(typed.batch, typed.done)
	case sourceDoneMsg:
		return in.handleSourceDone(typed.err)
	case searchResultMsg:
		return in.handleSearchResult(typed)
	case filterResultMsg:
		in.handleFilterResult(typed)
	case replayTickMsg:
		return in.handleReplayTick(typed)
	case paneMsg:
		return in.handlePaneMsg(typed)
	case savedMsg:
		return in.handleSaved(typed)
	}
	return nil
}

// handleFrames adds a whole batch to the session in one step, and gives
// the batch back.
func (in *inspector) handleFrames(b *model.Batch, done func()) tea.Cmd {
	first := in.s.Len()
	_ = in.s.AddBatch(b, nil) // without a callback it cannot fail
	if done != nil {
		done()
	}
	return in.grew(first)
}

// grew brings the panes up to date with the events the session got from
// first on.
func (in *inspector) grew(first int) tea.Cmd {
	in.tl.appended()
	if in.o.Checks != nil && time.Since(in.lastCheck) > time.Second {
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

func (in *inspector) handleSourceDone(err error) tea.Cmd {
	in.s.End(err)
	return in.sourceEnded(err)
}

// sourceEnded updates the panes for a session that ended with err.
func (in *inspector) sourceEnded(err error) tea.Cmd {
	in.live = false
	in.tl.invalidate()
	in.runChecks()
	o := in.s.Outcome()
	text := "stream ended: " + o.State
	if o.Detail != "" {
		text += " (" + truncate(o.Detail, labelMax) + ")"
	}
	if err != nil {
		return in.flash("read error: "+err.Error(), true)
	}
	flash := in.flash(text, o.State != "completed")
	if in.o.Replay > 0 && !in.rep.playing {
		in.rep.speed = in.o.Replay
		in.tl.moveTo(0)
		in.o.Replay = 0 // once
		return tea.Batch(flash, in.togglePlay())
	}
	return flash
}

// runChecks judges the session again, for the findings pane and the marks
// in the timeline.
func (in *inspector) runChecks() {
	if in.o.Checks == nil {
		return
	}
	in.lastCheck = time.Now()
	in.find.set(in.o.Checks(in.s))
	in.tl.setMarks(in.find.list)
	in.lanes.setMarks(in.find.list)
}

// work starts the work the side pane on screen waits for: reading a big
// event whole, indexing the layout of a big document, comparing big
// snapshots. It runs after every message, so work starts as soon as a
// pane needs it; each piece comes back to the pane as a paneMsg, and the
// next piece starts then.
func (in *inspector) work() tea.Cmd {
	if in.w == 0 || in.r.tooSmall {
		return nil
	}
	return routeTo(in.side, in.attachGen, in.panes[in.side].work(in.selected()))
}

// handlePaneMsg gives the result of a pane's work to that pane, unless
// it was started for a session attached before: the pane shows another
// now. Each pane drops a result for what it no longer shows itself.
func (in *inspector) handlePaneMsg(msg paneMsg) tea.Cmd {
	if msg.gen != in.attachGen || msg.pane >= len(in.panes) {
		return nil
	}
	return in.panes[msg.pane].update(msg.msg)
}
