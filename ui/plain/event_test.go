package plain

import "testing"

func TestEventData(t *testing.T) {
	tests := []struct {
		name, raw, want string
		ok              bool
	}{
		{"sse", "event: x\ndata: {\"a\":1}\n\n", `{"a":1}`, true},
		{"multi-line data", "data: {\"a\":\ndata: 1}\r\n\r\n", "{\"a\":\n1}", true},
		{"no space", "data:[DONE]\n\n", "[DONE]", true},
		{"json line", "{\"a\":1}\n", `{"a":1}`, true},
		{"comment", ": hi\n\n", "", false},
	}
	for _, tt := range tests {
		got, ok := EventData([]byte(tt.raw))
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("EventData(%q) = %q, %v; want %q, %v", tt.raw, got, ok, tt.want, tt.ok)
		}
	}
}
