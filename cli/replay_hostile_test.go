package cli

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/proxy"
)

// listenReplay runs `streamtap replay FILE --listen 127.0.0.1:0` and
// returns its base URL (empty when it exited first), the lines it wrote
// to stderr before listening, and a stop function returning its exit
// code.
func listenReplay(t *testing.T, path string) (base string, before []string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"replay", path, "--listen", "127.0.0.1:0"}, nil, io.Discard, pw)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	for {
		line, err := br.ReadString('\n')
		if m := regexp.MustCompile(`on (http://\S+)`).FindStringSubmatch(line); m != nil {
			base = m[1]
			break
		}
		if line != "" {
			before = append(before, line)
		}
		if err != nil {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return base, before, func() int { cancel(); return <-done }
}

func writeRecording(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rec.sse")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayCleansHeaderValues: a recorded header value with NUL, ESC or
// BEL is sent with each replaced by a space (it went out raw, and curl
// refused the response), a header whose name is not a token is not sent,
// and stderr warns about both.
func TestReplayCleansHeaderValues(t *testing.T) {
	t.Parallel()
	path := writeRecording(t, capture.RecordingMagic+"\n: response HTTP/1.1 200 OK\n"+
		": response-header Content-Type: text/event-stream\n"+
		": response-header X-Note: a\x00b\x1b[31mc\x07d\x7f\n"+
		": response-header Bad\x1b Name: x\n"+
		": response-header X-Fine: tab\tkept\n\n"+
		"data: {}\n: t=0.001\n\n")
	base, warnings, stop := listenReplay(t, path)
	defer stop()
	if base == "" {
		t.Fatalf("replay did not listen: %q", warnings)
	}
	joined := strings.Join(warnings, "")
	if !strings.Contains(joined, "response header X-Note: control characters replaced by spaces") ||
		!strings.Contains(joined, `response header "Bad\\x1b Name" is not a valid header name: not sent`) || strings.ContainsRune(joined, 0x1b) {
		t.Errorf("warnings = %q", warnings)
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	raw, _ := io.ReadAll(conn)
	head, body, _ := strings.Cut(string(raw), "\r\n\r\n")
	for i := 0; i < len(head); i++ {
		if c := head[i]; (c < 0x20 && c != '\r' && c != '\n' && c != '\t') || c == 0x7f {
			t.Fatalf("the head holds byte %#x raw:\n%q", c, head)
		}
	}
	if !strings.Contains(head, "\r\nX-Note: a b [31mc d\r\n") || !strings.Contains(head, "\r\nX-Fine: tab\tkept\r\n") || strings.Contains(head, "Name") {
		t.Errorf("head:\n%q", head)
	}
	if !strings.Contains(body, "data: {}") {
		t.Errorf("body %q", body)
	}
}

// TestReplayRefuses1xx: a recorded 101 (a WebSocket session) or any 1xx
// is not a response: `replay --listen` refuses it before listening, and
// the handler answers 502 instead of leaving the client waiting for a
// final status.
func TestReplayRefuses1xx(t *testing.T) {
	t.Parallel()
	text := capture.RecordingMagic + "\n: response HTTP/1.1 101 Switching Protocols\n: response-header Upgrade: websocket\n\n" +
		": ws client text utf8 hi\n: t=0.001\n\n"
	base, before, stop := listenReplay(t, writeRecording(t, text))
	if code := stop(); base != "" || code != 2 || !strings.Contains(strings.Join(before, ""), "the recorded status 101 is informational") {
		t.Errorf("replay --listen of a 101: listening %q, exit %d, stderr %q; want exit 2 before listening", base, code, before)
	}
	rc, err := proxy.ReplayData("rec", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(proxy.Replay(rc, proxy.ReplayOptions{}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second) // a hang guard, not a timing
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the client got no final response: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d; want 502", resp.StatusCode)
	}
}

// TestReplayBadDelays: times that are not times (31 years, 1e300, NaN, a
// negative) are treated one way, with a warning: the event goes right
// after the one before, so the client gets the whole body.
func TestReplayBadDelays(t *testing.T) {
	t.Parallel()
	text := capture.RecordingMagic + "\n: response HTTP/1.1 200 OK\n: response-header Content-Type: text/event-stream\n\n"
	for _, v := range []string{"0.001", "1e9", "1e300", "NaN", "-1", "0.002"} {
		text += "data: " + v + "\n: t=" + v + "\n\n"
	}
	base, warnings, stop := listenReplay(t, writeRecording(t, text))
	defer stop()
	if !strings.Contains(strings.Join(warnings, ""), "4 recorded times are not a number of seconds from 0 to 24h0m0s") {
		t.Errorf("warnings = %q", warnings)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second) // a hang guard, not a timing
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base, nil)
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || strings.Count(string(got), "data: ") != 6 {
		t.Fatalf("got %q, %v; want the 6 events", got, err)
	}
}
