package model_test

import "github.com/streamtap/streamtap/internal/fixtures"

// appCaptures lists the shared captures of the app leg that TestExplainCorpus
// explains, event by event: the MCP bodies (SSE and JSON) and their
// recordings, which hold the requests; none when ../shared is absent.
func appCaptures() []string {
	var out []string
	for _, pattern := range []string{"captures-app/mcp__*.sse", "captures-app/mcp__*.json", "captures-app/recordings/mcp__*"} {
		out = append(out, fixtures.SharedGlob(pattern)...)
	}
	return out
}
