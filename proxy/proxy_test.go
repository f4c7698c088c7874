package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/ssetest"
	"github.com/streamtap/streamtap/samples"
)

const sseType = ssetest.ContentType

// wholeResponse is a non-streaming Responses answer with one call.
const wholeResponse = `{"id":"resp_1","object":"response","status":"completed","model":"m","output":[{"type":"function_call","id":"fc_1","call_id":"call_j","name":"f","arguments":"{}","status":"completed"}]}`

// slowUpstream serves the sample named by ?sample= in writes of chunk
// bytes, one every gap, flushing each. ?fail=N aborts the connection after
// N bytes; ?stall=D waits D after the first write; ?status=N sends that
// status with a JSON error body. finished, when set, receives the time the
// handler wrote its last byte.
func slowUpstream(t *testing.T, chunk int, gap time.Duration, finished chan<- time.Time) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		q := r.URL.Query()
		if s := q.Get("status"); s != "" {
			code, _ := strconv.Atoi(s)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			io.WriteString(w, `{"error":{"type":"rate_limit_error","message":"slow down"}}`)
			return
		}
		if q.Get("whole") != "" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, wholeResponse)
			return
		}
		if d, _ := time.ParseDuration(q.Get("head-delay")); d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		data, err := samples.Open(q.Get("sample"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		fail, _ := strconv.Atoi(q.Get("fail"))
		stall, _ := time.ParseDuration(q.Get("stall"))
		w.Header().Set("Content-Type", sseType)
		w.Header().Set("X-Request-Id", "req_"+q.Get("id"))
		rc := http.NewResponseController(w)
		for off := 0; off < len(data); off += chunk {
			if fail > 0 && off >= fail {
				panic(http.ErrAbortHandler) // drop the connection mid-stream
			}
			if _, err := w.Write(data[off:min(off+chunk, len(data))]); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			wait := gap
			if off == 0 && stall > 0 {
				wait = stall
			}
			select {
			case <-time.After(wait):
			case <-r.Context().Done():
				return
			}
		}
		if finished != nil {
			finished <- time.Now()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// startProxy runs the proxy in front of upstream and returns its URL, a
// channel of finished sessions and the log.
func startProxy(t *testing.T, upstream string, edit func(*Options)) (string, chan *session, *syncBuffer) {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Upstream: u, HeadTimeout: DefaultHeadTimeout}
	if edit != nil {
		edit(&o)
	}
	logs := &syncBuffer{}
	p := New(o, logs)
	done := make(chan *session, 512)
	p.onDone = func(s *session) { done <- s }
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("proxy log:\n%s", logs)
		}
	})
	return srv.URL, done, logs
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func waitSession(t *testing.T, done <-chan *session) *session {
	t.Helper()
	select {
	case s := <-done:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no session finished within 10s")
	}
	return nil
}

// rawClient is ssetest's client, which changes no byte (no compression).
var rawClient = ssetest.RawClient

// TestProxyStreamsThrough is the truth test: bytes identical to what the
// upstream sent, headers kept, the first event before the upstream is done,
// and a recording that replays to the same bytes and events.
func TestProxyStreamsThrough(t *testing.T) {
	t.Parallel()
	const name = "responses-parallel-calls"
	want, _ := samples.Open(name)
	finished := make(chan time.Time, 1)
	up := slowUpstream(t, 97, 2*time.Millisecond, finished)
	dir := t.TempDir()
	proxyURL, done, logs := startProxy(t, up.URL, func(o *Options) { o.Record = dir })

	body := `{"model":"gpt-test","stream":true,"tools":[{"type":"function","name":"get_weather"}]}`
	req, _ := http.NewRequest("POST", proxyURL+"/v1/responses?sample="+name, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer sk-secret-in-test")
	req.Header.Set("Content-Type", "application/json")
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := resp.Header.Get("Content-Type"); got != sseType {
		t.Errorf("Content-Type = %q; want %q", got, sseType)
	}
	var got []byte
	var firstEvent time.Time
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		got = append(got, buf[:n]...)
		if firstEvent.IsZero() && bytes.Contains(got, []byte("\n\n")) {
			firstEvent = time.Now()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("client got %d bytes; want the %d the upstream sent, unchanged", len(got), len(want))
	}
	if end := <-finished; !firstEvent.Before(end) {
		t.Errorf("first event reached the client at %v, after the upstream finished at %v", firstEvent, end)
	}

	s := waitSession(t, done)
	if s.state != "completed" || s.req.Model != "gpt-test" || len(s.live.Session().Calls()) != 2 {
		t.Errorf("session = state %q model %q calls %d; want completed gpt-test 2", s.state, s.req.Model, len(s.live.Session().Calls()))
	}
	line := logs.String()
	for _, w := range []string{"#1 POST /v1/responses?sample=" + name + " 200", "model=gpt-test", "dialect=openai-responses", "calls=2", "outcome=completed", "ttfb=", "tfe="} {
		if !strings.Contains(line, w) {
			t.Errorf("log line lacks %q:\n%s", w, line)
		}
	}

	// The recording: secrets redacted, the body as sent, the events timed.
	files, _ := filepath.Glob(filepath.Join(dir, "*.sse"))
	if len(files) != 1 {
		t.Fatalf("recordings = %v; want 1", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("sk-secret-in-test")) {
		t.Error("the recording holds the API key")
	}
	rec, err := capture.ParseRecording(data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rec.Bytes(), want) || rec.Status != 200 || rec.ResponseHeader.Get("Content-Type") != sseType || string(rec.RequestBody) != body {
		t.Fatalf("recording: status %d, type %q, request %q, %d body bytes", rec.Status, rec.ResponseHeader.Get("Content-Type"), rec.RequestBody, len(rec.Bytes()))
	}
	var prev time.Duration
	for i, c := range rec.Body {
		if c.At < prev {
			t.Fatalf("chunk %d recorded at %v, before %v", i, c.At, prev)
		}
		prev = c.At
	}
	if last := rec.Body[len(rec.Body)-1].At; last < 50*time.Millisecond {
		t.Errorf("last event recorded at %v; the upstream took over 150 writes of 2ms", last)
	}

	// Replayed over HTTP, fast, the recording gives back the same bytes.
	rc, err := ReplayData("rec", data)
	if err != nil {
		t.Fatal(err)
	}
	rs := httptest.NewServer(Replay(rc, ReplayOptions{Speed: 20}))
	defer rs.Close()
	rr, err := rawClient.Get(rs.URL + "/anything")
	if err != nil {
		t.Fatal(err)
	}
	replayed, _ := io.ReadAll(rr.Body)
	rr.Body.Close()
	if !bytes.Equal(replayed, want) || rr.Header.Get("Content-Type") != sseType {
		t.Fatalf("replay gave %d bytes, type %q", len(replayed), rr.Header.Get("Content-Type"))
	}
}

// TestProxyFailures: each way an exchange can go wrong is logged as such,
// and the proxy keeps serving.
func TestProxyFailures(t *testing.T) {
	t.Parallel()
	up := slowUpstream(t, 200, time.Millisecond, nil)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + dead.Addr().String()
	dead.Close()

	tests := []struct {
		name     string
		upstream string
		edit     func(*Options)
		query    string
		cancel   bool // the client leaves after the first bytes
		status   int
		state    string
	}{
		{name: "unreachable", upstream: deadURL, status: 502, state: "unreachable"},
		{name: "mid-stream failure", upstream: up.URL, query: "sample=responses-single-call&fail=1000", status: 200, state: "upstream-failed"},
		{name: "client cancel", upstream: up.URL, query: "sample=responses-single-call&stall=5s", cancel: true, status: 200, state: "client-canceled"},
		{name: "head timeout", upstream: up.URL, query: "sample=chat-single-call&head-delay=5s", status: 504, state: "timeout",
			edit: func(o *Options) { o.HeadTimeout = 100 * time.Millisecond }},
		{name: "idle timeout", upstream: up.URL, query: "sample=chat-single-call&stall=5s", status: 200, state: "idle-timeout",
			edit: func(o *Options) { o.Idle = 100 * time.Millisecond }},
		{name: "http error", upstream: up.URL, query: "status=429", status: 429, state: "error"},
		{name: "whole JSON response", upstream: up.URL, query: "whole=1", status: 200, state: "completed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			proxyURL, done, logs := startProxy(t, tt.upstream, tt.edit)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "POST", proxyURL+"/v1/chat/completions?"+tt.query, strings.NewReader(`{"model":"m"}`))
			resp, err := rawClient.Do(req)
			if err != nil {
				t.Fatalf("client: %v", err)
			}
			if resp.StatusCode != tt.status {
				t.Errorf("status = %d; want %d", resp.StatusCode, tt.status)
			}
			if tt.cancel {
				_, _ = resp.Body.Read(make([]byte, 10))
				cancel()
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			s := waitSession(t, done)
			if s.state != tt.state {
				t.Errorf("outcome = %q; want %q\n%s", s.state, tt.state, logs.String())
			}
			if !strings.Contains(logs.String(), "outcome="+tt.state) {
				t.Errorf("log lacks outcome=%s:\n%s", tt.state, logs.String())
			}
			// The proxy still serves.
			if tt.upstream == up.URL {
				r2, err := rawClient.Get(proxyURL + "/v1/x?sample=gemini-call")
				if err != nil {
					t.Fatalf("after %s: %v", tt.name, err)
				}
				_, _ = io.Copy(io.Discard, r2.Body)
				r2.Body.Close()
				if s := waitSession(t, done); s.state != "completed" {
					t.Errorf("next session outcome = %q; want completed", s.state)
				}
			}
		})
	}
}

// TestProxyLinksTurns: a Responses request that continues a response with
// calls, but answers only one of them, is linked and flagged.
func TestProxyLinksTurns(t *testing.T) {
	t.Parallel()
	up := slowUpstream(t, 4096, 0, nil)
	proxyURL, done, logs := startProxy(t, up.URL, nil)
	get := func(body string) *session {
		resp, err := rawClient.Post(proxyURL+"/v1/responses?sample=responses-parallel-calls", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return waitSession(t, done)
	}
	get(`{"model":"m","input":"weather in Paris and Tokyo?"}`)
	resp, err := rawClient.Get(proxyURL + "/v1beta/models/gemini-x:streamGenerateContent?alt=sse&key=sk-in-query&sample=gemini-call")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if s := waitSession(t, done); s.req.Model != "gemini-x" || strings.Contains(logs.String(), "sk-in-query") {
		t.Errorf("gemini session: model %q; log:\n%s", s.req.Model, logs.String())
	}
	s := get(`{"model":"m","previous_response_id":"resp_68e78672184efa0875b04886b813266a0edacb6ed2024643",
		"input":[{"type":"function_call_output","call_id":"call_8E6LCTeZiLmFxMTmuMdInLuI","output":"sunny"}]}`)
	if s.prev != 1 || len(s.unanswered) != 1 || s.unanswered[0] != "call_Ewk0L7NKOA2oo9Pm6eV8vjXu" {
		t.Fatalf("link = #%d unanswered %v; want #1 [call_Ewk0L7NKOA2oo9Pm6eV8vjXu]", s.prev, s.unanswered)
	}
	if !strings.Contains(logs.String(), `finding="No tool output found for function call call_Ewk0L7NKOA2oo9Pm6eV8vjXu"`) {
		t.Errorf("log lacks the finding:\n%s", logs.String())
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	if s, _ := Classify(context.Background(), errors.New("x")); s != "upstream-error" {
		t.Errorf("Classify(other) = %q", s)
	}
}

// TestProxyLinksChatTurns: a Chat request whose history repeats an earlier
// session's call without a tool message answering it is flagged.
func TestProxyLinksChatTurns(t *testing.T) {
	t.Parallel()
	up := slowUpstream(t, 4096, 0, nil)
	proxyURL, done, _ := startProxy(t, up.URL, nil)
	post := func(body string) *session {
		resp, err := rawClient.Post(proxyURL+"/v1/chat/completions?sample=chat-single-call", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return waitSession(t, done)
	}
	post(`{"model":"m","stream":true,"messages":[{"role":"user","content":"NVDA?"}]}`)
	const call = "call_8cJVmKGXZndSuIjp7KxWkQCU"
	answered := post(`{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"` + call + `","type":"function"}]},{"role":"tool","tool_call_id":"` + call + `","content":"42"}]}`)
	if answered.prev != 1 || len(answered.unanswered) != 0 {
		t.Errorf("answered turn: prev #%d unanswered %v; want #1, none", answered.prev, answered.unanswered)
	}
	forgot := post(`{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"` + call + `","type":"function"}]},{"role":"user","content":"and?"}]}`)
	if forgot.prev == 0 || len(forgot.unanswered) != 1 || forgot.unanswered[0] != call {
		t.Errorf("forgotten turn: prev #%d unanswered %v; want a link and [%s]", forgot.prev, forgot.unanswered, call)
	}
}

// TestProxyHTTPS: an https upstream speaking HTTP/2 streams through too.
func TestProxyHTTPS(t *testing.T) {
	t.Parallel()
	data, _ := samples.Open("anthropic-text-then-tool")
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sseType)
		w.Header().Set("X-Proto", r.Proto)
		for _, b := range ssetest.Blocks(data) {
			w.Write(b)
			http.NewResponseController(w).Flush()
		}
	}))
	up.EnableHTTP2 = true
	up.StartTLS()
	defer up.Close()
	u, _ := url.Parse(up.URL)
	p := New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout}, io.Discard)
	p.rp.Transport.(*http.Transport).TLSClientConfig = up.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	done := make(chan *session, 1)
	p.onDone = func(s *session) { done <- s }
	srv := httptest.NewServer(p)
	defer srv.Close()
	resp, err := rawClient.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{"model":"claude-x","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, data) || resp.Header.Get("X-Proto") != "HTTP/2.0" {
		t.Fatalf("got %d bytes over %s; want %d over HTTP/2.0", len(got), resp.Header.Get("X-Proto"), len(data))
	}
	if s := waitSession(t, done); s.state != "completed" || s.live.Session().Dialect().String() != "anthropic" {
		t.Errorf("session: %s %s", s.state, s.live.Session().Dialect())
	}
}
