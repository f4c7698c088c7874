package cli

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/samples"
)

// TestProxyRedactsEveryURL: the proxy's log (its first line included,
// which names the upstream), its recordings and its HAR hold no key,
// whether from the upstream URL, the client's ?key= or a header, for an
// exchange that streamed and for one whose upstream was unreachable.
func TestProxyRedactsEveryURL(t *testing.T) {
	t.Parallel()
	data, _ := samples.Open("gemini-call")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(data)
	}))
	defer up.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()

	for _, upstream := range []string{up.URL + "/base?key=sk-upstream-1", "http://" + closed + "/?key=sk-upstream-1"} {
		dir := t.TempDir()
		stderr := proxyOnce(t, dir, upstream, "/v1beta/models/g:streamGenerateContent?alt=sse&key=sk-query-2")
		if !strings.Contains(stderr, "key=%5Bredacted%5D") || strings.Contains(stderr, "sk-") {
			t.Errorf("proxy to %s: the log holds a key or no redaction:\n%s", upstream, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "rec", "*"))
		files = append(files, filepath.Join(dir, "s.har"))
		if len(files) != 2 {
			t.Fatalf("proxy to %s wrote %v; want a recording and the HAR", upstream, files)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil || !strings.Contains(string(b), "%5Bredacted%5D") || strings.Contains(string(b), "sk-") {
				t.Errorf("proxy to %s: %s holds a key or no redaction (%v):\n%.3000s", upstream, filepath.Base(f), err, b)
			}
		}
	}
}

// proxyOnce runs `streamtap proxy --no-tui` to upstream with a recording
// directory and a HAR in dir, sends one request with a key in path and in
// x-goog-api-key, and returns what the proxy wrote on stderr.
func proxyOnce(t *testing.T, dir, upstream, path string) string {
	t.Helper()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	exit := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		exit <- run(ctx, []string{"proxy", "--no-tui", "--listen", addr, "--upstream", upstream,
			"--record", filepath.Join(dir, "rec"), "--save-har", filepath.Join(dir, "s.har")}, os.Stdin, io.Discard, &stderr)
	}()
	var resp *http.Response
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; {
		req, _ := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(`{"contents":[]}`))
		req.Header.Set("X-Goog-Api-Key", "sk-header-3")
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
	cancel()
	select {
	case <-exit:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not stop")
	}
	return stderr.String()
}
