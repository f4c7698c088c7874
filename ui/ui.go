// Package ui is the terminal inspector and what the commands print. This
// file is what the command line calls: the programs (New, NewSessions,
// NewDiff), the messages that feed them, and the default checks.
//
// The program is one tea.Model, app.Model, a router that shows one page:
// the inspector (ui/inspector, one stream in panes), the proxy's or an
// archive's sessions list (ui/sessions) or the diff page (ui/diffview).
// The pages build on leaf packages: the shared env and page interface
// (ui/app), the pane interface (ui/pane), keys, styles, cells, the lanes
// pane (ui/lanes) and the document layout (ui/doc). The commands' text
// and JSON writers (ui/plain) import no Bubble Tea. docs/ARCHITECTURE.md
// draws the dependencies; deps_test.go holds them.
package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/diffview"
	"github.com/streamtap/streamtap/ui/inspector"
	"github.com/streamtap/streamtap/ui/sessions"
)

// Model is the one tea.Model of the program: app.Model.
type Model = app.Model

// Options configure the program: app.Options.
type Options = app.Options

// Diff configures the diff page (NewDiff): diffview.Config.
type Diff = diffview.Config

// StrictChecks is the findings of s as `streamtap check` reports them by
// default: by the Checker observing s (checks.Attach), or, for a session
// built without one, by modelling its bytes again. It suits
// Options.Checks.
func StrictChecks(s *model.Session) []checks.Finding { return checks.Check(s, checks.Strict).Findings }

// New returns the inspector over s. A live session keeps receiving frames
// through Frames messages; otherwise s must be complete.
func New(s *model.Session, o Options) *Model {
	e := app.NewEnv(o)
	in := inspector.New(e, s)
	if o.Request != nil {
		sessions.ShowRequest(e, in, *o.Request)
	}
	return app.New(e, in)
}

// NewSessions returns the inspector of a proxy or an archive: a sessions
// list fed by Sessions messages, from which enter opens one session in the
// panes. o.Checks judges each session; o.Live is implied. The list lays
// out whenever its size comes, before or after the sessions.
func NewSessions(o Options) *Model {
	e := app.NewEnv(o)
	sp := sessions.New(e)
	sp.NewDiff = func(e *app.Env, a, b sessions.DiffSide) sessions.DiffPage {
		return diffview.NewPair(e, a.S, a.Rec, a.Name, streamdiff.NewSide(b.Name, b.S, b.Rec), diffview.Config{B: b.Name, Compare: streamdiff.DefaultOptions()})
	}
	return app.New(e, sp)
}

// NewDiff returns the diff page over stream A, session a (live or not,
// as o.Live says, and fed like New's), whose recorder rec was attached
// when a was built (streamdiff.Attach); stream B comes later as a SideRead
// message. enter opens a side in the inspector, o configuring both.
func NewDiff(a *model.Session, rec *streamdiff.Recorder, o Options, d Diff) *Model {
	e := app.NewEnv(o)
	return app.New(e, diffview.New(e, a, rec, d))
}

// Frames wraps a batch of frames for Program.Send: the one way frames
// reach the inspector. The batch is the inspector's until Update has
// added it to the session and called done (when not nil); the sender may
// reuse it after that. A batch that keeps its frames' Raw bytes
// (model.Batch.KeepRaw) lets the checks see them as `streamtap check`
// does.
func Frames(b *model.Batch, done func()) tea.Msg { return app.FramesMsg{Batch: b, Done: done} }

// MoreFrames is Frames for a batch the sender found waiting, as when a
// file is read faster than the screen is drawn: the inspector adds it,
// but draws nothing and starts no pane work until a message that is not
// MoreFrames. Drawing cost as much as adding a batch, so a big file was
// indexed three times slower than `calls` reads it, for screens no one
// could see. The sender must follow it with Frames or Redraw before it
// waits for more, and decides how long the screen may wait; any other
// message (a key) draws at once.
func MoreFrames(b *model.Batch, done func()) tea.Msg {
	return app.FramesMsg{Batch: b, Done: done, More: true}
}

// Redraw draws the screen the MoreFrames before it did not.
func Redraw() tea.Msg { return app.RedrawMsg{} }

// SourceDone tells the inspector the source ended; err is nil at a clean
// end of input.
func SourceDone(err error) tea.Msg { return app.SourceDoneMsg{Err: err} }

// Sessions wraps a batch of session updates for Program.Send. The UI
// owns the batch once sent.
func Sessions(batch []model.SessionUpdate) tea.Msg { return sessions.Msg{Batch: batch} }

// SideRead hands stream B to the diff page (NewDiff) once it is read: a
// session that has ended, with the recorder attached when it was built
// (streamdiff.Attach, with KeepEvents for the timeline and, for the
// findings, the checks beside it); or err when it could not be read. The
// side is the page's from then on.
func SideRead(sd *streamdiff.Side, err error) tea.Msg {
	return diffview.SideReadMsg{Side: sd, Err: err}
}
