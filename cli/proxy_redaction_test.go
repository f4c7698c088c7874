package cli

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		stderr := proxyOnce(t, dir, upstream, "/v1beta/models/g:streamGenerateContent?alt=sse&key=sk-query-2", map[string]string{"X-Goog-Api-Key": "sk-header-3"}, false)
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
