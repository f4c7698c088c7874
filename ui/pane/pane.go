package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
)

// pane is one pane of the inspector: the timeline, on the left, or one of
// the side panes shown one at a time as tabs beside it. The inspector keeps
// its panes in one ordered list (registerPanes), and a pane's place in it is
// its number key, its place in the tab/shift+tab cycle and its tab. Every
// pane is driven through these methods only, so that a new pane is its own
// file plus one registration line; embed paneBase for the methods a pane
// has no use for.
type pane interface {
	// title names the pane in its title line or tab, with what is worth
	// a glance ("findings (3)").
	title() string
	// status says, muted after the title, what the pane is busy with or
	// where it stands ("indexing 40%", "28/40").
	status() string
	// attach points the pane at session s, dropping what it showed of
	// the session before.
	attach(s *model.Session)
	// setSize gives the pane its content area, without its title line.
	setSize(w, h int)
	// restyle drops what the pane rendered with the styles before a
	// theme change.
	restyle()
	// view renders the pane in exactly its w×h for the selected event sel
	// (an ordinal, or -1); focused says the pane has the keys. It costs
	// O(what is visible). The selection reaches a pane only here and in
	// work, on every frame: a pane follows a change of selection, whatever
	// made it (a key, the replay, a filter's results), by comparing sel
	// with what it laid out last (the calls pane keys its layout by it).
	view(sel int, focused bool) string
	// update takes a key press while the pane has focus (the inspector's
	// own keys never reach it), and the results of the work it started
	// (work), as that work returned them. Keys it does not use are
	// ignored.
	update(msg tea.Msg) tea.Cmd
	// wheel scrolls by delta lines: the mouse wheel over the pane.
	wheel(delta int)
	// click handles a click at (x, y) of the pane's content; the pane has
	// focus already.
	click(x, y int)
	// work starts the background work the pane waits for to draw the
	// selected event sel, while it is on screen, or returns nil when
	// nothing is left or under way. It runs after every message; each
	// result comes back to update, and the next piece starts then.
	work(sel int) tea.Cmd
	// shortHelp lists the keys that work while the pane has focus, for the
	// help line; the inspector adds the global ones.
	shortHelp() []key.Binding
	// updateKeys enables the pane's own bindings as its state allows;
	// focused says it has the keys.
	updateKeys(focused bool)
}

// paneBase gives a pane the methods it has no use for: no status, nothing
// to restyle, no mouse, no background work, no bindings of its own.
type paneBase struct{}

func (paneBase) status() string   { return "" }
func (paneBase) restyle()         {}
func (paneBase) wheel(int)        {}
func (paneBase) click(int, int)   {}
func (paneBase) work(int) tea.Cmd { return nil }
func (paneBase) updateKeys(bool)  {}

// paneHost is what a pane may ask of the inspector that holds it: the
// selection is the timeline's, and the status notice the root's.
type paneHost interface {
	// selected is the selected event's ordinal, or -1.
	selected() int
	// selectEvent selects event ord in the timeline, or the nearest one a
	// filter shows, and stops a replay.
	selectEvent(ord int)
	// stopReplay stops a replay, as any move of the selection by hand
	// does.
	stopReplay()
	// isLive says the source is still being read.
	isLive() bool
	// flash shows a notice in the status bar for a few seconds.
	flash(text string, isErr bool) tea.Cmd
}

// paneMsg carries the result of a pane's work back to the pane that
// started it: pane is its place in the inspector's list, gen the
// inspector's attach generation when the work started. The inspector
// drops a result whose session it no longer shows, so a pane needs no
// check of its own for that; each pane still drops a result for what it no
// longer shows (another event, another document).
type paneMsg struct {
	pane, gen int
	msg       tea.Msg
}

// routeTo addresses the messages of cmd, a pane's work, to that pane.
// A tea.Batch is addressed command by command.
func routeTo(pane, gen int, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		switch msg := cmd().(type) {
		case nil:
			return nil
		case tea.BatchMsg:
			out := make(tea.BatchMsg, len(msg))
			for i, c := range msg {
				out[i] = routeTo(pane, gen, c)
			}
			return out
		default:
			return paneMsg{pane: pane, gen: gen, msg: msg}
		}
	}
}
