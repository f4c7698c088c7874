package chat

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// chatChecks holds what the Chat Completions rules need across events.
type chatChecks struct {
	opened map[int]chatOpen   // by item index: what a call's first fragment had
	ident  map[int]*chatIdent // by response index
	// lastIdent is ident[lastIdentOf], the latest asked (identOf).
	lastIdent   *chatIdent
	lastIdentOf int
	events      int          // Chat JSON chunks
	last        int          // ordinal of the latest
	whole       map[int]bool // responses that are non-streaming chat.completion bodies
	// nulls holds the null members of each call's fragments, by item
	// index (model.Session.Notes).
	nulls map[int]*chatNulls
	// message lists the chunks whose choices carry a message next to
	// their delta (at most MaxEvents), messageN counts them all.
	message  []int
	messageN int
	checks.Base
}

// chatNulls is what a call's fragments sent as null: "arguments" on any
// fragment, "id", "type" or "name" on the fragments after the first.
type chatNulls struct {
	args, ident   []int // events, at most MaxEvents each
	nArgs, nIdent int
	fields        []string // the identity members seen null, in the order met
	lastIdent     int      // 1 + the latest fragment counted in nIdent
}

// chatOpen is what the fragment that opened a call carried.
type chatOpen struct {
	id, name, index bool
}

// chatIdent follows a completion's id, created and model across chunks.
type chatIdent struct {
	fields [3]identField
}

// identKeys are the members that name a completion, which every chunk
// repeats, and identMembers the same, as the core's scan records them.
var (
	identKeys    = [3]string{"id", "created", "model"}
	identMembers = [3]model.Member{mID, mCreated, mModel}
)

type identField struct {
	set      bool
	first    string
	firstOrd int
	prev     string
	changes  []model.Change // each value that differs from the one before
	n        int
}

func (cc *chatChecks) NewItem(it *model.Item, ord int) {
	if !it.IsCall() || it.Opened != ord {
		return
	}
	if cc.opened == nil {
		cc.opened = map[int]chatOpen{}
	}
	o := chatOpen{id: it.CallID != "", name: it.Name != "", index: true}
	for _, x := range it.IDs {
		if x.Field == "index" && x.Ordinal == ord {
			o.index = false
		}
	}
	cc.opened[it.Index] = o
}

func (cc *chatChecks) Observe(c *checks.Checker, s *model.Session, ord int, ev *model.Event, _ *capture.Frame) {
	if ev.Kind == model.KindSentinel {
		return
	}
	cc.events++
	cc.last = ord
	var r *model.Response
	for i := len(s.Responses) - 1; i >= 0; i-- {
		if s.Responses[i].Dialect == Protocol.ID() {
			r = s.Responses[i]
			break
		}
	}
	if r == nil {
		return
	}
	cc.notes(s, ord)
	if jsonscan.Equal(s.Member(mObject), "chat.completion") {
		if cc.whole == nil {
			cc.whole = map[int]bool{}
		}
		cc.whole[r.Index] = true
		return
	}
	if azureFilterChunk(s) {
		return // Azure's prompt-filter chunk names no completion
	}
	id := cc.identOf(r)
	for i, m := range identMembers {
		v := s.Member(m)
		if v == nil {
			continue
		}
		f := &id.fields[i]
		if !f.set {
			f.set, f.first, f.firstOrd, f.prev = true, string(v), ord, string(v)
			continue
		}
		if string(v) != f.prev {
			f.n++
			if len(f.changes) < checks.MaxEvents {
				f.changes = append(f.changes, model.Change{Ordinal: ord, Value: string(v)})
			}
			f.prev = string(v)
		}
	}
}

// identOf returns the identity followed for response r, making it. The
// latest is kept at hand: every chunk asks, and chunks come one completion
// after another.
func (cc *chatChecks) identOf(r *model.Response) *chatIdent {
	if cc.lastIdent != nil && cc.lastIdentOf == r.Index {
		return cc.lastIdent
	}
	if cc.ident == nil {
		cc.ident = map[int]*chatIdent{}
	}
	id := cc.ident[r.Index]
	if id == nil {
		id = &chatIdent{}
		cc.ident[r.Index] = id
	}
	cc.lastIdent, cc.lastIdentOf = id, r.Index
	return id
}

// notes records what the assembly noted of a chunk (model.Session.Notes):
// a message sent next to the delta, and null members of tool-call
// fragments.
func (cc *chatChecks) notes(s *model.Session, ord int) {
	for _, n := range s.Notes() {
		if n.What == NoteMessageInChunk {
			if n := len(cc.message); n > 0 && cc.message[n-1] == ord {
				continue // another choice of the same chunk
			}
			cc.messageN++
			if len(cc.message) < checks.MaxEvents {
				cc.message = append(cc.message, ord)
			}
			continue
		}
		if n.Item < 0 {
			continue
		}
		if cc.nulls == nil {
			cc.nulls = map[int]*chatNulls{}
		}
		nl := cc.nulls[n.Item]
		if nl == nil {
			nl = &chatNulls{}
			cc.nulls[n.Item] = nl
		}
		if n.What == NoteNullArguments {
			nl.nArgs++
			if len(nl.args) < checks.MaxEvents {
				nl.args = append(nl.args, ord)
			}
			continue
		}
		if nl.lastIdent != ord+1 { // one fragment may send several
			nl.lastIdent = ord + 1
			nl.nIdent++
			if len(nl.ident) < checks.MaxEvents {
				nl.ident = append(nl.ident, ord)
			}
		}
		if !slices.Contains(nl.fields, n.What) {
			nl.fields = append(nl.fields, n.What)
		}
	}
}

// azureFilterChunk reports whether a chunk is Azure OpenAI's prompt-filter
// chunk, which carries no choice, the results of the filters run on the
// prompt (prompt_filter_results), and an empty id, model and created
// (https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter):
// it names no completion, so its empty identity is not a change. Looking
// up prompt_filter_results walks the chunk's top level: only a chunk
// without a choice is asked.
func azureFilterChunk(s *model.Session) bool {
	choices := s.Member(mChoices)
	if jsonscan.Kind(choices) != '[' {
		return false
	}
	// choices is valid JSON: it holds no element when the first byte
	// after its '[' and any white space is its ']'.
	for _, b := range choices[bytes.IndexByte(choices, '[')+1:] {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case ']':
			return s.Field("prompt_filter_results") != nil
		}
		return false
	}
	return false
}

// standard finish reasons (openai-python ChatCompletionChunk choice).
var finishReasons = map[string]bool{
	"stop": true, "length": true, "tool_calls": true, "content_filter": true, "function_call": true,
}

func (cc *chatChecks) Finish(out *checks.Checker, s *model.Session, sse bool) {
	if cc.events == 0 {
		return
	}
	ended, _ := s.Ended()
	done := s.Done() >= 0
	for _, r := range s.Responses {
		if r.Dialect != Protocol.ID() {
			continue
		}
		if id := cc.ident[r.Index]; id != nil {
			for i, f := range id.fields {
				if f.n == 0 {
					continue
				}
				evs := []int{f.firstOrd}
				var vals []string
				for _, ch := range f.changes {
					evs = append(evs, ch.Ordinal)
					vals = append(vals, fmt.Sprintf("%s (event %d)", shortRaw(ch.Value), ch.Ordinal))
				}
				rule := cIdentity
				if identKeys[i] == "created" {
					rule = cCreated
				}
				out.Add(rule, evs, "%s changes from %s (event %d) to %s", identKeys[i], shortRaw(f.first), f.firstOrd,
					strings.Join(vals, ", then "))
			}
		}
		cc.checkResponse(out, s, r, chatItems(s.ResponseItems(r.Index)), ended || done)
	}
	streamed := false
	for _, r := range s.Responses {
		streamed = streamed || (r.Dialect == Protocol.ID() && !cc.whole[r.Index])
	}
	if ended && !done && streamed && sse && !checks.Errored(s) {
		out.Add(cDoneMissing, []int{cc.last}, "the stream ends after event %d without data: [DONE]", cc.last)
	}
	if cc.messageN > 0 {
		out.Add(cMessageInChunk, cc.message, "%s carry choices[].message next to delta (first: event %d); a client that reads the message as well as the delta doubles the text and the calls",
			checks.Plural(cc.messageN, "chunk"), cc.message[0])
	}
}

// shortRaw shows a raw JSON value from a chunk: strings unquoted then
// quoted again (shortened), numbers as they are.
func shortRaw(v string) string {
	if s, ok := jsonscan.String([]byte(v)); ok {
		return checks.Quote(s)
	}
	return v
}

// chatItems keeps the Chat items of a response's items, in the order they
// were opened: the rules report the calls of a choice in that order.
func chatItems(items []*model.Item) []*model.Item {
	var out []*model.Item
	for _, it := range items {
		if it.Dialect == Protocol.ID() {
			out = append(out, it)
		}
	}
	byIndex := func(a, b *model.Item) int { return a.Index - b.Index }
	if !slices.IsSortedFunc(out, byIndex) { // output order, which a choice's calls rarely leave
		slices.SortFunc(out, byIndex)
	}
	return out
}

// checkResponse judges one response; items are the response's Chat items
// in stream order.
func (cc *chatChecks) checkResponse(out *checks.Checker, s *model.Session, r *model.Response, items []*model.Item, over bool) {
	byChoice := map[int][]*model.Item{}
	choices := map[int]bool{}
	for _, it := range items {
		choices[it.Choice] = true
		if it.IsCall() {
			byChoice[it.Choice] = append(byChoice[it.Choice], it)
		}
	}
	for _, cf := range r.Finish {
		choices[cf.Choice] = true
	}
	if len(choices) == 0 && r.Terminal >= 0 {
		choices[0] = true
	}
	order := slices.Sorted(func(yield func(int) bool) {
		for c := range choices {
			if !yield(c) {
				return
			}
		}
	})
	whole := cc.whole[r.Index]
	for _, ci := range order {
		calls := byChoice[ci]
		if !whole { // a whole message's tool_calls carry no index
			cc.checkIndices(out, ci, calls)
		}
		for _, it := range calls {
			cc.checkCall(out, s, it, over)
		}
		cc.checkFinish(out, s, r, ci, calls, items, over)
	}
}

// checkIndices judges the tool-call indices of one choice.
func (cc *chatChecks) checkIndices(out *checks.Checker, ci int, calls []*model.Item) {
	byPos := map[int][]*model.Item{}
	var positions []int
	for _, it := range calls {
		if it.Type == "function_call" { // the deprecated delta.function_call has no index
			continue
		}
		if o, ok := cc.opened[it.Index]; ok && !o.index {
			ref := callRef{it}
			out.Add(cIndexMissing, []int{it.Opened}, "%s of choice %d has no tool-call index (event %d)%s", ref, ci, it.Opened, ref.ids())
			continue
		}
		if _, ok := byPos[it.Position]; !ok {
			positions = append(positions, it.Position)
		}
		byPos[it.Position] = append(byPos[it.Position], it)
	}
	slices.Sort(positions)
	for _, p := range positions {
		group := byPos[p]
		if len(group) < 2 {
			continue
		}
		var names, ids []string
		var evs []int
		for _, it := range group {
			names = append(names, fmt.Sprintf("%s at event %d", callRef{it}, it.Opened))
			if it.CallID != "" {
				ids = append(ids, checks.Quote(it.CallID))
			}
			evs = append(evs, it.Opened)
		}
		tail := ""
		if len(ids) > 0 {
			tail = " — ids " + strings.Join(ids, ", ")
		}
		out.Add(cCollision, evs, "%s of choice %d share tool-call index %d; index-keyed clients merge them%s",
			strings.Join(names, " and "), ci, p, tail)
	}
	for i, p := range positions {
		if p == i {
			continue
		}
		it := byPos[p][0]
		what := fmt.Sprintf("index %d follows index %d", p, positions[max(i-1, 0)])
		if i == 0 {
			what = fmt.Sprintf("the first index is %d, not 0", p)
		}
		ref := callRef{it}
		out.Add(cIndexDense, []int{it.Opened}, "the tool-call indices of choice %d are %s: %s, at %s (event %d)%s", ci, intList(positions),
			what, ref, it.Opened, ref.ids())
		break
	}
}

func intList(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// callRef is how a finding's message names a call: as the subject of its
// sentence by its name (String: `call get_weather`, or `a call` before it
// has one), and after the sentence by its id, or its tool-call index when
// it has none (ids; see checks.IDs). Both are built when a finding's
// message is, not for every call checked.
type callRef struct{ it *model.Item }

func (r callRef) String() string {
	if r.it.Name == "" {
		return "a call"
	}
	return "call " + checks.Name(r.it.Name)
}

func (r callRef) ids() callIDs { return callIDs(r) }

type callIDs struct{ it *model.Item }

func (x callIDs) String() string {
	if x.it.CallID == "" {
		return fmt.Sprintf(" — no id, index %d", x.it.Position)
	}
	return checks.IDs("id", x.it.CallID)
}

// checkCall judges one call's identity fragments and arguments.
func (cc *chatChecks) checkCall(out *checks.Checker, s *model.Session, it *model.Item, over bool) {
	o, known := cc.opened[it.Index]
	ref := callRef{it} // built only for a finding's message
	ids := ref.ids()
	var idRep, nameRep, idEmpty, nameEmpty, notString []int
	lateID, lateName := -1, -1
	// The fragments past the ones the model kept are only counted.
	moreID, moreName := model.TallyOf(it.MoreIDs, "id"), model.TallyOf(it.MoreIDs, "name")
	nIDRep, nIDEmpty := moreID.N-moreID.Empty, moreID.Empty
	nNameRep, nNameEmpty := moreName.Own, moreName.Empty
	nNotString := model.TallyOf(it.MoreIDs, "arguments").N
	if renamed := moreName.N - moreName.Own - moreName.Empty; renamed > 0 {
		// Past the renames kept (each told below), only their number.
		out.Add(cNameChanged, []int{it.Opened}, "%s is renamed on %s past the first %d renames%s",
			ref, checks.Plural(renamed, "more fragment"), model.MaxIDsKept, ids)
	}
	for _, x := range it.IDs {
		switch x.Field {
		case "id":
			switch {
			case x.Value == "":
				idEmpty = append(idEmpty, x.Ordinal)
			case known && !o.id && lateID < 0:
				lateID = x.Ordinal
			default:
				idRep = append(idRep, x.Ordinal)
			}
		case "name":
			switch {
			case x.Value == "":
				nameEmpty = append(nameEmpty, x.Ordinal)
			case known && !o.name && lateName < 0:
				lateName = x.Ordinal
			case x.Value != it.Name:
				out.Add(cNameChanged, []int{it.Opened, x.Ordinal}, "%s is renamed %s at event %d%s", ref, checks.Quote(x.Value), x.Ordinal, ids)
			default:
				nameRep = append(nameRep, x.Ordinal)
			}
		case "arguments":
			notString = append(notString, x.Ordinal)
		}
	}
	if it.Type != "function_call" {
		switch {
		case it.CallID == "" && over:
			out.Add(cIDMissing, []int{it.Opened}, "%s opened at event %d never gets an id%s", ref, it.Opened, ids)
		case lateID >= 0:
			out.Add(cIDMissing, []int{it.Opened, lateID}, "the fragment that opens %s (event %d) has no id; it arrives at event %d%s",
				ref, it.Opened, lateID, ids)
		}
	}
	switch {
	case it.Name == "" && over:
		out.Add(cNameMissing, []int{it.Opened}, "%s opened at event %d never gets a name%s", ref, it.Opened, ids)
	case lateName >= 0:
		out.Add(cNameMissing, []int{it.Opened, lateName}, "the fragment that opens %s (event %d) has no name; it arrives at event %d%s",
			ref, it.Opened, lateName, ids)
	}
	nIDRep, nNameRep, nIDEmpty, nNameEmpty = nIDRep+len(idRep), nNameRep+len(nameRep), nIDEmpty+len(idEmpty), nNameEmpty+len(nameEmpty)
	nNotString += len(notString)
	if nIDRep+nNameRep > 0 {
		var parts []string
		if nIDRep > 0 {
			parts = append(parts, fmt.Sprintf("id on %s: clients that concatenate build %s",
				checks.Plural(nIDRep, "continuation fragment"), checks.Quote(strings.Repeat(it.CallID, 2))))
		}
		if nNameRep > 0 {
			parts = append(parts, fmt.Sprintf("name on %s: %s", checks.Plural(nNameRep, "continuation fragment"),
				checks.Quote(strings.Repeat(it.Name, 2))))
		}
		out.Add(cRepeated, append(append([]int{it.Opened}, idRep...), nameRep...), "%s repeats its %s%s", ref, strings.Join(parts, "; and its "), ids)
	}
	if nIDEmpty+nNameEmpty > 0 {
		out.Add(cEmptyID, append(append([]int{it.Opened}, idEmpty...), nameEmpty...),
			`the continuation fragments of %s carry "id":"" (%d) or "name":"" (%d); clients that treat a present id as a new call split it%s`,
			ref, nIDEmpty, nNameEmpty, ids)
	}
	if nl := cc.nulls[it.Index]; nl != nil {
		var parts, built []string
		var evs []int
		if nl.nArgs > 0 {
			parts = append(parts, fmt.Sprintf(`"arguments": null on %s`, checks.Plural(nl.nArgs, "fragment")))
			built = append(built, `"null{…}"`)
			evs = append(evs, nl.args...)
		}
		if nl.nIdent > 0 {
			quoted := make([]string, len(nl.fields))
			for i, f := range nl.fields {
				quoted[i] = strconv.Quote(f)
			}
			parts = append(parts, fmt.Sprintf(`%s: null on %s`, strings.Join(quoted, ", "), checks.Plural(nl.nIdent, "continuation fragment")))
			built = append(built, checks.Quote(it.CallID+"null"))
			evs = append(evs, nl.ident...)
		}
		out.Add(cToolNull, evs, "%s sends %s; clients that concatenate fragments with += build %s%s", ref,
			strings.Join(parts, " and "), strings.Join(built, " and "), ids)
	}
	if nNotString > 0 {
		out.Add(cArgsNotString, notString, "the function.arguments of %s are sent as JSON, not a string, at %s; clients concatenate \"[object Object]\"%s",
			ref, checks.Plural(nNotString, "event"), ids)
	}
	closed := it.Closed >= 0
	if !closed && !over {
		return
	}
	args := it.Args.Bytes()
	switch {
	case it.Deltas == 0:
		out.Add(cArgsMissing, []int{it.Opened}, "the arguments of %s never arrive%s", ref, ids)
		return
	case len(args) == 0:
		out.Add(cArgsEmpty, []int{it.Opened}, `the arguments of %s are "": JSON.parse("") fails; send "{}"%s`, ref, ids)
		return
	}
	st := model.ArgsState(args, closed)
	if st.Complete || st.Incomplete {
		return
	}
	if kind, evs := resent(it); kind != "" {
		out.Add(cArgsResent, evs, "%s %s; the concatenation %s is not JSON%s", ref, kind, checks.QuoteView(args), ids)
		return
	}
	out.Add(cArgsInvalid, []int{it.Opened, it.LastArgsOrdinal()}, "the arguments of %s are not valid JSON (%s): %s%s", ref, st, checks.QuoteView(args), ids)
}

// resent recognises arguments sent twice: a last fragment that repeats
// everything before it, or fragments that each repeat the one before.
func resent(it *model.Item) (string, []int) {
	b := it.Args.Bytes()
	var frags [][]byte
	var ords []int
	start := 0
	for _, f := range it.Args.Frags {
		if int(f.End) > start {
			frags = append(frags, b[start:f.End])
			ords = append(ords, int(f.Ordinal))
		}
		start = int(f.End)
	}
	n := len(frags)
	if n < 2 {
		return "", nil
	}
	// A boundary splitting the whole into two equal JSON halves.
	at := 0
	for k := 1; k < n; k++ {
		at += len(frags[k-1])
		if 2*at == len(b) && bytes.Equal(b[:at], b[at:]) && jsonscan.Validate(b[:at]) == nil {
			return fmt.Sprintf("sends its arguments whole again from event %d after the deltas", ords[k]), []int{ords[0], ords[k]}
		}
	}
	cumulative := true
	for k := 1; k < n; k++ {
		if len(frags[k-1]) == 0 || !bytes.HasPrefix(frags[k], frags[k-1]) {
			cumulative = false
			break
		}
	}
	if cumulative && jsonscan.Validate(frags[n-1]) == nil {
		return fmt.Sprintf("repeats its arguments so far in every fragment (events %d, %d …)", ords[0], ords[1]), []int{ords[0], ords[1]}
	}
	return "", nil
}

// checkFinish judges one choice's finish_reason and what follows it.
func (cc *chatChecks) checkFinish(out *checks.Checker, s *model.Session, r *model.Response, ci int, calls, items []*model.Item, over bool) {
	h := r.FinishOf(ci)
	var reasons []model.Change
	var odd []int
	var oddVals []string
	for _, ch := range h {
		if ch.Value != "" {
			reasons = append(reasons, ch)
		}
		if !finishReasons[ch.Value] {
			odd = append(odd, ch.Ordinal)
			if !slices.Contains(oddVals, checks.Quote(ch.Value)) {
				oddVals = append(oddVals, checks.Quote(ch.Value))
			}
		}
	}
	if len(odd) > 0 {
		out.Add(cFinishOdd, odd, "choice %d: finish_reason %s on %s; not one of stop, length, tool_calls, content_filter, function_call",
			ci, strings.Join(oddVals, ", "), checks.Plural(len(odd), "chunk"))
	}
	if len(reasons) == 0 {
		if over && !checks.Errored(s) {
			last := cc.last
			if d := s.Done(); d >= 0 {
				last = d
			}
			out.Add(cFinishMissing, []int{last}, "choice %d ends (event %d) without a finish_reason", ci, last)
		}
		return
	}
	if len(reasons) > 1 {
		var vals []string
		var evs []int
		for _, ch := range reasons {
			vals = append(vals, fmt.Sprintf("%s (event %d)", checks.Quote(ch.Value), ch.Ordinal))
			evs = append(evs, ch.Ordinal)
		}
		if sameValues(reasons) {
			// The same reason again changes nothing a client decides.
			out.AddAt(cFinishRepeated, checks.Info, evs, "choice %d: finish_reason %s repeated %d times (events %s); the same value, so harmless",
				ci, checks.Quote(reasons[0].Value), len(reasons), joinInts(evs))
		} else {
			out.Add(cFinishRepeated, evs, "choice %d: finish_reason %s; clients that trust the last one drop the calls", ci, strings.Join(vals, " then "))
		}
	}
	lastReason := reasons[len(reasons)-1]
	hasCalls := len(calls) > 0
	if hasCalls && lastReason.Value == "stop" && !out.RequestNamed() {
		stopRule, _ := checks.RuleOf(cStopWithCalls)
		sev := stopRule.Severity
		if out.RequestForced() {
			sev = checks.Info // tolerated when the request required a call
		}
		out.AddAt(cStopWithCalls, sev, []int{calls[0].Opened, lastReason.Ordinal}, `choice %d: %s sent but finish_reason is "stop" (event %d); strict agent loops skip them`,
			ci, checks.Plural(len(calls), "tool call"), lastReason.Ordinal)
	}
	if !hasCalls {
		for _, ch := range reasons {
			if ch.Value == "tool_calls" {
				out.Add(cCallsNoCalls, []int{ch.Ordinal}, `choice %d: finish_reason "tool_calls" (event %d) but no tool call was sent`, ci, ch.Ordinal)
				break
			}
		}
	}
	// Deltas after the first finish_reason.
	fin := reasons[0].Ordinal
	var late []int
	for _, it := range items {
		if it.Choice != ci {
			continue
		}
		if it.IsCall() && it.Opened > fin {
			late = append(late, it.Opened)
		}
		for _, b := range []*model.Buffer{&it.Args, &it.Text, it.Refusal} {
			if b == nil {
				continue
			}
			start := int32(0)
			for _, f := range b.Frags {
				if int(f.Ordinal) > fin && f.End > start { // an empty fragment adds nothing to lose
					late = append(late, int(f.Ordinal))
				}
				start = f.End
			}
		}
	}
	if len(late) > 0 {
		slices.Sort(late)
		late = slices.Compact(late)
		out.Add(cAfterFinish, append([]int{fin}, late...), "choice %d: deltas in %s after finish_reason %s (event %d); clients stop reading the choice there",
			ci, checks.Plural(len(late), "chunk"), checks.Quote(reasons[0].Value), fin)
	}
}

// compact returns JSON text without insignificant whitespace.
// sameValues reports whether every change holds the first one's value.
func sameValues(h model.History) bool {
	for _, ch := range h[1:] {
		if ch.Value != h[0].Value {
			return false
		}
	}
	return true
}

// joinInts writes ordinals as "3, 4, 9".
func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}
