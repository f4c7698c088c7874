package ui

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
)

// promptMode says what the bottom line is typing.
type promptMode uint8

const (
	promptNone promptMode = iota
	promptSearch
	promptFilter
)

// prompt is the one-line input for search and filter.
type prompt struct {
	mode promptMode
	text string
}

func (p *prompt) active() bool { return p.mode != promptNone }

func (p *prompt) label() string {
	if p.mode == promptFilter {
		return `\ `
	}
	return "/"
}

func (p *prompt) hint() string {
	if p.mode == promptFilter {
		return "kind:args-delta item:fc_1 dialect:anthropic or words · enter apply · esc cancel"
	}
	return "types, ids, text, argument content · enter search · esc cancel"
}

// edit applies a key to the text: printable text is appended, backspace
// deletes a rune.
func (p *prompt) edit(msg tea.KeyPressMsg) {
	switch msg.String() {
	case "backspace", "ctrl+h":
		if r := []rune(p.text); len(r) > 0 {
			p.text = string(r[:len(r)-1])
		}
		return
	case "ctrl+u":
		p.text = ""
		return
	}
	if t := msg.Key().Text; t != "" {
		p.text += t
	}
}

// searchResultMsg carries the ordinals matching a search; gen drops stale
// results when the user searched again in the meantime.
type searchResultMsg struct {
	gen     int
	query   string
	from    int // first ordinal searched: results after 0 extend the matches
	matches []int32
}

// searchCmd looks for query in the bytes of events from `from` on, off
// the event loop. It works on a snapshot of the event index (events are
// never modified once added) and Session.Raw, which reads only the
// immutable byte source.
func searchCmd(s *model.Session, events model.EventLog, from, gen int, query string) tea.Cmd {
	return func() tea.Msg {
		q := bytes.ToLower([]byte(query))
		// Argument and text content is JSON-escaped inside the stream's
		// bytes: `"loc` arrives as `\"loc`. Look for both spellings.
		esc, _ := json.Marshal(strings.ToLower(query))
		qe := esc[1 : len(esc)-1]
		var out []int32
		var low []byte
		for i := from; i < events.Len(); i++ {
			raw, err := s.Raw(events.At(i))
			if err != nil {
				continue
			}
			low = appendLower(low[:0], raw)
			if bytes.Contains(low, q) || (len(qe) > 0 && !bytes.Equal(qe, q) && bytes.Contains(low, qe)) {
				out = append(out, int32(i))
			}
		}
		return searchResultMsg{gen: gen, query: query, from: from, matches: out}
	}
}

func appendLower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// filter selects events by kind, item or call, dialect, or words matching
// the type or the item's ids.
type filter struct {
	text  string
	terms []filterTerm
}

type filterTerm struct{ field, value string }

func parseFilter(text string) filter {
	f := filter{text: strings.TrimSpace(text)}
	for w := range strings.FieldsSeq(strings.ToLower(text)) {
		field, value, ok := strings.Cut(w, ":")
		if !ok {
			field, value = "", w
		}
		f.terms = append(f.terms, filterTerm{field, value})
	}
	return f
}

func (f *filter) empty() bool { return len(f.terms) == 0 }

// match reports whether event ord passes every term.
func (f *filter) match(s *model.Session, ord int) bool {
	ev := s.Events.At(ord)
	var it *model.Item
	if ev.Item >= 0 && int(ev.Item) < len(s.Items) {
		it = s.Items[ev.Item]
	}
	itemHas := func(v string) bool {
		if it == nil {
			return false
		}
		if strconv.Itoa(it.Index) == v {
			return true
		}
		for _, id := range []string{it.ItemID, it.CallID, it.Name} {
			if id != "" && strings.Contains(strings.ToLower(id), v) {
				return true
			}
		}
		return false
	}
	for _, t := range f.terms {
		var ok bool
		switch t.field {
		case "kind", "k":
			ok = strings.HasPrefix(ev.Kind.String(), t.value)
		case "item", "call", "i":
			ok = itemHas(t.value)
		case "dialect", "d":
			ok = strings.Contains(ev.Dialect.String(), t.value)
		case "type", "t":
			ok = strings.Contains(strings.ToLower(s.TypeName(ev.Type)), t.value)
		default:
			ok = strings.HasPrefix(ev.Kind.String(), t.value) ||
				strings.Contains(strings.ToLower(s.TypeName(ev.Type)), t.value) || itemHas(t.value)
		}
		if !ok {
			return false
		}
	}
	return true
}
