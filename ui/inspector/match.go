package inspector

import (
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/model"
)

// query is a compiled search or filter: terms that must all match. It is
// built in Update, where the session may be read, and holds everything it
// needs about the events' types and items, so that it can then run off the
// event loop over a snapshot of the events and their immutable bytes
// without touching the live session.
type query struct {
	terms []term
}

// term is one condition on an event. A word (field "") matches an event
// whose bytes hold it, in any case, as sent or JSON-escaped (argument
// content arrives escaped: `"loc` is `\"loc` on the wire), or whose type,
// kind or item (ids and name) holds it. The prefixed fields match one
// property only.
type term struct {
	field string // "", "kind", "item", "dialect", "type"
	text  string // as typed
	value string // lowercased

	// bytes is what a word looks for in an event's bytes.
	bytes BytesQuery
	// types and items say, per type id and per item index, whether the
	// type or the item matches. Only ids the scanned events use are
	// decided; the others are false.
	types []bool
	items []bool
}

// parseTerms splits filter text into terms: `kind:args-delta` (also
// `k:`), `item:`/`call:` (also `i:`), `dialect:` (`d:`), `type:` (`t:`),
// or a bare word.
func parseTerms(text string) []term {
	var out []term
	for w := range strings.FieldsSeq(text) {
		field, value, ok := strings.Cut(w, ":")
		switch strings.ToLower(field) {
		case "kind", "k":
			field = "kind"
		case "item", "call", "i":
			field = "item"
		case "dialect", "d":
			field = "dialect"
		case "type", "t":
			field = "type"
		default:
			ok = false
		}
		if !ok || value == "" {
			field, value = "", w // a word that merely holds a colon
		}
		out = append(out, term{field: field, text: value, value: strings.ToLower(value)})
	}
	return out
}

// phraseTerm is a search: the whole text as one word, spaces included.
func phraseTerm(text string) []term {
	if text == "" {
		return nil
	}
	return []term{{text: text, value: strings.ToLower(text)}}
}

// compileQuery prepares terms to match events [from, events.Len()). It
// reads the session (type names, items), so it must run in Update; it
// costs O(events in the range), plus one look at each type and item they
// use.
func compileQuery(s *model.Session, events *model.EventLog, from int, terms []term) *query {
	q := &query{terms: terms}
	for i := range q.terms {
		t := &q.terms[i]
		if t.field == "" {
			t.bytes = NewBytesQuery(t.text)
		}
		if t.field == "" || t.field == "item" {
			t.items = make([]bool, len(s.Items))
		}
	}
	var typeSeen []bool
	itemSeen := make([]bool, len(s.Items))
	for ord := from; ord < events.Len(); ord++ {
		ev := events.At(ord)
		if int(ev.Type) >= len(typeSeen) {
			typeSeen = grow(typeSeen, int(ev.Type)+1)
			for i := range q.terms {
				if t := &q.terms[i]; t.field == "" || t.field == "type" {
					t.types = grow(t.types, int(ev.Type)+1)
				}
			}
		}
		if !typeSeen[ev.Type] {
			typeSeen[ev.Type] = true
			name := strings.ToLower(s.TypeName(ev.Type))
			for i := range q.terms {
				if t := &q.terms[i]; t.types != nil {
					t.types[ev.Type] = strings.Contains(name, t.value)
				}
			}
		}
		if it := ev.Item; it >= 0 && int(it) < len(itemSeen) && !itemSeen[it] {
			itemSeen[it] = true
			for i := range q.terms {
				if t := &q.terms[i]; t.items != nil {
					t.items[it] = ItemMatches(s.Items[it], t.value, t.field == "item")
				}
			}
		}
	}
	return q
}

// grow extends b with false to n elements.
func grow(b []bool, n int) []bool {
	if n <= len(b) {
		return b
	}
	return append(b, make([]bool, n-len(b))...)
}

// ItemMatches reports whether an item's ids or name hold v, lowered;
// withIndex also takes v as the item's index (`item:0`).
func ItemMatches(it *model.Item, v string, withIndex bool) bool {
	if withIndex && strconv.Itoa(it.Index) == v {
		return true
	}
	for _, id := range []string{it.ItemID, it.CallID, it.Name} {
		if id != "" && strings.Contains(strings.ToLower(id), v) {
			return true
		}
	}
	return false
}

// matcher runs a query over events, reading their bytes only when a term
// needs them. It reuses its buffer, so one matcher serves one goroutine.
type matcher struct {
	q     *query
	raw   func(ev *model.Event) ([]byte, error)
	lower []byte
	read  bool // lower holds the current event's bytes
}

// match reports whether ev passes every term.
func (m *matcher) match(ev *model.Event) bool {
	m.read = false
	for i := range m.q.terms {
		if !m.term(&m.q.terms[i], ev) {
			return false
		}
	}
	return true
}

func (m *matcher) term(t *term, ev *model.Event) bool {
	switch t.field {
	case "kind":
		return strings.HasPrefix(ev.Kind.String(), t.value)
	case "dialect":
		return strings.Contains(ev.Dialect.String(), t.value)
	case "type":
		return int(ev.Type) < len(t.types) && t.types[ev.Type]
	case "item":
		return ev.Item >= 0 && int(ev.Item) < len(t.items) && t.items[ev.Item]
	}
	if (int(ev.Type) < len(t.types) && t.types[ev.Type]) || strings.HasPrefix(ev.Kind.String(), t.value) ||
		(ev.Item >= 0 && int(ev.Item) < len(t.items) && t.items[ev.Item]) {
		return true
	}
	if !m.read {
		raw, err := m.raw(ev)
		if err != nil {
			return false
		}
		m.lower, m.read = AppendLower(m.lower[:0], raw), true
	}
	return t.bytes.In(m.lower)
}
