package model_test

import (
	"testing"
)

// TestArgsFragmentAt: the span of a call's arguments an event added, as a
// view marks it, for every dialect; none for arguments rebuilt from
// values, whose bytes no event's fragment is.
func TestArgsFragmentAt(t *testing.T) {
	anthropic := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	tests := []struct {
		name   string
		in     string
		ord    int    // the event asked about
		want   string // the span of ArgsAsOf(ord) it added
		wantOK bool
	}{
		{
			name: "responses delta",
			in: sse(`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"c","name":"f"}}`,
				`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"a\":"}`,
				`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"1}"}`),
			ord: 2, want: `1}`, wantOK: true,
		},
		{
			name: "responses event that added nothing",
			in: sse(`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"c","name":"f"}}`,
				`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{}"}`),
			ord: 0,
		},
		{
			name: "chat fragment",
			in: chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a\""}}]}}`) +
				chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}`),
			ord: 1, want: `:1}`, wantOK: true,
		},
		{
			name: "anthropic input_json_delta",
			in: anthropic("message_start", `{"type":"message_start","message":{"id":"m","content":[]}}`) +
				anthropic("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}`) +
				anthropic("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":2}"}}`),
			ord: 2, want: `{"a":2}`, wantOK: true,
		},
		{
			name: "gemini whole args",
			in:   sse(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1}}}]}}]}`),
			ord:  0,
		},
		{
			name: "gemini partialArgs",
			in: sse(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
				`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}],"willContinue":true}}]}}]}`),
			ord: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := onlyCall(t, assemble(t, tt.in))
			start, end, ok := it.ArgsFragmentAt(tt.ord)
			if ok != tt.wantOK {
				t.Fatalf("ArgsFragmentAt(%d) ok = %v; want %v (args %q)", tt.ord, ok, tt.wantOK, it.ArgsAsOf(tt.ord))
			}
			if !ok {
				return
			}
			args := it.ArgsAsOf(tt.ord)
			if start < 0 || end > len(args) || start > end || string(args[start:end]) != tt.want {
				t.Fatalf("ArgsFragmentAt(%d) = [%d, %d) of %q; want the span %q", tt.ord, start, end, args, tt.want)
			}
		})
	}
}
