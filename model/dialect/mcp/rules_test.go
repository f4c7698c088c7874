package mcp_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/dialect/mcp"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// TestRules runs the rules' trigger and near-miss cases.
func TestRules(t *testing.T) {
	t.Parallel()
	dialecttest.Run(t, cases())
}

// TestEveryRuleTested: every rule of the dialect has a case that
// triggers it and a near miss.
func TestEveryRuleTested(t *testing.T) {
	dialecttest.EveryRuleTested(t, mcp.Rules.Rules, cases())
}

// The MCP cases are timed recordings, as the proxy writes them: the
// request body in the header (an MCP stream's calls are in its request),
// then the server's events. Event 0 is the header.

// mcpRec is a recording of an MCP exchange: method and request body (""
// for none), extra request header lines, and the response's events.
func mcpRec(method, body, reqHeaders string, events ...string) string {
	var b strings.Builder
	b.WriteString(": streamtap-recording v1\n: request " + method + " http://127.0.0.1:3000/mcp\n")
	b.WriteString(": request-header Mcp-Session-Id: 9f0d5082-6ab3-4f98-aa8a-3e8c225241da\n")
	b.WriteString(reqHeaders)
	if body != "" {
		b.WriteString(": request-body " + body + "\n")
	}
	b.WriteString(": response HTTP/1.1 200 OK\n: response-header Content-Type: text/event-stream\n\n")
	for _, e := range events {
		b.WriteString(e)
	}
	return b.String()
}

// mcpEv is one SSE event of the server's: "event: message", an id when id
// is not "", and the message.
func mcpEv(id, msg string) string {
	s := "event: message\n"
	if id != "" {
		s += "id: " + id + "\n"
	}
	return s + "data: " + msg + "\n\n"
}

// mcpCall is a tools/call request with progress token id.
func mcpCall(id int) string {
	return fmt.Sprintf(`{"method":"tools/call","params":{"name":"slow_count","arguments":{"n":2},"_meta":{"progressToken":%d}},"jsonrpc":"2.0","id":%d}`, id, id)
}

func mcpProgress(token string, n int) string {
	return fmt.Sprintf(`{"method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":2},"jsonrpc":"2.0"}`, token, n)
}

func mcpResult(id, text string, isError bool) string {
	e := ""
	if isError {
		e = `,"isError":true`
	}
	return `{"result":{"content":[{"type":"text","text":"` + text + `"}]` + e + `},"jsonrpc":"2.0","id":` + id + `}`
}

func cases() []dialecttest.Case {
	call := mcpCall(3)
	ok := mcpEv("", mcpResult("3", "counted to 2", false))
	elicit := func(id string) string {
		return mcpEv("", `{"method":"elicitation/create","params":{"message":"Sure?","requestedSchema":{"type":"object"}},"jsonrpc":"2.0","id":`+id+`}`)
	}
	return []dialecttest.Case{
		dialecttest.Hit(ruleMCP("jsonrpc-invalid"), "a replayed priming event's {}", mcpRec("POST", call, "", mcpEv("", mcpProgress("3", 1)), mcpEv("e2", `{}`), ok), 2),
		dialecttest.Hit(ruleMCP("jsonrpc-invalid"), "jsonrpc 1.0", mcpRec("POST", call, "", mcpEv("", strings.Replace(mcpResult("3", "x", false), `"2.0"`, `"1.0"`, 1))), 1),
		dialecttest.Hit(ruleMCP("jsonrpc-invalid"), "a result beside a method", mcpRec("POST", call, "", mcpEv("", `{"method":"x","result":{},"jsonrpc":"2.0","id":3}`)), 1),
		dialecttest.Miss(ruleMCP("jsonrpc-invalid"), "JSON-RPC messages", mcpRec("POST", call, "", mcpEv("", mcpProgress("3", 1)), ok)),

		dialecttest.Hit(ruleMCP("event-name"), "event: progress", mcpRec("POST", call, "", strings.Replace(mcpEv("", mcpProgress("3", 1)), "event: message", "event: progress", 1), ok), 1),
		dialecttest.Miss(ruleMCP("event-name"), "unnamed and message events", mcpRec("POST", call, "", "data: "+mcpProgress("3", 1)+"\n\n", ok)),

		dialecttest.Hit(ruleMCP("response-unknown-id"), "id 4 answers request 3", mcpRec("POST", call, "", mcpEv("", mcpResult("4", "x", false))), 1),
		dialecttest.Hit(ruleMCP("response-unknown-id"), "string id for a number id", mcpRec("POST", call, "", mcpEv("", mcpResult(`"3"`, "x", false))), 1),
		dialecttest.Hit(ruleMCP("response-unknown-id"), "a response on a GET stream", mcpRec("GET", "", "", mcpEv("", mcpResult("3", "x", false))), 1),
		dialecttest.Miss(ruleMCP("response-unknown-id"), "its own id", mcpRec("POST", call, "", ok)),
		dialecttest.Miss(ruleMCP("response-unknown-id"), "a resumed GET stream", mcpRec("GET", "", ": request-header Last-Event-Id: e1\n", mcpEv("e2", mcpResult("3", "x", false)))),
		dialecttest.Miss(ruleMCP("response-unknown-id"), "a body without its request", mcpEv("", mcpResult("4", "x", false))),

		dialecttest.Hit(ruleMCP("second-response"), "two results", mcpRec("POST", call, "", ok, ok), 1, 2),
		dialecttest.Miss(ruleMCP("second-response"), "one result", mcpRec("POST", call, "", ok)),

		dialecttest.Hit(ruleMCP("no-response"), "progress, then the stream ends", mcpRec("POST", call, "", mcpEv("", mcpProgress("3", 1))), 0, 1),
		{Rule: ruleMCP("no-response"), Name: "resumable: its events have ids", Hit: true, Sev: dialecttest.Sev(checks.Info), Events: []int{0, 2},
			Stream: mcpRec("POST", call, "", "id: p0\nretry: 250\ndata: \n\n", mcpEv("e1", mcpProgress("3", 1)))},
		dialecttest.Miss(ruleMCP("no-response"), "answered", mcpRec("POST", call, "", mcpEv("", mcpProgress("3", 1)), ok)),
		dialecttest.Miss(ruleMCP("no-response"), "a notification, answered 202", strings.Replace(mcpRec("POST", `{"method":"notifications/initialized","jsonrpc":"2.0"}`, ""), "200 OK\n: response-header Content-Type: text/event-stream", "202 Accepted", 1)),

		dialecttest.Hit(ruleMCP("progress-token-unknown"), "token 99", mcpRec("POST", call, "", mcpEv("", mcpProgress("99", 1)), ok), 1),
		dialecttest.Miss(ruleMCP("progress-token-unknown"), "the request's token", mcpRec("POST", call, "", mcpEv("", mcpProgress("3", 1)), ok)),

		dialecttest.Hit(ruleMCP("progress-after-response"), "progress after the result", mcpRec("POST", call, "", ok, mcpEv("", mcpProgress("3", 2))), 1, 2),
		dialecttest.Miss(ruleMCP("progress-after-response"), "progress before the result", mcpRec("POST", call, "", mcpEv("", mcpProgress("3", 2)), ok)),

		dialecttest.Hit(ruleMCP("server-id-reused"), "two elicitations with id 0", mcpRec("POST", call, "", elicit("0"), elicit("0"), ok), 1, 2),
		dialecttest.Miss(ruleMCP("server-id-reused"), "ids 0 and 1", mcpRec("POST", call, "", elicit("0"), elicit("1"), ok)),

		dialecttest.Hit(ruleMCP("tool-error"), "isError", mcpRec("POST", call, "", mcpEv("", mcpResult("3", "division by zero", true))), 1),
		dialecttest.Miss(ruleMCP("tool-error"), "a result", mcpRec("POST", call, "", ok)),

		dialecttest.Hit(ruleMCP("jsonrpc-error"), "an error answers tools/call", mcpRec("POST", call, "", mcpEv("", `{"jsonrpc":"2.0","id":3,"error":{"code":-32042,"message":"MCP error -32042: Login required"}}`)), 1),
		{Rule: ruleMCP("resume-replayed"), Name: "the resumed stream's progress again", Hit: true, Events: []int{1}, Earlier: mcpResumed(call),
			Stream: mcpRec("GET", "", ": request-header Last-Event-Id: e2\n", mcpEv("e1", mcpProgress("3", 1)), mcpEv("e3", mcpProgress("3", 2)), mcpEv("e4", mcpResult("3", "x", false)))},
		{Rule: ruleMCP("resume-replayed"), Name: "only what follows the Last-Event-ID", Earlier: mcpResumed(call),
			Stream: mcpRec("GET", "", ": request-header Last-Event-Id: e2\n", mcpEv("e3", mcpProgress("3", 2)), mcpEv("e4", mcpResult("3", "x", false)))},
		{Rule: ruleMCP("response-unknown-id"), Name: "a resumed stream answers another request", Hit: true, Events: []int{1}, Earlier: mcpResumed(call),
			Stream: mcpRec("GET", "", ": request-header Last-Event-Id: e2\n", mcpEv("e3", mcpResult("4", "x", false)))},
		dialecttest.Miss(ruleMCP("jsonrpc-error"), "an error answers resources/read", mcpRec("POST", `{"method":"resources/read","params":{"uri":"file:///nope"},"jsonrpc":"2.0","id":3}`, "",
			mcpEv("", `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Resource file:///nope not found"}}`))),
	}
}

// mcpResumed is the POST whose stream a GET resumes, as Turns links them:
// its request, the ids of the events it delivered (e1, e2), and the
// request it left unanswered.
func mcpResumed(body string) *model.Earlier {
	sid := "9f0d5082-6ab3-4f98-aa8a-3e8c225241da "
	return &model.Earlier{
		Exchange: &capture.Exchange{Method: "POST", RequestBody: []byte(body),
			RequestHeader: http.Header{"Mcp-Session-Id": {"9f0d5082-6ab3-4f98-aa8a-3e8c225241da"}}},
		Marks: []string{"event " + sid + "e1", "event " + sid + "e2", "request " + sid + "n3"},
		Carry: []byte("[" + body + "]"),
	}
}

// ruleMCP is an MCP rule's id.
func ruleMCP(name string) string { return "mcp/" + name }
