package checks

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// TestIDBoundIsEvidenceCap: the model keeps as many observations of an
// identifier as a finding lists events, so bounding them loses no evidence.
func TestIDBoundIsEvidenceCap(t *testing.T) {
	if model.MaxIDsKept != MaxEvents {
		t.Fatalf("model.MaxIDsKept = %d; want MaxEvents (%d)", model.MaxIDsKept, MaxEvents)
	}
}

// TestIDRotationAtLength: ids rotated on every event of a long stream make
// the same findings as when every observation was kept: the first values
// named, the rest counted, the first events as evidence.
func TestIDRotationAtLength(t *testing.T) {
	t.Parallel()
	const n = 5000
	var b bytes.Buffer
	b.WriteString(`data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_0","status":"in_progress","reasoning":null}}` + "\n\n")
	b.WriteString(`data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_0","type":"message","status":"in_progress","content":[]}}` + "\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `data: {"type":"response.output_text.delta","sequence_number":%d,"item_id":"msg_%d","output_index":0,"content_index":0,"delta":"x"}`+"\n\n", 2*i, i)
		fmt.Fprintf(&b, `data: {"type":"response.in_progress","sequence_number":%d,"response":{"id":"resp_%d","status":"in_progress","reasoning":null}}`+"\n\n", 2*i+1, i)
	}
	fmt.Fprintf(&b, `data: {"type":"response.completed","sequence_number":%d,"response":{"id":"resp_0","status":"completed","reasoning":null,"output":[]}}`+"\n\n", 2*n+2)
	rep := CheckBytes(b.Bytes(), capture.FormatSSE, Strict)

	item := findings(rep, "responses/item-id-changed")
	wantItem := fmt.Sprintf(`the message is opened at event 1 as item "msg_0" and renamed "msg_1" (event 2), "msg_2" (event 4), "msg_3" (event 6), and %d more`, n-3)
	if len(item) != 1 || item[0].Message != wantItem || !slices.Equal(item[0].Events, every(1, 2, 2, 19)) {
		t.Errorf("item-id-changed = %v; want one: %v %s", item, every(1, 2, 2, 19), wantItem)
	}
	resp := findings(rep, "responses/response-id-changed")
	wantResp := fmt.Sprintf(`the response opened as "resp_0" (event 0) is renamed "resp_1" (event 3), "resp_2" (event 5), "resp_3" (event 7), and %d more; `, n-3) +
		"clients that keep the first id (to resume, cancel or chain with previous_response_id) hold one the later snapshots disown"
	if len(resp) != 1 || resp[0].Message != wantResp || !slices.Equal(resp[0].Events, every(0, 3, 2, 19)) {
		t.Errorf("response-id-changed = %v; want one: %v %s", resp, every(0, 3, 2, 19), wantResp)
	}
}

// TestChatRepeatsAtLength: a call whose every one of many continuation
// fragments repeats its id and name is counted in full.
func TestChatRepeatsAtLength(t *testing.T) {
	t.Parallel()
	const n = 10_000
	var b bytes.Buffer
	b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]}` + "\n\n")
	for range n {
		b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":" "}}]}}]}` + "\n\n")
	}
	b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}` + "\n\n")
	b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")
	rep := CheckBytes(b.Bytes(), capture.FormatSSE, Strict)
	got := findings(rep, "chat/tool-id-repeated")
	want := fmt.Sprintf(`call f repeats its id on %d continuation fragments: clients that concatenate build "call_1call_1"; and its name on %d continuation fragments: "ff" — id "call_1"`, n, n)
	if len(got) != 1 || got[0].Message != want || !slices.Equal(got[0].Events, every(0, 1, 1, 19)) {
		t.Errorf("%s = %v; want one: %s", "chat/tool-id-repeated", got, want)
	}
}

// every returns first, then n ordinals from start on, step apart.
func every(first, start, step, n int) []int {
	out := []int{first}
	for i := range n {
		out = append(out, start+step*i)
	}
	return out
}

// TestChatRenamesAtLength: a call renamed on every one of many fragments
// gets a finding for each of the first renames, and one that counts the
// rest.
func TestChatRenamesAtLength(t *testing.T) {
	t.Parallel()
	const n = 10_000
	var b bytes.Buffer
	b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}` + "\n\n")
	for i := range n {
		fmt.Fprintf(&b, `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"g%d"}}]}}]}`+"\n\n", i)
	}
	b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")
	got := findings(CheckBytes(b.Bytes(), capture.FormatSSE, Strict), "chat/tool-name-changed")
	want := fmt.Sprintf(`call f is renamed on %d more fragments past the first %d renames — id "call_1"`, n-MaxEvents, MaxEvents)
	if len(got) != MaxEvents+1 || !slices.ContainsFunc(got, func(f Finding) bool { return f.Message == want }) {
		t.Errorf("%d %s findings; want %d, one of them %q: %v", len(got), "chat/tool-name-changed", MaxEvents+1, want, got[:min(3, len(got))])
	}
	if got[0].Message != `call f is renamed "g0" at event 1 — id "call_1"` {
		t.Errorf("first finding %q; want the first rename", got[0].Message)
	}
}
