package e2e

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/internal/wstest"
)

// TestProxyWebSocketE2E runs the built proxy with its sessions list in a
// terminal, sends a Responses WebSocket session through it, and opens the
// session: the row shows 101 and the outcome, the inspector the calls
// (loaded back from the sessions list's temporary directory, which is
// gone once the proxy quit).
func TestProxyWebSocketE2E(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	up, _ := wstest.Server(t, nil, wstest.Responses(t))
	dir, tmp := t.TempDir(), t.TempDir()
	term := startTmux(t, 160, 30, "TMPDIR="+shellQuote(tmp)+" "+shellQuote(bin)+" proxy --listen 127.0.0.1:0 --upstream "+up.URL+" --record "+shellQuote(dir))
	addr := regexp.MustCompile(`proxy http://(127\.0\.0\.1:\d+)`)
	screen := term.waitFor("the proxy's address", 10*time.Second, addr.MatchString)
	base := "http://" + addr.FindStringSubmatch(screen)[1]

	h := http.Header{}
	h.Set("Authorization", "Bearer sk-e2e-secret")
	c, resp := wstest.Dial(t, base, "/v1/responses", h)
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d through the proxy; want 101", resp.StatusCode)
	}
	wstest.ResponsesTurns(t, c)
	// The fixture sends two messages that are not JSON: the session
	// completes with two error findings, so its outcome reads ✗.
	row := term.waitFor("the session's row to end", 10*time.Second, func(s string) bool { return strings.Contains(s, "✗ completed") })
	for _, want := range []string{"GET", "/v1/responses", "101", "gpt-test", "responses", "✗2", "recorded to " + dir} {
		if !strings.Contains(row, want) {
			t.Errorf("the sessions list lacks %q:\n%s", want, row)
		}
	}
	term.send("Enter")
	term.send("G") // the calls as of the last event
	term.send("3")
	term.waitFor("the calls of the session", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "get_weather") && strings.Contains(s, "get_local_time")
	})
	term.send("Escape")
	term.waitFor("the sessions list again", 10*time.Second, func(s string) bool { return strings.Contains(s, "enter open session") })
	if spills, _ := filepath.Glob(filepath.Join(tmp, "streamtap-sessions-*", "sessions-*.spill")); len(spills) == 0 {
		t.Errorf("no spilled session in %s while the proxy runs", tmp)
	}
	term.send("q")
	term.waitExit("the proxy to quit", 10*time.Second)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left, _ := filepath.Glob(filepath.Join(tmp, "streamtap-sessions-*"))
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sessions list's temporary directory is left after quitting: %v", left)
		}
	}
}
