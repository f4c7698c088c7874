package model

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// turnsOf links two finished exchanges: #1 a Responses stream (response
// resp_1, calls call_a and call_b), #2 a Chat stream (call call_c).
func turnsOf(t *testing.T) *Turns {
	t.Helper()
	var tr Turns
	tr.Add(1, assemble(t, sse(
		`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress"}}`,
		`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"function_call","id":"fc_a","call_id":"call_a","name":"f","arguments":""}}`,
		`{"type":"response.output_item.added","sequence_number":2,"output_index":1,"item":{"type":"function_call","id":"fc_b","call_id":"call_b","name":"g","arguments":""}}`,
		`{"type":"response.completed","sequence_number":3,"response":{"id":"resp_1","status":"completed","output":[]}}`,
	)))
	tr.Add(2, assemble(t, sse(
		`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_c","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`,
		`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`,
	)))
	return &tr
}

func TestTurnsLink(t *testing.T) {
	tr := turnsOf(t)
	tests := []struct {
		name       string
		req        Request
		prev       int
		unanswered []string
	}{
		{"nothing to continue", Request{}, 0, nil},
		{"previous response", Request{Previous: "resp_1"}, 1, []string{"call_a", "call_b"}},
		{"previous response, one answered", Request{Previous: "resp_1", Answers: []string{"call_a"}}, 1, []string{"call_b"}},
		{"unknown previous, no calls", Request{Previous: "resp_9"}, 0, nil},
		{"answers a call", Request{Answers: []string{"call_c"}}, 2, nil},
		{"history repeats calls it does not answer", Request{Assistants: []string{"call_a", "call_b"}, Answers: []string{"call_b"}}, 1, []string{"call_a"}},
		{"answers calls of two exchanges: the latest", Request{Answers: []string{"call_a", "call_c"}}, 2, nil},
		{"answers calls nobody made", Request{Answers: []string{"call_x"}}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev, un := tr.Link(tt.req)
			if prev != tt.prev || !slices.Equal(un, tt.unanswered) {
				t.Errorf("Link(%+v) = %d, %q; want %d, %q", tt.req, prev, un, tt.prev, tt.unanswered)
			}
			if tt.prev > 0 && !tt.req.Continues() {
				t.Errorf("Continues(%+v) = false for a request Link links", tt.req)
			}
		})
	}
}

// TestTurnsForgetOldest: Turns remembers its newest exchanges only, so a
// proxy that runs for days does not grow; an id a newer exchange took
// over survives the older one's eviction.
func TestTurnsForgetOldest(t *testing.T) {
	tr := Turns{keep: 2}
	responses := func(ids ...string) *Session {
		var lines []string
		for i, id := range ids {
			lines = append(lines,
				fmt.Sprintf(`{"type":"response.created","sequence_number":%d,"response":{"id":%q,"status":"in_progress"}}`, 2*i, id),
				fmt.Sprintf(`{"type":"response.completed","sequence_number":%d,"response":{"id":%q,"status":"completed","output":[]}}`, 2*i+1, id))
		}
		return assemble(t, sse(lines...))
	}
	tr.Add(1, responses("resp_1", "resp_shared"))
	tr.Add(2, responses("resp_2"))
	tr.Add(3, responses("resp_3", "resp_shared")) // takes resp_shared over
	tr.Add(3, responses("resp_3b"))               // the same exchange again: still one
	tr.Add(4, responses("resp_4"))
	for id, want := range map[string]int{"resp_1": 0, "resp_2": 0, "resp_shared": 3, "resp_3": 3, "resp_3b": 3, "resp_4": 4} {
		if prev, _ := tr.Link(Request{Previous: id}); prev != want {
			t.Errorf("Link(previous %s) = %d; want %d", id, prev, want)
		}
	}
	if len(tr.order) != 2 || len(tr.responses) != 2 || len(tr.byResponse) != 4 {
		t.Errorf("remembers %d exchanges, %d with responses, %d response ids; want 2, 2, 4", len(tr.order), len(tr.responses), len(tr.byResponse))
	}
}

func TestRequestContinues(t *testing.T) {
	for _, req := range []Request{{Previous: "r"}, {Answers: []string{"c"}}, {Assistants: []string{"c"}}} {
		if !req.Continues() {
			t.Errorf("Continues(%+v) = false; want true", req)
		}
	}
	if req := (Request{Model: "m", Tools: []string{"f"}}); req.Continues() {
		t.Errorf("Continues(%+v) = true; want false", req)
	}
}

// TestTurnsConcurrent adds and links from several goroutines, as the
// proxy's exchanges do; run with -race it shows the lock.
func TestTurnsConcurrent(t *testing.T) {
	var tr Turns
	var wg sync.WaitGroup
	for i := 1; i <= 8; i++ {
		s := assemble(t, sse(fmt.Sprintf(`{"type":"response.created","sequence_number":0,"response":{"id":"resp_%d","status":"in_progress"}}`, i)))
		wg.Go(func() {
			tr.Add(i, s)
			if prev, _ := tr.Link(Request{Previous: fmt.Sprintf("resp_%d", i)}); prev != i {
				t.Errorf("Link(resp_%d) = %d; want %d", i, prev, i)
			}
		})
	}
	wg.Wait()
}
