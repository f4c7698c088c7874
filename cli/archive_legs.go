package cli

import (
	"net/url"
	"slices"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// linkLegs links the two legs of the turns an archive holds, as the proxy
// links them live (model.Legs): a HAR that a proxy with two listeners
// wrote (--save-har) holds an app's sessions and its provider's, told
// apart by the host each was forwarded to. It sets each exchange's
// LegOf, Step, Legs and LegsBy; with one host there is nothing to link.
func linkLegs(entries []legEntry, session func(i int) *model.Session, xs []model.Exchange) {
	var hosts []string
	leg := make([]int, len(entries))
	for i := range entries {
		host := entries[i].url
		if u, err := url.Parse(entries[i].url); err == nil {
			host = u.Scheme + "://" + u.Host
		}
		if leg[i] = slices.Index(hosts, host); leg[i] < 0 {
			leg[i] = len(hosts)
			hosts = append(hosts, host)
		}
	}
	if len(hosts) < 2 {
		return
	}
	var legs model.Legs
	byID := map[int]*model.Exchange{}
	for i := range xs {
		byID[xs[i].ID] = &xs[i]
	}
	// Added in the order they ended, as a proxy adds them.
	order := make([]int, len(entries))
	ends := make([]time.Time, len(entries))
	for i := range entries {
		order[i] = i
		ends[i] = entryEnd(&entries[i], session(i))
	}
	slices.SortStableFunc(order, func(a, b int) int { return ends[a].Compare(ends[b]) })
	for _, i := range order {
		if entries[i].started.IsZero() {
			continue
		}
		sum := model.Summarize(i+1, leg[i], entries[i].started, ends[i], session(i))
		sum.NotModel = entries[i].notModel
		for _, g := range legs.Add(sum) {
			if x := byID[g.App]; x != nil {
				x.Legs, x.LegsBy = slices.Clone(g.Providers), slices.Clone(g.By)
			}
			for k, p := range g.Providers {
				if x := byID[p]; x != nil {
					x.LegOf, x.Step, x.LegsBy = g.App, k+1, []string{g.By[k]}
				}
			}
			for _, p := range g.Unlinked {
				if x := byID[p]; x != nil && x.LegOf == g.App {
					x.LegOf, x.Step, x.LegsBy = 0, 0, nil
				}
			}
		}
	}
}

// legEntry is what linkLegs needs of an archive's exchange: where it was
// forwarded, when it started and how long it took (capture.NoTime when
// unknown).
type legEntry struct {
	url      string
	started  time.Time
	dur      time.Duration
	notModel bool // its request names no model (namesNoModel)
}

// entryEnd is when an archive's exchange ended: its start and duration,
// else its last event's time.
func entryEnd(e *legEntry, s *model.Session) time.Time {
	switch {
	case e.dur != capture.NoTime && e.dur > 0:
		return e.started.Add(e.dur)
	case s != nil && s.Len() > 0 && s.Current().HasTime():
		return e.started.Add(s.Current().At)
	}
	return e.started
}
