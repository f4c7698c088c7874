package model

import (
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// TestErrorDetailNulls: an error's code or message sent as JSON null is
// absent, in every dialect's error shape: the outcome's detail is the
// message alone, or the type in the code's place (OpenAI sends
// "code": null beside a "type"), never "null: bad key"; a number stays a
// code. The near misses keep a real code and message as they were.
func TestErrorDetailNulls(t *testing.T) {
	t.Parallel()
	http := func(status, body string) string {
		return "HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\n\r\n" + body
	}
	for _, tt := range []struct {
		name, stream, dialect, detail string
	}{
		{"responses, flat", sse(`{"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress"}}`,
			`{"type":"error","sequence_number":1,"code":null,"message":"bad key","param":null}`), "openai-responses", "bad key"},
		{"responses, flat, code and message null", sse(`{"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress"}}`,
			`{"type":"error","sequence_number":1,"code":null,"message":null}`), "openai-responses", ""},
		{"responses, near miss", sse(`{"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress"}}`,
			`{"type":"error","sequence_number":1,"code":"invalid_api_key","message":"bad key"}`), "openai-responses", "invalid_api_key: bad key"},
		{"chat, in the stream", sse(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a"}}]}`,
			`{"error":{"message":"bad key","type":"invalid_request_error","param":null,"code":null}}`), "openai-chat", "invalid_request_error: bad key"},
		{"chat, HTTP body", http("401 Unauthorized", `{"error":{"message":"bad key","type":"invalid_request_error","param":null,"code":null}}`), "", "invalid_request_error: bad key"},
		{"chat, message null", http("500 Internal Server Error", `{"error":{"message":null,"type":"server_error","code":"x"}}`), "", "x"},
		{"chat, type and code null", http("401 Unauthorized", `{"error":{"message":"bad key","type":null,"code":null}}`), "", "bad key"},
		{"anthropic", "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\n" +
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":null,\"message\":\"bad key\"}}\n\n", "anthropic", "bad key"},
		{"anthropic, HTTP body", http("401 Unauthorized", `{"type":"error","error":{"type":"authentication_error","message":"bad key"}}`), "", "authentication_error: bad key"},
		{"gemini", sse(`{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}`, `{"error":{"code":null,"message":"bad key","status":"UNAUTHENTICATED"}}`), "gemini", "bad key"},
		{"gemini, HTTP body, a number", http("401 Unauthorized", `{"error":{"code":401,"message":"bad key","status":"UNAUTHENTICATED"}}`), "", "401: bad key"},
		{"ollama", "{\"model\":\"m\",\"created_at\":\"2025-01-01T00:00:00Z\",\"message\":{\"role\":\"assistant\",\"content\":\"a\"},\"done\":false}\n" +
			"{\"error\":{\"code\":null,\"message\":\"bad key\"}}\n", "", "bad key"},
		{"ollama, a string", "{\"model\":\"m\",\"created_at\":\"2025-01-01T00:00:00Z\",\"message\":{\"role\":\"assistant\",\"content\":\"a\"},\"done\":false}\n" +
			"{\"error\":\"bad key\"}\n", "", "bad key"},
		{"flat HTTP body", http("403 Forbidden", `{"code":null,"message":"bad key"}`), "", "bad key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := Assemble([]byte(tt.stream), capture.FormatAuto, Options{})
			o := s.Outcome()
			if o.Detail != tt.detail || (o.State != OutcomeError && o.State != OutcomeFailed) {
				t.Errorf("Outcome() = %s (%q); want an error (%q)", o.State, o.Detail, tt.detail)
			}
			if tt.dialect != "" && s.Dialect().String() != tt.dialect {
				t.Errorf("dialect %s; want %s", s.Dialect(), tt.dialect)
			}
			for _, e := range s.Errors {
				if e.Code == "null" || e.Message == "null" {
					t.Errorf("error %+v keeps a JSON null as text", e)
				}
			}
		})
	}
}
