package streamdiff

// This file compares one pair of steps (see legs.go): their calls, text,
// reasoning and outcome.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/streamtap/streamtap/model"
)

// compareStep records step n's pairing and compares it.
func (lc *legComparer) compareStep(n int, p stepPair) {
	sp := StepPair{Step: n}
	for w, st := range p {
		if st != nil {
			side := &StepSide{Session: st.sess, Name: st.sd.Name, First: st.first, Last: st.last,
				Calls: len(st.calls), Outcome: model.OutcomeReport{State: st.outcome.State, Detail: st.outcome.Detail}, Cut: st.cut}
			if w == int(SideA) {
				sp.A = side
			} else {
				sp.B = side
			}
		}
	}
	lc.c.res.Steps = append(lc.c.res.Steps, sp)
	lc.step = &lc.c.res.Steps[len(lc.c.res.Steps)-1]
	if p[SideA] == nil || p[SideB] == nil {
		lc.onlyStep(n, p)
		return
	}
	lc.compareCalls(n, p)
	lc.compareText(n, p, Text)
	lc.compareText(n, p, Reasoning)
	lc.compareOutcome(n, p)
}

// base is a difference of step n between the steps of p: its events on
// each side, the streams they are in.
func (lc *legComparer) base(k Kind, n int, p stepPair) Difference {
	d := Difference{Kind: k, Step: n, EventA: -1, EventB: -1, LastA: -1, LastB: -1}
	for w, st := range p {
		if st == nil {
			continue
		}
		d.session[w] = int32(st.sess)
		d.multi[w] = lc.multi[w]
	}
	return d
}

// note adds a line to the step's notes: what was paired, not compared.
func (lc *legComparer) note(format string, args ...any) {
	lc.step.Notes = append(lc.step.Notes, fmt.Sprintf(format, args...))
}

// onlyStep reports a step one side has and the other lacks: a recording
// missing, or a model call one leg made and the other never heard of.
func (lc *legComparer) onlyStep(n int, p stepPair) {
	d := lc.base(Step, n, p)
	w, side := SideA, "A"
	if p[SideA] == nil {
		w, side = SideB, "B"
	}
	st := p[w]
	if w == SideA {
		d.EventA, d.LastA = st.first, lastIf(st.first, st.last)
	} else {
		d.EventB, d.LastB = st.first, lastIf(st.first, st.last)
	}
	text := 0
	for _, it := range st.messages {
		text += it.Text.Len()
	}
	v, _ := valueJSON(map[string]any{"calls": len(st.calls), "text_bytes": text, "outcome": st.outcome.State})
	if w == SideA {
		d.A = v
	} else {
		d.B = v
	}
	d.Message = fmt.Sprintf("step %d only in %s (%s, %s of text, %s): the other side has no model call for it",
		n, side, countOf(len(st.calls), "call"), countOf(text, "byte"), st.outcome.State)
	lc.c.addSemantic(d)
}

func lastIf(first, last int) int {
	if last > first {
		return last
	}
	return -1
}

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// compareCalls pairs the calls of two steps: by id first (the AI SDK
// passes the provider's call id through), then by name and order, then
// in order; a call left alone is only in its side. A call of one side
// whose id is an item of the other that its dialect does not model as a
// call (a Responses tool_search_call the provider ran) is paired with it
// and not compared.
func (lc *legComparer) compareCalls(n int, p stepPair) {
	a, b := p[SideA].calls, p[SideB].calls
	usedA, usedB := make([]bool, len(a)), make([]bool, len(b))
	var pairs []callPair
	for i, ca := range a {
		if ca.CallID == "" {
			continue
		}
		for j, cb := range b {
			if !usedB[j] && cb.CallID == ca.CallID {
				usedA[i], usedB[j] = true, true
				pairs = append(pairs, callPair{ca, cb})
				break
			}
		}
	}
	lc.itemsForCalls(p, SideA, a, usedA)
	lc.itemsForCalls(p, SideB, b, usedB)
	// Where ids pass from one leg to the other (some are shared), two
	// calls of other ids and names are two calls; otherwise (two runs, a
	// gateway that mints its own ids) the calls left pair in order.
	idsPass := len(pairs) > 0
	for _, pass := range []func(x, y *model.Item) bool{
		func(x, y *model.Item) bool { return x.Name == y.Name },
		func(x, y *model.Item) bool { return !idsPass || x.CallID == "" || y.CallID == "" },
	} {
		for i, ca := range a {
			for j, cb := range b {
				if !usedA[i] && !usedB[j] && pass(ca, cb) {
					usedA[i], usedB[j] = true, true
					pairs = append(pairs, callPair{ca, cb})
				}
			}
		}
	}
	for i, ca := range a {
		if !usedA[i] {
			pairs = append(pairs, callPair{ca, nil})
		}
	}
	for j, cb := range b {
		if !usedB[j] {
			pairs = append(pairs, callPair{nil, cb})
		}
	}
	slices.SortStableFunc(pairs, func(x, y callPair) int { return callOrder(x) - callOrder(y) })
	for _, pr := range pairs {
		lc.compareCall(n, p, pr)
	}
}

// callOrder orders paired calls as A has them, calls only in B after the
// call of A before them.
func callOrder(p callPair) int {
	if p[SideA] != nil {
		return p[SideA].First * 2
	}
	return p[SideB].First*2 + 1
}

// itemsForCalls pairs the calls of side w not paired yet with an item of
// the other side that has their id but that its dialect does not take for
// a call, and marks them used.
func (lc *legComparer) itemsForCalls(p stepPair, w Which, calls []*model.Item, used []bool) {
	other := p[w^1]
	for i, c := range calls {
		if used[i] || c.CallID == "" {
			continue
		}
		for _, it := range other.others {
			if it.CallID == c.CallID || it.ItemID == c.CallID {
				used[i] = true
				lc.note("%s's call %s (id %s) is %s's %s item: a tool the provider ran, which %s does not show as a call (not compared)",
					"AB"[w:w+1], c.Name, c.CallID, "AB"[w^1:w^1+1], it.Type, other.sd.S.Dialect())
				break
			}
		}
	}
}

// compareCall compares one pair of calls (either may be nil): presence,
// name, arguments as JSON values (empty arguments are {}), and the id
// unless ids are ignored.
func (lc *legComparer) compareCall(n int, p stepPair, pr callPair) {
	ia, ib := pr[SideA], pr[SideB]
	d := lc.base(Call, n, p)
	named := ia
	if named == nil {
		named = ib
	}
	d.Item = fmt.Sprintf("step %d call %s", n, named.Name)
	if named.CallID != "" {
		d.Item += " id " + named.CallID
	}
	if ia != nil {
		d.EventA, d.LastA = ia.First, lastOf(ia)
		if !lc.multi[SideA] {
			d.items[SideA] = int32(ia.Index) + 1
		}
	}
	if ib != nil {
		d.EventB, d.LastB = ib.First, lastOf(ib)
		if !lc.multi[SideB] {
			d.items[SideB] = int32(ib.Index) + 1
		}
	}
	c := lc.c
	switch {
	case ib == nil:
		d.A = callJSON(ia)
		d.Message = fmt.Sprintf("%s only in A", d.Item)
		c.addSemantic(d)
		return
	case ia == nil:
		d.B = callJSON(ib)
		d.Message = fmt.Sprintf("%s only in B", d.Item)
		c.addSemantic(d)
		return
	}
	c.compareCallField(d, "name", ia.Name, ib.Name)
	c.compareArgs(d, legArgs(ia), legArgs(ib), false)
	if !(c.o.Ignore.Has("call_id") || c.o.Ignore.Has("id")) {
		c.compareCallField(d, "id", ia.CallID, ib.CallID)
	}
}

// legArgs is a call's final arguments as a client of its leg parses
// them: no arguments at all are {} (an Anthropic tool_use without input
// deltas, a no-argument call the AI SDK shows as {}).
func legArgs(it *model.Item) []byte {
	a := finalArgs(it)
	if len(bytes.TrimSpace(a)) == 0 {
		return []byte("{}")
	}
	return a
}

// compareText compares the text (kind Text: per choice, a refusal counted
// as text, since an application passes a refusal on as text) or the
// reasoning (kind Reasoning, where both legs carry some) of two steps. Several choices on one side
// against one text on the other, which holds their fragments interleaved
// as they arrived, is one difference: the choices were merged.
func (lc *legComparer) compareText(n int, p stepPair, k Kind) {
	var byChoice [2]map[int][]*model.Item
	var choices [2][]int
	for w, st := range p {
		byChoice[w] = map[int][]*model.Item{}
		items := st.messages
		if k == Reasoning {
			items = st.reasoning
		}
		for _, it := range items {
			ch := it.Choice
			if k == Reasoning {
				ch = 0
			}
			if _, ok := byChoice[w][ch]; !ok {
				choices[w] = append(choices[w], ch)
			}
			byChoice[w][ch] = append(byChoice[w][ch], it)
		}
		slices.Sort(choices[w])
	}
	if k == Text && lc.merged(n, p, byChoice, choices) {
		return
	}
	all := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(choices[0]), choices[1]...))))
	for _, ch := range all {
		var text [2][]byte
		var present [2]bool
		for w := range text {
			items, ok := byChoice[w][ch]
			present[w] = ok
			text[w] = visibleText(items, k)
		}
		if bytes.Equal(text[0], text[1]) || (len(text[0]) == 0 && len(text[1]) == 0) {
			continue
		}
		if k == Reasoning && (len(text[0]) == 0 || len(text[1]) == 0) {
			// Reasoning one leg does not carry at all is left out, not
			// changed: an app passes it on only when asked (the AI SDK's
			// sendReasoning), and only from the fields its provider SDK
			// reads (a Responses reasoning_text, a Chat delta.reasoning
			// are dropped, their part left empty).
			continue
		}
		path := "text"
		if k == Reasoning {
			path = "reasoning"
		} else if len(all) > 1 {
			path = fmt.Sprintf("text[%d]", ch)
		}
		at := commonPrefix(text[0], text[1])
		d := lc.base(k, n, p)
		d.Item = fmt.Sprintf("step %d", n)
		d.Path = path
		d.EventA, d.EventB = textAt(byChoice[SideA][ch], at, k), textAt(byChoice[SideB][ch], at, k)
		lc.textValues(&d, text, present, at)
		lc.c.addSemantic(d)
	}
}

// textValues fills a text or reasoning difference's values from a little
// before where the texts part, and its message.
func (lc *legComparer) textValues(d *Difference, text [2][]byte, present [2]bool, at int) {
	d.Offset = &at
	from := max(at-textContext, 0)
	for from > 0 && !(utf8.RuneStart(byteAt(text[0], from)) && utf8.RuneStart(byteAt(text[1], from))) {
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
	d.Message = fmt.Sprintf("%s %s differs from byte %d: %s ≠ %s", d.Item, d.Path, at, shown(d.A), shown(d.B))
}

// byteAt is b[i], or a rune start past its end.
func byteAt(b []byte, i int) byte {
	if i < len(b) {
		return b[i]
	}
	return 0
}

// visibleText is what a client shows of items: their text, and a
// message's refusal after it.
func visibleText(items []*model.Item, k Kind) []byte {
	var out []byte
	for _, it := range items {
		out = append(out, it.Text.Bytes()...)
		if k == Text {
			out = append(out, it.Refusal.Bytes()...)
		}
	}
	return out
}

// textAt is the event that added byte at of the items' text, or their
// last one's when the text is shorter; -1 when they have none.
func textAt(items []*model.Item, at int, k Kind) int {
	ord := -1
	for _, it := range items {
		for _, b := range []*model.Buffer{&it.Text, it.Refusal} {
			if b == nil || len(b.Frags) == 0 || (k == Reasoning && b != &it.Text) {
				continue
			}
			if at < b.Len() {
				return fragOrd(b.Frags, at)
			}
			at -= b.Len()
			ord = int(b.Frags[len(b.Frags)-1].Ordinal)
		}
	}
	return ord
}

func fragOrd(fr []model.Fragment, at int) int {
	i := sort.Search(len(fr), func(i int) bool { return int(fr[i].End) > at })
	return int(fr[min(i, len(fr)-1)].Ordinal)
}

// merged reports, and records as one difference, a side with several
// choices against a side with one text that is their fragments
// interleaved in the order they arrived: what a client that ignores the
// choice index makes of n>1 choices (the AI SDK's Chat provider).
func (lc *legComparer) merged(n int, p stepPair, byChoice [2]map[int][]*model.Item, choices [2][]int) bool {
	for w := range 2 {
		many, one := Which(w), Which(w^1)
		if len(choices[many]) < 2 || len(choices[one]) != 1 {
			continue
		}
		single := visibleText(byChoice[one][choices[one][0]], Text)
		if len(single) == 0 || !bytes.Equal(interleaved(byChoice[many]), single) {
			continue
		}
		d := lc.base(Text, n, p)
		d.Item, d.Path = fmt.Sprintf("step %d", n), "text"
		var texts []string
		for _, ch := range choices[many] {
			texts = append(texts, string(visibleText(byChoice[many][ch], Text)))
		}
		vm, cm := valueJSON(texts)
		vo, co := valueJSON(string(single))
		d.Truncated = cm || co
		first := byChoice[many][choices[many][0]]
		ordMany, ordOne := textAt(first, 0, Text), textAt(byChoice[one][choices[one][0]], 0, Text)
		if many == SideA {
			d.A, d.B, d.EventA, d.EventB = vm, vo, ordMany, ordOne
		} else {
			d.A, d.B, d.EventA, d.EventB = vo, vm, ordOne, ordMany
		}
		d.Message = fmt.Sprintf("step %d text: %s's %d choices are one text in %s, their fragments interleaved as they arrived (the choices were merged): %s ≠ %s",
			n, "AB"[many:many+1], len(choices[many]), "AB"[one:one+1], shown(d.A), shown(d.B))
		lc.c.addSemantic(d)
		return true
	}
	return false
}

// interleaved is the text fragments of every choice in the order their
// events came.
func interleaved(byChoice map[int][]*model.Item) []byte {
	type frag struct {
		ord  int32
		part []byte
	}
	var frags []frag
	for _, items := range byChoice {
		for _, it := range items {
			for _, b := range []*model.Buffer{&it.Text, it.Refusal} {
				start := int32(0)
				for _, f := range fragsOf(b) {
					frags = append(frags, frag{f.Ordinal, b.Bytes()[start:f.End]})
					start = f.End
				}
			}
		}
	}
	slices.SortStableFunc(frags, func(x, y frag) int { return int(x.ord - y.ord) })
	var out []byte
	for _, f := range frags {
		out = append(out, f.part...)
	}
	return out
}

// classWords says an outcome class as a report does.
var classWords = map[string]string{
	classFinished: "ended",
	classLimit:    "stopped at a limit",
	classBlocked:  "was blocked (a refusal or a filter)",
	classError:    "failed",
	classCut:      "was cut",
}

// compareOutcome compares how the model call of each step ended, as its
// client can tell: an application says the provider's terminal event as
// its own finish (the AI SDK's finish and finish-step) and a provider's
// stream cut short as interrupted, so the words differ; what counts is
// whether both say it ended, stopped at a limit, was blocked, failed or
// was cut. Two errors are compared by their text.
func (lc *legComparer) compareOutcome(n int, p stepPair) {
	sa, sb := p[SideA], p[SideB]
	ca, cb := sa.class(), sb.class()
	d := lc.base(Outcome, n, p)
	d.Item = fmt.Sprintf("step %d outcome", n)
	d.EventA, d.EventB = sa.outcome.Ordinal, sb.outcome.Ordinal
	if ca != cb {
		d.Path = "state"
		d.A, _ = valueJSON(sa.outcome.State)
		d.B, _ = valueJSON(sb.outcome.State)
		d.Message = fmt.Sprintf("step %d outcome: in A the model call %s (%s), in B it %s (%s)",
			n, classWords[ca], outcomeText(sa), classWords[cb], outcomeText(sb))
		lc.c.addSemantic(d)
		return
	}
	if ca != classError || sameError(sa.outcome.Detail, sb.outcome.Detail) {
		return
	}
	d.Path = "error"
	d.A, _ = valueJSON(sa.outcome.Detail)
	d.B, _ = valueJSON(sb.outcome.Detail)
	d.Message = fmt.Sprintf("step %d outcome: the error's text differs (one side does not pass the other's on): %s ≠ %s", n, shown(d.A), shown(d.B))
	lc.c.addSemantic(d)
}

// outcomeText is a step's outcome in a message: its state, its detail,
// and why a client saw it cut.
func outcomeText(st *legStep) string {
	s := st.outcome.State
	if st.outcome.Detail != "" {
		s += ": " + st.outcome.Detail
	}
	if st.cut != "" {
		s += "; " + st.cut
	}
	return s
}

// sameError reports whether two errors' texts say the same: equal, or
// one holding the other (an application that wraps the provider's
// message, or passes its whole error event on).
func sameError(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == b {
		return true
	}
	if a == "" || b == "" {
		return false
	}
	strip := func(s string) string { // "code: message" → "message"
		if i := strings.Index(s, ": "); i > 0 && !strings.ContainsAny(s[:i], " \t") {
			return s[i+2:]
		}
		return s
	}
	for _, x := range []string{a, strip(a)} {
		for _, y := range []string{b, strip(b)} {
			if strings.Contains(x, y) || strings.Contains(y, x) {
				return true
			}
		}
	}
	return false
}

// fragsOf is a buffer's fragments; none for a nil one (a message without
// a refusal).
func fragsOf(b *model.Buffer) []model.Fragment {
	if b == nil {
		return nil
	}
	return b.Frags
}
