package proxy

import (
	"slices"
	"sync"

	"github.com/streamtap/streamtap/model"
)

// turns links requests to the sessions whose calls they answer. It is safe
// for concurrent use.
type turns struct {
	mu         sync.Mutex
	byResponse map[string]int   // response id → session
	byCall     map[string]int   // call id → session that made the call
	calls      map[int][]string // session → the call ids it made
}

// register records the responses and calls a finished session produced.
func (t *turns) register(id int, s *model.Session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byResponse == nil {
		t.byResponse, t.byCall, t.calls = map[string]int{}, map[string]int{}, map[int][]string{}
	}
	for _, r := range s.Responses {
		if r.ID != "" {
			t.byResponse[r.ID] = id
		}
	}
	for _, c := range s.Report().Calls {
		if c.ID != nil && *c.ID != "" {
			t.byCall[*c.ID] = id
			t.calls[id] = append(t.calls[id], *c.ID)
		}
	}
}

// link finds the session a request continues and the calls of that
// session it leaves unanswered: a Responses request names its previous
// response; a Chat, Anthropic or Gemini request answers calls of the
// latest session it sends output for, or repeats that session's calls in
// its history.
func (t *turns) link(req model.Request) (prev int, unanswered []string) {
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
