package pane

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
)

// Pane is one pane of the inspector: the timeline, on the left, or one of
// the side panes shown one at a time as tabs beside it. The inspector keeps
// its panes in one ordered list (registerPanes), and a pane's place in it is
// its number key, its place in the tab/shift+tab cycle and its tab. Every
// pane is driven through these methods only, so that a new pane is its own
// file plus one registration line; embed Base for the methods a pane
// has no use for.
type Pane interface {
	// Title names the pane in its title line or tab, with what is worth
	// a glance ("findings (3)").
	Title() string
	// Status says, muted after the title, what the pane is busy with or
	// where it stands ("indexing 40%", "28/40").
	Status() string
	// Attach points the pane at session s, dropping what it showed of
	// the session before.
	Attach(s *model.Session)
	// SetSize gives the pane its content area, without its title line.
	SetSize(w, h int)
	// Restyle drops what the pane rendered with the styles before a
	// theme change.
	Restyle()
	// View renders the pane in exactly its w×h for the selected event sel
	// (an ordinal, or -1); focused says the pane has the keys. It costs
	// O(what is visible). The selection reaches a pane only here and in
	// work, on every frame: a pane follows a change of selection, whatever
	// made it (a key, the replay, a filter's results), by comparing sel
	// with what it laid out last (the calls pane keys its layout by it).
	View(sel int, focused bool) string
	// Update takes a key press while the pane has focus (the inspector's
	// own keys never reach it), and the results of the work it started
	// (work), as that work returned them. Keys it does not use are
	// ignored.
	Update(msg tea.Msg) tea.Cmd
	// Wheel scrolls by delta lines: the mouse wheel over the pane.
	Wheel(delta int)
	// Click handles a click at (x, y) of the pane's content; the pane has
	// focus already.
	Click(x, y int)
	// Work starts the background work the pane waits for to draw the
	// selected event sel, while it is on screen, or returns nil when
	// nothing is left or under way. It runs after every message; each
	// result comes back to update, and the next piece starts then.
	Work(sel int) tea.Cmd
	// ShortHelp lists the keys that work while the pane has focus, for the
	// help line; the inspector adds the global ones.
	ShortHelp() []key.Binding
	// UpdateKeys enables the pane's own bindings as its state allows;
	// focused says it has the keys.
	UpdateKeys(focused bool)
}

// Base gives a pane the methods it has no use for: no status, nothing
// to restyle, no mouse, no background work, no bindings of its own.
type Base struct{}

func (Base) Status() string   { return "" }
func (Base) Restyle()         {}
func (Base) Wheel(int)        {}
func (Base) Click(int, int)   {}
func (Base) Work(int) tea.Cmd { return nil }
func (Base) UpdateKeys(bool)  {}

// Host is what a pane may ask of the inspector that holds it: the
// selection is the timeline's, and the status notice the root's.
type Host interface {
	// Selected is the selected event's ordinal, or -1.
	Selected() int
	// SelectEvent selects event ord in the timeline, or the nearest one a
	// filter shows, and stops a replay.
	SelectEvent(ord int)
	// StopReplay stops a replay, as any move of the selection by hand
	// does.
	StopReplay()
	// IsLive says the source is still being read.
	IsLive() bool
	// Flash shows a notice in the status bar for a few seconds.
	Flash(text string, isErr bool) tea.Cmd
}

// Msg carries the result of a pane's work back to the pane that
// started it: pane is its place in the inspector's list, gen the
// inspector's attach generation when the work started. The inspector
// drops a result whose session it no longer shows, so a pane needs no
// check of its own for that; each pane still drops a result for what it no
// longer shows (another event, another document).
type Msg struct {
	Pane, Gen int
	Msg       tea.Msg
}

// Route addresses the messages of cmd, a pane's work, to that pane.
// A tea.Batch is addressed command by command.
func Route(pane, gen int, cmd tea.Cmd) tea.Cmd {
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
				out[i] = Route(pane, gen, c)
			}
			return out
		default:
			return Msg{Pane: pane, Gen: gen, Msg: msg}
		}
	}
}
