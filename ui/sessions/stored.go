package sessions

// This file keeps the sessions list bounded. A proxy left running all day
// sees thousands of exchanges; keeping each one's model (its events, its
// bytes, its checks' state) took 2,000 sessions of 151 KB to 2.2 GB. So an
// ended session whose bytes the proxy keeps on disk (model.StoredSession)
// is evicted: the list keeps its row (what the columns and the selected
// line show) and lets the model go; opening it loads it again, in a
// command, off the event loop. With Options.Keep the list also lets the oldest ended
// sessions go altogether, and their copies with them.

import (
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// sessionLoadedMsg brings a session loaded for opening.
type sessionLoadedMsg struct {
	gen, id int
	loaded  model.LoadedSession
	err     error
}

// evict lets an ended session's model go when its bytes are stored and
// it is not open: its row keeps what the list shows, no more.
func (sp *Page) evict(ps *proxied) {
	if !ps.ended || (ps.stored == nil && ps.notKept == "") || ps == sp.cur {
		return
	}
	ps.live, ps.s = nil, nil
	ps.info = rowInfo(ps.info)
}

// rowInfo is the part of an exchange a row and the selected line show:
// without the request's and response's headers and body, and without the
// request read from the body, which Load gives back.
func rowInfo(x model.Exchange) model.Exchange {
	x.Exchange = capture.Exchange{
		Started: x.Started, Method: x.Method, URL: x.URL, Proto: x.Proto,
		Status: x.Status, HeadAt: x.HeadAt, Error: x.Error, Source: x.Source,
	}
	x.Request = nil
	return x
}

// openCmd opens a session: at once when its model is in memory, else
// after loading it from its copy (sessionLoadedMsg).
func (sp *Page) openCmd(ps *proxied) tea.Cmd {
	sp.loadGen++ // an earlier load no longer opens anything
	if ps.live != nil {
		sp.openSession(ps)
		return nil
	}
	if ps.stored == nil {
		return sp.Flash(fmt.Sprintf("#%d cannot be opened: its bytes were %s", ps.info.ID, ps.notKept), true)
	}
	gen, id, stored := sp.loadGen, ps.info.ID, ps.stored
	sp.loading, sp.typeahead = true, nil
	sp.Say(fmt.Sprintf("loading #%d…", id)) // until the load comes back: no fade
	return func() tea.Msg {
		l, err := stored.Load()
		return sessionLoadedMsg{gen: gen, id: id, loaded: l, err: err}
	}
}

// maxTypeahead bounds the keys kept while a session loads.
const maxTypeahead = 64

// typeAhead takes a key pressed while a session loads: esc gives up the
// load; any other key waits for the session, as it would have reached it
// had the session been in memory (enter then G selects its last event).
func (sp *Page) typeAhead(msg tea.KeyPressMsg) {
	if key.Matches(msg, sp.Keys.Sessions.Back) {
		sp.loadGen++
		sp.loading, sp.typeahead = false, nil
		sp.Quiet()
		return
	}
	if len(sp.typeahead) < maxTypeahead {
		sp.typeahead = append(sp.typeahead, msg)
	}
}

// handleLoaded opens a session just loaded, unless the user gave up the
// load meanwhile or the list let the session go, and returns the keys
// typed meanwhile, for the inspector.
func (sp *Page) handleLoaded(msg sessionLoadedMsg) (tea.Cmd, []tea.KeyPressMsg) {
	if msg.gen != sp.loadGen {
		return nil, nil // given up, or another load is on its way
	}
	keys := sp.typeahead
	sp.loading, sp.typeahead = false, nil
	sp.Quiet()
	ps := sp.byID[msg.id]
	if ps == nil || sp.cur != nil {
		return nil, nil
	}
	if msg.err != nil {
		return sp.Flash(fmt.Sprintf("#%d could not be loaded: %v", msg.id, msg.err), true), nil
	}
	if ps.live == nil {
		ps.live, ps.s = model.NewLive(msg.loaded.Session), msg.loaded.Session
		ps.info.Request = msg.loaded.Request
	}
	sp.openSession(ps)
	return nil, keys
}

// prune lets the oldest ended sessions go while the list holds more than
// Options.Keep (none while it is 0), and deletes their copies in a
// command. A session still streaming, or open, stays.
func (sp *Page) prune() tea.Cmd {
	excess := len(sp.px) - sp.Opts.Keep
	if sp.Opts.Keep <= 0 || excess <= 0 {
		return nil
	}
	var gone []model.StoredSession
	kept := sp.px[:0]
	before := 0 // rows let go above the cursor
	for i, ps := range sp.px {
		if excess > 0 && ps.ended && ps != sp.cur && !slices.Contains(sp.marked, ps) { // d may still want a marked one
			excess--
			sp.pxCount[ps.class()]--
			delete(sp.byID, ps.info.ID)
			sp.dropped++
			if ps.stored != nil {
				gone = append(gone, ps.stored)
			}
			if i < sp.sl.cursor {
				before++
			}
			continue
		}
		kept = append(kept, ps)
	}
	clear(sp.px[len(kept):])
	sp.px = kept
	sp.sl.cursor -= before
	if sp.sl.follow {
		sp.sl.cursor = len(sp.px) - 1
	}
	if len(gone) == 0 {
		return nil
	}
	return func() tea.Msg {
		for _, st := range gone {
			_ = st.Remove() // a copy that cannot be removed goes with the temporary directory
		}
		return nil
	}
}
