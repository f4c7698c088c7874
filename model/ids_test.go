package model_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// rotatingResponses is a Responses stream of n text deltas that each name
// their message by a new item id, each followed by a response.in_progress
// that names the response by a new id: 2n events from a gateway that
// rotates ids on every event (the Copilot fixture's habit, at length).
func rotatingResponses(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"type":"response.created","response":{"id":"resp_0","status":"in_progress"}}` + "\n\n")
	b.WriteString(`data: {"type":"response.output_item.added","output_index":0,"item":{"id":"msg_0","type":"message","status":"in_progress","content":[]}}` + "\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `data: {"type":"response.output_text.delta","item_id":"msg_%d","output_index":0,"content_index":0,"delta":"x"}`+"\n\n", i)
		fmt.Fprintf(&b, `data: {"type":"response.in_progress","response":{"id":"resp_%d","status":"in_progress"}}`+"\n\n", i)
	}
	b.WriteString(`data: {"type":"response.completed","response":{"id":"resp_0","status":"completed","output":[]}}` + "\n\n")
	return b.Bytes()
}

// repeatingChat is a Chat stream of one call whose n continuation
// fragments each repeat its id and name, as some gateways send them.
func repeatingChat(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]}` + "\n\n")
	for range n {
		b.WriteString(`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":" "}}]}}]}` + "\n\n")
	}
	b.WriteString(`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")
	return b.Bytes()
}

// TestIDsBounded: an item or response renamed on every event keeps the
// first MaxIDsKept observations of each field and counts the rest, so a
// long stream does not hold one entry per event.
func TestIDsBounded(t *testing.T) {
	t.Parallel()
	// Any count past MaxIDsKept proves the bound; the full suite uses a
	// long stream, the fast loop (-short) a tenth of it.
	n, m := 100_000, 200_000 // 200k rotating events; 200k repeating chunks
	if testing.Short() {
		n, m = n/10, m/10
	}
	s := model.Assemble(rotatingResponses(n), capture.FormatSSE, model.Options{})
	if len(s.Items) != 1 || len(s.Responses) != 1 {
		t.Fatalf("%d items, %d responses; want 1, 1", len(s.Items), len(s.Responses))
	}
	it, r := s.Items[0], s.Responses[0]
	if len(it.IDs) != 20 || len(r.IDs) != 20 {
		t.Fatalf("item keeps %d ids, response %d; want 20 each", len(it.IDs), len(r.IDs))
	}
	if it.IDs[0].Value != "msg_1" || it.IDs[19].Value != "msg_20" || r.IDs[0].Value != "resp_1" {
		t.Errorf("kept %v, %v; want the first observations", it.IDs[0], r.IDs[0])
	}
	if got := it.MoreIDs; len(got) != 1 || got[0].Field != "item_id" || got[0].N != n-model.MaxIDsKept ||
		got[0].Fresh != n-model.MaxIDsKept || got[0].First.Value != "msg_21" {
		t.Errorf("item tally %+v; want item_id: %d more, all fresh, from msg_21", got, n-model.MaxIDsKept)
	}
	if got := r.MoreIDs; len(got) != 1 || got[0].Field != "id" || got[0].N != n-model.MaxIDsKept || got[0].Fresh != n-model.MaxIDsKept {
		t.Errorf("response tally %+v; want id: %d more, all fresh", got, n-model.MaxIDsKept)
	}

	c := onlyCall(t, model.Assemble(repeatingChat(m), capture.FormatSSE, model.Options{}))
	if len(c.IDs) != 2*model.MaxIDsKept {
		t.Fatalf("chat call keeps %d ids; want %d (id and name)", len(c.IDs), 2*model.MaxIDsKept)
	}
	for _, tally := range c.MoreIDs {
		if tally.N != m-model.MaxIDsKept || tally.Own != tally.N || tally.Empty != 0 {
			t.Errorf("chat tally %+v; want %d more, all the call's own", tally, m-model.MaxIDsKept)
		}
	}
	if len(c.MoreIDs) != 2 {
		t.Errorf("chat tallies %+v; want id and name", c.MoreIDs)
	}

	// Each kind of value keeps its own first ones: a rename after many
	// repeats is kept.
	renamed := bytes.Replace(repeatingChat(100), []byte(`"name":"f","arguments":" "}}]}}]}`+"\n\n"+`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},`),
		[]byte(`"name":"g","arguments":" "}}]}}]}`+"\n\n"+`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},`), 1)
	c = onlyCall(t, model.Assemble(renamed, capture.FormatSSE, model.Options{}))
	last := c.IDs[len(c.IDs)-1]
	if last.Field != "name" || last.Value != "g" || last.Ordinal != 100 {
		t.Errorf("last id kept %+v; want the rename to g at event 100", last)
	}
}
