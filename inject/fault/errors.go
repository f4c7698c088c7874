package fault

import (
	"net/http"
	"strconv"

	"github.com/streamtap/streamtap/model"
)

// ErrorAnswer is the head and body a Status fault answers with: what the
// vendor of the stream's dialect sends for that status, so that its SDK
// reads it as it would read the real one (a rate limit, an overload, a
// bad key).
func ErrorAnswer(d model.Dialect, status int) (http.Header, []byte) {
	h := http.Header{"Content-Type": {"application/json"}}
	msg := map[int]string{
		401: "Invalid API key provided.",
		429: "Rate limit reached. Please try again later.",
		500: "The server had an error while processing your request.",
		503: "The service is temporarily unavailable.",
		529: "Overloaded",
	}[status]
	if msg == "" {
		msg = statusText(status)
	}
	q := func(s string) string { return strconv.Quote(s) }
	switch d.String() { // by name: the names never change
	case "anthropic":
		typ := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
			404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error"}[status]
		if typ == "" {
			typ = "api_error"
		}
		h.Set("Request-Id", "req_streamtap_fault")
		return h, []byte(`{"type":"error","error":{"type":` + q(typ) + `,"message":` + q(msg) + `},"request_id":"req_streamtap_fault"}`)
	case "gemini":
		st := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
			429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE", 529: "UNAVAILABLE"}[status]
		if st == "" {
			st = "INTERNAL"
		}
		return h, []byte(`{"error":{"code":` + strconv.Itoa(status) + `,"message":` + q(msg) + `,"status":` + q(st) + `}}`)
	case "ollama":
		return h, []byte(`{"error":` + q(msg) + `}`)
	case "mcp":
		// What the MCP TypeScript SDK's server answers an error before
		// dispatch with: a JSON-RPC error with no id (-32001 for a session
		// it does not know, -32000 for anything else).
		code := "-32000"
		if status == http.StatusNotFound {
			code = "-32001"
		}
		return h, []byte(`{"jsonrpc":"2.0","error":{"code":` + code + `,"message":` + q(msg) + `},"id":null}`)
	case "bedrock-converse", "bedrock-invoke":
		typ := map[int]string{400: "ValidationException", 403: "AccessDeniedException", 401: "UnrecognizedClientException",
			429: "ThrottlingException", 503: "ServiceUnavailableException", 529: "ServiceUnavailableException"}[status]
		if typ == "" {
			typ = "InternalServerException"
		}
		h.Set("X-Amzn-Errortype", typ)
		return h, []byte(`{"message":` + q(msg) + `}`)
	}
	// OpenAI (Responses, Chat), and any other.
	typ, code := "server_error", "server_error"
	switch status {
	case 401:
		typ, code = "invalid_request_error", "invalid_api_key"
	case 429:
		typ, code = "requests", "rate_limit_exceeded"
	case 400, 404:
		typ, code = "invalid_request_error", "invalid_request_error"
	}
	return h, []byte(`{"error":{"message":` + q(msg) + `,"type":` + q(typ) + `,"param":null,"code":` + q(code) + `}}`)
}
