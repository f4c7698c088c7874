package inject

import (
	"bytes"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// mcpDefects are the defects of MCP's streamable HTTP transport: the
// server's answer to a POST (an SSE stream of JSON-RPC messages, or one
// JSON body). An MCP call is its request: the defects that break how the
// stream answers it (a response to another id, progress the request did
// not ask for) need the request, which a recording made by streamtap proxy
// holds in its header; on a body alone they find no place. Those that
// need several events in a stream apply to SSE streams only.
var mcpDefects = []variant{
	{"crlf", "framing/mixed-line-endings", sseOnly(mixEndings("\r\n")), nil},
	{"cr", "framing/mixed-line-endings", sseOnly(mixEndings("\r")), nil},
	{"unterminated", "framing/unterminated-event", sseOnly(unterminated), nil},
	{"comment-as-data", "framing/invalid-json", sseOnly(insertRaw("data: : keep-alive")), nil},
	{"empty-data", "framing/empty-data", sseOnly(insertRaw("data:")), nil},
	{"leading-space", "framing/leading-space-field", sseOnly(leadingSpace), nil},
	{"keepalive-flood", "", sseOnly(commentFlood(": keep-alive")), nil},
	{"event-name-mismatch", "mcp/event-name", mcpEventName, nil},
	{"midstream-error", "mcp/jsonrpc-error", mcpError, nil},
	{"cut-terminal", "mcp/no-response", mcpCut, nil},
	{"terminal-twice", "mcp/second-response", mcpResponseTwice, nil},
	{"member-drop", "mcp/jsonrpc-invalid", mcpMemberDrop, nil},
	{"stray-response", "mcp/response-unknown-id", mcpStray, nil},
	{"progress-token-switch", "mcp/progress-token-unknown", mcpTokenSwitch, nil},
	{"progress-late", "mcp/progress-after-response", mcpProgressLate, nil},
	{"server-request-twice", "mcp/server-id-reused", mcpServerTwice, nil},
	{"tool-error", "mcp/tool-error", mcpToolError, nil},
}

// mcpIndex is an MCP exchange: the request its stream answers, when the
// stream holds it (a recording's header), and the server's messages.
type mcpIndex struct {
	msgs     []int  // the server's messages and priming events, in order
	response int    // the response to the request (or, with no request known, the first response), or -1
	others   []int  // the messages that are no response: notifications, the server's requests
	progress []int  // the notifications/progress
	server   []int  // the server's own requests (elicitation/create …)
	sse      bool   // the answer is an SSE stream, not one JSON body
	reqID    []byte // the request's JSON-RPC id, nil when the request is not known
	method   string // the request's method
}

func (e *edit) mcp() *mcpIndex {
	x := &mcpIndex{response: -1}
	if st := e.st; st.rec != nil && strings.EqualFold(st.rec.Exchange.Method, "POST") {
		body := bytes.TrimSpace(st.rec.Exchange.RequestBody)
		if jsonscan.Kind(body) == '{' && jsonscan.Validate(body) == nil {
			x.reqID = jsonscan.Get(body, "id")
			x.method, _ = jsonscan.String(jsonscan.Get(body, "method"))
		}
	}
	for i, ev := range e.st.Events {
		if ev.Dialect != dMCP || ev.Kind != capture.FrameEvent {
			continue
		}
		x.msgs = append(x.msgs, i)
		x.sse = x.sse || ev.carry == carrySSE
		if ev.Doc == nil {
			continue // a priming event
		}
		id := get(ev.Doc, "id")
		switch {
		case ev.Type == "result" || ev.Type == "error":
			if x.response < 0 && (x.reqID == nil || (id != nil && bytes.Equal(id, x.reqID))) {
				x.response = i
			}
			continue
		case ev.Type == "notifications/progress":
			x.progress = append(x.progress, i)
		case id != nil && get(ev.Doc, "method") != nil:
			x.server = append(x.server, i)
		}
		x.others = append(x.others, i)
	}
	return x
}

// sseOnly applies f to an MCP stream that is an SSE stream: a JSON body
// holds one message, which has no framing of events to break.
func sseOnly(f func(e *edit) error) func(e *edit) error {
	return func(e *edit) error {
		if !e.mcp().sse {
			e.note = "the answer is one JSON body, not an SSE stream"
			return errNoPlace
		}
		return f(e)
	}
}

// needRequest says why a defect that breaks how the stream answers its
// request finds no place in a stream that does not hold it.
func (e *edit) needRequest(x *mcpIndex) bool {
	if x.reqID == nil {
		e.note = "the stream does not hold the request it answers: apply it to a recording (streamtap proxy --record) of a POST"
		return false
	}
	return true
}

// mcpResponse returns the response a defect acts on, or says why there
// is none.
func (e *edit) mcpResponse(x *mcpIndex) (int, bool) {
	if x.response < 0 || e.st.Events[x.response].Doc == nil {
		e.note = "no response to the request"
		return -1, false
	}
	return x.response, true
}

// mcpEventName names a notification's or server request's event other
// than "message" (event: progress), as servers written to SSE
// conventions do.
func mcpEventName(e *edit) error {
	x := e.mcp()
	var cands []int
	for _, i := range x.others {
		if e.st.Events[i].carry == carrySSE {
			cands = append(cands, i)
		}
	}
	i, err := e.pick(cands)
	if err != nil {
		e.note = "no notification or server request in an SSE stream"
		return err
	}
	name := "notification"
	if e.st.Events[i].Type == "notifications/progress" {
		name = "progress"
	}
	e.setOwn(i, sseWithName(e.st.Events[i].own, name))
	e.note = "event: " + name + " over a " + e.st.Events[i].Type
	return nil
}

// mcpError answers a tools/call with a JSON-RPC error: the stream is cut
// after the chosen event before the response (a JSON body's response is
// replaced), and the error ends it.
func mcpError(e *edit) error {
	x := e.mcp()
	if !e.needRequest(x) {
		return errNoPlace
	}
	if x.method != "tools/call" {
		e.note = "the request is " + x.method + ", not tools/call"
		return errNoPlace
	}
	resp, ok := e.mcpResponse(x)
	if !ok {
		return errNoPlace
	}
	doc := append(append([]byte(`{"jsonrpc":"2.0","id":`), x.reqID...), `,"error":{"code":-32603,"message":"Internal error"}}`...)
	var cands []int
	for _, i := range x.msgs {
		if i < resp {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		if !e.setDoc(resp, doc) {
			return errNoPlace
		}
		e.note = "the result replaced by JSON-RPC error -32603"
		return nil
	}
	i, err := e.pick(cands)
	if err != nil {
		return err
	}
	e.cutWith(i, e.like(i, doc, "message"))
	e.note = "cut after the chosen event; JSON-RPC error -32603 answers the call"
	return nil
}

// mcpCut cuts the response and what follows it: the stream ends with the
// request unanswered.
func mcpCut(e *edit) error {
	x := e.mcp()
	if !e.needRequest(x) {
		return errNoPlace
	}
	resp, ok := e.mcpResponse(x)
	if !ok {
		return errNoPlace
	}
	if x.msgs[0] == resp {
		e.note = "the response is the stream's first event: nothing would be left"
		return errNoPlace
	}
	e.removeFrom(resp)
	e.note = "the response and what follows it cut"
	return nil
}

// mcpResponseTwice sends the response again, right after it.
func mcpResponseTwice(e *edit) error {
	x := e.mcp()
	if !x.sse {
		e.note = "the answer is one JSON body, not an SSE stream"
		return errNoPlace
	}
	resp, ok := e.mcpResponse(x)
	if !ok {
		return errNoPlace
	}
	e.insertAfter(resp, e.like(resp, e.st.Events[resp].Doc, "message"))
	e.note = "the response sent twice"
	return nil
}

// mcpMemberDrop takes "jsonrpc": "2.0" from a notification or a server
// request (not the response, whose loss would leave the request waiting).
// The message must be known for MCP's without it: by the request a
// recording holds, or by a JSON-RPC message before it.
func mcpMemberDrop(e *edit) error {
	x := e.mcp()
	var cands []int
	for _, i := range x.others {
		if e.st.rec != nil || slices.ContainsFunc(x.msgs, func(j int) bool { return j < i && e.st.Events[j].Doc != nil }) {
			cands = append(cands, i)
		}
	}
	i, err := e.pick(cands)
	if err != nil {
		e.note = "no notification or server request after a message that makes the stream MCP's"
		return err
	}
	if !e.change(i, func(doc []byte) ([]byte, bool) { return del(doc, "jsonrpc") }) {
		return errNoPlace
	}
	e.note = `a ` + e.st.Events[i].Type + ` without "jsonrpc": "2.0"`
	return nil
}

// mcpStray sends, before the response, a copy of it renumbered to an id
// no request of the stream has.
func mcpStray(e *edit) error {
	x := e.mcp()
	if !e.needRequest(x) {
		return errNoPlace
	}
	if !x.sse {
		e.note = "the answer is one JSON body, not an SSE stream"
		return errNoPlace
	}
	resp, ok := e.mcpResponse(x)
	if !ok {
		return errNoPlace
	}
	id := changedValue(x.reqID)
	doc, ok := set(e.st.Events[resp].Doc, id, "id")
	if !ok {
		return errNoPlace
	}
	e.insertBefore(resp, e.like(resp, doc, "message"))
	e.note = "a response to id " + string(id) + " before the response to " + string(x.reqID)
	return nil
}

// mcpTokenSwitch gives a progress notification a progressToken no
// request sent.
func mcpTokenSwitch(e *edit) error {
	x := e.mcp()
	if !e.needRequest(x) {
		return errNoPlace
	}
	var cands []int
	for _, i := range x.progress {
		if get(e.st.Events[i].Doc, "params", "progressToken") != nil {
			cands = append(cands, i)
		}
	}
	i, err := e.pick(cands)
	if err != nil {
		e.note = "no progress notification"
		return err
	}
	if !e.change(i, func(doc []byte) ([]byte, bool) {
		return set(doc, changedValue(get(doc, "params", "progressToken")), "params", "progressToken")
	}) {
		return errNoPlace
	}
	e.note = "a progress notification with another progressToken"
	return nil
}

// mcpProgressLate sends the last progress notification before the
// response again after it.
func mcpProgressLate(e *edit) error {
	x := e.mcp()
	if !e.needRequest(x) {
		return errNoPlace
	}
	resp, ok := e.mcpResponse(x)
	if !ok {
		return errNoPlace
	}
	last := -1
	for _, i := range x.progress {
		if i < resp {
			last = i
		}
	}
	if last < 0 || !x.sse {
		e.note = "no progress notification before the response"
		return errNoPlace
	}
	e.insertAfter(resp, e.like(last, e.st.Events[last].Doc, "message"))
	e.note = "the last progress notification sent again after the response"
	return nil
}

// mcpServerTwice sends a request of the server's (an elicitation) a
// second time with its id.
func mcpServerTwice(e *edit) error {
	x := e.mcp()
	i, err := e.pick(x.server)
	if err != nil {
		e.note = "no request of the server's (elicitation/create, sampling/createMessage)"
		return err
	}
	if !x.sse {
		return errNoPlace
	}
	e.insertAfter(i, e.like(i, e.st.Events[i].Doc, "message"))
	e.note = "the server's " + e.st.Events[i].Type + " sent twice with one id"
	return nil
}

// mcpToolError turns a tools/call result into a tool error: isError:
// true beside its content.
func mcpToolError(e *edit) error {
	x := e.mcp()
	resp, ok := e.mcpResponse(x)
	if !ok {
		return errNoPlace
	}
	res := get(e.st.Events[resp].Doc, "result")
	if jsonscan.Kind(get(res, "content")) != '[' || string(get(res, "isError")) == "true" || (x.reqID != nil && x.method != "tools/call") {
		e.note = "no tools/call result that succeeded"
		return errNoPlace
	}
	if !e.change(resp, func(doc []byte) ([]byte, bool) { return add(doc, "isError", []byte("true"), "result") }) {
		return errNoPlace
	}
	e.note = "the result says isError: true"
	return nil
}
