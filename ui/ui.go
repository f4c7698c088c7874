package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/streamdiff"
)

// StrictChecks is the findings of s as `streamtap check` reports them by
// default: by the Checker observing s (checks.Attach), or, for a session
// built without one, by modelling its bytes again. It suits
// Options.Checks.
func StrictChecks(s *model.Session) []checks.Finding { return checks.Check(s, checks.Strict).Findings }

// New returns the inspector over s. A live session keeps receiving frames
// through Frames messages; otherwise s must be complete.
func New(s *model.Session, o Options) *Model {
	e := newEnv(o)
	in := newInspector(e, s)
	m := newModel(e, in)
	m.insp = in
	return m
}

// Frames wraps a batch of frames for Program.Send: the one way frames
// reach the inspector. The batch is the inspector's until Update has
// added it to the session and called done (when not nil); the sender may
// reuse it after that. A batch that keeps its frames' Raw bytes
// (model.Batch.KeepRaw) lets the checks see them as `streamtap check`
// does.
func Frames(b *model.Batch, done func()) tea.Msg { return framesMsg{b, done, false} }

// MoreFrames is Frames for a batch the sender found waiting, as when a
// file is read faster than the screen is drawn: the inspector adds it,
// but draws nothing and starts no pane work until a message that is not
// MoreFrames. Drawing cost as much as adding a batch, so a big file was
// indexed three times slower than `calls` reads it, for screens no one
// could see. The sender must follow it with Frames or Redraw before it
// waits for more, and decides how long the screen may wait; any other
// message (a key) draws at once.
func MoreFrames(b *model.Batch, done func()) tea.Msg { return framesMsg{b, done, true} }

// Redraw draws the screen the MoreFrames before it did not.
func Redraw() tea.Msg { return redrawMsg{} }

// SourceDone tells the inspector the source ended; err is nil at a clean
// end of input.
func SourceDone(err error) tea.Msg { return sourceDoneMsg{err} }

// Sessions wraps a batch of session updates for Program.Send. The UI
// owns the batch once sent.
func Sessions(batch []model.SessionUpdate) tea.Msg { return sessionsMsg{batch} }

// NewSessions returns the inspector of a proxy or an archive: a sessions
// list fed by Sessions messages, from which enter opens one session in the
// panes. o.Checks judges each session; o.Live is implied. The list lays
// out whenever its size comes, before or after the sessions.
func NewSessions(o Options) *Model {
	e := newEnv(o)
	sp := newSessionsPage(e)
	m := newModel(e, sp)
	m.insp, m.list = sp.insp, sp
	return m
}

// SideRead hands stream B to the diff page (NewDiff) once it is read: a
// session that has ended, with the recorder attached when it was built
// (streamdiff.Attach, with KeepEvents for the timeline and, for the
// findings, the checks beside it); or err when it could not be read. The
// side is the page's from then on.
func SideRead(sd *streamdiff.Side, err error) tea.Msg { return sideReadMsg{sd, err} }

// NewDiff returns the diff page over stream A, session a (live or not,
// as o.Live says, and fed like New's), whose recorder rec was attached
// when a was built (streamdiff.Attach); stream B comes later as a SideRead
// message. enter opens a side in the inspector, o configuring both.
func NewDiff(a *model.Session, rec *streamdiff.Recorder, o Options, d Diff) *Model {
	e := newEnv(o)
	dp := newDiffPage(e, a, rec, d)
	m := newModel(e, dp)
	m.insp, m.dv = dp.side[0].in, dp
	return m
}
