package diffview

import (
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/inspector"
)

// NewPair returns the diff page of two whole streams, as the sessions
// list's d opens it on two marked sessions: A is session a, built with
// recorder rec attached (streamdiff.Attach) and named aName, B the side
// b. Both have ended, so the comparison starts at once.
func NewPair(e *app.Env, a *model.Session, rec *streamdiff.Recorder, aName string, b *streamdiff.Side, d Config) *Page {
	dp := New(e, a, rec, d)
	dp.side[0].name = aName
	// A is whole: its inspector opens it so, judged (made for a program
	// whose input is live, it waited for an end that came before it).
	dp.side[0].in.Open(a, false, "A "+aName)
	dp.side[0].tl.Follow = false
	dp.handleSideRead(SideReadMsg{Side: b})
	return dp
}

// Inspector is side w's inspector (enter opens it), nil until the side
// is read: the sessions list gives it the session's request pane.
func (dp *Page) Inspector(w streamdiff.Which) *inspector.Page { return dp.side[w&1].in }

// ShowsSide says a side is open in its inspector (enter), where esc comes
// back to the page.
func (dp *Page) ShowsSide() bool { return dp.open >= 0 }
