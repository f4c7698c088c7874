package plain

import "testing"

// TestShortType pins how the timeline shortens event types, from the
// dialects' own descriptions (model.DialectInfo): the shared prefix goes,
// and long words are abbreviated only when the type does not fit.
func TestShortType(t *testing.T) {
	tests := []struct {
		in   string
		w    int
		want string
	}{
		{"response.function_call_arguments.delta", 1 << 30, "function_call_arguments.delta"},
		{"response.function_call_arguments.delta", 10, "fn_args.delta"},
		{"response.reasoning_summary_text.delta", 10, "reasoning_text.delta"},
		{"response.reasoning_summary_part.added", 10, "reasoning_part.added"},
		{"response.custom_tool_call_input.delta", 10, "custom_input.delta"},
		{"response.", 0, "response."}, // nothing after the prefix: kept whole
		{"chat.completion.chunk", 1 << 30, "chat.completion.chunk"},
		{"chat.completion.chunk", 0, "chunk"},
		{"content_block_delta", 0, "block_delta"},
		{"message_start", 0, "message_start"},
		{"(gemini chunk)", 0, "(gemini chunk)"},
		{"function_call_arguments", 0, "fn_args"}, // outside a Responses type too, as before
	}
	for _, tt := range tests {
		if got := ShortType(tt.in, tt.w); got != tt.want {
			t.Errorf("shortType(%q, %d) = %q; want %q", tt.in, tt.w, got, tt.want)
		}
	}
}
