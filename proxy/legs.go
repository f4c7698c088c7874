package proxy

// This file links the two legs of an application's turns when the proxy
// serves several listeners (ServeLegs): one in front of the application,
// whose client sees its stream, one in front of the provider it calls.
// model.Legs decides the links as sessions end; this file says them in the
// log line and hands them to the sessions list.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/model"
)

// legLinks is a session's links to the other leg of its turn: the
// application session it was a model call of (and which step), or the
// provider sessions that were its model calls.
type legLinks struct {
	of, step  int
	providers []int
	by        []string
}

// linksOf is session id's links in the groups model.Legs returned.
func linksOf(id int, groups []model.LegGroup) legLinks {
	for _, g := range groups {
		if g.App == id {
			return legLinks{providers: g.Providers, by: g.By}
		}
		if i := slices.Index(g.Providers, id); i >= 0 {
			return legLinks{of: g.App, step: i + 1, by: []string{g.By[i]}}
		}
	}
	return legLinks{}
}

// set writes the links into an exchange as the sessions list shows it.
func (l legLinks) set(x *model.Exchange) {
	x.LegOf, x.Step = l.of, l.step
	x.Legs, x.LegsBy = slices.Clone(l.providers), slices.Clone(l.by)
}

// logFields adds the links to a log line: legs=#2,#3 on an application's
// session, leg-of=#1 step=2 on a provider's (each known when the later
// of the two ends: the line of the one that ended first has none).
func (l legLinks) logFields(kv func(k, v string)) {
	if l.of > 0 {
		kv("leg-of", "#"+strconv.Itoa(l.of))
		kv("step", strconv.Itoa(l.step))
	}
	if len(l.providers) > 0 {
		ids := make([]string, len(l.providers))
		for i, p := range l.providers {
			ids[i] = "#" + strconv.Itoa(p)
		}
		kv("legs", strings.Join(ids, ","))
	}
	if len(l.by) > 0 {
		kv("linked-by", strings.ReplaceAll(strings.Join(slices.Compact(slices.Sorted(slices.Values(l.by))), ","), " ", "-"))
	}
}

// othersOf is the new links of every session of the groups but id (whose
// own update carries its links): the sessions that ended before it, and
// those that lost their link.
func othersOf(id int, groups []model.LegGroup) []model.Exchange {
	var ids []int
	for _, g := range groups {
		ids = append(append(append(ids, g.App), g.Providers...), g.Unlinked...)
	}
	slices.Sort(ids)
	var out []model.Exchange
	for _, other := range slices.Compact(ids) {
		if other == id {
			continue
		}
		x := model.Exchange{ID: other}
		linksOf(other, groups).set(&x)
		out = append(out, x)
	}
	return out
}
