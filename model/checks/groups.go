package checks

// EventGroups collects events by a key (a type name, a family), in
// first-seen order, keeping at most MaxEvents ordinals of each: a rule that
// reports each key once, citing its events, collects them so.
type EventGroups struct {
	Keys []string // in first-seen order
	By   map[string]*EventList
}

// EventList is the events of one key: N of them, the first MaxEvents
// listed.
type EventList struct {
	N      int
	Events []int
}

// Add records event ord under key.
func (g *EventGroups) Add(key string, ord int) {
	if g.By == nil {
		g.By = map[string]*EventList{}
	}
	l := g.By[key]
	if l == nil {
		l = &EventList{}
		g.By[key] = l
		g.Keys = append(g.Keys, key)
	}
	l.N++
	if len(l.Events) < MaxEvents {
		l.Events = append(l.Events, ord)
	}
}
