package diffview

import (
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/app"
)

// NewPair returns the diff page of two whole streams, as the sessions
// list's d opens it on two marked sessions: A is session a, built with
// recorder rec attached (streamdiff.Attach) and named aName, B the side
// b. Both have ended, so the comparison starts at once.
func NewPair(e *app.Env, a *model.Session, rec *streamdiff.Recorder, aName string, b *streamdiff.Side, d Config) *Page {
	dp := New(e, a, rec, d)
	dp.side[0].name = aName
	dp.side[0].in.Source = "A " + aName
	dp.side[0].in.Live = false
	dp.side[0].tl.Follow = false
	dp.handleSideRead(SideReadMsg{Side: b})
	return dp
}

// ShowsSide says a side is open in its inspector (enter), where esc comes
// back to the page.
func (dp *Page) ShowsSide() bool { return dp.open >= 0 }
