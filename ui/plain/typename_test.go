package plain

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model"
)

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
		{"response.reasoning_summary_text.delta", 10, "summary_text.delta"},
		{"response.reasoning_summary_part.added", 10, "summary_part.added"},
		{"response.reasoning_text.delta", 10, "reasoning_text.delta"},
		{"response.custom_tool_call_input.delta", 10, "custom_input.delta"},
		{"response.", 0, "response."}, // nothing after the prefix: kept whole
		{"chat.completion.chunk", 1 << 30, "chat.completion.chunk"},
		{"chat.completion.chunk", 0, "chat.chunk"},
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

// TestShortTypeNeverNamesAnotherType holds every shortened type to the
// real type names (every type the explanations table teaches, which the
// model's tests hold to every type a dialect knows): no type, shortened at
// any width, may read as another type, full or shortened, because a row
// would then say the event is something it is not.
func TestShortTypeNeverNamesAnotherType(t *testing.T) {
	names := map[string]bool{}
	for _, e := range model.Explanations() {
		if typ := e.Shape.Type; !strings.ContainsAny(typ, "*") && typ != "" {
			names[typ] = true
		}
	}
	// The reasoning types the issue found read as one another.
	for _, typ := range []string{"response.reasoning_summary_text.delta", "response.reasoning_text.delta",
		"response.reasoning_summary_part.added"} {
		if !names[typ] {
			t.Fatalf("%s is not in the explanations table: the test no longer sees the types", typ)
		}
	}
	shown := map[string]string{} // every form a type can show in, to the type
	for typ := range names {
		for _, w := range []int{1 << 30, 0} {
			shown[ShortType(typ, w)] = typ
		}
		shown[typ] = typ
	}
	for typ := range names {
		for _, w := range []int{1 << 30, 0} {
			form := ShortType(typ, w)
			if other, ok := shown[form]; ok && other != typ {
				t.Errorf("%s shortened to %d cells reads %q, which is how %s shows", typ, w, form, other)
			}
		}
	}
}
