package responses

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// The Responses rules judged per item at the end of a stream: identity,
// lifecycle, arguments and text.

// checkItem judges one item's identity, lifecycle and arguments.
func (rc *respChecks) checkItem(out *checks.Checker, s *model.Session, it *model.Item) {
	var rf *respFacts
	var r *model.Response
	if it.Response >= 0 && it.Response < len(s.Responses) {
		r = s.Responses[it.Response]
		rf = rc.resp(it.Response)
	}
	open, wasOpened := rc.item(it.Index)
	ref := itemRef{it}
	origin := it.Opened
	if origin < 0 {
		origin = it.First
	}

	var byField map[string][]model.IDSeen
	var fields []string
	if len(it.IDs) > 0 {
		byField = map[string][]model.IDSeen{}
	}
	for _, id := range it.IDs {
		if _, ok := byField[id.Field]; !ok {
			fields = append(fields, id.Field)
		}
		byField[id.Field] = append(byField[id.Field], id)
	}
	for _, field := range fields {
		seen := byField[field]
		more := model.TallyOf(it.MoreIDs, field) // past the kept ones: counted only
		if field == "item_id" && it.CallID == "" && r != nil && more.N == 0 && onlyAt(seen, r.Final) {
			// Renamed only in the terminal output[]: terminal-output-mismatch
			// tells that rename.
			continue
		}
		evs := []int{origin}
		for _, x := range seen {
			evs = append(evs, x.Ordinal)
		}
		vals := valuesAt(seen, more)
		switch field {
		case "item_id":
			out.Add(rItemIDChanged, evs, "%s is opened at event %d as item %s and renamed %s%s", ref, origin,
				checks.Quote(it.ItemID), vals, ref.ids("item"))
		case "call_id":
			if wasOpened && open.callID == "" && it.Type == "function_call" {
				out.Add(rCallIDMissing, evs[:2], "%s has no call_id at output_item.added (event %d); it first appears at event %d%s",
					ref, origin, seen[0].Ordinal, ref.ids())
				seen, evs, more = afterLate(seen, evs, more)
				vals = valuesAt(seen, more)
			}
			if len(seen) > 0 || more.N > 0 {
				out.Add(rCallIDChanged, evs, "the call_id of %s, %s at first, changes to %s%s", ref, checks.Quote(it.CallID), vals, ref.ids("call_id"))
			}
		case "name":
			if wasOpened && open.name == "" {
				out.Add(rNameLate, evs[:2], "a call has no name at output_item.added (event %d); the name %s first appears at event %d%s",
					origin, checks.Quote(seen[0].Value), seen[0].Ordinal, ref.ids())
				seen, evs, more = afterLate(seen, evs, more)
				vals = valuesAt(seen, more)
			}
			if len(seen) > 0 || more.N > 0 {
				out.Add(rNameChanged, evs, "a call named %s at event %d is renamed %s%s", checks.Quote(open.name), origin,
					vals, ref.ids())
			}
		case "type":
			out.Add(rTypeChanged, evs, "%s is %s at event %d but %s%s", ref, checks.Quote(it.Type), origin, vals, ref.ids())
		case "output_item.done":
			out.Add(rDoneTwice, append(evs, it.Closed), "%s gets output_item.done again at event %d after event %d%s",
				ref, seen[0].Ordinal, it.Closed, ref.ids())
		case "arguments_done":
			out.Add(rDoneTwice, evs, "%s gets its arguments .done again at event %d%s", ref, seen[0].Ordinal, ref.ids())
		}
	}

	// Lifecycle.
	if rf != nil && it.Opened >= 0 && it.Closed < 0 && rf.terminalType == "response.completed" {
		out.Add(rDoneMissing, []int{it.Opened, rf.terminal}, "%s opened at event %d has no output_item.done before response.completed (event %d)%s",
			ref, it.Opened, rf.terminal, ref.ids())
	}
	var final model.Change
	for _, ch := range it.Status {
		switch {
		case final.Value == "" && finalStatus(ch.Value):
			final = ch
		case final.Value != "" && ch.Value != final.Value:
			out.Add(rItemStatus, []int{final.Ordinal, ch.Ordinal}, "%s has status %s at event %d after %s at event %d%s",
				ref, checks.Quote(ch.Value), ch.Ordinal, checks.Quote(final.Value), final.Ordinal, ref.ids())
			final = ch
		}
	}

	if it.Role == model.RoleMessage {
		rc.checkText(out, it, ref)
	}
	if !it.IsCall() {
		return
	}
	if it.CallID == "" && (it.Type == "function_call" || it.Type == "custom_tool_call") {
		out.Add(rCallIDMissing, []int{origin}, "%s never states a call_id; its output cannot be paired%s", ref, ref.ids())
	}
	incomplete := it.StatusLast() == "incomplete" || (rf != nil && rf.terminalType == "response.incomplete" && it.Closed < 0)
	if incomplete && rf != nil && rf.terminalType == "response.incomplete" {
		out.Add(rIncompleteCall, []int{origin, rf.terminal}, "%s is cut off by response.incomplete (event %d): its arguments %s are truncated%s",
			ref, rf.terminal, checks.Quote(it.FinalArgs()), ref.ids())
	}
	present, differ := it.SourcesDisagree()
	if differ && !jsonEquivalent(present) {
		var stated []statedAt
		for _, src := range []model.SourceName{model.SourceDeltas, model.SourceArgsDone, model.SourceItemDone, model.SourceTerminal} {
			v, ok := present[src.String()]
			if !ok {
				continue
			}
			st, _ := it.Statement(src)
			o := st.Ordinal
			if src == model.SourceDeltas {
				o = it.LastArgsOrdinal()
			}
			stated = append(stated, statedAt{sourceLabel(src), v, o})
		}
		evs, parts := partingValues(stated)
		out.Add(rArgsMismatch, evs, "the arguments of %s differ: %s%s", ref, parts, ref.ids())
	}
	if a, ok := it.Statement(model.SourceAdded); ok && a.Value != "" && it.Deltas > 0 {
		out.Add(rArgsInAdded, []int{a.Ordinal, it.LastArgsOrdinal()}, "the output_item.added of %s (event %d) already carries arguments %s, and %s repeat them%s",
			ref, a.Ordinal, checks.Quote(a.Value), checks.Plural(it.Deltas, "delta"), ref.ids())
	}
	// The final arguments as a view of the assembled bytes where they
	// are: a 50 MB call is judged without two copies of it (this runs at
	// the end of every session the proxy logs).
	args, v := it.FinalArgsViewAsOf(-1)
	if args == nil {
		args = []byte(v)
	}
	if it.Opened >= 0 && it.Deltas == 0 && len(args) > 0 {
		done, ok := it.Statement(model.SourceArgsDone)
		if !ok {
			done, ok = it.Statement(model.SourceItemDone)
		}
		if ok {
			out.Add(rArgsDoneOnly, []int{it.Opened, done.Ordinal}, "%s sends no argument delta: its arguments arrive whole at event %d%s", ref, done.Ordinal, ref.ids())
		}
	}
	if it.Type == "custom_tool_call" || incomplete {
		return // free-form input, or arguments cut off on purpose
	}
	st := model.ArgsState(args, it.Closed >= 0 || (r != nil && r.Terminal >= 0))
	switch {
	case st.Empty && it.Closed >= 0:
		out.Add(rArgsEmpty, []int{it.Closed}, `the final arguments of %s are "": JSON.parse("") fails, and "{}" is the empty object%s`, ref, ref.ids())
	case !st.Complete && !st.Empty && !st.Incomplete:
		out.Add(rArgsInvalid, []int{origin, max(it.Closed, it.Last)}, "the final arguments of %s are not valid JSON (%s): %s%s",
			ref, st, checks.QuoteView(args), ref.ids())
	}
}

// onlyAt reports whether every observation was made by event ord.
func onlyAt(seen []model.IDSeen, ord int) bool {
	for _, x := range seen {
		if x.Ordinal != ord {
			return false
		}
	}
	return len(seen) > 0
}

// maxValuesShown bounds the distinct values a message lists: a gateway that
// renames an item on each of its thousand events makes one finding, not a
// thousand-name message.
const maxValuesShown = 3

// statedAt is one source's value, labelled, with the event that stated it.
type statedAt struct {
	label string
	value string
	ord   int
}

// partingValues groups statements by value and shows each value from a
// little before the first byte where they part: "deltas (event 4) say
// …"Paris"; arguments .done (event 5) say …"Rome"", with the events.
func partingValues(stated []statedAt) ([]int, string) {
	var values []string
	names := map[string][]string{}
	var evs []int
	for _, st := range stated {
		evs = append(evs, st.ord)
		if _, seen := names[st.value]; !seen {
			values = append(values, st.value)
		}
		names[st.value] = append(names[st.value], fmt.Sprintf("%s (event %d)", st.label, st.ord))
	}
	from := max(commonPrefix(values)-16, 0)
	parts := make([]string, len(values))
	for i, v := range values {
		shown := checks.Quote(v[from:])
		if from > 0 {
			shown = "…" + shown
		}
		parts[i] = fmt.Sprintf("%s say %s", strings.Join(names[v], " and "), shown)
	}
	return evs, strings.Join(parts, "; ")
}

// checkText judges a message whose text is stated again by .done events
// and snapshots: every statement must be the deltas' text.
func (rc *respChecks) checkText(out *checks.Checker, it *model.Item, ref itemRef) {
	present, differ := it.TextSourcesDisagree()
	if !differ {
		return
	}
	var stated []statedAt
	for _, n := range []model.TextSourceName{model.TextDeltas, model.TextDone, model.TextPartDone, model.TextItemDone, model.TextTerminal} {
		v, ok := present[n.String()]
		if !ok {
			continue
		}
		st, _ := it.TextStatement(n)
		o := st.Ordinal
		if n == model.TextDeltas {
			o = int(it.Text.Frags[len(it.Text.Frags)-1].Ordinal)
		}
		stated = append(stated, statedAt{textSourceLabel(n), v, o})
	}
	evs, parts := partingValues(stated)
	out.Add(rTextMismatch, evs, "the text of %s differs: %s; clients that read the .done events show other text than clients that concatenate the deltas%s", ref, parts, ref.ids())
}

func textSourceLabel(n model.TextSourceName) string {
	switch n {
	case model.TextDeltas:
		return "deltas"
	case model.TextDone:
		return "output_text.done"
	case model.TextPartDone:
		return "content_part.done"
	case model.TextItemDone:
		return "output_item.done"
	case model.TextTerminal:
		return "terminal output[]"
	}
	return n.String()
}

// valuesAt lists the distinct values seen with the events that carried
// each: "x" (events 3, 5), "y" (event 9); past maxValuesShown values it
// counts the rest, with the new values among the observations the model
// afterLate drops a value that arrived late (an item opened without a
// call_id or name learns it later) from the values seen and from evs
// (the item's origin, then each value's event): its first arrival, which
// the late rule reports, and every later event that states the same
// value, which is no change. Observations past the kept ones count as a
// change only when they bring a value not kept (more.Fresh).
func afterLate(seen []model.IDSeen, evs []int, more model.IDTally) ([]model.IDSeen, []int, model.IDTally) {
	late := seen[0].Value
	keptSeen, keptEvs := []model.IDSeen{}, []int{evs[0]}
	for k, x := range seen[1:] {
		if x.Value != late {
			keptSeen = append(keptSeen, x)
			keptEvs = append(keptEvs, evs[k+2])
		}
	}
	if more.Fresh == 0 {
		more.N = 0
	}
	return keptSeen, keptEvs, more
}

// only counted (more).
func valuesAt(seen []model.IDSeen, more model.IDTally) string {
	var order []string
	at := map[string][]string{}
	for _, x := range seen {
		if _, ok := at[x.Value]; !ok {
			order = append(order, x.Value)
		}
		at[x.Value] = append(at[x.Value], fmt.Sprint(x.Ordinal))
	}
	var parts []string
	for i, v := range order {
		if i == maxValuesShown {
			break
		}
		word := "event"
		if len(at[v]) > 1 {
			word = "events"
		}
		parts = append(parts, fmt.Sprintf("%s (%s %s)", checks.Quote(v), word, strings.Join(at[v], ", ")))
	}
	if rest := max(len(order)-maxValuesShown, 0) + more.Fresh; rest > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", rest))
	}
	return strings.Join(parts, ", ")
}

// commonPrefix is the length of the longest prefix all values share, cut
// back to a UTF-8 boundary.
func commonPrefix(values []string) int {
	if len(values) == 0 {
		return 0
	}
	n := len(values[0])
	for _, v := range values[1:] {
		i := 0
		for i < n && i < len(v) && v[i] == values[0][i] {
			i++
		}
		n = i
	}
	for n > 0 && n < len(values[0]) && !utf8.RuneStart(values[0][n]) {
		n--
	}
	return n
}

func sourceLabel(src model.SourceName) string {
	switch src {
	case model.SourceDeltas:
		return "deltas"
	case model.SourceArgsDone:
		return "arguments .done"
	case model.SourceItemDone:
		return "output_item.done"
	case model.SourceTerminal:
		return "terminal output[]"
	}
	return src.String()
}

// jsonEquivalent reports whether differing argument texts are the same
// JSON, told apart only by whitespace: a client parsing any of them runs
// the same call. It compares them as json.Compact writes them without
// writing them: compacting a copy of each cost 290 MB for a 50 MB call
// whose .done differed from its deltas.
func jsonEquivalent(present map[string]string) bool {
	var first string
	var firstValid bool
	n := 0
	for _, v := range present {
		b := readOnly(v)
		if jsonscan.Validate(b) != nil {
			return false
		}
		valid := json.Valid(b) // what json.Compact takes: anything else model.CompactJSON leaves as it is
		switch {
		case n == 0:
			first, firstValid = v, valid
		case valid && firstValid:
			if !compactEqual(first, v) {
				return false
			}
		case valid || firstValid:
			if model.CompactJSON(readOnly(first)) != model.CompactJSON(b) {
				return false
			}
		case v != first:
			return false
		}
		n++
	}
	return true
}

// readOnly is v's bytes, not a copy of them, for the validators, which
// neither change nor keep what they read: a copy of each of a 50 MB
// call's differing arguments cost 124 MiB.
func readOnly(v string) []byte { return unsafe.Slice(unsafe.StringData(v), len(v)) }

// compactEqual reports whether two valid JSON texts are equal once the
// whitespace outside their strings is taken out, as json.Compact does.
func compactEqual(a, b string) bool {
	i, j := 0, 0
	inString := false
	for {
		if !inString {
			for i < len(a) && isJSONSpace(a[i]) {
				i++
			}
			for j < len(b) && isJSONSpace(b[j]) {
				j++
			}
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		c := a[i]
		if c != b[j] {
			return false
		}
		switch {
		case inString && c == '\\':
			// The escaped byte, a quote maybe, is the string's.
			if i+1 == len(a) || j+1 == len(b) || a[i+1] != b[j+1] {
				return false
			}
			i, j = i+1, j+1
		case c == '"':
			inString = !inString
		}
		i, j = i+1, j+1
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
