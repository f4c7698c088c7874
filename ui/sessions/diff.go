package sessions

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/inspector"
)

// Comparing two sessions: m marks a session, d opens the side-by-side
// diff page on the two marked (or the one marked and the selected one).
// The page is diffview's, which this package may not import: ui's root
// gives the list a constructor (Page.NewDiff). Both sessions are modelled
// again, event by event as the proxy modelled them (streamCopy), with a
// diff recorder, off the event loop, so the page aligns them event by
// event as `streamtap A --diff B` does, numbered as the session's own
// inspector and check of its recording number them.

// DiffPage is the diff page as the list shows it.
type DiffPage interface {
	app.Page
	// ShowsSide says a side is open in its inspector: esc is its own.
	ShowsSide() bool
	// Inspector is side w's inspector, which the list gives the side's
	// request pane, as the session's own inspector has.
	Inspector(w streamdiff.Which) *inspector.Page
}

// DiffSide is one session the list compares, modelled again for the diff
// page: its session (a recorder and the session's checks observing),
// its recorder, how the page names it, and its exchange (the request the
// side's request pane shows).
type DiffSide struct {
	S    *model.Session
	Rec  *streamdiff.Recorder
	Name string
	X    model.Exchange
}

// NewDiff makes the diff page of two sessions, A and B.
type NewDiff func(e *app.Env, a, b DiffSide) DiffPage

// maxDiffBytes bounds each session the list compares: both are read into
// memory again.
const maxDiffBytes = 256 << 20

// diffReadyMsg carries the two sessions, modelled for the diff page.
type diffReadyMsg struct {
	gen  int
	a, b DiffSide
	err  error
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

// diffCmd copies the two sessions and models them again for the page,
// off the event loop.
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
	copyA, copyB := sp.copyOf(a), sp.copyOf(b)
	sp.Say("comparing #" + fmt.Sprint(a.info.ID) + " and #" + fmt.Sprint(b.info.ID) + "…")
	return func() tea.Msg {
		msg := diffReadyMsg{gen: gen}
		ca, err := copyA()
		if err != nil {
			msg.err = err
			return msg
		}
		cb, err := copyB()
		if err != nil {
			msg.err = err
			return msg
		}
		ig := streamdiff.DefaultOptions().Ignore
		msg.a, msg.b = ca.remodel(aName, ig), cb.remodel(bName, ig)
		return msg
	}
}

// streamCopy is what the diff page needs of a session to model it again
// as the list showed it: its body's bytes, each event's span of them and
// arrival time, its HTTP heads (which cover no bytes of the body), how it
// ended, its exchange and its checks' config. Modelling the body's bytes
// alone (as d did) lost the head: every ordinal was one less than in the
// session's inspector and in check of its recording, and the time columns,
// the request pane and the request's findings went.
type streamCopy struct {
	body   []byte
	events []eventSpan
	heads  []model.Head
	format capture.Format
	ended  bool
	endErr error
	x      model.Exchange
	cfg    checks.Config
}

// eventSpan is one event of a streamCopy: a span of the body, or the head
// heads[head].
type eventSpan struct {
	start, end int64
	at         time.Duration
	head       int // index in heads, or -1
}

// copyOf returns what reads a session's copy for a command: one in
// memory is copied now, under its lock (the proxy may still hold it); an
// evicted one loads from its copy there.
func (sp *Page) copyOf(ps *proxied) func() (streamCopy, error) {
	x := ps.info
	if ps.live != nil {
		var c streamCopy
		var err error
		if ps == sp.cur || ps.live == sp.held {
			c, err = copySession(ps.info.ID, ps.s, x) // its lock is held
		} else {
			ps.live.Lock()
			c, err = copySession(ps.info.ID, ps.s, x)
			ps.live.Unlock()
		}
		return func() (streamCopy, error) { return c, err }
	}
	stored := ps.stored
	return func() (streamCopy, error) {
		if stored == nil {
			return streamCopy{}, fmt.Errorf("#%d: its bytes are gone", x.ID)
		}
		l, err := stored.Load()
		if err != nil {
			return streamCopy{}, err
		}
		x.Request = l.Request
		return copySession(x.ID, l.Session, x)
	}
}

// copySession copies session s (exchange x) for the diff page.
func copySession(id int, s *model.Session, x model.Exchange) (streamCopy, error) {
	n := s.Bytes()
	if n > maxDiffBytes {
		return streamCopy{}, fmt.Errorf("#%d is %d MiB: d compares sessions up to %d MiB", id, n>>20, maxDiffBytes>>20)
	}
	c := streamCopy{x: x, heads: slices.Clone(s.Heads), format: capture.FormatAuto}
	if n > 0 {
		raw, err := s.Raw(&model.Event{Offset: 0, Len: int32(n)})
		if err != nil {
			return streamCopy{}, err
		}
		c.body = bytes.Clone(raw)
	}
	c.ended, c.endErr = s.Ended()
	if chk, ok := model.FindObserver[*checks.Checker](s); ok {
		c.cfg = chk.Config()
	}
	headAt := map[int]int{}
	for i, h := range c.heads {
		headAt[h.Ordinal] = i
		switch {
		case h.Status == http.StatusSwitchingProtocols:
			c.format = capture.FormatSSE // a WebSocket's messages are written as SSE blocks
		case headerValue(h, "Content-Type") != "":
			c.format = capture.ContentFormat(headerValue(h, "Content-Type"))
		}
	}
	c.events = make([]eventSpan, 0, s.Events.Len())
	for ord := range s.Events.Len() {
		ev := s.Events.At(ord)
		e := eventSpan{start: ev.Offset, end: ev.Offset + int64(max(ev.Len, 0)), at: ev.At, head: -1}
		if i, ok := headAt[ord]; ok && ev.Source == capture.FrameHead {
			e.head = i
		}
		c.events = append(c.events, e)
	}
	return c, nil
}

// headerValue is the first value of header name in h, or "".
func headerValue(h model.Head, name string) string {
	for _, f := range h.Header {
		if strings.EqualFold(string(f.Name), name) {
			return string(f.Value)
		}
	}
	return ""
}

// remodel models the copy again, event by event, as the proxy modelled
// the session: each head where it came, each event's bytes at its time,
// so that the ordinals, the times and the outcome are the session's; its
// checks (the request's rules included) and a diff recorder observe it.
func (c streamCopy) remodel(name string, ig streamdiff.Ignore) DiffSide {
	opts, chk := checks.Attach(model.Options{KeepEvents: true, Raw: bytes.NewReader(c.body)})
	chk.SetConfig(c.cfg)
	chk.SetRequest(c.x.Request)
	opts, rec := streamdiff.Attach(opts, ig)
	s := model.NewSession(opts)
	fr := capture.NewFramer(c.format)
	add := func(f *capture.Frame) { s.Add(f) }
	pos, last := int64(0), capture.NoTime
	for _, e := range c.events {
		if e.head >= 0 {
			// The proxy's head covers no bytes of the body; an archive's
			// session holds its head's text before the body.
			h := c.heads[e.head]
			end := pos
			if e.start == pos && e.end > pos && e.end <= int64(len(c.body)) {
				end = e.end
			}
			s.Add(&capture.Frame{Kind: capture.FrameHead, At: e.at, Retry: -1, Proto: h.Proto, Status: h.Status, Header: h.Header, Start: pos, End: end})
			pos = end
			continue
		}
		if e.start != pos || e.end < e.start || e.end > int64(len(c.body)) {
			continue // never expected: the events cover the body, in order
		}
		fr.Feed(c.body[e.start:e.end], e.at, add)
		pos, last = e.end, e.at
	}
	if pos < int64(len(c.body)) {
		fr.Feed(c.body[pos:], last, add)
	}
	fr.Finish(last, add)
	if c.ended {
		s.End(c.endErr)
	}
	return DiffSide{S: s, Rec: rec, Name: name, X: c.x}
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
	sp.diff = sp.NewDiff(sp.Env, msg.a, msg.b)
	for w, x := range [2]model.Exchange{msg.a.X, msg.b.X} {
		if in := sp.diff.Inspector(streamdiff.Which(w)); in != nil {
			ShowRequest(sp.Env, in, x)
		}
	}
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
