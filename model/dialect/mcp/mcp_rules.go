package mcp

import (
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// Rule ids of the MCP rules.
const (
	ruleJSONRPC        = "mcp/jsonrpc-invalid"
	ruleEventName      = "mcp/event-name"
	ruleUnknownID      = "mcp/response-unknown-id"
	ruleSecondResponse = "mcp/second-response"
	ruleNoResponse     = "mcp/no-response"
	ruleProgressToken  = "mcp/progress-token-unknown"
	ruleProgressAfter  = "mcp/progress-after-response"
	ruleServerIDReused = "mcp/server-id-reused"
	ruleToolError      = "mcp/tool-error"
	ruleRPCError       = "mcp/jsonrpc-error"
	ruleResumeReplayed = "mcp/resume-replayed"
)

// Rules registers the MCP rules (see model/dialects). Data that is not
// JSON, and an error status, are the transport's findings
// (framing/invalid-json, framing/error-payload), whatever the dialect.
var Rules = checks.DialectRules{
	New: func() checks.Judge { return new(mcpChecks) },
	Rules: []checks.Rule{
		checks.NewRule(ruleJSONRPC, checks.Error, checks.Warning, `a message without "jsonrpc": "2.0", or whose members fit no JSON-RPC message (a replayed priming event's {}); the client rejects it and reads on`),
		checks.NewRule(ruleEventName, checks.Error, checks.Warning, `an SSE event named other than "message"; MCP clients read only "message" events (or unnamed ones) and drop the rest unread`),
		checks.NewRule(ruleUnknownID, checks.Error, checks.Error, "a response whose id matches no request the stream answers (or a response on a GET stream that resumes none); the client reports an error and drops it"),
		checks.NewRule(ruleSecondResponse, checks.Error, checks.Warning, "a second response to one request id; the client reads the first and reports an error at the second"),
		checks.NewRule(ruleNoResponse, checks.Error, checks.Warning, "a POST stream that ends with no response to a request it carried; graded info when its events carry ids (the client resumes it with GET and Last-Event-ID)"),
		checks.NewRule(ruleProgressToken, checks.Error, checks.Warning, "a progress notification whose progressToken no request of the stream sent; the client reports an error and drops it"),
		checks.NewRule(ruleProgressAfter, checks.Warning, checks.Warning, "a progress notification for a request after its response; the client has forgotten the token"),
		checks.NewRule(ruleResumeReplayed, checks.Warning, checks.Warning, "a GET that resumes a stream (Last-Event-ID) replays an event that stream delivered already; the client applies it twice"),
		checks.NewRule(ruleServerIDReused, checks.Error, checks.Warning, "two requests of the server's on one stream with one id; the client's answers cannot be told apart"),
		checks.NewRule(ruleToolError, checks.Info, checks.Info, "a tools/call result with isError: true: the tool ran and failed, and says why to the model (a tool error, not a protocol error)"),
		checks.NewRule(ruleRPCError, checks.Info, checks.Info, "a JSON-RPC error answers tools/call: a protocol error, which the client raises and the model never sees unless the agent passes it on"),
	},
	EmptyArgsObject: true,
	CallKind:        func(*model.Item) (model.ToolKind, bool) { return model.ToolFunction, true },
}
