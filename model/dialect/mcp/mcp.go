// Package mcp is the MCP dialect: the Model Context Protocol's streamable
// HTTP transport, JSON-RPC 2.0 messages between an MCP client and server.
// A POST carries the client's message; the server answers a request with
// one JSON body or an SSE stream of "event: message" events (each with an
// id: when the server can resume it), which carries the request's progress
// and log notifications, the server's own requests (elicitation, sampling)
// and, last, the response; a notification or a response is answered 202
// with no body. A GET opens a stream of server messages tied to no request,
// or resumes a stream with Last-Event-ID; a DELETE ends the session
// (Mcp-Session-Id).
//
// A tool call is a tools/call request: its name and arguments are in the
// REQUEST body, and the stream holds only its result (content text,
// structuredContent, isError) or a JSON-RPC error. So the dialect reads the
// request its stream answers (model.RequestClaimer): from a recording's
// header, an archive's entry, the proxy or --request. Without it the
// results still read, as answers to requests not seen.
//
// It holds the dialect's detection and assembly, its explanations and its
// rules (the mcp/ rule ids). It imports no other dialect; model/dialects
// registers it.
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
package mcp

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// The types the dialect gives its events besides the methods: a response
// is typed by what it carries, the rest by what it is.
const (
	TypeResult   = "result"
	TypeError    = "error"
	TypePriming  = "(priming)"      // an id and empty data: where to resume
	TypeInvalid  = "(not json-rpc)" // a JSON object that is no JSON-RPC 2.0 message
	TypeBatch    = "(batch)"        // a JSON array of messages
	typeRequest  = "(request)"      // a server request of a method no row explains
	typeNotified = "(notification)" // a notification of a method no row explains
)

// The methods the dialect reads the params of.
const (
	methodToolsCall   = "tools/call"
	methodProgress    = "notifications/progress"
	methodLog         = "notifications/message"
	methodCancelled   = "notifications/cancelled"
	methodElicitation = "elicitation/create"
	methodSampling    = "sampling/createMessage"
)

// The statuses of a call beside the model's words: waiting for the
// client's answer to a server request (elicitation, sampling), which MCP's
// tasks call input_required too.
const statusInputRequired = "input_required"

// Protocol is the MCP dialect, for model.Register.
var Protocol = new(mcpDialect)

type mcpDialect struct{ model.Base }

var (
	_ model.RequestClaimer  = Protocol
	_ model.EmptyClaimer    = Protocol
	_ model.CompleteWithout = Protocol
)

func (*mcpDialect) Info() model.DialectInfo {
	return model.DialectInfo{Name: "mcp", Short: "mcp"}
}

// ClaimShape takes a JSON-RPC message by its "jsonrpc" member, which no
// other API's events have; and, in a stream already MCP's (by its request
// or its events), any JSON object: one without "jsonrpc" is a message the
// client rejects, which the rules report as MCP's.
func (*mcpDialect) ClaimShape(s *model.Session, _ string) bool {
	return s.Member(mJSONRPC) != nil || s.RequestDialect() == Protocol.ID() || s.LastDialect() == Protocol.ID()
}

// ClaimRequest takes an exchange with an MCP server: a body that is a
// JSON-RPC message (or an array of them), or a request or response that
// names the MCP session or protocol version in its headers (a GET stream,
// a DELETE).
func (*mcpDialect) ClaimRequest(x *capture.Exchange) bool {
	for _, h := range []http.Header{x.RequestHeader, x.ResponseHeader} {
		if h.Get("Mcp-Session-Id") != "" || h.Get("Mcp-Protocol-Version") != "" {
			return true
		}
	}
	if !bytes.Contains(x.RequestBody, []byte(`"jsonrpc"`)) {
		return false
	}
	body := bytes.TrimSpace(x.RequestBody)
	if jsonscan.Kind(body) == '[' {
		claimed := false
		jsonscan.Elements(body, func(_ int, v []byte) bool {
			claimed = jsonscan.Kind(v) == '{' && jsonscan.Get(v, "jsonrpc") != nil
			return false
		})
		return claimed
	}
	return jsonscan.Kind(body) == '{' && jsonscan.Validate(body) == nil && jsonscan.Get(body, "jsonrpc") != nil
}

// ClaimEmpty takes MCP's priming event: an SSE id with empty data, which
// a server that can resume its streams sends first, so that a client cut
// off before any message still has an id to resume from. It is taken in a
// stream that is MCP's, or that has shown no dialect yet (a body read
// without its request starts with it).
func (*mcpDialect) ClaimEmpty(s *model.Session, f *capture.Frame) bool {
	if !f.HasID || (f.HasEvent && string(f.Event) != "message") {
		return false
	}
	last := s.LastDialect()
	return s.RequestDialect() == Protocol.ID() || last == Protocol.ID() || (last == model.DialectUnknown && s.RequestDialect() == model.DialectUnknown)
}

// Array applies a JSON array body, a batch of messages (the protocol
// before 2025-06-18 allowed them; the TypeScript SDK still answers a batch
// on one stream), when its first element is a JSON-RPC message or the
// stream is MCP's.
func (*mcpDialect) Array(s *model.Session, ev *model.Event, data []byte, ord int) bool {
	mine := s.RequestDialect() == Protocol.ID() || s.LastDialect() == Protocol.ID()
	if !mine {
		s.JSON().Elements(data, func(_ int, v []byte) bool {
			mine = jsonscan.Kind(v) == '{' && s.JSON().Get(v, "jsonrpc") != nil
			return false
		})
	}
	if !mine {
		return false
	}
	st := s.Assembly(Protocol.ID()).(*mcpState)
	st.begin(s)
	st.unrequested(s, ord)
	kind := model.KindLifecycle
	s.JSON().Elements(data, func(_ int, v []byte) bool {
		if jsonscan.Kind(v) != '{' {
			st.note(ruleJSONRPC, []int{ord}, "event %d: a batch element %s is not a JSON object", ord, quoteCut(v))
			return true
		}
		st.apply(s, ev, readMessage(s, v), ord, true)
		kind.Raise(ev.Kind)
		return true
	})
	ev.Type, ev.Kind = s.Intern([]byte(TypeBatch)), kind
	return true
}

func (*mcpDialect) NewAssembly() model.Assembly {
	return &mcpState{byID: map[string]*pending{}, tokens: map[string]*pending{}, answered: map[string]int{},
		subs: map[int]string{}, answers: map[int]*pending{}, server: map[string]int{}}
}

// FinishedWithout completes a GET stream that ended cleanly: a stream of
// server messages tied to no request has no last message, and its end is
// its normal end. So does a stream read without its request, unless a
// progress notification came after its last response: a request was
// being handled, and the stream ended before its response.
func (*mcpDialect) FinishedWithout(s *model.Session, r *model.Response) (int, bool) {
	st, ok := s.Assembly(Protocol.ID()).(*mcpState)
	if !ok || st.stream != r || s.Len() == 0 || (!st.requested && st.inFlight) {
		return 0, false
	}
	return s.Len() - 1, true
}

// mcpState is the exchange being read: the requests its stream answers,
// matched to their responses by JSON-RPC id, and what the rules report of
// the event being added.
type mcpState struct {
	reqs   []*pending          // the client's requests the stream answers, in order
	open   int                 // how many of them have no response yet
	single *pending            // the one open request, when handled found it
	byID   map[string]*pending // by IDKey
	tokens map[string]*pending // by IDKey of their progressToken
	// answered holds the event that answered each id first, requests not
	// seen included, so that a second answer is told.
	answered map[string]int
	// server holds the event of each request the server made on the
	// stream (elicitation, sampling), by IDKey.
	server map[string]int
	// known says the requests the stream may answer are known: the POST's
	// body was read, or a GET stream that resumes nothing (it may carry no
	// response at all).
	known bool
	// get says the stream is a GET's: the standalone stream, or one that
	// resumes a POST's (resume holds its Last-Event-ID).
	get    bool
	resume string
	// stream is the response envelope of a GET's stream, or of a stream
	// whose request is not known: complete at a clean end, unless a
	// progress notification came after the last response (inFlight: a
	// request was being handled, and its response never came).
	stream    *model.Response
	inFlight  bool
	requested bool // the request was applied (Request)
	calls     int
	// ids counts the events with an SSE id, and lastID is the latest: a
	// stream whose events have ids can be resumed with Last-Event-ID;
	// recent holds the last keptIDs of them (see Marks).
	ids    int
	lastID string
	recent []string
	// sid is the MCP session (Mcp-Session-Id), and delivered the event ids
	// the stream a GET resumes delivered already (see model.Earlier).
	sid       string
	delivered map[string]bool
	// subs holds the shape of each response event (see Shape), which the
	// session does not keep: what it answered; and answers the request it
	// answered.
	subs    map[int]string
	answers map[int]*pending
	// notes are what the rules report of the event being added.
	notes []note
	model.NoSentinel
}

// pending is one request of the client's that the stream answers.
type pending struct {
	key, id, method string
	ord             int // the event it was applied at
	resp            *model.Response
	tool            bool        // a tools/call: its result is a CallToolResult
	call            *model.Item // a tools/call's call, when the request was seen
	text            *model.Item // its result's text content
	token           string      // IDKey of its progressToken, "" when none
	answered        int         // the event of its response, or -1
	raw             []byte      // the request, when seen: a stream that resumes this one answers it (Carry)
}

// note is a finding of the event being added, for the rules (mcpChecks).
type note struct {
	rule string
	ords []int
	msg  string
}

func (st *mcpState) note(rule string, ords []int, format string, args ...any) {
	st.notes = append(st.notes, note{rule: rule, ords: ords, msg: sprintf(format, args...)})
}

// begin starts an event: what the rules were told of the one before is
// dropped, and its SSE id is counted.
func (st *mcpState) begin(s *model.Session) {
	st.notes = st.notes[:0]
	f := s.Frame()
	if f == nil || !f.HasID || f.Flags&capture.IDHasNUL != 0 || len(f.ID) == 0 {
		return
	}
	st.ids++
	st.lastID = string(f.ID)
	if len(st.recent) == keptIDs {
		st.recent = append(st.recent[:0], st.recent[1:]...)
	}
	st.recent = append(st.recent, st.lastID)
	if st.delivered[st.lastID] {
		ord := s.Len() - 1
		st.note(ruleResumeReplayed, []int{ord}, "event %d (id %s) was delivered already on the stream this GET resumes (Last-Event-ID %s); the client applies it a second time",
			ord, quoteCut(f.ID), quoteCut([]byte(st.resume)))
	}
}

// Request applies the request the stream answers: a GET's stream, a
// DELETE, or a POST's messages (its requests are what the stream answers).
func (st *mcpState) Request(s *model.Session, x *capture.Exchange, ord int) {
	status := s.Status()
	if status == 0 {
		status = x.Status
	}
	st.requested = true
	st.sid = sessionOf(x)
	switch strings.ToUpper(x.Method) {
	case http.MethodGet:
		st.get, st.resume = true, x.RequestHeader.Get("Last-Event-Id")
		st.known = st.resume == ""
		st.stream = s.NewResponse(Protocol.ID(), ord)
		st.stream.Status.Set(ord, "in_progress")
		if st.resume != "" {
			st.resumes(s, s.Earlier(), ord)
		}
		return
	case http.MethodDelete:
		r := s.NewResponse(Protocol.ID(), ord)
		if status >= 200 && status < 300 {
			r.Terminal = ord
			r.Status.Set(ord, model.OutcomeCompleted)
			r.AddFinish(0, ord, "session deleted")
		}
		return
	}
	body := bytes.TrimSpace(x.RequestBody)
	if jsonscan.Validate(body) != nil {
		return // a body cut (the proxy keeps a prefix) or not JSON: its requests are not known
	}
	st.known = true
	var sent []string // the messages that expect no response
	each := func(v []byte) {
		m := ParseMessage(v)
		if m.Kind == Request {
			st.expect(s, m, ord, false)
			return
		}
		what := m.MethodOf()
		switch {
		case m.Kind == Result || m.Kind == Error:
			what = m.Kind.String() + " for id " + IDText(m.ID)
		case what == "":
			what = "a message"
		}
		sent = append(sent, what)
	}
	if jsonscan.Kind(body) == '[' {
		jsonscan.Elements(body, func(_ int, v []byte) bool { each(v); return true })
	} else {
		each(body)
	}
	if len(st.reqs) == 0 && status >= 200 && status < 300 {
		// Notifications and responses: the server accepts them (202) and
		// answers nothing.
		r := s.NewResponse(Protocol.ID(), ord)
		r.Terminal = ord
		r.Status.Set(ord, model.OutcomeCompleted)
		r.AddFinish(0, ord, "accepted: "+strings.Join(sent, ", "))
	}
}

// unrequested starts the envelope of a stream read without its request
// (a body alone, a `curl -i` capture), at its first event: it ends
// complete at a clean end, as a GET stream does, unless a request's
// progress says one was in flight (see FinishedWithout).
func (st *mcpState) unrequested(s *model.Session, ord int) {
	if st.requested || st.stream != nil {
		return
	}
	st.stream = s.NewResponse(Protocol.ID(), ord)
	st.stream.Status.Set(ord, "in_progress")
}

// resumes reads the exchange whose stream a GET resumes (Turns linked
// them by the Last-Event-ID): its requests are the ones the GET answers,
// and the events it delivered must not come again.
func (st *mcpState) resumes(s *model.Session, e model.Earlier, ord int) {
	if e.Exchange == nil {
		return // not linked: the requests it answers are not known
	}
	// What the resumed stream carries on (Carry): the requests it left
	// unanswered, a JSON array.
	jsonscan.Elements(e.Carry, func(_ int, v []byte) bool {
		if m := ParseMessage(v); m.Kind == Request {
			st.expect(s, m, ord, true)
		}
		return true
	})
	st.known = true
	prefix := keyEvent + st.sid + " "
	st.delivered = map[string]bool{}
	for _, k := range e.Marks {
		if id, ok := strings.CutPrefix(k, prefix); ok {
			st.delivered[id] = true
		}
	}
}

// expect records a request of the client's whose response the stream may
// carry: a response envelope for it, and for a tools/call its call, whose
// name and arguments are the request's.
func (st *mcpState) expect(s *model.Session, m Message, ord int, late bool) *pending {
	p := &pending{key: IDKey(m.ID), id: IDText(m.ID), method: m.MethodOf(), ord: ord, answered: -1, raw: m.Raw}
	p.resp = s.NewResponse(Protocol.ID(), ord)
	p.resp.Resumed = late
	p.resp.Status.Set(ord, "in_progress")
	if p.method == methodToolsCall {
		p.tool = true
		var name, args []byte
		jsonscan.Members(m.Params, func(k, v []byte) bool {
			switch string(k) {
			case "name":
				name = v
			case "arguments":
				args = v
			}
			return true
		})
		p.call = st.newCall(s, p, model.StringOf(name), args, ord)
	}
	if token := jsonscan.Path(m.Params, "_meta", "progressToken"); token != nil {
		p.token = IDKey(token)
		if p.token != "" {
			st.tokens[p.token] = p
		}
	}
	if _, dup := st.byID[p.key]; !dup && p.key != "" {
		st.byID[p.key] = p
	}
	st.reqs = append(st.reqs, p)
	st.open++
	return p
}

// newCall starts the call of a tools/call request: its arguments arrive
// whole (MCP streams no arguments), kept as the request's bytes.
func (st *mcpState) newCall(s *model.Session, p *pending, name string, args []byte, ord int) *model.Item {
	it := s.NewItem(Protocol.ID(), model.RoleCall, methodToolsCall, ord)
	it.Response, it.Position, it.Opened = p.resp.Index, st.calls, ord
	it.Name, it.CallID = name, p.id
	if args != nil {
		it.Args.SetWhole(ord, args)
		it.Deltas++
	}
	it.Status.Set(ord, "in_progress")
	st.calls++
	return it
}

// Event applies one message of the server's (or, with data nil, a priming
// event: see ClaimEmpty).
func (st *mcpState) Event(s *model.Session, ev *model.Event, _ string, data []byte, ord int) {
	st.begin(s)
	st.unrequested(s, ord)
	if data == nil {
		ev.Type, ev.Kind = s.Intern([]byte(TypePriming)), model.KindKeepalive
		return
	}
	f := s.Frame()
	read := f == nil || !f.HasEvent || string(f.Event) == "message"
	st.apply(s, ev, topMessage(s), ord, read)
}

// apply applies message m of event ev. read says the client reads the
// event: the TypeScript SDK's client reads only events named "message" or
// not named at all, and drops the rest unread.
func (st *mcpState) apply(s *model.Session, ev *model.Event, m Message, ord int, read bool) {
	ev.Kind = model.KindLifecycle
	switch m.Kind {
	case Invalid:
		ev.Type = s.Intern([]byte(TypeInvalid))
		ev.Flags |= model.NonStandard
		st.note(ruleJSONRPC, []int{ord}, "event %d is no JSON-RPC 2.0 message (%s); the client rejects it and reads on", ord, m.Why)
		return
	case Request, Notification:
		ev.Type = st.methodType(s, m)
		if !read {
			return
		}
		if m.Kind == Request {
			st.serverRequest(s, ev, m, ord)
		} else {
			st.notification(s, ev, m, ord)
		}
	case Result, Error:
		typ := TypeResult
		if m.Kind == Error {
			typ = TypeError
		}
		ev.Type = s.Intern([]byte(typ))
		if read {
			st.response(s, ev, m, ord)
		}
	}
}

// methodType interns a request's or notification's method as the event's
// type, unless it is a word the dialect types other events with.
func (st *mcpState) methodType(s *model.Session, m Message) uint16 {
	switch method := m.MethodOf(); method {
	case TypeResult, TypeError, TypePriming, TypeInvalid, TypeBatch, typeRequest, typeNotified, "":
		if m.Kind == Request {
			return s.Intern([]byte(typeRequest))
		}
		return s.Intern([]byte(typeNotified))
	}
	return s.InternString(m.Method)
}

// serverRequest applies a request the server makes of the client on the
// stream (elicitation/create, sampling/createMessage, roots/list, ping):
// the call being handled waits for the client's answer, which goes in a
// POST of its own.
func (st *mcpState) serverRequest(s *model.Session, ev *model.Event, m Message, ord int) {
	key := IDKey(m.ID)
	if first, dup := st.server[key]; dup {
		st.note(ruleServerIDReused, []int{first, ord}, "event %d: the server's request id %s was used by its request at event %d; the client answers both by one id",
			ord, IDText(m.ID), first)
	} else {
		st.server[key] = ord
	}
	p := st.handled()
	if p == nil || p.call == nil {
		return
	}
	switch m.MethodOf() {
	case methodElicitation, methodSampling:
		p.call.Status.Set(ord, statusInputRequired)
	}
	st.touch(ev, p, ord)
}

// handled returns the request the server is handling when the stream
// carries one unanswered request, else nil: a notification or a server
// request on a POST stream belongs to that stream's request.
// It counts the open requests as they come and go, and looks for the one
// only when that count is 1 and it has not found it since: a batch of
// thousands of requests and as many notifications costs no walk per
// notification.
func (st *mcpState) handled() *pending {
	if st.open != 1 {
		return nil
	}
	if st.single == nil || st.single.answered >= 0 {
		st.single = nil
		for _, p := range st.reqs {
			if p.answered < 0 {
				st.single = p
				break
			}
		}
	}
	return st.single
}

// touch ties event ev to request p's call.
func (st *mcpState) touch(ev *model.Event, p *pending, ord int) {
	if p.call != nil {
		p.call.Touch(ord)
		ev.Item = int32(p.call.Index)
	}
}

// notification applies a notification of the server's: progress of a
// request (by its progressToken), a log message, a list that changed.
func (st *mcpState) notification(s *model.Session, ev *model.Event, m Message, ord int) {
	switch m.MethodOf() {
	case methodProgress:
		st.inFlight = true
		token := s.JSON().Get(m.Params, "progressToken")
		p := st.tokens[IDKey(token)]
		switch {
		case p == nil && st.known:
			st.note(ruleProgressToken, []int{ord}, "event %d: progress for progressToken %s, which no request of this stream sent; the client reports an error and drops it",
				ord, quoteCut(token))
		case p == nil:
		case p.answered >= 0 && ord > p.answered:
			st.note(ruleProgressAfter, []int{p.answered, ord}, "event %d: progress for request %s after its response (event %d); the client has forgotten the token and reports an error",
				ord, p.id, p.answered)
		default:
			st.touch(ev, p, ord)
		}
	case methodLog:
		if p := st.handled(); p != nil {
			st.touch(ev, p, ord)
		}
	}
}

// response applies a response: it answers the request of its id, once.
func (st *mcpState) response(s *model.Session, ev *model.Event, m Message, ord int) {
	key := IDKey(m.ID)
	if m.Kind == Error {
		s.ErrorEvent(ev, m.Err, ord)
	}
	if key == "" {
		// An error with id null: the server could not read the request
		// (bad JSON, no session); the outcome is the error.
		return
	}
	if first, dup := st.answered[key]; dup {
		st.note(ruleSecondResponse, []int{first, ord}, "event %d: a second response to id %s (the first was event %d); the client reads the first and reports an error",
			ord, IDText(m.ID), first)
		ev.Flags |= model.NonStandard
		if ev.Kind != model.KindError {
			ev.Kind = model.KindLifecycle
		}
		return
	}
	st.answered[key] = ord
	st.inFlight = false
	p := st.byID[key]
	if p == nil {
		if st.known {
			st.unknownID(ev, m, ord)
			return
		}
		// A response to a request not seen (a body read without its
		// request, a resumed stream): an answer all the same, whose call
		// is not known (its name and arguments were the request's).
		p = st.expect(s, Message{Kind: Request, ID: m.ID}, ord, true)
		p.tool = m.Kind == Result && toolResult(s, m.Res)
	}
	st.answer(s, ev, p, m, ord)
}

// unknownID reports a response whose id no request of the stream had.
func (st *mcpState) unknownID(ev *model.Event, m Message, ord int) {
	ev.Flags |= model.NonStandard
	if ev.Kind != model.KindError {
		ev.Kind = model.KindLifecycle
	}
	if st.get {
		st.note(ruleUnknownID, []int{ord}, "event %d: a response (id %s) on a GET stream that resumes no request; the server must send responses on the request's own stream",
			ord, IDText(m.ID))
		return
	}
	ids := make([]string, 0, min(len(st.reqs), maxIDsListed+1))
	for _, p := range st.reqs {
		if len(ids) == maxIDsListed {
			ids = append(ids, "…")
			break
		}
		ids = append(ids, p.id)
	}
	st.note(ruleUnknownID, []int{ord}, "event %d: a response to id %s, which no request of this stream has (%s); the client reports an error and drops it",
		ord, IDText(m.ID), idList(ids))
}

// maxIDsListed bounds the request ids a finding lists: a batch may carry
// thousands.
const maxIDsListed = 5

// toolResult reports whether a result is a CallToolResult: content[],
// isError or structuredContent, which no other result has.
func toolResult(s *model.Session, res []byte) bool {
	if jsonscan.Kind(res) != '{' {
		return false
	}
	return jsonscan.Kind(s.JSON().Get(res, "content")) == '[' || s.JSON().Get(res, "isError") != nil || s.JSON().Get(res, "structuredContent") != nil
}

// answer applies response m to request p: it ends p's response envelope,
// and a tools/call's call, whose outcome it is: a result (its text
// content is the session's text), a result with isError (the tool failed
// and says why), or a JSON-RPC error (the call could not be made).
func (st *mcpState) answer(s *model.Session, ev *model.Event, p *pending, m Message, ord int) {
	p.answered = ord
	st.open--
	r := p.resp
	r.Terminal = ord
	sub := p.method
	if p.tool {
		sub = methodToolsCall
	}
	if m.Kind == Error {
		r.Status.Set(ord, model.OutcomeError)
		if p.call != nil {
			p.call.Status.Set(ord, "error")
			p.call.RunOf().Error = rpcError(s, m.Err)
		}
	} else {
		r.Status.Set(ord, model.OutcomeCompleted)
		ev.Kind = model.KindTerminal
		if p.tool {
			status := st.toolResult(s, p, m.Res, ord)
			if p.call != nil {
				p.call.Status.Set(ord, status)
				// The tool's output is its CallToolResult, as the
				// client gets it; a failed run's error, its text.
				run := p.call.RunOf()
				run.SetOutput(m.Res, ord, false)
				if status == model.OutcomeFailed {
					run.Error = "isError"
					if p.text != nil {
						run.Error = p.text.Text.String()
					}
				}
			}
			if status == model.OutcomeFailed {
				r.Status.Set(ord, model.OutcomeFailed)
				sub = subToolError
			}
		}
	}
	if p.call != nil {
		p.call.Close(ord)
		st.touch(ev, p, ord)
	}
	st.subs[ord], st.answers[ord] = sub, p
}

// rpcError says a JSON-RPC error object as a line, as the outcome's
// detail says it: its code, then its message ("-32602: Unknown tool").
func rpcError(s *model.Session, e []byte) string {
	msg, _ := jsonscan.String(s.JSON().Get(e, "message"))
	code := s.JSON().Get(e, "code")
	switch {
	case code == nil:
		return msg
	case msg == "":
		return string(code)
	}
	return string(code) + ": " + msg
}

// subToolError is the shape of a tools/call result with isError.
const subToolError = methodToolsCall + ".isError"

// maxReason bounds the text of a tool's error that a response's finish
// reason (the outcome's detail) quotes.
const maxReason = 120

// toolResult reads a CallToolResult: its text content becomes the result's
// text (one fragment per block), and isError true fails the call. It
// returns the call's status.
func (st *mcpState) toolResult(s *model.Session, p *pending, res []byte, ord int) string {
	s.JSON().Elements(s.JSON().Get(res, "content"), func(_ int, block []byte) bool {
		if !jsonscan.Equal(s.JSON().Get(block, "type"), "text") {
			return true
		}
		text := s.JSON().Get(block, "text")
		if jsonscan.Kind(text) != '"' {
			return true
		}
		if p.text == nil {
			p.text = s.NewItem(Protocol.ID(), model.RoleMessage, "content", ord)
			p.text.Response, p.text.Opened = p.resp.Index, ord
			if p.call != nil {
				p.text.Position = p.call.Position
			}
		}
		p.text.Text.AddString(ord, text)
		return true
	})
	status := model.OutcomeCompleted
	if string(s.JSON().Get(res, "isError")) == "true" {
		status = model.OutcomeFailed
		why := "isError"
		if p.text != nil {
			why += ": " + cut(p.text.Text.String(), maxReason)
		}
		p.resp.AddFinish(0, ord, why)
	}
	if p.text != nil {
		p.text.Close(ord)
		p.text.Status.Set(ord, status)
	}
	return status
}
