package inspector

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
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
func (in *Page) searchCmd(from int) tea.Cmd {
	events := in.s.Events.Snapshot()
	q := compileQuery(in.s, &events, from, phraseTerm(in.query))
	gen, text := in.gen, in.query
	return scanCmd(in.s, events, from, q, func(ords []int32) tea.Msg {
		return searchResultMsg{gen: gen, query: text, from: from, matches: ords}
	})
}

// filterCmd finds the events from `from` on that the filter keeps.
func (in *Page) filterCmd(from int) tea.Cmd {
	events := in.s.Events.Snapshot()
	q := compileQuery(in.s, &events, from, in.filt.terms)
	s, gen := in.s, in.filt.gen
	return scanCmd(in.s, events, from, q, func(ords []int32) tea.Msg {
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
func (in *Page) openPrompt(mode promptMode) tea.Cmd {
	value := ""
	switch mode {
	case promptSearch:
		value = in.query
	case promptFilter:
		value = in.filt.text
	}
	var cmd tea.Cmd
	in.prompt, cmd = newPrompt(mode, value, &in.Styles, in.w)
	return cmd
}

// handlePromptKey edits the prompt; enter applies it, esc closes it.
func (in *Page) handlePromptKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &in.Keys.Prompt
	switch {
	case key.Matches(msg, k.Cancel):
		in.prompt = prompt{}
	case key.Matches(msg, k.Accept):
		p := in.prompt
		in.prompt = prompt{}
		switch p.mode {
		case promptFilter:
			return in.applyFilter(p.value())
		case promptGoto:
			return in.gotoEvent(p.value())
		}
		return in.applySearch(p.value())
	default:
		return in.prompt.update(msg)
	}
	return nil
}

// handlePaste gives pasted text to the open prompt. With no prompt open a
// paste does nothing: it is not a stream of keys to run.
func (in *Page) handlePaste(msg tea.PasteMsg) tea.Cmd {
	if !in.prompt.active() {
		return nil
	}
	return in.prompt.update(msg)
}

// applySearch starts a search for text; empty text clears it.
func (in *Page) applySearch(text string) tea.Cmd {
	in.query = text
	in.gen++
	in.tl.matches = nil
	in.tl.Invalidate()
	if in.query == "" {
		return nil
	}
	return in.searchCmd(0)
}

func (in *Page) handleSearchResult(msg searchResultMsg) tea.Cmd {
	if msg.gen != in.gen {
		return nil // a newer search superseded this one
	}
	// Results of one search arrive in pieces (the events present when it
	// started, then each batch since) and in any order: merge them.
	in.tl.matches = mergeSorted(in.tl.matches, msg.matches)
	in.tl.Invalidate()
	if msg.from > 0 {
		return nil
	}
	if len(msg.matches) == 0 {
		return in.Flash("no match for "+msg.query, true)
	}
	in.jumpMatch(0)
	return in.Flash(fmt.Sprintf("%d match(es) for %s", len(msg.matches), msg.query), false)
}

// jumpMatch selects the next (1), previous (-1) or first at or after the
// cursor (0) search match.
func (in *Page) jumpMatch(dir int) {
	ms := in.tl.matches
	if len(ms) == 0 {
		return
	}
	cur := in.Selected()
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
	in.rep.playing = false
	in.tl.SelectOrd(pick)
}

// applyFilter starts filtering by text; the rows arrive as a
// filterResultMsg. Empty text shows every event again.
func (in *Page) applyFilter(text string) tea.Cmd {
	cur := in.Selected()
	if cur >= 0 {
		in.filt.anchor = cur
	}
	in.filt.gen++
	in.filt.text = strings.TrimSpace(text)
	in.filt.terms = parseTerms(text)
	in.tl.Invalidate()
	if in.filt.empty() {
		in.tl.rows, in.tl.filtering = nil, false
		if cur >= 0 {
			in.tl.cursor = in.tl.rowOf(cur)
			in.tl.scrollToCursor()
		}
		return nil
	}
	in.tl.rows, in.tl.filtering = []int32{}, true
	return in.filterCmd(0)
}

// handleFilterResult adds the rows a filter kept, keeping the selection on
// the event it was on (or, for the first results, near the event selected
// when the filter was applied).
func (in *Page) handleFilterResult(msg filterResultMsg) {
	if msg.s != in.s || msg.gen != in.filt.gen || in.tl.rows == nil {
		return
	}
	cur := in.Selected()
	if msg.from == 0 {
		in.tl.filtering = false
		cur = in.filt.anchor
	}
	in.tl.rows = mergeSorted(in.tl.rows, msg.rows)
	in.tl.Invalidate()
	if in.tl.Follow {
		in.tl.Appended() // to the new last row
		return
	}
	if cur >= 0 && in.tl.len() > 0 {
		in.tl.cursor = in.tl.rowOf(cur)
		in.tl.scrollToCursor()
	}
}

// gotoEvent selects the event numbered by text (the # column).
func (in *Page) gotoEvent(text string) tea.Cmd {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 0 {
		return in.Flash(fmt.Sprintf("not an event number: %q", termtext.Safe(text)), true)
	}
	if in.s.Len() == 0 {
		return in.Flash("no events yet", true)
	}
	if n >= in.s.Len() {
		return in.Flash(fmt.Sprintf("no event %d: events are numbered 0 to %d", n, in.s.Len()-1), true)
	}
	in.rep.playing = false
	in.tl.SelectOrd(n)
	if in.Selected() != n {
		return in.Flash(fmt.Sprintf("event %d is hidden by the filter: showing #%d", n, in.Selected()), true)
	}
	return nil
}

// mergeSorted returns the sorted union of two sorted lists.
func mergeSorted(a, b []int32) []int32 {
	if len(b) == 0 {
		return a
	}
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}
