package model

import (
	"cmp"
	"maps"
	"slices"

	"github.com/streamtap/streamtap/capture"
)

// Calls returns every tool call, in output order: by response, then choice,
// then output index / block index / tool-call index, then arrival.
func (s *Session) Calls() []*Item {
	var out []*Item
	s.eachOutput(func(it *Item) {
		if it.IsCall() {
			out = append(out, it)
		}
	})
	return out
}

// ItemsAsOf returns the items that exist by the end of event ord (all
// when ord < 0), in output order.
func (s *Session) ItemsAsOf(ord int) []*Item {
	out := make([]*Item, 0, len(s.Items))
	s.eachOutput(func(it *Item) {
		if ord < 0 || it.First <= ord {
			out = append(out, it)
		}
	})
	return out
}

// ResponseItems returns the items of response r (an index in Responses;
// -1 for items that belong to no response) in output order: by choice,
// then output index / block index / tool-call index, then arrival. The
// index is kept across queries, each placing only the items added since
// the one before, so asking costs nothing per item already placed.
// The slice is the session's own: do not modify it, and do not keep it
// past the next Add, after which the next query may grow or reorder it.
// Like every query, call it on the goroutine that adds.
func (s *Session) ResponseItems(r int) []*Item {
	s.placeItems()
	i := r + 1
	if i < 0 || i >= len(s.outputs) {
		return nil
	}
	l := &s.outputs[i]
	if l.unsorted {
		slices.SortFunc(l.items, outputOrder)
		l.unsorted = false
	}
	return l.items
}

// eachOutput calls f with every item in output order: the items of no
// response, then each response's.
func (s *Session) eachOutput(f func(it *Item)) {
	s.placeItems()
	for r := -1; r < len(s.outputs)-1; r++ {
		for _, it := range s.ResponseItems(r) {
			f(it)
		}
	}
}

// outputList is the items of one response in output order, unless
// unsorted says an item arrived too far from its place to be moved there
// (see maxOutputShift): then the list is sorted when next asked for.
type outputList struct {
	items    []*Item
	unsorted bool
}

// maxOutputShift bounds how many items an arriving item may be moved past
// to reach its place in output order. Real streams open items in about
// output order (the shift is 0, or a few items of another choice), but a
// hostile one can open each item before all the others, and moving every
// item past all the rest would cost time quadratic in the items; past the
// bound the list is sorted once when asked for instead.
const maxOutputShift = 64

// firstOutputs is the room a response's list of items starts with, and
// outputChunk how many lists one allocation gives room to. Grown from nil
// by append, a response's 3 items took 3 allocations; a stream holds
// thousands of responses.
const (
	firstOutputs = 8
	outputChunk  = 32
)

// outputRoom returns an empty list with room for firstOutputs items, cut
// from a chunk shared with other responses' lists. A list that outgrows
// its room moves out on its next append, as any slice does.
func (s *Session) outputRoom() []*Item {
	if len(s.outputFree)+firstOutputs > cap(s.outputFree) {
		s.outputFree = make([]*Item, 0, outputChunk*firstOutputs)
	}
	n := len(s.outputFree)
	s.outputFree = s.outputFree[:n+firstOutputs]
	return s.outputFree[n : n : n+firstOutputs]
}

// placeItems adds the items created since it last ran to the index of
// their response. An item's response, choice and position are set by the
// event that creates it and never change after it, so its place in output
// order is fixed once that event is applied, and placing it then or at the
// next query gives the same list. The index is built at the first query
// after the items arrive, not as each event is added: a headless read that
// asks once, at the end, then does not carry the index (a slot per item,
// room for eight a response) through every collection of the read.
func (s *Session) placeItems() {
	for ; s.placed < len(s.Items); s.placed++ {
		it := s.Items[s.placed]
		i := it.Response + 1
		if i < 0 {
			i = 0 // defensive: Response is never below -1
		}
		for len(s.outputs) <= i {
			s.outputs = append(s.outputs, outputList{})
		}
		l := &s.outputs[i]
		n := len(l.items)
		if l.items == nil {
			l.items = s.outputRoom()
		}
		if l.unsorted || n == 0 || outputOrder(l.items[n-1], it) < 0 {
			l.items = append(l.items, it)
			continue
		}
		at, _ := slices.BinarySearchFunc(l.items, it, outputOrder)
		if n-at > maxOutputShift {
			l.items = append(l.items, it)
			l.unsorted = true
			continue
		}
		l.items = slices.Insert(l.items, at, it)
	}
}

// sortOutput sorts items into output order.
func sortOutput(items []*Item) {
	// Items are created in about output order, so a check in one pass
	// usually spares the sort its log n passes through scattered items.
	if !slices.IsSortedFunc(items, outputOrder) {
		slices.SortFunc(items, outputOrder)
	}
}

// outputOrder orders items by response, choice, position, then arrival
// (the event that created them, then their index in Session.Items): a
// total order, so any sort gives the same result.
func outputOrder(a, b *Item) int {
	return cmp.Or(
		cmp.Compare(a.Response, b.Response),
		cmp.Compare(a.Choice, b.Choice),
		cmp.Compare(a.Position, b.Position),
		cmp.Compare(a.First, b.First),
		cmp.Compare(a.Index, b.Index),
	)
}

// maxDenseChoice bounds the choice indexes Texts lays out by position.
// Real streams number choices from 0 (OpenAI caps n at 128); without a bound
// one chunk naming choice 1e12 would make Texts allocate that many strings.
const maxDenseChoice = 1 << 10

// Texts returns the assembled assistant text per choice: one string for
// ordinary streams, several when the stream has several choices (Chat n>1,
// Gemini candidates). Text of every message item is concatenated in output
// order; reasoning and refusals are not text. When every choice index is in
// [0, maxDenseChoice) the text of choice i is at index i; otherwise there is
// one string per choice present, in choice order.
func (s *Session) Texts() []string { return s.textsOf(RoleMessage, false) }

// Reasoning returns the assembled reasoning per choice, laid out as Texts
// lays out the text: the text of every reasoning item (thinking, a
// Responses reasoning summary, Gemini thoughts, Bedrock reasoningContent,
// Ollama thinking) concatenated in output order; "" for reasoning that
// carried no text (redacted or encrypted). It is nil when the stream has
// no reasoning at all.
func (s *Session) Reasoning() []string { return s.textsOf(RoleReasoning, true) }

// textsOf lays out the text of the items of role per choice (see Texts);
// nil when there are none and onlySeen says so.
func (s *Session) textsOf(role ItemRole, onlySeen bool) []string {
	byChoice := map[int][]byte{}
	maxChoice, minChoice := 0, 0
	items := s.ItemsAsOf(-1)
	for _, it := range items {
		if it.Role != role {
			continue
		}
		byChoice[it.Choice] = append(byChoice[it.Choice], it.Text.Bytes()...)
		maxChoice, minChoice = max(maxChoice, it.Choice), min(minChoice, it.Choice)
	}
	if onlySeen && len(byChoice) == 0 {
		return nil
	}
	if minChoice < 0 || maxChoice >= maxDenseChoice {
		out := make([]string, 0, len(byChoice))
		for _, c := range slices.Sorted(maps.Keys(byChoice)) {
			out = append(out, string(byChoice[c]))
		}
		return out
	}
	out := make([]string, maxChoice+1)
	for c, b := range byChoice {
		if c >= 0 {
			out[c] = string(b)
		}
	}
	return out
}

// CallStatus is a call's status for reports: its latest stated status, or
// "incomplete" for a call whose stream ended while it was still open.
func (s *Session) CallStatus(it *Item) string {
	st := it.Status.Last()
	if (st == "" || st == "in_progress") && s.ended && it.Closed < 0 {
		return "incomplete"
	}
	if st == "" {
		return "in_progress"
	}
	return st
}

// Outcome is how the stream ended, reported apart from protocol defects.
type Outcome struct {
	State   string // one of Outcomes, or OutcomeStreaming
	Detail  string // a reason or error message
	Ordinal int    // the event that decided it, or -1
}

// Outcome tells how the stream ended: the terminal event of its last
// response, read with its finish reasons, an error, or none at all. A
// connection that switched protocols (Upgraded) and carried no response
// ended "closed".
func (s *Session) Outcome() Outcome {
	if s.count == 0 {
		if s.ended {
			return Outcome{State: OutcomeEmpty, Ordinal: -1}
		}
		return Outcome{State: OutcomeStreaming, Ordinal: -1}
	}
	if n := len(s.Errors); n > 0 && s.errorDecides() {
		e := s.Errors[n-1]
		detail := e.Message
		switch {
		case e.Code != "" && detail != "":
			detail = e.Code + ": " + detail
		case e.Code != "":
			detail = e.Code
		}
		state := OutcomeError
		switch r := s.lastResponse(); {
		case r != nil && r.Status.Last() == OutcomeFailed:
			state = OutcomeFailed
		case e.Code == errorCodeFiltered:
			state = OutcomeBlocked
		}
		return Outcome{State: state, Detail: detail, Ordinal: e.Ordinal}
	}
	r := s.lastResponse()
	if r == nil {
		switch {
		case !s.ended:
			return Outcome{State: OutcomeStreaming, Ordinal: -1}
		case s.upgraded:
			// A connection that carried no response: its messages, if
			// any, are comments (a WebSocket of another kind, or none).
			return Outcome{State: OutcomeClosed, Ordinal: -1}
		case s.data > 0 && s.Dialect() == DialectUnknown:
			return Outcome{State: OutcomeNotAStream, Detail: "no event of a known dialect", Ordinal: -1}
		}
		return Outcome{State: OutcomeTruncated, Detail: "no response recognised", Ordinal: -1}
	}
	if r.Terminal < 0 {
		if !s.ended {
			return Outcome{State: OutcomeStreaming, Ordinal: -1}
		}
		if ue, ok := byDialect[r.Dialect].(CompleteWithout); ok && s.endedCleanly() {
			if ord, ok := ue.FinishedWithout(s, r); ok {
				state, detail := r.finished(OutcomeCompleted)
				return Outcome{State: state, Detail: detail, Ordinal: ord}
			}
		}
		detail := "the stream ended without its terminal event"
		if s.endErr != nil {
			detail = s.endErr.Error()
		}
		return Outcome{State: OutcomeTruncated, Detail: detail, Ordinal: -1}
	}
	state := r.Status.Last()
	switch state {
	case OutcomeCompleted, OutcomeIncomplete, OutcomeBlocked, OutcomeFailed:
	default:
		state = OutcomeCompleted
	}
	state, detail := r.finished(state)
	return Outcome{State: state, Detail: detail, Ordinal: r.Terminal}
}

// errorCodeFiltered is the error code Azure OpenAI answers a prompt its
// content filter blocked with (HTTP 400, "code": "content_filter"): a
// block, not an error of the service
// (https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter).
const errorCodeFiltered = "content_filter"

// endedCleanly reports whether the stream ended at an event's end: no
// read error, and its last frame neither cut short nor broken JSON.
func (s *Session) endedCleanly() bool {
	return s.ended && s.endErr == nil && s.last.Frame&capture.Truncated == 0 && s.last.Flags&DecodeError == 0
}

// errorDecides reports whether the latest error tells how the stream
// ended. It does, except on a connection that carries response after
// response (Upgraded), where an error that came before the last response
// started answered an earlier request: the last response tells the end.
func (s *Session) errorDecides() bool {
	r := s.lastResponse()
	return !s.upgraded || r == nil || s.Errors[len(s.Errors)-1].Ordinal >= r.First
}

func (s *Session) lastResponse() *Response {
	if n := len(s.Responses); n > 0 {
		return s.Responses[n-1]
	}
	return nil
}
