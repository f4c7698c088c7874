package mcp_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/dialect/mcp"
)

const sid = "9f0d5082-6ab3-4f98-aa8a-3e8c225241da"

// rec is a timed recording of one exchange with an MCP server, as the
// proxy writes it: method, request body ("" for none), the response's
// status line and content type ("" for none), and its body.
func rec(method, req, status, ctype, body string, reqHeaders ...string) string {
	var b strings.Builder
	b.WriteString(": streamtap-recording v1\n: request " + method + " http://127.0.0.1:3000/mcp\n")
	b.WriteString(": request-header Mcp-Session-Id: " + sid + "\n")
	for _, h := range reqHeaders {
		b.WriteString(": request-header " + h + "\n")
	}
	if req != "" {
		b.WriteString(": request-body " + req + "\n")
	}
	b.WriteString(": response HTTP/1.1 " + status + "\n")
	if ctype != "" {
		b.WriteString(": response-header Content-Type: " + ctype + "\n")
	}
	b.WriteString("\n" + body)
	return b.String()
}

// sse is events: each message an "event: message" with data.
func sse(msgs ...string) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("event: message\ndata: " + m + "\n\n")
	}
	return b.String()
}

func call(id, name, args string) string {
	return `{"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,"_meta":{"progressToken":` + id + `}},"jsonrpc":"2.0","id":` + id + `}`
}

func result(id, text string) string {
	return `{"result":{"content":[{"type":"text","text":"` + text + `"}]},"jsonrpc":"2.0","id":` + id + `}`
}

// read assembles a stream with the checks attached.
func read(data string, opts model.Options) (*model.Session, checks.Report) {
	opts, c := checks.Attach(opts)
	s := model.Assemble([]byte(data), capture.FormatAuto, opts)
	return s, c.Report(s, checks.Strict)
}

func rules(rep checks.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Rule)
	}
	return out
}

// TestExchanges reads one exchange of each kind the transport has: what
// the session makes of it (its dialect, calls, text, outcome) and what
// the rules say.
func TestExchanges(t *testing.T) {
	tests := []struct {
		name           string
		in             string
		calls          []string // id name arguments status, each
		text           string
		state, detail  string
		findings       []string
		opts           model.Options
		wantNoDialect  bool
		wantEventTypes []string
	}{
		{
			name:     "a call answered in a JSON body",
			in:       rec("POST", call("3", "add", `{"a":2,"b":40}`), "200 OK", "application/json", result("3", "42")),
			calls:    []string{`3 add {"a":2,"b":40} completed`},
			text:     "42",
			state:    "completed",
			findings: nil,
		},
		{
			name: "a batch of two calls answered on one stream",
			in: rec("POST", "["+call("1", "a", "{}")+","+call("2", "b", `{"x":1}`)+"]", "200 OK", "text/event-stream",
				sse(result("2", "B"), result("1", "A"))),
			calls: []string{"1 a {} completed", `2 b {"x":1} completed`},
			text:  "AB", // in request order, as calls are reported
			state: "completed",
		},
		{
			name: "a batch answered by one JSON array",
			in: rec("POST", "["+call("1", "a", "{}")+","+call("2", "b", `{}`)+"]", "200 OK", "application/json",
				"["+result("1", "A")+","+result("2", "B")+"]"),
			calls:          []string{"1 a {} completed", "2 b {} completed"},
			text:           "AB",
			state:          "completed",
			wantEventTypes: []string{"(http)", "(batch)"},
		},
		{
			name:   "a notification, answered 202",
			in:     rec("POST", `{"method":"notifications/initialized","jsonrpc":"2.0"}`, "202 Accepted", "", ""),
			state:  "completed",
			detail: "accepted: notifications/initialized",
		},
		{
			name:   "the client's answer to an elicitation, answered 202",
			in:     rec("POST", `{"result":{"action":"accept","content":{"confirm":true}},"jsonrpc":"2.0","id":0}`, "202 Accepted", "", ""),
			state:  "completed",
			detail: "accepted: result for id 0",
		},
		{
			name:   "DELETE",
			in:     rec("DELETE", "", "200 OK", "", ""),
			state:  "completed",
			detail: "session deleted",
		},
		{
			name:  "the GET stream: server messages tied to no request",
			in:    rec("GET", "", "200 OK", "text/event-stream", sse(`{"method":"notifications/tools/list_changed","jsonrpc":"2.0"}`)),
			state: "completed",
		},
		{
			name:     "a GET refused: the server has no stream to offer",
			in:       rec("GET", "", "405 Method Not Allowed", "application/json", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}`),
			state:    "error",
			detail:   "-32000: Method not allowed.",
			findings: []string{"framing/error-payload"},
		},
		{
			name: "an unknown session, before any stream",
			in: rec("POST", call("3", "add", "{}"), "404 Not Found", "application/json",
				`{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`),
			calls:    []string{"3 add {} incomplete"},
			state:    "error",
			findings: []string{"framing/error-payload"},
		},
		{
			name:  "string ids",
			in:    rec("POST", strings.ReplaceAll(call("1", "add", "{}"), `:1`, `:"req-1"`), "200 OK", "text/event-stream", sse(result(`"req-1"`, "2"))),
			calls: []string{"req-1 add {} completed"},
			text:  "2",
			state: "completed",
		},
		{
			name:  "a tools/call without arguments",
			in:    rec("POST", `{"method":"tools/call","params":{"name":"now"},"jsonrpc":"2.0","id":4}`, "200 OK", "text/event-stream", sse(result("4", "noon"))),
			calls: []string{"4 now  completed"},
			text:  "noon",
			state: "completed",
		},
		{
			name:  "a body read without its request",
			in:    sse(result("3", "42")),
			text:  "42",
			state: "completed",
		},
		{
			name:  "a body read without its request, cut after progress",
			in:    "id: p\ndata: \n\n" + sse(`{"method":"notifications/progress","params":{"progressToken":3,"progress":1},"jsonrpc":"2.0"}`),
			state: "truncated",
		},
		{
			name:  "a body with its request given (--request)",
			in:    sse(result("3", "42")),
			opts:  model.Options{Exchange: &capture.Exchange{Method: "POST", RequestBody: []byte(call("3", "add", `{"a":2,"b":40}`))}},
			calls: []string{`3 add {"a":2,"b":40} completed`},
			text:  "42",
			state: "completed",
		},
		{
			name: "a request body the proxy cut: its requests are not known",
			in: strings.Replace(rec("POST", call("3", "add", `{"a":2,"b":40}`)[:40], "200 OK", "text/event-stream", sse(result("3", "42"))),
				": response", ": request-body-size 180\n: response", 1),
			text:  "42",
			state: "completed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.KeepEvents = true
			s, rep := read(tt.in, tt.opts)
			r := s.Report()
			if r.Dialect != "mcp" {
				t.Errorf("dialect = %s; want mcp", r.Dialect)
			}
			var calls []string
			for _, c := range r.Calls {
				calls = append(calls, strings.Join([]string{deref(c.ID).(string), c.Name, c.Arguments, c.Status}, " "))
			}
			if !slices.Equal(calls, tt.calls) {
				t.Errorf("calls = %q; want %q", calls, tt.calls)
			}
			if r.Text != tt.text {
				t.Errorf("text = %q; want %q", r.Text, tt.text)
			}
			if o := s.Outcome(); o.State != tt.state || !strings.HasPrefix(o.Detail, tt.detail) {
				t.Errorf("outcome = %s (%s); want %s (%s)", o.State, o.Detail, tt.state, tt.detail)
			}
			if got := rules(rep); !slices.Equal(got, tt.findings) {
				t.Errorf("findings = %v; want %v", rep.Findings, tt.findings)
			}
			if tt.wantEventTypes != nil {
				var types []string
				for i := range s.Len() {
					types = append(types, s.TypeName(s.Events.At(i).Type))
				}
				if !slices.Equal(types, tt.wantEventTypes) {
					t.Errorf("event types = %q; want %q", types, tt.wantEventTypes)
				}
			}
		})
	}
}

// TestCallAsOf: a call's status over its stream, as the inspector shows
// it as of each event: waiting for the client's answer to an elicitation
// (input_required), then completed by its result.
func TestCallAsOf(t *testing.T) {
	in := rec("POST", call("13", "confirm_delete", `{"path":"a.md"}`), "200 OK", "text/event-stream",
		"id: p0\ndata: \n\n"+sse(
			`{"method":"notifications/progress","params":{"progressToken":13,"progress":1},"jsonrpc":"2.0"}`,
			`{"method":"elicitation/create","params":{"message":"Delete a.md?","requestedSchema":{"type":"object"}},"jsonrpc":"2.0","id":0}`,
			result("13", "deleted a.md")))
	s, rep := read(in, model.Options{KeepEvents: true})
	if len(rep.Findings) != 0 {
		t.Errorf("findings = %v; want none", rep.Findings)
	}
	it := s.Calls()[0]
	for ord, want := range []string{"in_progress", "in_progress", "in_progress", "input_required", "completed"} {
		if got := it.Status.AsOf(ord); got != want {
			t.Errorf("status as of event %d = %q; want %q", ord, got, want)
		}
	}
	for ord, want := range []string{"(http)", "(priming)", "notifications/progress", "elicitation/create", "result"} {
		ev := s.Events.At(ord)
		if got := s.TypeName(ev.Type); got != want {
			t.Errorf("event %d is %q; want %q", ord, got, want)
		}
		if ord >= 2 && int(ev.Item) != it.Index {
			t.Errorf("event %d is not tied to the call", ord)
		}
	}
	if sh := s.Shape(s.Events.At(4), 4, nil); sh.String() != "result/tools/call" {
		t.Errorf("the result's shape = %s; want result/tools/call", sh)
	}
}

// TestPrimingClaimed: an SSE id with empty data is MCP's priming event in
// an MCP stream, or at the start of one read without its request; in
// another dialect's stream it stays empty data, which the transport's
// rule reports.
func TestPrimingClaimed(t *testing.T) {
	chat := `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}` + "\n\n" +
		"id: 7\ndata: \n\n" +
		`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	_, rep := read(chat, model.Options{})
	if !slices.Contains(rules(rep), "framing/empty-data") {
		t.Errorf("a Chat stream's empty data: findings %v; want framing/empty-data", rep.Findings)
	}
	s, rep := read("id: p0\nretry: 250\ndata: \n\n"+sse(result("1", "x")), model.Options{KeepEvents: true})
	if ev := s.Events.At(0); ev.Dialect.String() != "mcp" || ev.Kind != model.KindKeepalive || slices.Contains(rules(rep), "framing/empty-data") {
		t.Errorf("the priming event: %s %s, findings %v; want mcp keepalive, no framing/empty-data", ev.Dialect, ev.Kind, rep.Findings)
	}
}

// TestClaimRequest: which requests are MCP's.
func TestClaimRequest(t *testing.T) {
	tests := []struct {
		name string
		x    capture.Exchange
		want bool
	}{
		{"a tools/call", capture.Exchange{Method: "POST", RequestBody: []byte(call("1", "a", "{}"))}, true},
		{"a batch", capture.Exchange{Method: "POST", RequestBody: []byte("[" + call("1", "a", "{}") + "]")}, true},
		{"a GET with the session", capture.Exchange{Method: "GET", RequestHeader: http.Header{"Mcp-Session-Id": {sid}}}, true},
		{"a DELETE with the protocol version", capture.Exchange{Method: "DELETE", RequestHeader: http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}}, true},
		{"a Chat request", capture.Exchange{Method: "POST", RequestBody: []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"jsonrpc"}]}`)}, false},
		{"a body that names jsonrpc inside", capture.Exchange{Method: "POST", RequestBody: []byte(`{"model":"m","input":"{\"jsonrpc\":\"2.0\"}"}`)}, false},
		{"not JSON", capture.Exchange{Method: "POST", RequestBody: []byte(`"jsonrpc" {`)}, false},
		{"a plain GET", capture.Exchange{Method: "GET"}, false},
	}
	for _, tt := range tests {
		s := model.NewSession(model.Options{Exchange: &tt.x})
		if got := s.RequestDialect().String() == "mcp"; got != tt.want {
			t.Errorf("%s: claimed %v; want %v", tt.name, got, tt.want)
		}
	}
}

// TestLinks: the exchanges of one MCP session link as the proxy and an
// archive link them: a GET with Last-Event-ID resumes the stream that
// carried that event and answers its request; a cancel cancels the
// request's exchange; a POST of a response answers the server's request.
func TestLinks(t *testing.T) {
	var turns model.Turns
	add := func(id int, data string) (*model.Session, model.ExchangeLink) {
		t.Helper()
		r, err := capture.ParseRecording([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		link := turns.LinkExchange(&r.Exchange)
		s, _ := read(data, model.Options{Exchange: &r.Exchange, Earlier: link.Earlier})
		turns.Add(id, s)
		return s, link
	}
	progress := func(n int) string {
		return `{"method":"notifications/progress","params":{"progressToken":16,"progress":` + string(rune('0'+n)) + `},"jsonrpc":"2.0"}`
	}
	add(1, rec("POST", call("16", "slow_count", `{"n":2}`), "200 OK", "text/event-stream",
		"id: a0\ndata: \n\nevent: message\nid: a1\ndata: "+progress(1)+"\n\n"+
			"event: message\nid: a2\ndata: "+`{"method":"elicitation/create","params":{"message":"ok?"},"jsonrpc":"2.0","id":0}`+"\n\n"))
	_, l2 := add(2, rec("POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":16,"reason":"stop"}}`, "202 Accepted", "", ""))
	_, l3 := add(3, rec("POST", `{"result":{"action":"accept"},"jsonrpc":"2.0","id":0}`, "202 Accepted", "", ""))
	s4, l4 := add(4, rec("GET", "", "200 OK", "text/event-stream",
		"event: message\nid: a1\ndata: "+progress(1)+"\n\nevent: message\nid: a3\ndata: "+progress(2)+"\n\nevent: message\nid: a4\ndata: "+result("16", "counted to 2")+"\n\n",
		"Last-Event-Id: a2"))
	for _, l := range []struct {
		got        model.ExchangeLink
		prev       int
		verb, name string
	}{{l2, 1, "cancels", "the cancel"}, {l3, 1, "answers", "the elicitation's answer"}, {l4, 1, "resumes", "the GET"}} {
		if l.got.Prev != l.prev || l.got.Verb != l.verb {
			t.Errorf("%s links %d %q; want %d %q", l.name, l.got.Prev, l.got.Verb, l.prev, l.verb)
		}
	}
	r := s4.Report()
	if len(r.Calls) != 1 || r.Calls[0].Name != "slow_count" || r.Calls[0].Status != "completed" || r.Text != "counted to 2" {
		t.Errorf("the resumed stream reads %+v, text %q; want slow_count completed, counted to 2", r.Calls, r.Text)
	}
	_, rep := read(rec("GET", "", "200 OK", "text/event-stream",
		"event: message\nid: a1\ndata: "+progress(1)+"\n\n", "Last-Event-Id: a2"), model.Options{Earlier: l4.Earlier})
	if !slices.Contains(rules(rep), "mcp/resume-replayed") {
		t.Errorf("a replayed event: findings %v; want mcp/resume-replayed", rep.Findings)
	}
	if turns.LinkExchange(&capture.Exchange{Method: "GET", RequestHeader: http.Header{"Mcp-Session-Id": {"another"}, "Last-Event-Id": {"a2"}}}).Prev != 0 {
		t.Error("a GET of another MCP session links to this one's stream")
	}

	// A stream resumed twice: the second GET resumes the first, which
	// was cut too, and still answers the POST's call.
	add(5, rec("POST", call("20", "slow_count", `{"n":3}`), "200 OK", "text/event-stream", "event: message\nid: b1\ndata: "+progress(1)+"\n\n"))
	add(6, rec("GET", "", "200 OK", "text/event-stream", "event: message\nid: b2\ndata: "+progress(2)+"\n\n", "Last-Event-Id: b1"))
	s7, l7 := add(7, rec("GET", "", "200 OK", "text/event-stream", "event: message\nid: b3\ndata: "+result("20", "counted to 3")+"\n\n", "Last-Event-Id: b2"))
	if r := s7.Report(); l7.Prev != 6 || len(r.Calls) != 1 || r.Calls[0].Name != "slow_count" || r.Text != "counted to 3" {
		t.Errorf("the second resumption (of #%d) reads %+v, text %q; want #6's, slow_count's result", l7.Prev, r.Calls, r.Text)
	}
	// A stream that ended with its response, resumed all the same (the
	// TypeScript SDK 1.x resumes a stream that ended with an error): the
	// GET answers nothing, and carries no call.
	add(8, rec("POST", call("21", "needs_login", `{}`), "200 OK", "text/event-stream",
		"event: message\nid: c1\ndata: "+`{"jsonrpc":"2.0","id":21,"error":{"code":-32042,"message":"Login required"}}`+"\n\n"))
	s9, l9 := add(9, rec("GET", "", "200 OK", "text/event-stream", "", "Last-Event-Id: c1"))
	if r := s9.Report(); l9.Prev != 8 || len(r.Calls) != 0 || s9.Outcome().State != "completed" {
		t.Errorf("a GET that resumes an answered stream (of #%d) reads %+v, %s; want #8's, no call, completed", l9.Prev, r.Calls, s9.Outcome().State)
	}
}

// TestMessage classifies JSON-RPC messages.
func TestMessage(t *testing.T) {
	tests := []struct {
		in   string
		want mcp.Kind
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, mcp.Request},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, mcp.Notification},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, mcp.Result},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, mcp.Error},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, mcp.Error},
		{`{}`, mcp.Invalid},
		{`{"jsonrpc":"1.0","id":1,"result":{}}`, mcp.Invalid},
		{`{"jsonrpc":2.0,"id":1,"result":{}}`, mcp.Invalid},
		{`{"jsonrpc":"2.0","id":1,"result":{},"error":{}}`, mcp.Invalid},
		{`{"jsonrpc":"2.0","result":{}}`, mcp.Invalid},
		{`{"jsonrpc":"2.0","id":{},"method":"x"}`, mcp.Invalid},
		{`{"jsonrpc":"2.0","method":7}`, mcp.Invalid},
		{`{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, mcp.Invalid},
		{`[1]`, mcp.Invalid},
		{`{"jsonrpc"`, mcp.Invalid},
	}
	for _, tt := range tests {
		if got := mcp.ParseMessage([]byte(tt.in)); got.Kind != tt.want {
			t.Errorf("ParseMessage(%s) = %s (%s); want %s", tt.in, got.Kind, got.Why, tt.want)
		}
	}
	for _, ids := range [][2]string{{`1`, `1.0`}, {`1`, `1e0`}} {
		if mcp.IDKey([]byte(ids[0])) != mcp.IDKey([]byte(ids[1])) {
			t.Errorf("ids %s and %s are one number but two keys", ids[0], ids[1])
		}
	}
	if mcp.IDKey([]byte(`1`)) == mcp.IDKey([]byte(`"1"`)) {
		t.Error(`ids 1 and "1" share a key`)
	}
}

// FuzzMCP: any request and response body read as an MCP exchange never
// panics, and its calls report is valid JSON.
func FuzzMCP(f *testing.F) {
	f.Add(call("3", "add", `{"a":1}`), "id: p\ndata: \n\n"+sse(`{"method":"notifications/progress","params":{"progressToken":3,"progress":1},"jsonrpc":"2.0"}`, result("3", "x")))
	f.Add("["+call("1", "a", "{}")+"]", "["+result("1", "x")+`,{}]`)
	f.Add(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`, "")
	f.Add(call("0", "x", "{}"), sse(`{"jsonrpc":"2.0","id":0,"error":{"code":"x"}}`, `{"jsonrpc":"2.0","id":0,"result":{"isError":true}}`, `{}`))
	f.Fuzz(func(t *testing.T, req, body string) {
		for _, method := range []string{"POST", "GET"} {
			x := &capture.Exchange{Method: method, RequestBody: []byte(req),
				RequestHeader: http.Header{"Mcp-Session-Id": {sid}, "Last-Event-Id": {"p"}}}
			earlier := model.Earlier{Exchange: &capture.Exchange{Method: "POST", RequestBody: []byte(req)}, Marks: []string{"event " + sid + " p"},
				Carry: []byte("[" + req + "]")}
			s, _ := read(body, model.Options{KeepEvents: true, Exchange: x, Earlier: earlier})
			var b bytes.Buffer
			if err := s.WriteReportJSON(&b); err != nil || !json.Valid(b.Bytes()) {
				t.Fatalf("report %q: %v", b.Bytes(), err)
			}
			for i := range s.Len() {
				ev := s.Events.At(i)
				if _, ok := model.Explain(s.Shape(ev, i, nil)); !ok && ev.Dialect.String() == "mcp" {
					t.Fatalf("event %d (%s) has no explanation", i, s.Shape(ev, i, nil))
				}
			}
		}
	})
}

// BenchmarkBatch reads a batch of 2,000 calls, each with its progress and
// its result: the cost per message stays flat however many requests the
// stream carries (no walk over them per message).
func BenchmarkBatch(b *testing.B) {
	const n = 2000
	var req, body strings.Builder
	req.WriteString("[")
	for i := range n {
		id := strconv.Itoa(i + 1)
		if i > 0 {
			req.WriteString(",")
		}
		req.WriteString(call(id, "f", `{"i":`+id+`}`))
		body.WriteString(sse(`{"method":"notifications/progress","params":{"progressToken":`+id+`,"progress":1},"jsonrpc":"2.0"}`, result(id, "ok")))
	}
	req.WriteString("]")
	x := &capture.Exchange{Method: "POST", RequestBody: []byte(req.String())}
	data := []byte(body.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s, _ := read(string(data), model.Options{Exchange: x})
		if len(s.Calls()) != n {
			b.Fatalf("%d calls", len(s.Calls()))
		}
	}
}
