package model

import (
	"os"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
)

// TestLLMEntriesSkipEmbeddings: an exchange with an endpoint that
// generates nothing (embeddings, token counts, moderation) is no session
// unless a dialect recognises what came back, though its request names a
// model: langchaingo's trace of a retriever (two embeddings, then a chat
// completion) is one session, and an embeddings call's error, which no
// dialect reads, is none either. Before, each embeddings exchange was a
// session "truncated (no response recognised)".
func TestLLMEntriesSkipEmbeddings(t *testing.T) {
	data, err := os.ReadFile(fixtures.Import("embeddings-then-chat__langchaingo.httprr.gz"))
	if err != nil {
		t.Fatal(err)
	}
	ar, err := capture.ReadArchive(data, capture.FormatAuto, capture.ArchiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := LLMEntries(ar)
	if len(ar.Entries) != 3 || len(got) != 1 || got[0].URL != "https://api.openai.com/v1/chat/completions" {
		t.Fatalf("%d of %d exchanges kept (%v); want the chat completion alone", len(got), len(ar.Entries), got)
	}
	entry := func(path, body string) *capture.Entry {
		status := 200
		if len(body) > 8 && body[:8] == `{"error"` {
			status = 401
		}
		return &capture.Entry{Body: []capture.Chunk{{At: capture.NoTime, Data: []byte(body)}}, Exchange: capture.Exchange{
			Method: "POST", URL: "https://api.example.com" + path, Status: status, RequestBody: []byte(`{"model":"m","input":"x"}`)}}
	}
	for _, tt := range []struct {
		path, body string
		want       bool
	}{
		{"/v1/embeddings", `{"object":"list","data":[{"object":"embedding","embedding":[0.1]}]}`, false},
		{"/v1beta/models/text-embedding-004:batchEmbedContents", `{"embeddings":[{"values":[0.1]}]}`, false},
		{"/v1/messages/count_tokens", `{"input_tokens":12}`, false},
		{"/api/embed", `{"model":"m","embeddings":[[0.1]]}`, false},
		{"/v1/embeddings?api-version=1", `{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}`, false},
		{"/v1/embeddings", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n", true}, // a dialect's stream came back
		{"/v1/chat/completions", `{"object":"list"}`, true},                                               // a generation request counts whatever came back
	} {
		if got := IsLLMExchange(entry(tt.path, tt.body)); got != tt.want {
			t.Errorf("IsLLMExchange(%s → %s) = %v; want %v", tt.path, tt.body, got, tt.want)
		}
	}
}
