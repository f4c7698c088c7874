package model

import (
	"testing"

	"github.com/streamtap/streamtap/capture"
)

func chatChunk(choices string) string {
	return `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":` + choices + `}`
}

// TestOutcomeVocabulary: each dialect's limits are incomplete, its
// refusals and filters blocked, and a Chat stream without [DONE] completed
// only when every choice finished and the body ended cleanly. The real
// recordings of each are in model/checks (TestVerdictsOnRealRecordings);
// these are the near misses around them.
func TestOutcomeVocabulary(t *testing.T) {
	t.Parallel()
	text := chatChunk(`[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]`)
	usage := `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"total_tokens":3}}`
	for _, tt := range []struct {
		name, stream  string
		state, detail string
	}{
		{"chat [DONE] after stop", sse(text, chatChunk(`[{"index":0,"delta":{},"finish_reason":"stop"}]`), "[DONE]"), OutcomeCompleted, "stop"},
		{"chat length", sse(text, chatChunk(`[{"index":0,"delta":{},"finish_reason":"length"}]`), "[DONE]"), OutcomeIncomplete, "length"},
		{"chat content_filter", sse(text, chatChunk(`[{"index":0,"delta":{},"finish_reason":"content_filter"}]`), "[DONE]"), OutcomeBlocked, "content_filter"},
		{"chat choices: the worst", sse(chatChunk(`[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"},{"index":1,"delta":{"content":"b"},"finish_reason":"length"}]`), "[DONE]"),
			OutcomeIncomplete, "length"},
		{"chat no [DONE], finished, usage chunk", sse(text, chatChunk(`[{"index":0,"delta":{},"finish_reason":"stop"}]`), usage), OutcomeCompleted, "stop"},
		{"chat no [DONE], no finish_reason", sse(text, text), OutcomeTruncated, "the stream ended without its terminal event"},
		{"chat no [DONE], one choice of two unfinished", sse(chatChunk(`[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"},{"index":1,"delta":{"content":"b"},"finish_reason":null}]`)),
			OutcomeTruncated, "the stream ended without its terminal event"},
		{"chat no [DONE], finished, then cut mid-event", sse(text, chatChunk(`[{"index":0,"delta":{},"finish_reason":"stop"}]`)) + `data: {"id":"c1","obj`,
			OutcomeTruncated, "the stream ended without its terminal event"},
		{"chat no [DONE], finished, last event unterminated", sse(text) + "data: " + chatChunk(`[{"index":0,"delta":{},"finish_reason":"stop"}]`),
			OutcomeTruncated, "the stream ended without its terminal event"},
		{"anthropic max_tokens", sse(`{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[]}}`,
			`{"type":"message_delta","delta":{"stop_reason":"max_tokens"}}`, `{"type":"message_stop"}`), OutcomeIncomplete, "max_tokens"},
		{"anthropic pause_turn", sse(`{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[]}}`,
			`{"type":"message_delta","delta":{"stop_reason":"pause_turn"}}`, `{"type":"message_stop"}`), OutcomeCompleted, "pause_turn"},
		{"anthropic refusal without message_stop", sse(`{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[]}}`,
			`{"type":"message_delta","delta":{"stop_reason":"refusal"}}`), OutcomeTruncated, "the stream ended without its terminal event"},
		{"gemini MAX_TOKENS", sse(`{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"MAX_TOKENS"}]}`), OutcomeIncomplete, "MAX_TOKENS"},
		{"gemini RECITATION", sse(`{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"RECITATION"}]}`), OutcomeBlocked, "RECITATION"},
		{"gemini MALFORMED_FUNCTION_CALL", sse(`{"candidates":[{"content":{},"finishReason":"MALFORMED_FUNCTION_CALL"}]}`), OutcomeCompleted, "MALFORMED_FUNCTION_CALL"},
		{"gemini prompt blocked, array body", `[{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":3}}]`, OutcomeBlocked, "prompt: SAFETY"},
		{"gemini prompt feedback without a block", sse(`{"promptFeedback":{"safetyRatings":[]},"candidates":[{"content":{"parts":[{"text":"a"}]}}]}`),
			OutcomeTruncated, "the stream ended without its terminal event"},
		{"responses incomplete, content_filter", sse(`{"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress"}}`,
			`{"type":"response.incomplete","sequence_number":1,"response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"content_filter"}}}`), OutcomeBlocked, "content_filter"},
		{"responses incomplete, max_output_tokens", sse(`{"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress"}}`,
			`{"type":"response.incomplete","sequence_number":1,"response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`), OutcomeIncomplete, "max_output_tokens"},
		{"error coded content_filter", "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n\r\n" + `{"error":{"message":"filtered","code":"content_filter","status":400}}`,
			OutcomeBlocked, "content_filter: filtered"},
		{"error", "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n\r\n" + `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`,
			OutcomeError, "rate_limit_exceeded: slow down"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := Assemble([]byte(tt.stream), capture.FormatAuto, Options{}).Outcome()
			if o.State != tt.state || o.Detail != tt.detail {
				t.Errorf("Outcome() = %s (%s); want %s (%s)", o.State, o.Detail, tt.state, tt.detail)
			}
		})
	}
}

// A legacy function_call of empty strings (a struct's zero value) is no
// call; one with a name is.
func TestZeroValuedFunctionCall(t *testing.T) {
	t.Parallel()
	body := func(fc string) string {
		return `{"id":"c","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"4","function_call":` + fc + `}}]}`
	}
	for fc, want := range map[string]int{
		`{"arguments":"","name":""}`:          0,
		`{"arguments":null,"name":""}`:        0,
		`{}`:                                  0,
		`{"arguments":"{}","name":"f"}`:       1,
		`{"arguments":"","name":"f"}`:         1,
		`{"arguments":"{\"a\":1}","name":""}`: 1,
	} {
		if got := len(Assemble([]byte(body(fc)), capture.FormatAuto, Options{}).Calls()); got != want {
			t.Errorf("function_call %s: %d calls; want %d", fc, got, want)
		}
	}
}
