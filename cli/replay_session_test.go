package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
)

// mcpSessionDir is docs/examples/mcp-session: initialize, the initialized
// notification, a GET answered 405, tools/list, and the sample
// mcp-tools-call-progress as the tools/call.
func mcpSessionDir() string { return fixtures.Path("docs/examples/mcp-session") }

// sessionClient sends requests to a replayed session on fresh connections.
type sessionClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newSessionClient(t *testing.T, base string) *sessionClient {
	return &sessionClient{t: t, base: base, c: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
}

// do sends method path with body (none when "") and reads the whole
// answer.
func (sc *sessionClient) do(method, path, body string) (*http.Response, string) {
	sc.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, sc.base+path, rd)
	if err != nil {
		sc.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := sc.c.Do(req)
	if err != nil {
		sc.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		sc.t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	return resp, string(b)
}

// speakMCP runs an MCP client's session against base, as the TypeScript
// SDK's Client speaks it (its own ids, 0 on), and checks each answer.
func speakMCP(t *testing.T, base string) {
	t.Helper()
	sc := newSessionClient(t, base)
	resp, body := sc.do("POST", "/mcp", `{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}},"jsonrpc":"2.0","id":0}`)
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") != "4c1e8a52-9d3b-4f0e-a7c2-61b5e0d93f28" || !strings.Contains(body, `"serverInfo":{"name":"billing-tools"`) {
		t.Errorf("initialize: %d %v\n%s", resp.StatusCode, resp.Header, body)
	}
	if resp, body = sc.do("POST", "/mcp", `{"method":"notifications/initialized","jsonrpc":"2.0"}`); resp.StatusCode != 202 || body != "" {
		t.Errorf("notifications/initialized: %d %q; want 202 and no body", resp.StatusCode, body)
	}
	if resp, _ = sc.do("GET", "/mcp", ""); resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST, DELETE" {
		t.Errorf("GET: %d %v; want the recorded 405", resp.StatusCode, resp.Header)
	}
	if resp, body = sc.do("POST", "/mcp", `{"method":"tools/list","jsonrpc":"2.0","id":1}`); resp.StatusCode != 200 ||
		!strings.HasSuffix(body, `"required":["repo"]}}]},"jsonrpc":"2.0","id":1}`+"\n\n") {
		t.Errorf("tools/list: %d\n%s", resp.StatusCode, body)
	}
	// The recorded call was id 7 with progress token 7: the answer is
	// this client's 2 and "t-2".
	call := `{"method":"tools/call","params":{"name":"index_repository","arguments":{"repo":"acme/billing-service","paths":["src/","docs/"]},"_meta":{"progressToken":"t-2"}},"jsonrpc":"2.0","id":2}`
	resp, body = sc.do("POST", "/mcp", call)
	rec, err := os.ReadFile(fixtures.Path("samples/mcp-tools-call-progress.sse"))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := capture.ParseRecording(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(string(parsed.Bytes()), `"progressToken":7`, `"progressToken":"t-2"`)
	want = strings.ReplaceAll(want, `"jsonrpc":"2.0","id":7}`, `"jsonrpc":"2.0","id":2}`)
	if resp.StatusCode != 200 || body != want {
		t.Errorf("tools/call: %d\n%s\nwant\n%s", resp.StatusCode, body, want)
	}
	resp, body = sc.do("POST", "/mcp", strings.Replace(call, `"id":2`, `"id":3`, 1))
	var refused struct {
		Error    string `json:"error"`
		Request  string `json:"request"`
		Recorded []struct {
			Exchange int    `json:"exchange"`
			RPC      string `json:"rpc"`
			Served   bool   `json:"served"`
		} `json:"recorded"`
	}
	if err := json.Unmarshal([]byte(body), &refused); err != nil || resp.StatusCode != 404 || len(refused.Recorded) != 5 ||
		refused.Request != "POST /mcp tools/call index_repository" || refused.Recorded[4].RPC != "tools/call index_repository" || !refused.Recorded[4].Served {
		t.Errorf("a second tools/call: %d %v\n%s; want 404 and what was recorded", resp.StatusCode, err, body)
	}
}

// TestReplaySessionMCP: an MCP client's session (its own ids) against a
// directory of recordings as proxy --record writes it, and against the
// same exchanges in a HAR: each request gets its exchange, and stderr
// says which.
func TestReplaySessionMCP(t *testing.T) {
	t.Parallel()
	t.Run("directory", func(t *testing.T) {
		t.Parallel()
		base, stop := brokenReplay(t, mcpSessionDir(), "--speed", "20")
		speakMCP(t, base)
		log := stop()
		stderrHolds(t, log,
			"streamtap: replaying a session of 5 exchanges on http://",
			"streamtap: request #1 POST /mcp initialize → exchange 1 of 5, 20261124T094106-0001-POST-mcp.sse\n",
			"streamtap: request #3 GET /mcp → exchange 3 of 5, 20261124T094106-0003-GET-mcp.sse\n",
			"streamtap: request #5 POST /mcp tools/call index_repository → exchange 5 of 5, 20261124T094107-0005-POST-mcp.sse\n",
			"streamtap: replay #5 POST /mcp 200 bytes=",
			"streamtap: request #6 POST /mcp tools/call index_repository → no recorded exchange left: 404 (the 1 that fits it was served; --reuse serves it again)\n",
		)
	})
	t.Run("HAR", func(t *testing.T) {
		t.Parallel()
		har := harOf(t, mcpSessionDir())
		base, stop := brokenReplay(t, har, "--speed", "20")
		speakMCP(t, base)
		if log := stop(); !strings.Contains(log, "streamtap: request #5 POST /mcp tools/call index_repository → exchange 5 of 5, session.har #5\n") {
			t.Errorf("stderr does not name the HAR's entry:\n%s", log)
		}
	})
	t.Run("reuse", func(t *testing.T) {
		t.Parallel()
		base, stop := brokenReplay(t, mcpSessionDir(), "--speed", "20", "--reuse")
		sc := newSessionClient(t, base)
		for i := range 3 {
			resp, body := sc.do("POST", "/mcp", fmt.Sprintf(`{"method":"tools/list","jsonrpc":"2.0","id":%d}`, 10+i))
			if resp.StatusCode != 200 || !strings.Contains(body, fmt.Sprintf(`"id":%d}`, 10+i)) {
				t.Errorf("tools/list %d: %d %s", i+1, resp.StatusCode, body)
			}
		}
		if log := stop(); !strings.Contains(log, "streamtap: request #3 POST /mcp tools/list → exchange 4 of 5, 20261124T094106-0004-POST-mcp.sse (again)\n") {
			t.Errorf("stderr does not say the exchange was served again:\n%s", log)
		}
	})
}

// harOf writes the recordings of dir into a HAR, as proxy --save-har
// would have, and returns its path.
func harOf(t *testing.T, dir string) string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	h := capture.NewHAR(&out, capture.HAROptions{KeepSecrets: true})
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := capture.NewRecordingReader(f)
		if err != nil {
			t.Fatal(err)
		}
		x := *rr.Exchange()
		e := h.Entry(&x)
		for {
			c, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Write(c.Data, c.At); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(capture.NoTime); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "session.har")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplaySessionSteps: streams without their request (plain files)
// are served in the order named, one each; a cassette's exchanges by
// their paths.
func TestReplaySessionSteps(t *testing.T) {
	t.Parallel()
	t.Run("plain streams", func(t *testing.T) {
		t.Parallel()
		step1, step2 := fixtures.Path("docs/examples/legs-step1.sse"), fixtures.Path("docs/examples/legs-step2.sse")
		base, stop := brokenReplay(t, step1, step2)
		sc := newSessionClient(t, base)
		for i, path := range []string{step1, step2} {
			want, _ := os.ReadFile(path)
			if resp, body := sc.do("POST", "/v1/messages", `{"model":"claude-sonnet-4-5","stream":true}`); resp.StatusCode != 200 || body != string(want) {
				t.Errorf("request %d: %d, %d bytes; want %s", i+1, resp.StatusCode, len(body), filepath.Base(path))
			}
		}
		if resp, _ := sc.do("POST", "/v1/messages", `{}`); resp.StatusCode != 404 {
			t.Errorf("request 3: %d; want 404", resp.StatusCode)
		}
		stop()
	})
	t.Run("cassette", func(t *testing.T) {
		t.Parallel()
		base, stop := brokenReplay(t, fixtures.Path("docs/examples/recordings/agent/cassette.yaml"))
		sc := newSessionClient(t, base)
		resp, body := sc.do("POST", "/v1/responses", `{}`)
		if resp.StatusCode != 200 || !strings.Contains(body, "response.completed") {
			t.Errorf("/v1/responses: %d\n%s", resp.StatusCode, body)
		}
		resp, body = sc.do("POST", "/v1/chat/completions", `{}`)
		if resp.StatusCode != 200 || !strings.Contains(body, `"tool_calls"`) {
			t.Errorf("/v1/chat/completions: %d\n%s", resp.StatusCode, body)
		}
		if log := stop(); !strings.Contains(log, "request #1 POST /v1/responses → exchange 2 of 2, cassette.yaml #2") {
			t.Errorf("stderr:\n%s", log)
		}
	})
}

// TestReplaySessionBroken: faults and defects act per request on a
// session. A status fault answers the first request, which takes no
// exchange: the second gets the first; a defect acts on each exchange
// whose dialect it fits, the others served as recorded.
func TestReplaySessionBroken(t *testing.T) {
	t.Parallel()
	t.Run("status", func(t *testing.T) {
		t.Parallel()
		base, stop := brokenReplay(t, mcpSessionDir(), "--speed", "20", "--fault", "status:503")
		sc := newSessionClient(t, base)
		initialize := `{"method":"initialize","params":{},"jsonrpc":"2.0","id":0}`
		if resp, _ := sc.do("POST", "/mcp", initialize); resp.StatusCode != 503 {
			t.Errorf("request 1: %d; want the fault's 503", resp.StatusCode)
		}
		if resp, body := sc.do("POST", "/mcp", initialize); resp.StatusCode != 200 || !strings.Contains(body, "billing-tools") {
			t.Errorf("request 2: %d %s; want the recorded initialize", resp.StatusCode, body)
		}
		log := stop()
		stderrHolds(t, log, "request #1: status:503", "request #2 POST /mcp initialize → exchange 1 of 5")
	})
	t.Run("inject", func(t *testing.T) {
		t.Parallel()
		base, stop := brokenReplay(t, mcpSessionDir(), "--speed", "20", "--inject", "tool-error")
		sc := newSessionClient(t, base)
		if _, body := sc.do("POST", "/mcp", `{"method":"tools/list","jsonrpc":"2.0","id":1}`); !strings.Contains(body, `"tools":[{"name":"index_repository"`) {
			t.Errorf("tools/list is not served as recorded:\n%s", body)
		}
		_, body := sc.do("POST", "/mcp", `{"method":"tools/call","params":{"name":"index_repository","arguments":{}},"jsonrpc":"2.0","id":2}`)
		if !strings.Contains(body, `"isError":true`) || !strings.Contains(body, `"id":2}`) {
			t.Errorf("tools/call lacks the injected tool error, or its id:\n%s", body)
		}
		log := stop()
		stderrHolds(t, log,
			"streamtap replay: 20261124T094107-0005-POST-mcp.sse:\nstreamtap inject: tool-error (mcp, ",
			"streamtap replay: tool-error acted on 1 of 5 exchanges; the others are served as recorded",
		)
	})
	t.Run("a defect no exchange fits", func(t *testing.T) {
		t.Parallel()
		code, _, stderr := runCLI(t, nil, "replay", "--listen", "127.0.0.1:0", mcpSessionDir(), "--inject", "crc")
		if code != 2 || !strings.Contains(stderr, "crc fits none of the 5 exchanges") {
			t.Errorf("replay = %d, %s", code, stderr)
		}
	})
}

// TestReplaySessionUsage: several inputs need --listen; --reuse needs a
// session.
func TestReplaySessionUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", mcpSessionDir(), mcpSessionDir()}, "several (a session) are served with --listen ADDR"},
		{[]string{"replay", "--listen", "127.0.0.1:0", "--reuse", fixtures.Path("samples/chat-single-call.sse")}, "--reuse serves a session's exchanges again"},
		{[]string{"replay", "--listen", "127.0.0.1:0", filepath.Join(t.TempDir(), "none.sse"), mcpSessionDir()}, "none.sse"},
		{[]string{"replay", "--listen", "127.0.0.1:0", t.TempDir()}, "no recordings in it"},
	} {
		code, _, stderr := runCLI(t, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v = %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// sharedApp is ../shared/captures-app, or a skip.
func sharedApp(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(fixtures.Root(), "..", "shared", "captures-app", dir)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("../shared/captures-app is absent: %v", err)
	}
	return path
}

// TestReplaySessionSharedMCP replays the real stateful MCP session of
// ../shared/captures-app (the TypeScript SDK 1.32.2 against its server):
// each recorded request, sent again in order with other ids, gets the
// recorded status and body, the ids put back.
func TestReplaySessionSharedMCP(t *testing.T) {
	t.Parallel()
	recs, err := filepath.Glob(filepath.Join(sharedApp(t, "recordings"), "mcp__stateful__*"))
	if err != nil || len(recs) < 10 {
		t.Fatalf("%d stateful recordings (%v)", len(recs), err)
	}
	base, stop := brokenReplay(t, append(recs, "--speed", "50")...)
	sc := newSessionClient(t, base)
	idAtEnd := regexp.MustCompile(`"id":(\d+)}$`)
	for _, path := range recs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := capture.ParseRecording(data)
		if err != nil {
			t.Fatal(err)
		}
		body := string(rec.RequestBody)
		id := ""
		if m := idAtEnd.FindStringSubmatch(body); m != nil {
			n, _ := strconv.Atoi(m[1])
			id = m[1]
			body = body[:len(body)-len(m[0])] + fmt.Sprintf(`"id":%d}`, n+100)
		}
		u := rec.URL[strings.Index(rec.URL, "/mcp"):]
		resp, got := sc.do(rec.Method, u, body)
		if id != "" {
			n, _ := strconv.Atoi(id)
			got = regexp.MustCompile(fmt.Sprintf(`"id":%d([,}])`, n+100)).ReplaceAllString(got, `"id":`+id+`$1`)
		}
		name := filepath.Base(path)
		if resp.StatusCode != rec.Status || got != string(rec.Bytes()) {
			t.Errorf("%s: %d, %d bytes\n%s\nwant %d\n%s", name, resp.StatusCode, len(got), got, rec.Status, rec.Bytes())
		}
		if sid := rec.ResponseHeader.Get("Mcp-Session-Id"); resp.Header.Get("Mcp-Session-Id") != sid {
			t.Errorf("%s: Mcp-Session-Id %q; want the recorded %q", name, resp.Header.Get("Mcp-Session-Id"), sid)
		}
	}
	log := stop()
	if n := strings.Count(log, " → exchange "); n != len(recs) {
		t.Errorf("%d requests logged with their exchange; want %d:\n%s", n, len(recs), log)
	}
}

// TestReplaySessionSharedSteps serves an AI SDK app's two provider
// requests (step 1, then step 2 after the tool ran) from
// ../shared/captures-app/provider-leg, in order.
func TestReplaySessionSharedSteps(t *testing.T) {
	t.Parallel()
	dir := sharedApp(t, "provider-leg")
	steps := []string{
		filepath.Join(dir, "aisdk-data__chat-parallel-calls-exec-two-steps.provider-step1.rec.sse"),
		filepath.Join(dir, "aisdk-data__chat-parallel-calls-exec-two-steps.provider-step2.rec.sse"),
	}
	base, stop := brokenReplay(t, append(slicesOf(steps), "--speed", "50")...)
	sc := newSessionClient(t, base)
	for i, path := range steps {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := capture.ParseRecording(data)
		if err != nil {
			t.Fatal(err)
		}
		u := rec.URL[strings.Index(rec.URL, "/v1/"):]
		resp, got := sc.do("POST", u, `{"model":"gpt-4.1-mini","stream":true}`)
		if resp.StatusCode != 200 || got != string(rec.Bytes()) {
			t.Errorf("step %d: %d, %d bytes; want %s's %d", i+1, resp.StatusCode, len(got), filepath.Base(path), len(rec.Bytes()))
		}
	}
	log := stop()
	if !strings.Contains(log, "→ exchange 2 of 2, aisdk-data__chat-parallel-calls-exec-two-steps.provider-step2.rec.sse") {
		t.Errorf("stderr:\n%s", log)
	}
}

func slicesOf(s []string) []string { return append([]string(nil), s...) }

// TestDocSessionReplay runs the session docs/proxy.md shows ("Replaying a
// whole session"): replay --listen of docs/examples/mcp-session, an MCP
// client's requests, and the lines stderr shows (the address and the
// durations aside).
func TestDocSessionReplay(t *testing.T) {
	t.Parallel()
	block := serverBlock(t, "TestDocSessionReplay")
	base, stop := brokenReplay(t, mcpSessionDir())
	speakMCP(t, base)
	mask := regexp.MustCompile(`http://127\.0\.0\.1:\d+|dur=\d+\.\d+s`)
	got := mask.ReplaceAllString(strings.TrimSpace(stop()), "…")
	want := mask.ReplaceAllString(strings.Join(block, "\n"), "…")
	if got != want {
		t.Errorf("replay prints\n%s\ndocs/proxy.md shows\n%s", got, want)
	}
}

// TestReplaySessionResume: an MCP client whose tools/call stream is cut
// (--fault cut:2, every request: the resumption too) resumes it with GET
// and the Last-Event-ID of the last event it got, as the TypeScript SDK's
// client does, until it has the result: what it gets, put together, is
// the recorded stream with this client's id and progress token.
func TestReplaySessionResume(t *testing.T) {
	t.Parallel()
	base, stop := brokenReplay(t, mcpSessionDir(), "--speed", "20", "--fault", "cut:2")
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	// send sends a request and reads what comes until the stream ends or
	// is cut: a cut is what this test is about, not an error.
	send := func(method, lastEvent, body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "application/json, text/event-stream")
		if lastEvent != "" {
			req.Header.Set("Last-Event-ID", lastEvent)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	lastID := regexp.MustCompile(`(?m)^id: (\S+)$`)
	call := `{"method":"tools/call","params":{"name":"index_repository","arguments":{"repo":"acme/billing-service","paths":["src/","docs/"]},"_meta":{"progressToken":2}},"jsonrpc":"2.0","id":2}`
	resp, got := send("POST", "", call)
	if resp.StatusCode != 200 || strings.Contains(got, `"result"`) {
		t.Fatalf("tools/call: %d %q; want a stream cut before its result", resp.StatusCode, got)
	}
	resumes := 0
	for !strings.Contains(got, `"result"`) && resumes < 5 {
		ids := lastID.FindAllStringSubmatch(got, -1)
		if len(ids) == 0 {
			t.Fatalf("no event id to resume from in %q", got)
		}
		resumes++
		resp, rest := send("GET", ids[len(ids)-1][1], "")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("Mcp-Session-Id") != "4c1e8a52-9d3b-4f0e-a7c2-61b5e0d93f28" || rest == "" {
			t.Fatalf("resumption %d after %s: %d %v %q; want the rest of the stream with its recorded head", resumes, ids[len(ids)-1][1], resp.StatusCode, resp.Header, rest)
		}
		got += rest
	}
	rec, err := os.ReadFile(fixtures.Path("samples/mcp-tools-call-progress.sse"))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := capture.ParseRecording(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(string(parsed.Bytes()), `"progressToken":7`, `"progressToken":2`)
	want = strings.ReplaceAll(want, `"jsonrpc":"2.0","id":7}`, `"jsonrpc":"2.0","id":2}`)
	if got != want || resumes != 2 {
		t.Errorf("after %d resumptions:\n%s\nwant (in 2)\n%s", resumes, got, want)
	}
	if resp, body := send("GET", "s7e2b_99", ""); resp.StatusCode != 400 || !strings.Contains(body, `"code":-32000`) {
		t.Errorf("an unknown event id: %d %q; want 400 and a JSON-RPC error", resp.StatusCode, body)
	}
	// docs/proxy.md ("Resuming a stream") shows what stderr says, in any
	// order: a cut request's outcome line may come after the next
	// request's first, or not before the server stops (the fault closed
	// the connection, which the server's shutdown then does not wait
	// for), so the outcome lines the log has are checked, not that it
	// has each.
	block := serverBlock(t, "TestReplaySessionResume")
	mask := regexp.MustCompile(`http://127\.0\.0\.1:\d+|dur=\d+\.\d+s|\d+x\)$`)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stop()), "\n") {
		lines = append(lines, mask.ReplaceAllString(l, "…"))
	}
	for i, l := range block {
		block[i] = mask.ReplaceAllString(l, "…")
	}
	bad := false
	for _, l := range lines {
		bad = bad || !slices.Contains(block, l)
	}
	for _, l := range block {
		bad = bad || !strings.HasPrefix(l, "streamtap: replay #") && !slices.Contains(lines, l)
	}
	if bad {
		t.Errorf("replay prints\n%s\ndocs/proxy.md shows\n%s", strings.Join(lines, "\n"), strings.Join(block, "\n"))
	}
}

// TestReplaySessionSharedResume serves a resumable MCP server's call
// whose stream it closed after an event (mcp__resumable__22) and the GET
// that resumed it (…23): the recorded resumption answers the GET with
// its Last-Event-ID, as recorded; a GET resuming that GET's stream gets
// the rest of it.
func TestReplaySessionSharedResume(t *testing.T) {
	t.Parallel()
	dir := sharedApp(t, "recordings")
	paths := []string{
		filepath.Join(dir, "mcp__resumable__22-tools-call-slow_count.rec.sse"),
		filepath.Join(dir, "mcp__resumable__23-get-resume-stream.rec.sse"),
	}
	var recs []*capture.Recording
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := capture.ParseRecording(data)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	base, stop := brokenReplay(t, append(slicesOf(paths), "--speed", "50")...)
	sc := newSessionClient(t, base)
	if resp, got := sc.do("POST", "/mcp", string(recs[0].RequestBody)); resp.StatusCode != 200 || got != string(recs[0].Bytes()) {
		t.Errorf("the call: %d\n%s\nwant\n%s", resp.StatusCode, got, recs[0].Bytes())
	}
	resume := func(id string) (*http.Response, string) {
		req, err := http.NewRequest("GET", base+"/mcp", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Last-Event-ID", id)
		resp, err := sc.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(b)
	}
	if resp, got := resume(recs[1].RequestHeader.Get("Last-Event-Id")); resp.StatusCode != 200 || got != string(recs[1].Bytes()) {
		t.Errorf("the recorded resumption: %d\n%s\nwant\n%s", resp.StatusCode, got, recs[1].Bytes())
	}
	const id = "74669f9a-b70c-4742-aae4-3cdcf5fe7a4e_1796536083414_bwpb1l7j"
	stream := string(recs[1].Bytes())
	at := strings.Index(stream, "id: "+id+"\n")
	if at < 0 {
		t.Fatalf("%s lacks the event %s", filepath.Base(paths[1]), id)
	}
	want := stream[at+strings.Index(stream[at:], "\n\n")+2:]
	if resp, got := resume(id); resp.StatusCode != 200 || got != want || want == "" {
		t.Errorf("resuming the resumption: %d\n%s\nwant\n%s", resp.StatusCode, got, want)
	}
	log := stop()
	if !strings.Contains(log, "request #2 GET /mcp → exchange 2 of 2, mcp__resumable__23-get-resume-stream.rec.sse\n") ||
		!strings.Contains(log, "request #3 GET /mcp resumes after \""+id+"\" → exchange 2 of 2") {
		t.Errorf("stderr:\n%s", log)
	}
}

// serverBlock is the lines of the block of docs/proxy.md that test runs
// with a client against a server the document cannot run itself.
func serverBlock(t *testing.T, test string) []string {
	t.Helper()
	for _, b := range docBlocks(t, fixtures.Path("docs/proxy.md")) {
		if b.directive == "not run: a server; "+test+" runs it with a client" {
			return b.lines
		}
	}
	t.Fatalf("docs/proxy.md has no block %s runs", test)
	return nil
}

// stderrHolds fails t for each of want that the log lacks.
func stderrHolds(t *testing.T, log string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(log, w) {
			t.Errorf("stderr lacks %q:\n%s", w, log)
		}
	}
}
