package model_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// reversedChatCalls is one Chat chunk per call, the tool-call indexes
// counting down from n-1: each call belongs before every call so far.
func reversedChatCalls(n int) string {
	var b strings.Builder
	for i := n - 1; i >= 0; i-- {
		b.WriteString(chunk(fmt.Sprintf(`{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"call_%d","function":{"name":"f","arguments":"{}"}}]}}`, i, i)))
	}
	return b.String()
}

// TestResponseItems holds the response→items index to output order after
// every event, including streams whose items arrive out of that order.
func TestResponseItems(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][]string // per response, the call ids or item types in output order
	}{
		{
			name: "chat calls arriving in reverse index order",
			in: chunk(`{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"f","arguments":"{}"}}]}}`) +
				chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}`),
			want: [][]string{{"a", "b"}},
		},
		{
			name: "chat choices interleaved",
			in: chunk(`{"index":1,"delta":{"content":"B"}}`) + chunk(`{"index":0,"delta":{"content":"A"}}`) +
				chunk(`{"index":1,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}}`) +
				chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c0","function":{"name":"f","arguments":"{}"}}]}}`),
			want: [][]string{{"message", "c0", "message", "c1"}},
		},
		{
			name: "two calls of one chunk listed out of order",
			in:   chunk(`{"index":0,"delta":{"tool_calls":[{"index":1,"id":"y","function":{"name":"f"}},{"index":0,"id":"x","function":{"name":"f"}}]}}`),
			want: [][]string{{"x", "y"}},
		},
		{
			name: "two responses",
			in: sse(`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_2","type":"function_call","call_id":"r1b","name":"f"}}`,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"r1a","name":"f"}}`,
				`{"type":"response.completed","response":{"id":"r1","status":"completed","output":[]}}`,
				`{"type":"response.created","response":{"id":"r2","status":"in_progress"}}`,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_3","type":"function_call","call_id":"r2a","name":"f"}}`),
			want: [][]string{{"r1a", "r1b"}, {"r2a"}},
		},
		{
			// Far past the shift the index makes in place: it sorts the
			// rest when asked.
			name: "hundreds of calls in reverse",
			in:   reversedChatCalls(300),
			want: [][]string{func() []string {
				var ids []string
				for i := range 300 {
					ids = append(ids, fmt.Sprintf("call_%d", i))
				}
				return ids
			}()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := model.NewSession(model.Options{KeepEvents: true})
			fr := capture.NewFramer(capture.FormatAuto)
			emit := func(f *capture.Frame) {
				s.Add(f)
				dialecttest.CheckOutputs(t, s)
			}
			fr.Feed([]byte(tt.in), capture.NoTime, emit)
			fr.Finish(capture.NoTime, emit)
			if len(s.Responses) != len(tt.want) {
				t.Fatalf("%d responses; want %d", len(s.Responses), len(tt.want))
			}
			for r, want := range tt.want {
				var got []string
				for _, it := range s.ResponseItems(r) {
					got = append(got, cmp.Or(it.CallID, it.Type))
				}
				if !slices.Equal(got, want) {
					t.Errorf("ResponseItems(%d) = %q; want %q", r, got, want)
				}
			}
		})
	}
}

// TestResponseItemsOutOfRange asks for responses that do not exist.
func TestResponseItemsOutOfRange(t *testing.T) {
	s := assemble(t, chunk(`{"index":0,"delta":{"content":"A"}}`))
	for _, r := range []int{-2, 1, 1 << 30} {
		if got := s.ResponseItems(r); len(got) != 0 {
			t.Errorf("ResponseItems(%d) = %v; want none", r, dialecttest.ItemIndexes(got))
		}
	}
}
