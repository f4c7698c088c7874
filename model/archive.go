package model

import (
	"context"
	"net/url"
	"strings"

	"github.com/streamtap/streamtap/capture"
)

// LLMEntries keeps the exchanges of an archive that are sessions to read:
// every exchange of a HAR file streamtap wrote (the proxy's sessions,
// failed ones included); of any other archive, HAR file or cassette
// alike, the exchanges with an LLM API (IsLLMExchange). A cassette
// records everything its test sent: the Agents SDK's trace uploads
// (POST /v1/traces/ingest, 204 with no body), telemetry, OAuth token
// exchanges, vector stores. Read as streams they would be sessions with
// no response, failing a check of a clean run; they are skipped, as a
// browser's pages and scripts are skipped in a HAR file.
func LLMEntries(a *capture.Archive) []capture.Entry {
	if a.Own {
		return a.Entries
	}
	var out []capture.Entry
	for i := range a.Entries {
		if IsLLMExchange(&a.Entries[i]) {
			out = append(out, a.Entries[i])
		}
	}
	return out
}

// IsLLMExchange says whether an archive's exchange is one with an LLM API:
// its response is an event stream (by its media type, or its events' own
// timing), its request is an LLM request (it names a model or declares
// tools), or a dialect recognises its request (RequestClaimer: MCP) or
// its response. A request of an LLM API
// counts whatever came back: a 401 page or no response at all is a
// session that fails its check, not one to skip. A request to an
// endpoint that generates nothing (embeddings, token counts, moderation)
// names a model too, but counts only when a dialect recognises what came
// back: Go projects' traces and the tracers' cassettes record a
// retriever's embeddings beside its chat calls.
func IsLLMExchange(e *capture.Entry) bool {
	if e.Stream || len(e.Body) > 1 ||
		strings.HasPrefix(strings.ToLower(e.ResponseHeader.Get("Content-Type")), "text/event-stream") {
		return true
	}
	if req, path := EntryRequest(e); (req.Model != "" || len(req.Decls) > 0) && !generatesNothing(path) {
		return true
	}
	if claimRequest(&e.Exchange) != DialectUnknown {
		return true // a dialect reads the request (an MCP notification, answered 202 with no body)
	}
	// The entry's body is in memory: read as a stream, a compressed one is
	// inflated as it is framed, never held whole.
	s := NewSession(Options{})
	_ = e.Source("").Read(context.Background(), capture.ReadOptions{}, func(f *capture.Frame) error {
		s.Add(f)
		return nil
	})
	return s.Dialect() != DialectUnknown
}

// generatesNothing reports whether a request path (its query aside) is an
// LLM API's endpoint that generates no answer: OpenAI's and Ollama's
// embeddings, Gemini's embedContent and countTokens, Anthropic's
// count_tokens, OpenAI's moderations.
func generatesNothing(path string) bool {
	path, _, _ = strings.Cut(path, "?")
	for _, end := range []string{"/embeddings", "/api/embed", ":embedContent", ":batchEmbedContents", ":countTokens",
		"/messages/count_tokens", "/moderations"} {
		if strings.HasSuffix(path, end) {
			return true
		}
	}
	return false
}

// EntryRequest reads an archive exchange's request body, and returns it
// with the request URI, where Gemini names the model.
func EntryRequest(e *capture.Entry) (Request, string) {
	path := e.URL
	if u, err := url.Parse(e.URL); err == nil && u.Path != "" {
		path = u.RequestURI()
	}
	return ParseRequest(e.RequestBody, path), path
}
