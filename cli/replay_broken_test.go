package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model/checks"
)

// brokenReplay runs `streamtap replay ARGS --listen 127.0.0.1:0` and
// returns its address, and a stop that ends it and returns its stderr.
func brokenReplay(t *testing.T, args ...string) (string, func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append(append([]string{"replay"}, args...), "--listen", "127.0.0.1:0"), nil, io.Discard, pw)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	var mu sync.Mutex
	var stderr strings.Builder
	var base string
	for {
		line, err := br.ReadString('\n')
		stderr.WriteString(line)
		if m := regexp.MustCompile(`on (http://\S+)`).FindStringSubmatch(line); m != nil {
			base = m[1]
			break
		}
		if err != nil {
			break
		}
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		b, _ := io.ReadAll(br)
		mu.Lock()
		stderr.Write(b)
		mu.Unlock()
	}()
	if base == "" {
		cancel()
		t.Fatalf("replay did not say where it listens:\n%s", stderr.String())
	}
	return base, func() string {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("replay exited %d", code)
		}
		<-copied
		mu.Lock()
		defer mu.Unlock()
		return stderr.String()
	}
}

// fetch requests base with a fresh connection and reads the whole body.
func fetch(t *testing.T, base string) (*http.Response, []byte, error) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Post(base+"/v1/messages", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// TestReplayInject serves the stream with the defects applied, and says
// where they acted.
func TestReplayInject(t *testing.T) {
	t.Parallel()
	base, stop := brokenReplay(t, "--sample", "chat-single-call", "--inject", "stop-not-tool,done-doubled")
	_, body, err := fetch(t, base)
	if err != nil {
		t.Fatal(err)
	}
	rep := checks.CheckBytes(body, capture.FormatAuto, checks.Strict)
	for _, rule := range []string{"chat/stop-with-tool-calls", "chat/data-after-done"} {
		if !hasRule(rep, rule) {
			t.Errorf("check of the served stream lacks %s", rule)
		}
	}
	if log := stop(); !strings.Contains(log, "streamtap inject: done-doubled (openai-chat, chat/data-after-done): added event 10") {
		t.Errorf("stderr does not say where the defect acted:\n%s", log)
	}
}

// TestReplayFaultReset resets the connection after the first event of a
// timed recording: the reset reaches the client through the server's
// connection limits and write deadlines.
func TestReplayFaultReset(t *testing.T) {
	t.Parallel()
	path, _ := pacedRecording(t, 50*time.Millisecond)
	base, stop := brokenReplay(t, path, "--speed", "10", "--fault", "reset:1")
	_, body, err := fetch(t, base)
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("reading ended with %v; want a connection reset", err)
	}
	if n := strings.Count(string(body), "data: "); n != 1 {
		t.Errorf("%d events before the reset; want 1:\n%s", n, body)
	}
	if log := stop(); !strings.Contains(log, "request #1: reset:1") {
		t.Errorf("the log does not name the fault:\n%s", log)
	}
}

// TestReplayScenario drives a retry loop through a scenario: 529 with
// Anthropic's overloaded body, then the stream cut by an overloaded_error
// event, then the stream whole.
func TestReplayScenario(t *testing.T) {
	t.Parallel()
	scenario := filepath.Join(t.TempDir(), "scenario.yaml")
	text := "requests:\n  - faults: [status:529]\n  - inject: [midstream-error]\n"
	if err := os.WriteFile(scenario, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	base, stop := brokenReplay(t, fixtures.Path("samples/anthropic-text-then-tool.sse"), "--scenario", scenario)
	resp, body, err := fetch(t, base)
	if err != nil || resp.StatusCode != 529 || !strings.Contains(string(body), `"type":"overloaded_error"`) {
		t.Errorf("request 1: %d %s, %v; want 529 overloaded_error", resp.StatusCode, body, err)
	}
	resp, body, err = fetch(t, base)
	if err != nil || resp.StatusCode != 200 || !strings.Contains(string(body), "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"") {
		t.Errorf("request 2: %d, %v; want the stream ending with an overloaded_error event:\n%s", resp.StatusCode, err, body)
	}
	want, _ := os.ReadFile(fixtures.Path("samples/anthropic-text-then-tool.sse"))
	if _, body, err = fetch(t, base); err != nil || string(body) != string(want) {
		t.Errorf("request 3: %v; want the stream as recorded", err)
	}
	stop()
}

// TestReplayBrokenUsage: the faults need --listen, and a scenario says
// everything itself.
func TestReplayBrokenUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--sample", "chat-single-call", "--fault", "cut:1"}, "give --listen ADDR"},
		{[]string{"replay", "--sample", "chat-single-call", "--listen", "127.0.0.1:0", "--scenario", "s.yaml", "--fault", "cut:1"}, "give no --fault or --inject beside it"},
		{[]string{"replay", "--sample", "chat-single-call", "--listen", "127.0.0.1:0", "--fault", "explode"}, `unknown fault "explode"`},
		{[]string{"replay", "--sample", "chat-single-call", "--listen", "127.0.0.1:0", "--inject", "nope"}, `unknown defect "nope"`},
		{[]string{"replay", "--sample", "chat-single-call", "--listen", "127.0.0.1:0", "--inject", "crc"}, "crc: applies to bedrock-converse, bedrock-invoke"},
	} {
		code, _, stderr := runCLI(t, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v = %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestReplayStallEndsOnInterrupt: a request held in a long stall (plain,
// and on a hijacked HTTP/1.0 connection) does not keep replay from ending
// within 2 s of its interrupt.
func TestReplayStallEndsOnInterrupt(t *testing.T) {
	t.Parallel()
	for _, faults := range []string{"stall:0:60", "http10,stall:1:60"} {
		base, stop := brokenReplay(t, "--sample", "chat-single-call", "--fault", faults)
		got := make(chan struct{})
		go func() {
			defer close(got)
			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			if resp, err := c.Get(base); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		time.Sleep(200 * time.Millisecond) // the request is in its stall
		start := time.Now()
		stop()
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s: replay took %v to end after its interrupt; want under 2 s", faults, took)
		}
		<-got
	}
}
