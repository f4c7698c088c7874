package streamdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// callPair is a call of A and its counterpart in B; nil on the side that
// lacks it.
type callPair [2]*model.Item

// compareCalls compares paired calls: presence, name, final arguments (as
// bytes and as JSON), and within one dialect their status, wire type and,
// unless ids are ignored, the id a client answers with.
func (c *comparer) compareCalls(pairs []callPair, sameDialect bool) {
	ignoreID := c.o.Ignore.Has("call_id") || c.o.Ignore.Has("id")
	for _, p := range pairs {
		ia, ib := p[SideA], p[SideB]
		if ia != nil && ib != nil && c.sameCall(ia, ib, sameDialect, ignoreID) {
			continue // the common case, decided without a copy or a name
		}
		base := Difference{Kind: Call, EventA: -1, EventB: -1, LastA: -1, LastB: -1}
		if ia != nil {
			base.Item, base.EventA, base.LastA = itemName(ia), ia.First, lastOf(ia)
			base.items[SideA] = int32(ia.Index) + 1
		}
		if ib != nil {
			if base.Item == "" {
				base.Item = itemName(ib)
			}
			base.EventB, base.LastB = ib.First, lastOf(ib)
			base.items[SideB] = int32(ib.Index) + 1
		}
		switch {
		case ib == nil:
			d := base
			d.A = callJSON(ia)
			d.Message = fmt.Sprintf("call %s only in A", ia.Name)
			c.addSemantic(d)
			continue
		case ia == nil:
			d := base
			d.B = callJSON(ib)
			d.Message = fmt.Sprintf("call %s only in B", ib.Name)
			c.addSemantic(d)
			continue
		}
		c.compareCallField(base, "name", ia.Name, ib.Name)
		c.compareArgs(base, finalArgs(ia), finalArgs(ib), sameDialect)
		if sameDialect {
			sa, sb := c.side[SideA].S, c.side[SideB].S
			c.compareCallField(base, "status", sa.CallStatus(ia), sb.CallStatus(ib))
			c.compareCallField(base, "kind", ia.Type, ib.Type)
			c.compareSources(base, ia, ib)
		}
		if !ignoreID {
			c.compareCallField(base, "id", ia.CallID, ib.CallID)
		}
	}
}

// compareSources reports a call whose statements of its arguments (the
// deltas, the .done event, output_item.done, the terminal snapshot)
// disagree on one side and not the other, or disagree differently: the
// final arguments may match while a client that reads the deltas runs
// another call.
func (c *comparer) compareSources(base Difference, ia, ib *model.Item) {
	sa, _ := ia.SourcesDisagree()
	sb, _ := ib.SourcesDisagree()
	if maps.Equal(sa, sb) {
		return
	}
	d := base
	d.Path = "sources"
	d.A, d.B = sourcesJSON(sa), sourcesJSON(sb)
	switch {
	case sa == nil:
		d.Message = fmt.Sprintf("%s: the statements of its arguments disagree in B only: %s", base.Item, disagreement(sb))
	case sb == nil:
		d.Message = fmt.Sprintf("%s: the statements of its arguments disagree in A only: %s", base.Item, disagreement(sa))
	default:
		d.Message = fmt.Sprintf("%s: the statements of its arguments disagree in both, differently: A %s; B %s", base.Item, disagreement(sa), disagreement(sb))
	}
	c.addSemantic(d)
}

// disagreement says which statements differ from the most common one:
// "deltas differ from arguments_done, item_done, terminal".
func disagreement(src map[string]string) string {
	byValue := map[string][]string{}
	for _, k := range slices.Sorted(maps.Keys(src)) {
		byValue[src[k]] = append(byValue[src[k]], k)
	}
	groups := slices.Collect(maps.Values(byValue))
	slices.SortFunc(groups, func(x, y []string) int {
		if len(x) != len(y) {
			return len(y) - len(x)
		}
		return strings.Compare(x[0], y[0])
	})
	var others []string
	for _, g := range groups[1:] {
		others = append(others, g...)
	}
	slices.Sort(others)
	return strings.Join(others, ", ") + " differ from " + strings.Join(groups[0], ", ")
}

// sourcesJSON is each statement of a call's arguments by source name, or
// nil when they agree.
func sourcesJSON(src map[string]string) json.RawMessage {
	if src == nil {
		return nil
	}
	out := map[string]json.RawMessage{}
	for k, v := range src {
		out[k], _ = valueJSON(v)
	}
	b, _ := marshal(out)
	return b
}

// sameCall reports, without copying arguments, that two calls agree in
// everything compareCalls compares. It may answer false for calls that
// are the same; compareCalls then looks closer.
func (c *comparer) sameCall(ia, ib *model.Item, sameDialect, ignoreID bool) bool {
	if ia.Name != ib.Name || (!ignoreID && ia.CallID != ib.CallID) {
		return false
	}
	if sameDialect && (ia.Type != ib.Type || c.side[SideA].S.CallStatus(ia) != c.side[SideB].S.CallStatus(ib)) {
		return false
	}
	return plainArgs(ia) && plainArgs(ib) && bytes.Equal(ia.Args.Bytes(), ib.Args.Bytes())
}

func lastOf(it *model.Item) int {
	if it.Last > it.First {
		return it.Last
	}
	return -1
}

func (c *comparer) compareCallField(base Difference, path, a, b string) {
	if a == b {
		return
	}
	d := base
	d.Path = path
	d.A, _ = valueJSON(a)
	d.B, _ = valueJSON(b)
	d.Message = fmt.Sprintf("%s: %s %s ≠ %s", base.Item, path, shown(d.A), shown(d.B))
	c.addSemantic(d)
}

// compareArgs compares a call's final arguments as bytes and as JSON:
// `{"a": 1}` and `{"a":1}` are the same call to a client that parses,
// not to one that hashes or caches the string; both verdicts are given.
// Arguments that differ as JSON are reported as their JSON difference
// (ArgsDiff: each path with both values), once; arguments that are not
// both JSON, or equal as JSON, as their bytes from a little before the
// first that differs. Across dialects, arguments equal as JSON are no
// difference with Options.ArgsAsJSONAcrossDialects (not under --strict):
// each dialect writes them its own way (Gemini and Ollama send objects).
func (c *comparer) compareArgs(base Difference, a, b []byte, sameDialect bool) {
	if bytes.Equal(a, b) {
		return
	}
	d := base
	d.Path = "arguments"
	bytesEq := false
	d.ArgsBytesEqual = &bytesEq
	f := stringDiff("arguments", a, b)
	d.A, d.B, d.Truncated, d.Offset = f.a, f.b, f.truncated, f.offset
	at := commonPrefix(a, b)
	if jsonscan.Validate(a) != nil || jsonscan.Validate(b) != nil {
		d.Message = fmt.Sprintf("%s: arguments differ from byte %d (not both JSON): %s ≠ %s", base.Item, at, shown(d.A), shown(d.B))
		c.addSemantic(d)
		return
	}
	changes, more := jsonChanges(a, b)
	eq := len(changes) == 0
	d.ArgsJSONEqual = &eq
	if eq {
		if !sameDialect && c.o.ArgsAsJSONAcrossDialects {
			return
		}
		d.Message = fmt.Sprintf("%s: arguments equal as JSON, bytes differ from byte %d: %s ≠ %s", base.Item, at, shown(d.A), shown(d.B))
		c.addSemantic(d)
		return
	}
	d.ArgsChanges, d.ArgsChangesMore = changes, more
	d.Message = fmt.Sprintf("%s: arguments differ as JSON at %s: %s", base.Item, countPaths(len(changes)+more), describeChanges(changes, more))
	c.addSemantic(d)
}

// countPaths is "1 path", "3 paths".
func countPaths(n int) string {
	if n == 1 {
		return "1 path"
	}
	return fmt.Sprintf("%d paths", n)
}

// finalArgs is a call's final arguments (Item.FinalArgs), without a copy
// when they are its assembled deltas: a 50 MB call is compared in place.
func finalArgs(it *model.Item) []byte {
	if plainArgs(it) {
		return it.Args.Bytes()
	}
	return []byte(it.FinalArgs())
}

// plainArgs reports whether a call's final arguments are its assembled
// deltas: it has deltas, no resumption, and statements that agree.
func plainArgs(it *model.Item) bool {
	_, disagree := it.SourcesDisagree()
	return !it.Dialect.Info().ArgsRebuilt && it.Deltas > 0 && !it.Resumed && !disagree
}

// callJSON is a call as a Difference shows a call one side lacks.
func callJSON(it *model.Item) json.RawMessage {
	args, _ := stringJSON(finalArgs(it))
	name, _ := marshal(it.Name)
	return json.RawMessage(`{"name":` + string(name) + `,"arguments":` + string(args) + `}`)
}

// compareText compares the assembled assistant text of two streams of one
// dialect: each message with its counterpart (from the item alignment).
func (c *comparer) compareText() {
	for _, l := range c.lanes {
		var it [2]*model.Item
		var text [2][]byte
		for w := range it {
			if l.item[w] >= 0 {
				it[w] = c.side[w].S.Items[l.item[w]]
				text[w] = it[w].Text.Bytes()
			}
		}
		if (it[0] == nil || it[0].Role != model.RoleMessage) && (it[1] == nil || it[1].Role != model.RoleMessage) {
			continue
		}
		if !bytes.Equal(text[0], text[1]) {
			at := commonPrefix(text[0], text[1])
			c.textDiff(l.name(), "text", text, [2]bool{it[0] != nil, it[1] != nil}, at, [2]int{fragmentAt(it[0], at), fragmentAt(it[1], at)}, l.item)
		}
	}
}

// textContext is how much of the text before the first differing byte a
// Text difference shows.
const textContext = 40

// textDiff reports two texts that differ from byte at on, each shown from
// a little before it; a text not present (a message one side lacks) is
// absent rather than empty. items are the messages' indexes in
// Session.Items (-1 for none, or texts of several messages).
func (c *comparer) textDiff(item, path string, text [2][]byte, present [2]bool, at int, events, items [2]int) {
	d := Difference{Kind: Text, Item: item, Path: path, EventA: events[0], EventB: events[1], LastA: -1, LastB: -1, Offset: &at}
	d.items = [2]int32{int32(items[0]) + 1, int32(items[1]) + 1}
	from := max(at-textContext, 0)
	for from > 0 && !(utf8.RuneStart(text[0][from]) && utf8.RuneStart(text[1][from])) {
		from--
	}
	var cut [2]bool
	var v [2]json.RawMessage
	for w := range text {
		if present[w] {
			v[w], cut[w] = valueJSON(string(text[w][min(from, len(text[w])):]))
		}
	}
	d.A, d.B = v[0], v[1]
	d.Truncated = from > 0 || cut[0] || cut[1]
	where := path
	if item != "" {
		where = item + " " + path
	}
	d.Message = fmt.Sprintf("%s differs from byte %d: %s ≠ %s", where, at, shown(d.A), shown(d.B))
	c.addSemantic(d)
}

func commonPrefix(x, y []byte) int {
	n := 0
	for n < len(x) && n < len(y) && x[n] == y[n] {
		n++
	}
	for n > 0 && n < len(x) && !utf8.RuneStart(x[n]) {
		n--
	}
	return n
}

// fragmentAt is the event that added byte at of an item's text (its last
// fragment's when the text is shorter), or -1.
func fragmentAt(it *model.Item, at int) int {
	if it == nil || len(it.Text.Frags) == 0 {
		return -1
	}
	fr := it.Text.Frags
	i := sort.Search(len(fr), func(i int) bool { return int(fr[i].End) > at })
	return int(fr[min(i, len(fr)-1)].Ordinal)
}

// compareOutcome compares how two streams of one dialect ended: the
// state, and the detail (a finish or stop reason, an error message),
// since the same words mean the same thing.
func (c *comparer) compareOutcome() {
	oa, ob := c.side[SideA].S.Outcome(), c.side[SideB].S.Outcome()
	base := Difference{Kind: Outcome, EventA: oa.Ordinal, EventB: ob.Ordinal, LastA: -1, LastB: -1, Item: "outcome"}
	for _, f := range []struct{ path, a, b string }{{"state", oa.State, ob.State}, {"detail", oa.Detail, ob.Detail}} {
		if f.a == f.b {
			continue
		}
		d := base
		d.Path = f.path
		d.A, _ = valueJSON(f.a)
		d.B, _ = valueJSON(f.b)
		d.Message = fmt.Sprintf("outcome %s: %s ≠ %s", f.path, shown(d.A), shown(d.B))
		c.addSemantic(d)
	}
}

// Timing thresholds: a timing difference counts when both the absolute
// and the relative difference exceed them, so that the jitter of two
// runs of one request is not one.
const (
	timingAbs = 100 * time.Millisecond
	timingRel = 0.25
)

// compareTiming measures both streams when both carry arrival times.
func (c *comparer) compareTiming() {
	ta, tb := c.side[SideA].rec.timing, c.side[SideB].rec.timing
	if ta.FirstEvent < 0 || tb.FirstEvent < 0 {
		return
	}
	c.res.Timing = &TimingPair{A: ta, B: tb}
	for _, m := range []struct {
		path string
		a, b time.Duration
	}{
		{"first_event", ta.FirstEvent, tb.FirstEvent},
		{"first_args_delta", ta.FirstArgsDelta, tb.FirstArgsDelta},
		{"total", ta.Total, tb.Total},
		{"largest_gap", ta.LargestGap, tb.LargestGap},
	} {
		if m.a < 0 || m.b < 0 {
			continue
		}
		diff := (m.a - m.b).Abs()
		if diff <= timingAbs || float64(diff) <= timingRel*float64(max(m.a, m.b)) {
			continue
		}
		d := Difference{Kind: Timing, Path: m.path, EventA: -1, EventB: -1, LastA: -1, LastB: -1}
		if m.path == "largest_gap" {
			d.EventA, d.EventB = ta.GapEvent, tb.GapEvent
		}
		d.A = secondsJSON(m.a)
		d.B = secondsJSON(m.b)
		d.Message = fmt.Sprintf("%s: %s ≠ %s", m.path, m.a.Round(time.Millisecond), m.b.Round(time.Millisecond))
		c.addSemantic(d)
	}
}

func secondsJSON(d time.Duration) json.RawMessage {
	b, _ := marshal(d.Seconds())
	return b
}
