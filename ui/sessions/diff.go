package sessions

import (
	"bytes"
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/app"
)

// Comparing two sessions: m marks a session, d opens the side-by-side
// diff page on the two marked (or the one marked and the selected one).
// The page is diffview's, which this package may not import: ui's root
// gives the list a constructor (Page.NewDiff). Both sessions are modelled
// again from their bytes with a diff recorder, off the event loop, so the
// page aligns them event by event as `streamtap A --diff B` does.

// DiffPage is the diff page as the list shows it.
type DiffPage interface {
	app.Page
	// ShowsSide says a side is open in its inspector: esc is its own.
	ShowsSide() bool
}

// NewDiff makes the diff page of A (session a with its recorder) and B.
type NewDiff func(e *app.Env, a *model.Session, rec *streamdiff.Recorder, aName string, b *streamdiff.Side) DiffPage

// maxDiffBytes bounds each session the list compares: both are read into
// memory again.
const maxDiffBytes = 256 << 20

// diffReadyMsg carries the two sessions, modelled for the diff page.
type diffReadyMsg struct {
	gen          int
	a            *model.Session
	rec          *streamdiff.Recorder
	b            *streamdiff.Side
	aName, bName string
	err          error
}

// toggleMark marks or unmarks the selected session for d.
func (sp *Page) toggleMark() {
	ps := sp.selectedSession()
	if ps == nil {
		return
	}
	if i := slices.Index(sp.marked, ps); i >= 0 {
		sp.marked = slices.Delete(sp.marked, i, i+1)
		return
	}
	sp.marked = append(sp.marked, ps)
	if len(sp.marked) > 2 {
		sp.marked = sp.marked[len(sp.marked)-2:] // the two marked last
	}
}

// diffPair is the two sessions d compares, in id order.
func (sp *Page) diffPair() (a, b *proxied, ok bool) {
	pair := slices.Clone(sp.marked)
	if len(pair) == 1 {
		if sel := sp.selectedSession(); sel != nil && sel != pair[0] {
			pair = append(pair, sel)
		}
	}
	if len(pair) != 2 {
		return nil, nil, false
	}
	if pair[0].info.ID > pair[1].info.ID {
		pair[0], pair[1] = pair[1], pair[0]
	}
	return pair[0], pair[1], true
}

// diffCmd reads the two sessions' bytes and models them for the page.
func (sp *Page) diffCmd() tea.Cmd {
	a, b, ok := sp.diffPair()
	switch {
	case sp.NewDiff == nil:
		return nil
	case !ok:
		return sp.Flash("d compares two sessions: mark them with m", true)
	case !a.ended || !b.ended:
		return sp.Flash("d compares ended sessions: one is still streaming", true)
	}
	sp.diffGen++
	gen := sp.diffGen
	name := func(ps *proxied) string {
		return fmt.Sprintf("#%d %s %s", ps.info.ID, ps.info.Method, sp.shownPath(ps))
	}
	aName, bName := name(a), name(b)
	readA, readB := sp.bytesOf(a), sp.bytesOf(b)
	sp.Say("comparing #" + fmt.Sprint(a.info.ID) + " and #" + fmt.Sprint(b.info.ID) + "…")
	return func() tea.Msg {
		msg := diffReadyMsg{gen: gen, aName: aName, bName: bName}
		da, err := readA()
		if err != nil {
			msg.err = err
			return msg
		}
		db, err := readB()
		if err != nil {
			msg.err = err
			return msg
		}
		// Each side with its events kept (the page's timelines and
		// inspectors show them) and a recorder observing.
		ig := streamdiff.DefaultOptions().Ignore
		opts, rec := streamdiff.Attach(model.Options{KeepEvents: true, Raw: bytes.NewReader(da)}, ig)
		msg.a, msg.rec = model.Assemble(da, capture.FormatAuto, opts), rec
		opts, rec = streamdiff.Attach(model.Options{KeepEvents: true, Raw: bytes.NewReader(db)}, ig)
		msg.b = streamdiff.NewSide(bName, model.Assemble(db, capture.FormatAuto, opts), rec)
		return msg
	}
}

// bytesOf returns a reader of a session's bytes for a command: an evicted
// one loads from its copy there; one in memory is copied now, under its
// lock (the proxy may still hold it).
func (sp *Page) bytesOf(ps *proxied) func() ([]byte, error) {
	read := func(s *model.Session) ([]byte, error) {
		n := s.Bytes()
		if n > maxDiffBytes {
			return nil, fmt.Errorf("#%d is %d MiB: d compares sessions up to %d MiB", ps.info.ID, n>>20, maxDiffBytes>>20)
		}
		if n == 0 {
			return nil, nil
		}
		raw, err := s.Raw(&model.Event{Offset: 0, Len: int32(n)})
		return bytes.Clone(raw), err
	}
	if ps.live != nil {
		var data []byte
		var err error
		if ps == sp.cur || ps.live == sp.held {
			data, err = read(ps.s) // its lock is held
		} else {
			ps.live.Lock()
			data, err = read(ps.s)
			ps.live.Unlock()
		}
		return func() ([]byte, error) { return data, err }
	}
	stored := ps.stored
	return func() ([]byte, error) {
		if stored == nil {
			return nil, fmt.Errorf("#%d: its bytes are gone", ps.info.ID)
		}
		l, err := stored.Load()
		if err != nil {
			return nil, err
		}
		return read(l.Session)
	}
}

// handleDiffReady opens the diff page on the two sessions.
func (sp *Page) handleDiffReady(msg diffReadyMsg) tea.Cmd {
	if msg.gen != sp.diffGen {
		return nil
	}
	sp.Quiet()
	if msg.err != nil {
		return sp.Flash("diff: "+msg.err.Error(), true)
	}
	sp.diff = sp.NewDiff(sp.Env, msg.a, msg.rec, msg.aName, msg.b)
	sp.diff.SetSize(sp.w, sp.h)
	return nil
}

// closeDiff comes back from the diff page to the list.
func (sp *Page) closeDiff() {
	sp.diff = nil
	sp.Keys.Sessions.Back.SetHelp("esc", "sessions list")
	sp.Keys.Diff.Open.SetEnabled(false)
	sp.Keys.Diff.Side.SetEnabled(false)
	sp.Keys.Diff.NextDiff.SetEnabled(false)
	sp.Keys.Diff.PrevDiff.SetEnabled(false)
}

// updateDiff hands a message to the diff page; esc on the page itself
// comes back to the list, unless it clears the page's search first (the
// page enables Search.Clear while it has one).
func (sp *Page) updateDiff(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok && !sp.diff.ShowsSide() && !sp.diff.Typing() && key.Matches(k, sp.Keys.Sessions.Back) && !key.Matches(k, sp.Keys.Search.Clear) {
		sp.closeDiff()
		return nil
	}
	return sp.diff.Update(msg)
}

// diffKeys enables the page's keys, and esc back to the list.
func (sp *Page) diffKeys() {
	sp.diff.UpdateKeys()
	if !sp.diff.ShowsSide() {
		sp.Keys.Sessions.Back.SetEnabled(true)
		sp.Keys.Sessions.Back.SetHelp("esc", "sessions list")
	} else {
		sp.Keys.Sessions.Back.SetHelp("esc", "back to the diff")
	}
	for _, b := range []*key.Binding{&sp.Keys.Sessions.Open, &sp.Keys.Sessions.Follow, &sp.Keys.Sessions.Filter, &sp.Keys.Sessions.Sort, &sp.Keys.Sessions.Mark, &sp.Keys.Sessions.Diff} {
		b.SetEnabled(false)
	}
}

// shownPath is a session's path as the list shows it.
func (sp *Page) shownPath(ps *proxied) string {
	if sp.Opts.KeepSecrets {
		return ps.info.Path
	}
	return capture.RedactURL(ps.info.Path)
}
