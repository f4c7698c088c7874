package proxy

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// rec is a recorded request for the matching tests.
func rec(method, target, body string) replayRequest {
	return recordedRequest(&capture.Exchange{Method: method, URL: "http://127.0.0.1:3000" + target, RequestBody: []byte(body)})
}

// live is a request as it comes, for the matching tests.
func live(method, target, body string) replayRequest {
	r := httptest.NewRequest(method, target, nil)
	return liveRequest(r, []byte(body), true, sha256.Sum256([]byte(body)))
}

func rpcBody(method, params string, id int) string {
	if params != "" {
		params = `,"params":` + params
	}
	if id < 0 {
		return `{"method":"` + method + `"` + params + `,"jsonrpc":"2.0"}`
	}
	return fmt.Sprintf(`{"method":%q%s,"jsonrpc":"2.0","id":%d}`, method, params, id)
}

// sessionOf is a session of recorded requests (bodies are not served).
func sessionOf(reuse bool, reqs ...replayRequest) *Session {
	recs := make([]*Recorded, len(reqs))
	names := make([]string, len(reqs))
	for i, r := range reqs {
		recs[i] = &Recorded{req: r}
		names[i] = fmt.Sprintf("x%d", i+1)
	}
	return NewSession(recs, names, reuse)
}

// TestSessionChoose: each request gets the first exchange not yet served
// that fits its method, path and JSON-RPC method, the closest first; and
// none when none is left, unless reuse.
func TestSessionChoose(t *testing.T) {
	t.Parallel()
	mcp := []replayRequest{
		rec("POST", "/mcp", rpcBody("initialize", `{"protocolVersion":"2025-11-25"}`, 0)),
		rec("POST", "/mcp", rpcBody("notifications/initialized", "", -1)),
		rec("GET", "/mcp", ""),
		rec("POST", "/mcp", rpcBody("tools/list", "", 1)),
		rec("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"a":2,"b":40}}`, 2)),
		rec("POST", "/mcp", rpcBody("tools/call", `{"name":"divide","arguments":{"a":1,"b":0}}`, 3)),
		rec("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"a":1,"b":1}}`, 4)),
	}
	type step struct {
		req  replayRequest
		want int // exchange index, -1 for none
	}
	tests := []struct {
		name  string
		reuse bool
		recs  []replayRequest
		steps []step
	}{
		{"mcp in order, other ids", false, mcp, []step{
			{live("POST", "/mcp", rpcBody("initialize", `{"protocolVersion":"2025-11-25"}`, 10)), 0},
			{live("POST", "/mcp", rpcBody("notifications/initialized", "", -1)), 1},
			{live("GET", "/mcp", ""), 2},
			{live("POST", "/mcp", rpcBody("tools/list", "", 11)), 3},
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"a":2,"b":40}}`, 12)), 4},
		}},
		{"the tool called chooses", false, mcp, []step{
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"divide","arguments":{"a":9,"b":0}}`, 1)), 5},
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"a":5,"b":5}}`, 2)), 4},
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"a":5,"b":5}}`, 3)), 6},
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"a":5,"b":5}}`, 4)), -1},
			{live("POST", "/mcp", rpcBody("tools/list", "", 5)), 3},
		}},
		{"the same arguments choose, the progress token aside", false, mcp, []step{
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"b":1,"a":1},"_meta":{"progressToken":9}}`, 9)), 6},
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"a":7}}`, 10)), 4},
		}},
		{"method and path must fit", false, mcp, []step{
			{live("POST", "/other", rpcBody("tools/list", "", 1)), -1},
			{live("PUT", "/mcp", rpcBody("tools/list", "", 1)), -1},
			{live("POST", "/mcp", rpcBody("resources/list", "", 1)), -1},
			{live("DELETE", "/mcp", ""), -1},
		}},
		{"reuse serves the closest served again, the latest among equals", true, mcp, []step{
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"a":2,"b":40}}`, 1)), 4},
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"a":0,"b":0}}`, 2)), 6},
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"divide","arguments":{"a":1,"b":0}}`, 3)), 5},
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"a":2,"b":40}}`, 4)), 4},
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"add","arguments":{"a":0,"b":0}}`, 5)), 6},
			{live("POST", "/mcp", rpcBody("tools/call", `{"name":"divide","arguments":{}}`, 6)), 5},
			{live("POST", "/nowhere", ""), -1},
		}},
		{"two provider steps in order", false, []replayRequest{
			rec("POST", "/v1/responses", `{"model":"gpt-4.1","input":"weather?"}`),
			rec("POST", "/v1/responses", `{"model":"gpt-4.1","input":[{"type":"function_call_output"}]}`),
		}, []step{
			{live("POST", "/v1/responses", `{"model":"gpt-4.1","input":"weather in Paris?"}`), 0},
			{live("POST", "/v1/responses", `{"model":"gpt-4.1","input":[]}`), 1},
			{live("POST", "/v1/responses", `{}`), -1},
		}},
		{"the same body chooses", false, []replayRequest{
			rec("POST", "/v1/responses", `{"input":"a"}`),
			rec("POST", "/v1/responses", `{"input":"b"}`),
		}, []step{
			{live("POST", "/v1/responses", `{"input":"b"}`), 1},
			{live("POST", "/v1/responses", `{"input":"c"}`), 0},
		}},
		{"the query only when it tells them apart", false, []replayRequest{
			rec("GET", "/v1/models?page=1", ""),
			rec("GET", "/v1/models?page=2", ""),
		}, []step{
			{live("GET", "/v1/models?page=2", ""), 1},
			{live("GET", "/v1/models?page=9", ""), 0},
			{live("GET", "/v1/models", ""), -1},
		}},
		{"streams without their request answer any, in order", false, []replayRequest{{any: true}, {any: true}}, []step{
			{live("GET", "/a", ""), 0},
			{live("POST", "/b", `{}`), 1},
			{live("POST", "/b", `{}`), -1},
		}},
		{"one exchange answers every request", false, []replayRequest{rec("POST", "/mcp", rpcBody("ping", "", 1))}, []step{
			{live("GET", "/anything", ""), 0},
			{live("POST", "/mcp", rpcBody("ping", "", 2)), 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := sessionOf(tt.reuse, tt.recs...)
			for i, st := range tt.steps {
				k, _, ok := s.choose(&st.req)
				if !ok {
					k = -1
				}
				if k != st.want {
					t.Errorf("request %d (%s %s%s) got exchange %d; want %d", i+1, st.req.method, st.req.path, rpcWords(&st.req.rpc), k, st.want)
				}
			}
		})
	}
}

// TestSessionConcurrent: requests racing for a session's exchanges get
// each exactly once (run with -race).
func TestSessionConcurrent(t *testing.T) {
	t.Parallel()
	const n = 64
	reqs := make([]replayRequest, n)
	for i := range reqs {
		reqs[i] = rec("POST", "/mcp", rpcBody("ping", "", i))
	}
	s := sessionOf(false, reqs...)
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	for i := range n + 8 {
		wg.Go(func() {
			req := live("POST", "/mcp", rpcBody("ping", "", 1000+i))
			if k, _, ok := s.choose(&req); ok {
				mu.Lock()
				got[k]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(got) != n {
		t.Errorf("%d exchanges served; want all %d", len(got), n)
	}
	for k, c := range got {
		if c != 1 {
			t.Errorf("exchange %d served %d times", k, c)
		}
	}
}

// TestReadRPC: a JSON-RPC 2.0 message is read for its method, tool, id
// and progress token; anything else is no JSON-RPC.
func TestReadRPC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body                    string
		ok                      bool
		method, name, id, token string
		sameParamsAs            string
	}{
		{`{"method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"progressToken":4}},"jsonrpc":"2.0","id":4}`, true, "tools/call", "add", "4", "4",
			`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"arguments":{"a":1},"name":"add"}}`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, true, "notifications/initialized", "", "", "", ""},
		{`{"jsonrpc":"2.0","id":0,"result":{"action":"accept"}}`, true, "", "", "0", "", ""},
		{`{"jsonrpc":"2.0","id":"a b","method":"ping"}`, true, "ping", "", `"a b"`, "", ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, false, "", "", "", "", ""},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, false, "", "", "", "", ""},
		{`{"model":"gpt-4.1"}`, false, "", "", "", "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, false, "", "", "", "", ""},
		{``, false, "", "", "", "", ""},
	}
	for _, tt := range tests {
		got := readRPC([]byte(tt.body))
		if got.ok != tt.ok || got.method != tt.method || got.name != tt.name || string(got.id) != tt.id || string(got.token) != tt.token {
			t.Errorf("readRPC(%s) = ok %v method %q name %q id %s token %s; want %v %q %q %s %s", tt.body, got.ok, got.method, got.name, got.id, got.token,
				tt.ok, tt.method, tt.name, tt.id, tt.token)
		}
		if tt.sameParamsAs != "" && readRPC([]byte(tt.sameParamsAs)).params != got.params {
			t.Errorf("readRPC(%s).params = %s; want the same as %s's", tt.body, got.params, tt.sameParamsAs)
		}
	}
}

// TestIDEdit: the response to the recorded request's id gets the live
// request's id, and progress notifications its token; every other byte,
// and every other message, is sent as recorded.
func TestIDEdit(t *testing.T) {
	t.Parallel()
	recorded := readRPC([]byte(`{"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7}},"jsonrpc":"2.0","id":7}`))
	came := readRPC([]byte(`{"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"p-2"}},"jsonrpc":"2.0","id":2}`))
	edit := idEdit(&recorded, &came)
	if edit == nil {
		t.Fatal("idEdit gave nothing to rewrite")
	}
	tests := []struct{ in, want string }{
		{"event: message\nid: e1\ndata: {\"result\":{\"n\":7},\"jsonrpc\":\"2.0\",\"id\":7}\n\n",
			"event: message\nid: e1\ndata: {\"result\":{\"n\":7},\"jsonrpc\":\"2.0\",\"id\":2}\n\n"},
		{"data:{\"jsonrpc\":\"2.0\", \"id\" : 7 ,\"error\":{\"code\":-32603}}\r\n\r\n",
			"data:{\"jsonrpc\":\"2.0\", \"id\" : 2 ,\"error\":{\"code\":-32603}}\r\n\r\n"},
		{"event: message\ndata: {\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7,\"progress\":1},\"jsonrpc\":\"2.0\"}\n\n",
			"event: message\ndata: {\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p-2\",\"progress\":1},\"jsonrpc\":\"2.0\"}\n\n"},
		// The server's own request, with the server's id: as recorded.
		{"data: {\"method\":\"elicitation/create\",\"params\":{},\"jsonrpc\":\"2.0\",\"id\":7}\n\n", ""},
		// A response to another id, or the id as a string (a defect): as recorded.
		{"data: {\"result\":{},\"jsonrpc\":\"2.0\",\"id\":8}\n\n", ""},
		{"data: {\"result\":{},\"jsonrpc\":\"2.0\",\"id\":\"7\"}\n\n", ""},
		{"id: p\nretry: 1000\ndata: \n\n", ""},
		{": keep-alive\n\n", ""},
		{"data: {\"result\":{}, \"id\":7\n\n", ""}, // cut JSON
		{`{"result":{"content":[]},"jsonrpc":"2.0","id":7}`, `{"result":{"content":[]},"jsonrpc":"2.0","id":2}`},
		{"\n {\"result\":{},\"jsonrpc\":\"2.0\",\"id\":7}\n", "\n {\"result\":{},\"jsonrpc\":\"2.0\",\"id\":2}\n"},
	}
	for _, tt := range tests {
		want := tt.want
		if want == "" {
			want = tt.in
		}
		if got := string(edit([]byte(tt.in))); got != want {
			t.Errorf("edit(%q) = %q; want %q", tt.in, got, want)
		}
	}
	same := readRPC([]byte(`{"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7}},"jsonrpc":"2.0","id":7}`))
	if idEdit(&recorded, &same) != nil {
		t.Error("idEdit rewrites a request whose id and token are the recorded ones")
	}
	other := readRPC([]byte(`{"method":"ping","jsonrpc":"2.0","id":2}`))
	if idEdit(&recorded, &other) != nil {
		t.Error("idEdit rewrites for a request of another method")
	}
}

// TestSessionHandler: the handler serves the chosen recording's bytes,
// the id rewritten, logs which exchange answered, and answers 404 with
// what was recorded when none is left.
func TestSessionHandler(t *testing.T) {
	t.Parallel()
	recording := func(body, events string) []byte {
		var b bytes.Buffer
		x := &capture.Exchange{Method: "POST", URL: "http://h/mcp", RequestBody: []byte(body), Status: 200, Proto: "HTTP/1.1",
			ResponseHeader: http.Header{"Content-Type": {"text/event-stream"}, "Mcp-Session-Id": {"s-1"}}, HeadAt: capture.NoTime}
		r := capture.NewRecorder(&b, x, capture.RecordOptions{Format: capture.FormatSSE, KeepSecrets: true})
		_ = r.Write([]byte(events), capture.NoTime)
		_ = r.Close(capture.NoTime)
		return b.Bytes()
	}
	var recs []*Recorded
	for i, m := range []string{"initialize", "tools/list"} {
		rc, err := ReplayData(m, recording(rpcBody(m, "", i), fmt.Sprintf("event: message\ndata: {\"result\":{\"m\":%q},\"jsonrpc\":\"2.0\",\"id\":%d}\n\n", m, i)))
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rc)
	}
	var logs bytes.Buffer
	o := ReplayOptions{Log: NewLog(&logs)}
	s := NewSession(recs, []string{"one\x1b[31m", "two"}, false)
	srv := httptest.NewServer(s.Handler(s.Play(recs, o), o))
	defer srv.Close()
	post := func(body string) (int, string, http.Header) {
		resp, err := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	code, body, h := post(rpcBody("tools/list", "", 41))
	if want := "event: message\ndata: {\"result\":{\"m\":\"tools/list\"},\"jsonrpc\":\"2.0\",\"id\":41}\n\n"; code != 200 || body != want || h.Get("Mcp-Session-Id") != "s-1" {
		t.Errorf("tools/list: %d %q %v; want 200 %q and the recorded session id", code, body, h, want)
	}
	code, body, _ = post(rpcBody("initialize", "", 40))
	if !strings.Contains(body, `"id":40}`) || code != 200 {
		t.Errorf("initialize: %d %q", code, body)
	}
	code, body, h = post(rpcBody("tools/list", "", 42))
	if code != 404 || h.Get("Content-Type") != "application/json" || !strings.Contains(body, `"request": "POST /mcp tools/list"`) ||
		!strings.Contains(body, `"name": "two"`) || !strings.Contains(body, `"served": true`) {
		t.Errorf("no exchange left: %d %s", code, body)
	}
	out := logs.String()
	for _, want := range []string{
		"streamtap: request #1 POST /mcp tools/list → exchange 2 of 2, two\n",
		"streamtap: request #2 POST /mcp initialize → exchange 1 of 2, one\\x1b[31m\n",
		"streamtap: request #3 POST /mcp tools/list → no recorded exchange left: 404 (the 1 that fits it was served; --reuse serves it again)\n",
		"streamtap: replay #1 POST /mcp 200 bytes=",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("the log holds a raw escape:\n%q", out)
	}
}

// FuzzSessionRPC: reading any request body as JSON-RPC and rewriting any
// chunk of a recorded body never panics, and a chunk that holds neither
// the recorded id nor the recorded token comes back as it was.
func FuzzSessionRPC(f *testing.F) {
	for _, s := range []string{
		`{"method":"tools/call","params":{"name":"add","_meta":{"progressToken":7}},"jsonrpc":"2.0","id":7}`,
		"event: message\ndata: {\"result\":{},\"jsonrpc\":\"2.0\",\"id\":7}\n\n",
		"data: {\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7},\"jsonrpc\":\"2.0\"}\r\n\r\n",
		`[{"jsonrpc":"2.0","id":7,"result":{}}]`, `{"jsonrpc":"2.0","id":7,"error":`, "data:\n\n", "",
	} {
		f.Add([]byte(s))
	}
	recorded := readRPC([]byte(`{"method":"tools/call","params":{"_meta":{"progressToken":7}},"jsonrpc":"2.0","id":7}`))
	came := readRPC([]byte(`{"method":"tools/call","params":{"_meta":{"progressToken":"p"}},"jsonrpc":"2.0","id":"q"}`))
	edit := idEdit(&recorded, &came)
	f.Fuzz(func(t *testing.T, b []byte) {
		rpc := readRPC(b)
		_ = idEdit(&recorded, &rpc)
		out := edit(b)
		if !bytes.Contains(b, []byte("7")) && !bytes.Equal(out, b) {
			t.Errorf("edit(%q) = %q; want it as it was", b, out)
		}
	})
}
