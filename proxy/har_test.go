package proxy

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/wstest"
	"github.com/streamtap/streamtap/samples"
)

// openHAR gives the proxy a HAR writing to a new file, and returns its
// path; the test closes the HAR.
func openHAR(t *testing.T) (string, *capture.HAR) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "proxy.har")
	f, err := capture.CreateOutput(path, capture.OutputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return path, capture.NewHAR(f, capture.HAROptions{Version: "test"})
}

// readHARFile reads a HAR the proxy wrote, secrets as written.
func readHARFile(t *testing.T, path string) (*capture.Archive, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(data) {
		t.Fatalf("the HAR is not JSON:\n%.2000s", data)
	}
	a, err := capture.ReadArchive(data, capture.FormatHAR, capture.ArchiveOptions{KeepSecrets: true})
	if err != nil {
		t.Fatalf("reading the HAR back: %v", err)
	}
	return a, data
}

// TestProxySavesHAR: sessions running at once each become one entry of the
// HAR, whole: the body byte for byte, the request with its key redacted,
// an HTTP error with its body, and an exchange that got no response as
// status 0 with why. The file reads as a HAR while the proxy still runs.
func TestProxySavesHAR(t *testing.T) {
	t.Parallel()
	up := slowUpstream(t, 97, time.Millisecond, nil)
	path, har := openHAR(t)
	proxyURL, done, _ := startProxy(t, up.URL, func(o *Options) {
		o.HAR = har
		o.HeadTimeout = 500 * time.Millisecond
	})
	streams := []string{"responses-parallel-calls", "chat-parallel-calls", "anthropic-text-then-tool", "gemini-call"}
	queries := []string{"status=429", "sample=chat-single-call&head-delay=5s"}
	for _, name := range streams {
		queries = append(queries, "sample="+name)
	}
	var wg sync.WaitGroup
	for _, q := range queries {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", proxyURL+"/v1/responses?"+q, strings.NewReader(`{"model":"m","stream":true}`))
			req.Header.Set("Authorization", "Bearer sk-har-secret")
			req.Header.Set("Content-Type", "application/json")
			resp, err := rawClient.Do(req)
			if err != nil {
				t.Errorf("%s: %v", q, err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	for range queries {
		waitSession(t, done)
	}

	a, data := readHARFile(t, path) // not closed yet: whole after each entry
	if len(a.Entries)+a.Skipped != len(queries) {
		t.Fatalf("%d entries (+%d skipped); want %d", len(a.Entries), a.Skipped, len(queries))
	}
	if strings.Contains(string(data), "sk-har-secret") {
		t.Error("the HAR holds the API key")
	}
	byQuery := map[string]capture.Entry{}
	for _, e := range a.Entries {
		_, q, _ := strings.Cut(e.URL, "?")
		byQuery[q] = e
		if e.Method != "POST" || string(e.RequestBody) != `{"model":"m","stream":true}` || e.RequestHeader.Get("Authorization") != capture.Redacted {
			t.Errorf("%s: request %s %q, authorization %q", q, e.Method, e.RequestBody, e.RequestHeader.Get("Authorization"))
		}
	}
	for _, name := range streams {
		e, ok := byQuery["sample="+name]
		want, _ := samples.Open(name)
		if !ok || e.Status != 200 || string(e.Bytes()) != string(want) {
			t.Errorf("%s: entry %v, status %d, %d bytes; want the sample's %d bytes", name, ok, e.Status, len(e.Bytes()), len(want))
		}
	}
	if e := byQuery["status=429"]; e.Status != 429 || !strings.Contains(string(e.Bytes()), "rate_limit_error") {
		t.Errorf("429: status %d, body %q", e.Status, e.Bytes())
	}
	if !strings.Contains(string(data), `"status":0`) || !strings.Contains(string(data), `"_error":"`) {
		t.Errorf("the timed-out exchange is not an entry with status 0 and its error:\n%.3000s", data)
	}
	if n := strings.Count(string(data), `"_eventSourceMessages"`); n != len(streams) {
		t.Errorf("%d entries with _eventSourceMessages; want %d", n, len(streams))
	}
	if err := har.Close(); err != nil {
		t.Fatal(err)
	}
	if a, _ := readHARFile(t, path); len(a.Entries)+a.Skipped != len(queries) {
		t.Errorf("closed: %d entries (+%d skipped); want %d", len(a.Entries), a.Skipped, len(queries))
	}
}

// A WebSocket session is no HTTP body: the HAR gets no entry for it
// (--record keeps it).
func TestProxyHARLeavesOutWebSockets(t *testing.T) {
	t.Parallel()
	up, _ := wstest.Server(t, nil, wstest.Responses(t))
	path, har := openHAR(t)
	proxyURL, done, _ := startProxy(t, up.URL, func(o *Options) { o.HAR = har })
	c, resp := wstest.Dial(t, proxyURL, "/v1/responses", nil)
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d; want 101", resp.StatusCode)
	}
	wstest.ResponsesTurns(t, c)
	waitSession(t, done)
	if err := har.Close(); err != nil {
		t.Fatal(err)
	}
	if a, _ := readHARFile(t, path); len(a.Entries) != 0 || a.Skipped != 0 {
		t.Errorf("%d entries (+%d skipped) for a WebSocket session; want none", len(a.Entries), a.Skipped)
	}
}

// TestProxyStopWritesCutSessions: a stream still open when the grace
// period ends is cut, and Serve returns only once its session ended: its
// HAR entry (what arrived) and its log line are written before the
// caller closes the files. Serve used to return while the cut session was
// still ending, and the entry was lost.
func TestProxyStopWritesCutSessions(t *testing.T) {
	t.Parallel()
	body, _ := samples.Open("responses-single-call")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sseType)
		_, _ = w.Write(body[:len(body)/2])
		http.NewResponseController(w).Flush()
		<-r.Context().Done() // never finishes
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	path, har := openHAR(t)
	logs := &syncBuffer{}
	p := New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, HAR: har, Grace: 50 * time.Millisecond}, logs)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, ln) }()
	resp, err := rawClient.Post("http://"+ln.Addr().String()+"/v1/responses", "application/json", strings.NewReader(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadFull(resp.Body, make([]byte, len(body)/2)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	log := logs.String() // as Serve returned
	if err := har.Close(); err != nil {
		t.Fatal(err)
	}
	a, _ := readHARFile(t, path)
	if len(a.Entries) != 1 || string(a.Entries[0].Bytes()) != string(body[:len(body)/2]) {
		t.Fatalf("%d entries; want the cut session's, with the half that arrived", len(a.Entries))
	}
	if !strings.Contains(log, "#1 POST /v1/responses 200") {
		t.Errorf("no log line for the cut session when Serve returned:\n%s", log)
	}
}
