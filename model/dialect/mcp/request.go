package mcp

import (
	"bytes"
	"cmp"
	"net/http"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// This file reads what an MCP request body says for the request pane, the
// proxy's log and the request rules (model.RequestReader): which remote
// procedure it calls. Its tools are declared by the server (tools/list),
// not in the request: the request rules must not report its call's tool
// as undeclared.

var _ model.RequestReader = Protocol

// ReadRequest reads a JSON-RPC body: RPC names what it calls ("tools/call
// add", "initialize", "notifications/cancelled", "result for id 0"), and
// its tools are declared elsewhere (ToolsElsewhere). Any other body is
// left as ParseRequest read it.
func (*mcpDialect) ReadRequest(body []byte, r *model.Request) {
	if !bytes.Contains(body, []byte(`"jsonrpc"`)) {
		return
	}
	body = bytes.TrimSpace(body)
	var what []string
	add := func(v []byte) {
		m := ParseMessage(v)
		switch m.Kind {
		case Request, Notification:
			w := m.MethodOf()
			if w == methodToolsCall {
				if name, ok := jsonscan.String(jsonscan.Get(m.Params, "name")); ok {
					w += " " + name
				}
			}
			what = append(what, w)
		case Result, Error:
			what = append(what, m.Kind.String()+" for id "+IDText(m.ID))
		}
	}
	if jsonscan.Kind(body) == '[' {
		jsonscan.Elements(body, func(_ int, v []byte) bool { add(v); return true })
	} else {
		add(body)
	}
	if len(what) == 0 {
		return
	}
	r.RPC = strings.Join(what, ", ")
	r.ToolsElsewhere = true
}

// The links between the exchanges of one MCP session (model.Linker): a
// GET with Last-Event-ID resumes the stream that carried that event; a
// POST of notifications/cancelled cancels the request of that id; a POST
// of a response answers the request of that id the server made on an
// earlier stream. Keys name the MCP session (Mcp-Session-Id, "" for a
// stateless server), as ids repeat across sessions.

var _ model.Linker = Protocol

// keptIDs is how many of a stream's last event ids it offers to be
// resumed from: a client resumes from the last id it received, which the
// proxy between them saw last too, unless the stream was cut between them.
const keptIDs = 16

// maxMarked bounds the requests of each side an exchange offers to be
// cancelled or answered: Turns keeps the keys of tens of thousands of
// exchanges, and a batch may carry thousands of requests.
const maxMarked = 64

// The kinds of key.
const (
	keyEvent   = "event "   // an SSE event id a stream carried
	keyRequest = "request " // a request of the client's, by id
	keyServer  = "server "  // a request of the server's, by id
)

// sessionOf is the MCP session an exchange belongs to.
func sessionOf(x *capture.Exchange) string {
	if x == nil {
		return ""
	}
	return cmp.Or(x.RequestHeader.Get("Mcp-Session-Id"), x.ResponseHeader.Get("Mcp-Session-Id"))
}

// Marks lists the stream's last event ids, its requests' ids and the ids
// of the requests the server made on it.
func (*mcpDialect) Marks(s *model.Session) []string {
	st := state(s)
	if st == nil {
		return nil
	}
	sid := sessionOf(s.Exchange()) + " "
	var out []string
	for _, id := range st.recent {
		out = append(out, keyEvent+sid+id)
	}
	n := 0
	for _, p := range st.reqs {
		if !p.resp.Resumed && p.key != "" && n < maxMarked {
			out = append(out, keyRequest+sid+p.key)
			n++
		}
	}
	servers := make([]string, 0, len(st.server))
	for key := range st.server {
		servers = append(servers, keyServer+sid+key)
	}
	slices.Sort(servers) // the map's order is random: a stable list
	return append(out, servers[:min(len(servers), maxMarked)]...)
}

// Carry hands a GET that resumes the stream the requests it left
// unanswered, as a JSON array: their responses are the GET's to carry. A
// resumed stream carries on the requests it did not answer either, so a
// stream resumed twice still knows them.
func (*mcpDialect) Carry(s *model.Session) []byte {
	st := state(s)
	if st == nil {
		return nil
	}
	var out []byte
	for _, p := range st.reqs {
		if p.answered >= 0 || p.raw == nil {
			continue
		}
		if out == nil {
			out = append(out, '[')
		} else {
			out = append(out, ',')
		}
		out = append(out, p.raw...)
	}
	if out == nil {
		return nil
	}
	return append(out, ']')
}

// Wants lists what an exchange's request continues: the event a GET
// resumes after, the request a notifications/cancelled cancels, the server
// request a response answers.
func (*mcpDialect) Wants(x *capture.Exchange) []model.Want {
	sid := sessionOf(x) + " "
	if strings.EqualFold(x.Method, http.MethodGet) {
		if last := x.RequestHeader.Get("Last-Event-Id"); last != "" {
			return []model.Want{{Key: keyEvent + sid + last, Verb: "resumes"}}
		}
		return nil
	}
	var out []model.Want
	add := func(v []byte) {
		m := ParseMessage(v)
		switch {
		case m.Kind == Notification && m.MethodOf() == methodCancelled:
			if key := IDKey(jsonscan.Get(m.Params, "requestId")); key != "" {
				out = append(out, model.Want{Key: keyRequest + sid + key, Verb: "cancels"})
			}
		case m.Kind == Result || m.Kind == Error:
			if key := IDKey(m.ID); key != "" {
				out = append(out, model.Want{Key: keyServer + sid + key, Verb: "answers"})
			}
		}
	}
	body := bytes.TrimSpace(x.RequestBody)
	if !bytes.Contains(body, []byte(`"jsonrpc"`)) || jsonscan.Validate(body) != nil {
		return nil
	}
	if jsonscan.Kind(body) == '[' {
		jsonscan.Elements(body, func(_ int, v []byte) bool { add(v); return true })
	} else {
		add(body)
	}
	return out
}
