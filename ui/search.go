package ui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
)

// searchResultMsg carries the ordinals matching a search; gen drops stale
// results when the user searched again in the meantime.
type searchResultMsg struct {
	gen     int
	query   string
	from    int // first ordinal searched: results after 0 extend the matches
	matches []int32
}

// filterResultMsg carries the ordinals a filter keeps, from `from` on. A
// result for another session (the proxy's inspector opened another) or an
// older filter is dropped.
type filterResultMsg struct {
	s    *model.Session
	gen  int
	from int
	rows []int32
}

// scanCmd runs q over the events from `from` on, off the event loop, and
// reports the ordinals that match. It works on a snapshot of the event
// index (events are never modified once added), on what q compiled from
// the session in Update, and on Session.Raw, which reads only the
// immutable byte source.
func scanCmd(s *model.Session, events model.EventLog, from int, q *query, done func([]int32) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		m := matcher{q: q, raw: s.Raw}
		var out []int32
		for i := from; i < events.Len(); i++ {
			if m.match(events.At(i)) {
				out = append(out, int32(i))
			}
		}
		return done(out)
	}
}

// searchCmd looks for text, as one phrase, in the events from `from` on.
func (m *Model) searchCmd(from int) tea.Cmd {
	events := m.s.Events.Snapshot()
	q := compileQuery(m.s, &events, from, phraseTerm(m.query))
	gen, text := m.gen, m.query
	return scanCmd(m.s, events, from, q, func(ords []int32) tea.Msg {
		return searchResultMsg{gen: gen, query: text, from: from, matches: ords}
	})
}

// filterCmd finds the events from `from` on that the filter keeps.
func (m *Model) filterCmd(from int) tea.Cmd {
	events := m.s.Events.Snapshot()
	q := compileQuery(m.s, &events, from, m.filt.terms)
	s, gen := m.s, m.filt.gen
	return scanCmd(m.s, events, from, q, func(ords []int32) tea.Msg {
		return filterResultMsg{s: s, gen: gen, from: from, rows: ords}
	})
}

// filter is the active filter: its text, its terms, and the generation of
// its results.
type filter struct {
	text  string
	terms []term
	gen   int
	// anchor is the event selected when the filter was applied; the
	// selection returns near it once the results are in.
	anchor int
}

func (f *filter) empty() bool { return len(f.terms) == 0 }

// openPrompt starts typing a search, filter or go-to.
func (m *Model) openPrompt(mode promptMode) tea.Cmd {
	value := ""
	switch mode {
	case promptSearch:
		value = m.query
	case promptFilter:
		value = m.filt.text
	}
	var cmd tea.Cmd
	m.prompt, cmd = newPrompt(mode, value, &m.st, m.w)
	return cmd
}

// handlePromptKey edits the prompt; enter applies it, esc closes it.
func (m *Model) handlePromptKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys.Prompt
	switch {
	case key.Matches(msg, k.Cancel):
		m.prompt = prompt{}
	case key.Matches(msg, k.Accept):
		p := m.prompt
		m.prompt = prompt{}
		switch p.mode {
		case promptFilter:
			return m.applyFilter(p.value())
		case promptGoto:
			return m.gotoEvent(p.value())
		}
		return m.applySearch(p.value())
	default:
		return m.prompt.update(msg)
	}
	return nil
}

// handlePaste gives pasted text to the open prompt. With no prompt open a
// paste does nothing: it is not a stream of keys to run.
func (m *Model) handlePaste(msg tea.PasteMsg) tea.Cmd {
	if !m.prompt.active() {
		return nil
	}
	return m.prompt.update(msg)
}

// applySearch starts a search for text; empty text clears it.
func (m *Model) applySearch(text string) tea.Cmd {
	m.query = text
	m.gen++
	m.tl.matches = nil
	m.tl.invalidate()
	if m.query == "" {
		return nil
	}
	return m.searchCmd(0)
}

func (m *Model) handleSearchResult(msg searchResultMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil // a newer search superseded this one
	}
	// Results of one search arrive in pieces (the events present when it
	// started, then each batch since) and in any order: merge them.
	m.tl.matches = mergeSorted(m.tl.matches, msg.matches)
	m.tl.invalidate()
	if msg.from > 0 {
		return nil
	}
	if len(msg.matches) == 0 {
		return m.flash("no match for "+msg.query, true)
	}
	m.jumpMatch(0)
	return m.flash(fmt.Sprintf("%d match(es) for %s", len(msg.matches), msg.query), false)
}

// jumpMatch selects the next (1), previous (-1) or first at or after the
// cursor (0) search match.
func (m *Model) jumpMatch(dir int) {
	ms := m.tl.matches
	if len(ms) == 0 {
		return
	}
	cur := m.selected()
	pick := -1
	switch dir {
	case 0, 1:
		for _, o := range ms {
			if int(o) > cur || (dir == 0 && int(o) == cur) {
				pick = int(o)
				break
			}
		}
		if pick < 0 {
			pick = int(ms[0]) // wrap around
		}
	default:
		for i := len(ms) - 1; i >= 0; i-- {
			if int(ms[i]) < cur {
				pick = int(ms[i])
				break
			}
		}
		if pick < 0 {
			pick = int(ms[len(ms)-1])
		}
	}
	m.rep.playing = false
	m.tl.selectOrd(pick)
}

// applyFilter starts filtering by text; the rows arrive as a
// filterResultMsg. Empty text shows every event again.
func (m *Model) applyFilter(text string) tea.Cmd {
	cur := m.selected()
	if cur >= 0 {
		m.filt.anchor = cur
	}
	m.filt.gen++
	m.filt.text = strings.TrimSpace(text)
	m.filt.terms = parseTerms(text)
	m.tl.invalidate()
	if m.filt.empty() {
		m.tl.rows, m.tl.filtering = nil, false
		if cur >= 0 {
			m.tl.cursor = m.tl.rowOf(cur)
			m.tl.scrollToCursor()
		}
		return nil
	}
	m.tl.rows, m.tl.filtering = []int32{}, true
	return m.filterCmd(0)
}

// handleFilterResult adds the rows a filter kept, keeping the selection on
// the event it was on (or, for the first results, near the event selected
// when the filter was applied).
func (m *Model) handleFilterResult(msg filterResultMsg) {
	if msg.s != m.s || msg.gen != m.filt.gen || m.tl.rows == nil {
		return
	}
	cur := m.selected()
	if msg.from == 0 {
		m.tl.filtering = false
		cur = m.filt.anchor
	}
	m.tl.rows = mergeSorted(m.tl.rows, msg.rows)
	m.tl.invalidate()
	if m.tl.follow {
		m.tl.appended() // to the new last row
		return
	}
	if cur >= 0 && m.tl.len() > 0 {
		m.tl.cursor = m.tl.rowOf(cur)
		m.tl.scrollToCursor()
	}
}

// gotoEvent selects the event numbered by text (the # column).
func (m *Model) gotoEvent(text string) tea.Cmd {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 0 {
		return m.flash(fmt.Sprintf("not an event number: %q", Safe(text)), true)
	}
	if m.s.Len() == 0 {
		return m.flash("no events yet", true)
	}
	if n >= m.s.Len() {
		return m.flash(fmt.Sprintf("no event %d: events are numbered 0 to %d", n, m.s.Len()-1), true)
	}
	m.rep.playing = false
	m.tl.selectOrd(n)
	if m.selected() != n {
		return m.flash(fmt.Sprintf("event %d is hidden by the filter: showing #%d", n, m.selected()), true)
	}
	return nil
}
