package model

import (
	"slices"
	"sync"
)

// Turns links the exchanges of a conversation: a request that continues
// an earlier exchange, by naming its response or by answering its calls,
// is a turn of that exchange. The proxy links its exchanges as they come;
// an imported archive links its sessions in the order they were recorded.
// Exchanges are numbered by their users (the proxy's and the sessions
// list's ids, from 1). The zero value is ready to use, and it is safe for
// concurrent use.
//
// It remembers the newest KeptTurns exchanges that made a response or a
// call: a proxy left running for days links turns without growing. A
// request continuing an exchange older than those is not linked.
type Turns struct {
	mu         sync.Mutex
	byResponse map[string]int   // response id → exchange
	byCall     map[string]int   // call id → exchange that made the call
	calls      map[int][]string // exchange → the call ids it made
	responses  map[int][]string // exchange → its response ids
	order      []int            // the exchanges remembered, oldest first
	keep       int              // how many to remember: KeptTurns when 0 (tests set fewer)
	// marks holds what exchanges offer by their dialect's keys (Linker),
	// and earlier each such exchange's request and keys: see LinkExchange.
	marks   map[string]int
	earlier map[int]Earlier
}

// KeptTurns is how many exchanges Turns remembers: far more than a
// conversation spans, and a few MB at most (ids of a few dozen bytes).
const KeptTurns = 1 << 15

// Add records the responses and calls exchange id produced, s being its
// finished session, so that later requests can continue it.
func (t *Turns) Add(id int, s *Session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byResponse == nil {
		t.byResponse, t.byCall = map[string]int{}, map[string]int{}
		t.calls, t.responses = map[int][]string{}, map[int][]string{}
	}
	_, known := t.responses[id]
	_, knownCalls := t.calls[id]
	_, knownMarks := t.earlier[id]
	added := t.addMarks(id, s)
	for _, r := range s.Responses {
		if r.ID != "" {
			t.byResponse[r.ID] = id
			t.responses[id] = append(t.responses[id], r.ID)
			added = true
		}
	}
	for _, c := range s.Calls() {
		if c.CallID != "" {
			t.byCall[c.CallID] = id
			t.calls[id] = append(t.calls[id], c.CallID)
			added = true
		}
	}
	if added && !known && !knownCalls && !knownMarks {
		t.order = append(t.order, id)
		keep := t.keep
		if keep == 0 {
			keep = KeptTurns
		}
		for len(t.order) > keep {
			t.forget(t.order[0])
			t.order = t.order[1:] // append moves it to a new array now and then: amortized O(1)
		}
	}
}

// forget drops what Turns knows of exchange id, leaving ids that a later
// exchange has taken over.
func (t *Turns) forget(id int) {
	for _, r := range t.responses[id] {
		if t.byResponse[r] == id {
			delete(t.byResponse, r)
		}
	}
	for _, c := range t.calls[id] {
		if t.byCall[c] == id {
			delete(t.byCall, c)
		}
	}
	delete(t.responses, id)
	delete(t.calls, id)
	t.forgetMarks(id)
}

// Link finds the exchange a request continues, 0 for none, and the calls
// of that exchange it leaves unanswered: a Responses request names its
// previous response; a Chat, Anthropic or Gemini request answers calls of
// the latest exchange it sends output for, or repeats that exchange's
// calls in its history.
func (t *Turns) Link(req Request) (prev int, unanswered []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if req.Previous != "" {
		prev = t.byResponse[req.Previous]
	}
	if prev == 0 {
		for _, id := range slices.Concat(req.Answers, req.Assistants) {
			prev = max(prev, t.byCall[id])
		}
	}
	if prev == 0 {
		return 0, nil
	}
	for _, c := range t.calls[prev] {
		if !slices.Contains(req.Answers, c) {
			unanswered = append(unanswered, c)
		}
	}
	return prev, unanswered
}

// Continues reports whether a request can continue an earlier exchange:
// it names a previous response, or sends or repeats calls. Link finds
// nothing for one that does not, so a caller can skip modelling earlier
// exchanges for it.
func (r *Request) Continues() bool {
	return r.Previous != "" || len(r.Answers) > 0 || len(r.Assistants) > 0
}
