package checks

// This file holds how a report is bounded and ordered: each rule lists at
// most MaxPerRule findings and sums up the rest, and the findings come out
// by severity, then in the stream order of the event that tells each apart
// from the other findings of its rule.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// maxRuns bounds the runs of events an overflow finding names: a rule
// repeated on every event of a million-event stream names them as one run
// (79–1039), one repeated on scattered events as many; past this many runs
// the rest are only counted.
const maxRuns = MaxPerRule

// ruleTally is what a Checker keeps of one rule besides its listed
// findings: how many it listed, the events every one of its findings cites
// (which tell none of them apart), and the findings past MaxPerRule, kept
// as the events that tell each apart.
type ruleTally struct {
	listed int
	common []int // sorted; meaningful once a finding was recorded
	any    bool  // a finding was recorded

	dropped int      // findings past MaxPerRule
	sev     Severity // the highest of the dropped
	at      []int    // the first MaxEvents of the dropped findings' keys
	runs    []eventRun
	unnamed int // dropped keys past maxRuns runs
}

// eventRun is the consecutive events first..last.
type eventRun struct{ first, last int }

func (t *ruleTally) clone() *ruleTally {
	cp := *t
	cp.common, cp.at, cp.runs = slices.Clone(t.common), slices.Clone(t.at), slices.Clone(t.runs)
	return &cp
}

// narrow keeps in common only the events that events (sorted) cites too.
func (t *ruleTally) narrow(events []int) {
	if !t.any {
		t.any, t.common = true, slices.Clone(events)
		return
	}
	t.common = slices.DeleteFunc(t.common, func(e int) bool {
		_, found := slices.BinarySearch(events, e)
		return !found
	})
}

// key is the event that tells a finding citing events (sorted) apart from
// the rule's others: the first it cites that not every finding of the rule
// cites, else its first; -1 when it cites none. own says it cites one of
// its own. A rule whose findings all start at one event (the block a run
// of bad deltas belongs to, the terminal event every open item misses) is
// ordered by the event each names besides.
func (t *ruleTally) key(events []int) (at int, own bool) {
	for _, e := range events {
		if _, shared := slices.BinarySearch(t.common, e); !shared {
			return e, true
		}
	}
	if len(events) > 0 {
		return events[0], false
	}
	return -1, false
}

// drop counts a finding past MaxPerRule, keeping the event that tells it
// apart.
func (t *ruleTally) drop(events []int, sev Severity) {
	t.dropped++
	t.sev = max(t.sev, sev)
	at, _ := t.key(events)
	if at < 0 {
		return
	}
	if len(t.at) < MaxEvents {
		t.at = append(t.at, at)
	}
	if n := len(t.runs); n > 0 && at >= t.runs[n-1].first && at <= t.runs[n-1].last+1 {
		t.runs[n-1].last = max(t.runs[n-1].last, at)
		return
	}
	if len(t.runs) == maxRuns {
		t.unnamed++
		return
	}
	t.runs = append(t.runs, eventRun{at, at})
}

// tally returns the rule's tally, making it.
func (c *Checker) tally(id string) *ruleTally {
	t := c.byRule[id]
	if t == nil {
		t = &ruleTally{}
		c.byRule[id] = t
	}
	return t
}

// record adds a finding of rule id at severity sev, or, past MaxPerRule
// findings of the rule, counts it for the rule's overflow finding.
func (c *Checker) record(id string, sev Severity, events []int, format string, args ...any) {
	t := c.tally(id)
	evs := capEvents(events)
	t.narrow(evs)
	if t.listed >= MaxPerRule {
		t.drop(evs, sev)
		return
	}
	t.listed++
	c.found = append(c.found, Finding{Rule: id, Severity: sev, Events: evs, Message: fmt.Sprintf(format, args...), At: -1})
}

// arrange grades findings (the listed ones of every rule) under profile p
// and then the user's Config (dropping the rules it turns off), adds each
// rule's overflow finding, and orders them: by severity, worst
// first; then by the event that tells each apart (Finding.At), in stream
// order, a finding that cites no event after those that do; then by rule
// (its place in the table) and by the order they were found. A rule's
// overflow finding comes after everything listed at its severity.
func (c *Checker) arrange(findings []Finding, p Profile) []Finding {
	type entry struct {
		Finding
		key, rule, seq int
		own            bool // it cites an event of its own
	}
	order := make(map[string]int, len(table))
	for i, r := range table {
		order[r.ID] = i
	}
	const noEvent, overflowKey = math.MaxInt - 1, math.MaxInt
	list := make([]entry, 0, len(findings)+len(c.byRule))
	last := map[string]int{} // by rule, the latest event a finding of its own cites
	for i, f := range findings {
		var on bool
		if f.Severity, on = c.cfg.Grade(f.Rule, grade(f, p)); !on {
			continue
		}
		f.At = -1
		own := false
		if t := c.byRule[f.Rule]; t != nil {
			f.At, own = t.key(f.Events)
		}
		if own {
			last[f.Rule] = max(last[f.Rule], f.At)
		}
		key := f.At
		if key < 0 {
			key = noEvent
		}
		list = append(list, entry{f, key, order[f.Rule], i, own})
	}
	// A finding that cites only what all its rule's findings cite, beside
	// others that cite events of their own, sums them up ("renamed on 9980
	// more fragments"): it follows them.
	for i := range list {
		if e := &list[i]; !e.own && e.key != noEvent {
			if l, ok := last[e.Rule]; ok {
				e.key = max(e.key, l)
			}
		}
	}
	for id, t := range c.byRule {
		if t.dropped == 0 {
			continue
		}
		evs := capEvents(t.at)
		f := Finding{Rule: id, Severity: t.sev, Events: evs, Message: t.overflowMessage(), At: -1}
		if len(evs) > 0 {
			f.At = evs[0]
		}
		var on bool
		if f.Severity, on = c.cfg.Grade(f.Rule, grade(f, p)); !on {
			continue
		}
		list = append(list, entry{f, overflowKey, order[id], 0, false})
	}
	slices.SortFunc(list, func(a, b entry) int {
		return cmp.Or(
			cmp.Compare(b.Severity, a.Severity),
			cmp.Compare(a.key, b.key),
			cmp.Compare(a.rule, b.rule),
			strings.Compare(a.Rule, b.Rule), // rules outside the table
			cmp.Compare(a.seq, b.seq),
		)
	})
	out := make([]Finding, len(list))
	for i, e := range list {
		out[i] = e.Finding
	}
	return out
}

// overflowMessage sums up the findings past MaxPerRule, naming the event
// that tells each apart: "950 more findings of this rule, at events
// 1040–1989".
func (t *ruleTally) overflowMessage() string {
	var b strings.Builder
	b.WriteString(Plural(t.dropped, "more finding") + " of this rule")
	for i, r := range t.runs {
		if i == 0 {
			b.WriteString(", at ")
			if len(t.runs) == 1 && r.first == r.last {
				b.WriteString("event ")
			} else {
				b.WriteString("events ")
			}
		} else {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(r.first))
		if r.last > r.first {
			b.WriteString("–" + strconv.Itoa(r.last))
		}
	}
	if t.unnamed > 0 {
		fmt.Fprintf(&b, " and %s", Plural(t.unnamed, "more event"))
	}
	return b.String()
}
