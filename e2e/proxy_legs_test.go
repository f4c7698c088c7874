package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// TestProxyLegsE2E: the two legs of an app's turn through the built
// proxy, one listener in front of the app and one in front of its
// provider (a recording served by the built `streamtap replay`); the app,
// a tiny server of the test's, answers each request with the provider's
// stream. The sessions list links the app's session with the provider's
// (its row says "legs #2", the provider's "s1 of #1"), and the selected
// line what linked them.
func TestProxyLegsE2E(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	provAddr, replayAddr, appAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	replay := exec.Command(bin, "replay", fixtures.Path("samples/chat-parallel-calls.sse"), "--listen", replayAddr)
	if err := replay.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replay.Process.Kill(); replay.Wait() })
	waitListening(t, replayAddr)

	// The app: its provider's baseURL is the proxy's second listener.
	app := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		resp, err := http.Post("http://"+provAddr+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"weather?"}]}`))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.Copy(w, resp.Body)
	}))
	app.Start()
	t.Cleanup(app.Close)

	dir := t.TempDir()
	term := startTmux(t, 160, 30, shellQuote(bin)+" proxy --listen "+appAddr+" --upstream "+app.URL+
		" --listen "+provAddr+" --upstream http://"+replayAddr+" --record "+shellQuote(dir))
	term.waitFor("the proxy's two listeners", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "proxy http://"+appAddr) && strings.Contains(s, "http://"+provAddr)
	})
	resp, err := http.Post("http://"+appAddr+"/api/chat", "application/json", strings.NewReader(`{"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	screen := term.waitFor("the two sessions linked", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "legs #2") && strings.Contains(s, "s1 of #1")
	})
	for _, want := range []string{"/api/chat", "/v1/chat/completions"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the sessions list lacks %q:\n%s", want, screen)
		}
	}
	term.send("g") // the app's session, #1
	term.waitFor("what linked them", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "model calls #2 by call ids")
	})
	term.send("q")
	term.waitExit("the proxy to quit", 10*time.Second)
	recs, _ := filepath.Glob(filepath.Join(dir, "*.sse"))
	if len(recs) != 2 {
		t.Errorf("recordings %v; want the app's and the provider's", recs)
	}
}
