package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// mcpServer is a tiny MCP server over streamable HTTP, written from the
// transport's specification: initialize opens a session; a notification
// or a response is accepted (202); tools/call add answers at once;
// tools/call slow_count sends a priming event and its first progress,
// then closes the stream (a resumable server may), and the rest comes on
// the GET that resumes it with Last-Event-ID; DELETE ends the session.
type mcpServer struct {
	mu   sync.Mutex
	rest map[string][]string // Last-Event-ID → the events still to send
}

const mcpSession = "3b0c6a1e-5f2d-4e8a-9c71-d4a2b6e8f013"

func (ms *mcpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sse := func(events ...string) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Mcp-Session-Id", mcpSession)
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
	}
	ev := func(id, msg string) string { return "event: message\nid: " + id + "\ndata: " + msg + "\n\n" }
	switch r.Method {
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
		return
	case http.MethodGet:
		ms.mu.Lock()
		rest := ms.rest[r.Header.Get("Last-Event-Id")]
		ms.mu.Unlock()
		sse(rest...)
		return
	}
	var m struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	if json.Unmarshal(body, &m) != nil || m.ID == nil || m.Method == "" {
		w.WriteHeader(http.StatusAccepted) // a notification or a response
		return
	}
	id := string(m.ID)
	switch {
	case m.Method == "initialize":
		sse(ev("i1", `{"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"tiny","version":"1"}},"jsonrpc":"2.0","id":`+id+`}`))
	case m.Params.Name == "add":
		sse(ev("a1", `{"result":{"content":[{"type":"text","text":"42"}]},"jsonrpc":"2.0","id":`+id+`}`))
	case m.Params.Name == "slow_count":
		progress := func(n int) string {
			return fmt.Sprintf(`{"method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":2},"jsonrpc":"2.0"}`, id, n)
		}
		ms.mu.Lock()
		ms.rest = map[string][]string{"s1": {ev("s2", progress(2)), ev("s3", `{"result":{"content":[{"type":"text","text":"counted to 2"}]},"jsonrpc":"2.0","id":`+id+`}`)}}
		ms.mu.Unlock()
		sse("id: s0\nretry: 10\ndata: \n\n", ev("s1", progress(1))) // then the stream closes: resume from s1
	default:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32601,"message":"Method not found"}}`)
	}
}

// TestProxyMCP runs `streamtap proxy` in front of an MCP server and makes
// a client's requests through it: the log line of each exchange names
// what it called and reads it with the MCP dialect; the GET that resumes
// the slow call's stream is linked to it and carries its call; the
// recordings and the HAR read back to the same calls.
func TestProxyMCP(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(&mcpServer{})
	defer up.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	har, recs := filepath.Join(dir, "mcp.har"), filepath.Join(dir, "rec")

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	exit := make(chan int, 1)
	var stderr syncBuilder
	go func() {
		exit <- run(ctx, []string{"proxy", "--no-tui", "--listen", addr, "--upstream", up.URL, "--save-har", har, "--record", recs}, os.Stdin, io.Discard, &stderr)
	}()
	post := func(body string, hdr ...string) {
		t.Helper()
		var resp *http.Response
		var err error
		for deadline := time.Now().Add(10 * time.Second); ; {
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(body))
			if body == "" {
				req, _ = http.NewRequest(http.MethodGet, "http://"+addr+"/mcp", nil)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			req.Header.Set("Mcp-Session-Id", mcpSession)
			for i := 0; i+1 < len(hdr); i += 2 {
				req.Header.Set(hdr[i], hdr[i+1])
			}
			if resp, err = http.DefaultClient.Do(req); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("the proxy did not answer: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	post(`{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}},"jsonrpc":"2.0","id":0}`)
	post(`{"method":"notifications/initialized","jsonrpc":"2.0"}`)
	post(`{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}},"jsonrpc":"2.0","id":1}`)
	post(`{"method":"tools/call","params":{"name":"slow_count","arguments":{"n":2},"_meta":{"progressToken":2}},"jsonrpc":"2.0","id":2}`)
	post("", "Accept", "text/event-stream", "Last-Event-Id", "s1") // the GET that resumes it
	// The log line of an exchange is written when it ends, a moment after
	// its client read the body: wait for all five.
	for deadline := time.Now().Add(10 * time.Second); strings.Count(stderr.String(), " dialect=") < 5 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("proxy exited %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not stop")
	}

	log := stderr.String()
	for _, want := range []string{
		`#1 POST /mcp 200 rpc=initialize dialect=mcp`,
		`#2 POST /mcp 202 rpc=notifications/initialized dialect=mcp`,
		`#3 POST /mcp 200 rpc="tools/call add" dialect=mcp`,
		`#4 POST /mcp 200 rpc="tools/call slow_count" dialect=mcp`,
		`#5 GET /mcp 200 dialect=mcp`,
		` resumes=#4 `,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log has no %q:\n%s", want, log)
		}
	}
	for _, line := range strings.Split(log, "\n") {
		switch {
		case strings.HasPrefix(line, "#3 "), strings.HasPrefix(line, "#5 "):
			if !strings.Contains(line, "calls=1") || !strings.Contains(line, "outcome=completed") {
				t.Errorf("%s\nwant one call, completed", line)
			}
		case strings.HasPrefix(line, "#4 "):
			if !strings.Contains(line, "calls=1") || !strings.Contains(line, "outcome=truncated") || !strings.Contains(line, "mcp/no-response") {
				t.Errorf("%s\nwant its call, truncated, and the resumable stream's mcp/no-response", line)
			}
		}
	}

	var out strings.Builder
	if code := run(context.Background(), []string{"calls", har}, os.Stdin, &out, io.Discard); code == 2 {
		t.Fatalf("calls on the HAR: exit %d\n%s", code, out.String())
	}
	for _, want := range []string{
		"# session 5/5: GET", "· resumes #4",
		"slow_count  id 2  tools/call  completed", "text: counted to 2",
		"add  id 1  tools/call  completed", "text: 42",
		"mcp · completed (accepted: notifications/initialized) · 0 calls",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("calls on the HAR has no %q:\n%s", want, out.String())
		}
	}
	paths, _ := filepath.Glob(filepath.Join(recs, "*"))
	if len(paths) != 5 {
		t.Fatalf("%d recordings; want 5: %v", len(paths), paths)
	}
	out.Reset()
	for _, p := range paths {
		if code := run(context.Background(), []string{"calls", "--json", p}, os.Stdin, &out, io.Discard); code == 2 {
			t.Fatalf("calls %s: exit 2", p)
		}
	}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	var calls []string
	for sc.Scan() {
		var rep struct {
			Dialect string `json:"dialect"`
			Calls   []struct {
				Name, Arguments string
			} `json:"calls"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rep); err != nil || rep.Dialect != "mcp" {
			t.Fatalf("%s: %v; want an mcp report", sc.Text(), err)
		}
		for _, c := range rep.Calls {
			calls = append(calls, c.Name+c.Arguments)
		}
	}
	// The GET's recording alone has no request to link: its call is the
	// slow call's only through the proxy and the HAR.
	if want := `add{"a":2,"b":40} slow_count{"n":2}`; strings.Join(calls, " ") != want {
		t.Errorf("the recordings' calls: %q; want %q", strings.Join(calls, " "), want)
	}
}

// syncBuilder is a strings.Builder safe for the proxy's goroutines to
// write while the test reads it.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A VCR cassette of an MCP client's exchanges (vcrpy's layout) reads as
// the MCP dialect, each interaction a session: the tools/call's call and
// result, and the notification answered 202 with no body, which an
// archive keeps since the dialect reads its request.
func TestCassetteMCP(t *testing.T) {
	t.Parallel()
	cassette := writeTemp(t, "mcp.yaml", `interactions:
- request:
    method: POST
    uri: http://127.0.0.1:3000/mcp
    headers:
      content-type: [application/json]
      mcp-session-id: [`+mcpSession+`]
    body: '{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}},"jsonrpc":"2.0","id":3}'
  response:
    status: {code: 200, message: OK}
    headers:
      content-type: [text/event-stream]
      mcp-session-id: [`+mcpSession+`]
    body:
      string: "event: message\ndata: {\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"42\"}]},\"jsonrpc\":\"2.0\",\"id\":3}\n\n"
- request:
    method: POST
    uri: http://127.0.0.1:3000/mcp
    headers:
      content-type: [application/json]
      mcp-session-id: [`+mcpSession+`]
    body: '{"method":"notifications/cancelled","params":{"requestId":3},"jsonrpc":"2.0"}'
  response:
    status: {code: 202, message: Accepted}
    headers: {}
    body: {string: ''}
`)
	var out strings.Builder
	if code := run(context.Background(), []string{"calls", "--json", cassette}, os.Stdin, &out, io.Discard); code != 0 {
		t.Fatalf("calls --json: exit %d\n%s", code, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		`{"session":1,"exchange":{"method":"POST","url":"http://127.0.0.1:3000/mcp","status":200},"dialect":"mcp","calls":[{"id":"3","name":"add","arguments":"{\"a\":2,\"b\":40}","kind":"tools/call","status":"completed","choice":0,"index":0,"arguments_json":"complete","output":"{\"content\":[{\"type\":\"text\",\"text\":\"42\"}]}"}],"text":"42","outcome":{"state":"completed"}}`,
		`{"session":2,"exchange":{"method":"POST","url":"http://127.0.0.1:3000/mcp","status":202},"dialect":"mcp","calls":[],"text":"","outcome":{"state":"completed","detail":"accepted: notifications/cancelled"}}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d sessions; want %d:\n%s", len(lines), len(want), out.String())
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("session %d:\n%s\nwant\n%s", i+1, lines[i], want[i])
		}
	}
	out.Reset()
	run(context.Background(), []string{"calls", cassette}, os.Stdin, &out, io.Discard)
	if !strings.Contains(out.String(), "# session 2/2: POST http://127.0.0.1:3000/mcp 202 · cancels #1") {
		t.Errorf("the cancel's header does not say it cancels #1:\n%s", out.String())
	}
}

// streamtap request against an MCP server: its own request body is the
// call the stream answers.
func TestRequestMCP(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(&mcpServer{})
	defer up.Close()
	var out, errs strings.Builder
	code := run(context.Background(), []string{"request", up.URL + "/mcp", "--json",
		"-H", "Accept: application/json, text/event-stream", "-H", "Mcp-Session-Id: " + mcpSession,
		"-d", `{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}},"jsonrpc":"2.0","id":1}`}, os.Stdin, &out, &errs)
	want := `{"dialect":"mcp","calls":[{"id":"1","name":"add","arguments":"{\"a\":2,\"b\":40}","kind":"tools/call","status":"completed","choice":0,"index":0,"arguments_json":"complete","output":"{\"content\":[{\"type\":\"text\",\"text\":\"42\"}]}"}],"text":"42","outcome":{"state":"completed"}}`
	if code != 0 || strings.TrimSpace(out.String()) != want {
		t.Errorf("request: exit %d\n%s\nwant\n%s\n%s", code, out.String(), want, errs.String())
	}
}
