package model

import (
	"bytes"
	"maps"
	"slices"
	"sync"
	"time"
)

// Legs links the two legs of an application's turns: the exchange in
// which an application (an AI SDK route, an agent's server) answers its
// own client, and the provider exchanges it made while answering, one per
// model call (a step). A proxy with one listener in front of the
// application and another in front of the provider sees both: it adds
// each exchange as it ends, and Legs links a provider exchange to the
// application exchange that was streaming when it started and with which
// it shares a call id or a text (an application passes the provider's
// call ids and text on), or, when it shares nothing (a text the
// application garbled), to the only such exchange. Exchanges are numbered
// by their users (the proxy's ids). The zero value is ready to use, and it
// is safe for concurrent use.
//
// It remembers the newest KeptLegs exchanges: a proxy left running for
// days links without growing.
type Legs struct {
	mu     sync.Mutex
	recent []LegSummary // oldest first
	of     map[int]int  // provider exchange → its application's, once linked
	by     map[int]string
	keep   int // how many to remember: KeptLegs when 0 (tests set fewer)
}

// KeptLegs is how many exchanges Legs remembers: a turn's legs end within
// minutes of each other, and a proxy rarely carries thousands of exchanges
// in that time.
const KeptLegs = 1 << 10

// LegSummary is what Legs keeps of an ended exchange: which listener
// carried it, when it ran, and what it shares with the other leg.
type LegSummary struct {
	ID  int
	Leg int // the listener (and upstream) that carried it
	// Start and End are when its request arrived and its response ended.
	Start, End time.Time
	// Steps says its dialect answers in steps (an application's stream:
	// it is never a provider's); NotModel that its request was read and
	// names no model (a tool server's exchange, an MCP tools/call, or a
	// page's asset: no model call either).
	Steps, NotModel bool
	// CallIDs are the ids of its calls; Anchors the start of each of its
	// texts and reasoning (at most anchorLen bytes each).
	CallIDs []string
	Anchors [][]byte
}

// anchorLen is how much of each text an exchange's summary keeps: enough
// to tell two answers apart, little enough for thousands of exchanges.
const anchorLen = 64

// maxAnchors bounds the texts a summary keeps.
const maxAnchors = 16

// HasSteps reports whether the dialect's answers are made of steps (its
// assembly is a Stepper): an application's stream (the AI SDK's), never
// a provider's.
func (d Dialect) HasSteps() bool {
	p := d.Protocol()
	if p == nil {
		return false
	}
	_, ok := p.NewAssembly().(Stepper)
	return ok
}

// Summarize makes the summary of exchange id, carried by listener leg,
// from start to end, s being its ended session.
func Summarize(id, leg int, start, end time.Time, s *Session) LegSummary {
	x := LegSummary{ID: id, Leg: leg, Start: start, End: end, Steps: s.Dialect().HasSteps()}
	for _, it := range s.ItemsAsOf(-1) {
		switch {
		case it.IsCall() && it.CallID != "":
			if !slices.Contains(x.CallIDs, it.CallID) {
				x.CallIDs = append(x.CallIDs, it.CallID)
			}
		case (it.Role == RoleMessage || it.Role == RoleReasoning) && len(x.Anchors) < maxAnchors:
			t := it.Text.Bytes()
			if len(t) == 0 && it.Refusal != nil {
				t = it.Refusal.Bytes()
			}
			if len(t) > 0 {
				x.Anchors = append(x.Anchors, bytes.Clone(t[:min(len(t), anchorLen)]))
			}
		}
	}
	return x
}

// LegGroup is an application exchange and the provider exchanges linked
// to it, in the order they started (step 1, 2, …), each with what linked
// it ("call ids", "text" or "time").
type LegGroup struct {
	App       int
	Providers []int
	By        []string
	// Unlinked lists the exchanges that were this application's providers
	// and no longer are (another has them now, or none).
	Unlinked []int
}

// Add records an ended exchange and returns the groups that changed: the
// application exchange it is, with its providers, or the one it is a
// provider of, with its others.
func (l *Legs) Add(x LegSummary) []LegGroup {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.of == nil {
		l.of, l.by = map[int]int{}, map[int]string{}
	}
	l.recent = append(l.recent, x)
	keep := l.keep
	if keep == 0 {
		keep = KeptLegs
	}
	for len(l.recent) > keep {
		delete(l.of, l.recent[0].ID)
		delete(l.by, l.recent[0].ID)
		l.recent = l.recent[1:]
	}
	changed := map[int]bool{}
	dropped := map[int][]int{} // application → providers it lost
	// x as a provider of an application exchange that ended before it.
	if app, by := l.appOf(x); app != 0 {
		l.link(x.ID, app, by, changed, dropped)
	}
	// x as the application exchange of providers that ended before it:
	// those that started while it streamed.
	for _, p := range l.recent {
		if p.ID == x.ID || p.Leg == x.Leg || p.Start.Before(x.Start) || p.Start.After(x.End) {
			continue
		}
		switch app, by := l.appOf(p); {
		case app == x.ID:
			l.link(p.ID, app, by, changed, dropped)
		case app == 0 && l.by[p.ID] == "time":
			// Linked by time alone to the only application then around,
			// p now has two: the link says nothing any more.
			old := l.of[p.ID]
			changed[old] = true
			dropped[old] = append(dropped[old], p.ID)
			delete(l.of, p.ID)
			delete(l.by, p.ID)
		}
	}
	var out []LegGroup
	for _, app := range slices.Sorted(maps.Keys(changed)) {
		g := l.group(app)
		g.Unlinked = dropped[app]
		out = append(out, g)
	}
	return out
}

// link makes app the application exchange of provider p, unless p is
// linked already by content and this link is by time only.
func (l *Legs) link(p, app int, by string, changed map[int]bool, dropped map[int][]int) {
	if old, ok := l.of[p]; ok {
		if old == app || (by == "time" && l.by[p] != "time") {
			return
		}
		changed[old] = true
		dropped[old] = append(dropped[old], p)
	}
	l.of[p], l.by[p] = app, by
	changed[app] = true
}

// group is application exchange app with its providers in the order they
// started.
func (l *Legs) group(app int) LegGroup {
	g := LegGroup{App: app}
	for _, x := range l.recent { // in the order they ended; sorted below
		if l.of[x.ID] == app {
			g.Providers = append(g.Providers, x.ID)
		}
	}
	start := map[int]time.Time{}
	for _, x := range l.recent {
		start[x.ID] = x.Start
	}
	slices.SortStableFunc(g.Providers, func(a, b int) int { return start[a].Compare(start[b]) })
	for _, p := range g.Providers {
		g.By = append(g.By, l.by[p])
	}
	return g
}

// appOf finds the application exchange provider p belongs to among those
// remembered: one carried by another listener, that started before p and
// was still streaming when p started, and shares a call id or a text with
// it; else, when exactly one such exchange also ended after p (an
// application waits for its provider's stream), that one, by time. p is
// no provider when its dialect answers in steps or its request names no
// model, and an exchange linked as a provider is no application.
func (l *Legs) appOf(p LegSummary) (app int, by string) {
	if p.Steps || p.NotModel {
		return 0, ""
	}
	var containers []LegSummary
	for _, a := range l.recent {
		if a.ID == p.ID || a.Leg == p.Leg || p.Start.Before(a.Start) || p.Start.After(a.End) {
			continue
		}
		if _, isProvider := l.of[a.ID]; isProvider {
			continue
		}
		containers = append(containers, a)
	}
	for _, a := range containers {
		if shared(a.CallIDs, p.CallIDs) {
			return a.ID, "call ids"
		}
	}
	for _, a := range containers {
		if a.Shares(p) == "text" {
			return a.ID, "text"
		}
	}
	var around []LegSummary
	for _, a := range containers {
		if !a.End.Before(p.End) {
			around = append(around, a)
		}
	}
	if len(around) == 1 {
		return around[0].ID, "time"
	}
	return 0, ""
}

// Shares says what two exchanges share, as Legs links them: "call ids"
// (a call id of one is a call id of the other), "text" (a text of one
// starts as a text of the other does), or "".
func (x LegSummary) Shares(y LegSummary) string {
	switch {
	case shared(x.CallIDs, y.CallIDs):
		return "call ids"
	case sharedText(x.Anchors, y.Anchors):
		return "text"
	}
	return ""
}

func shared(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// sharedText reports whether two exchanges have a text that starts alike:
// one's start is the other's (a text cut short by the application is
// still the provider's).
func sharedText(a, b [][]byte) bool {
	for _, x := range a {
		for _, y := range b {
			n := min(len(x), len(y))
			if n > 0 && bytes.Equal(x[:n], y[:n]) {
				return true
			}
		}
	}
	return false
}
