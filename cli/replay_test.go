package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/ssetest"
	"github.com/streamtap/streamtap/proxy"
	"github.com/streamtap/streamtap/samples"
)

// pacedRecording records the sample chat-single-call with its events
// evenly spread over total, and returns the file and the event times.
func pacedRecording(t *testing.T, total time.Duration) (string, []time.Duration) {
	t.Helper()
	data, _ := samples.Open("chat-single-call")
	blocks := ssetest.Blocks(data)
	var buf bytes.Buffer
	x := &capture.Exchange{Method: "POST", URL: "http://127.0.0.1/v1/chat/completions", Proto: "HTTP/1.1", Status: 200,
		ResponseHeader: http.Header{"Content-Type": {sseType}, "X-Request-Id": {"req_42"}, "Content-Length": {"999"}},
		HeadAt:         5 * time.Millisecond}
	rec := capture.NewRecorder(&buf, x, capture.RecordOptions{Format: capture.FormatSSE})
	var times []time.Duration
	for i, b := range blocks {
		at := total * time.Duration(i+1) / time.Duration(len(blocks))
		times = append(times, at)
		if err := rec.Write(b, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(total); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rec.sse")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, times
}

// TestReplayServesAtPace: a real HTTP client gets the recorded bytes, in
// order, with the recorded headers, no sooner than the recorded times
// allow (a loose lower bound; never tight timing).
func TestReplayServesAtPace(t *testing.T) {
	t.Parallel()
	const total = 400 * time.Millisecond
	path, times := pacedRecording(t, total)
	rc, err := proxy.LoadReplay(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	for _, speed := range []float64{1, 4} {
		srv := httptest.NewServer(proxy.Replay(rc, proxy.ReplayOptions{Speed: speed}))
		start := time.Now()
		resp, err := rawClient.Post(srv.URL+"/any/path", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("Content-Type") != sseType || resp.Header.Get("X-Request-Id") != "req_42" || resp.Header.Get("Content-Length") != "" {
			t.Errorf("headers = %v", resp.Header)
		}
		want, _ := samples.Open("chat-single-call")
		ends := ssetest.Ends(want)
		var got []byte
		var arrived []time.Duration
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			got = append(got, buf[:n]...)
			for len(arrived) < len(ends) && ends[len(arrived)] <= len(got) {
				arrived = append(arrived, time.Since(start))
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		resp.Body.Close()
		srv.Close()
		if !bytes.Equal(got, want) {
			t.Fatalf("speed %v: replay gave %d bytes; want the %d recorded", speed, len(got), len(want))
		}
		for i, at := range arrived {
			floor := time.Duration(float64(times[i]) / speed * 0.8)
			if at < floor {
				t.Errorf("speed %v: event %d arrived at %v; recorded at %v, so not before %v", speed, i, at, times[i], floor)
			}
		}
		if last := arrived[len(arrived)-1]; last < time.Duration(float64(total)/speed*0.8) {
			t.Errorf("speed %v: whole replay took %v; want about %v", speed, last, time.Duration(float64(total)/speed))
		}
	}
}

// TestReplayTimeline: without --listen and with stdout not a terminal,
// replay prints the timeline at the recorded pace, with recorded times.
func TestReplayTimeline(t *testing.T) {
	t.Parallel()
	path, times := pacedRecording(t, 200*time.Millisecond)
	start := time.Now()
	code, out, errs := runCLI(t, nil, "replay", path, "--speed", "2")
	took := time.Since(start)
	if code != 0 {
		t.Fatalf("replay = %d, stderr %s", code, errs)
	}
	if took < 80*time.Millisecond {
		t.Errorf("replay at 2x took %v; want about 100ms", took)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(lines[len(lines)-1], "completed") || len(lines) < len(times) {
		t.Fatalf("timeline:\n%s", out)
	}
	if !regexp.MustCompile(`0\.200s`).MatchString(out) {
		t.Errorf("timeline lacks the recorded time of the last event (0.200s):\n%s", out)
	}
}

// TestReplayListen runs the command itself on a loopback port.
func TestReplayListen(t *testing.T) {
	t.Parallel()
	path, _ := pacedRecording(t, 50*time.Millisecond)
	base, stop := replayListen(t, path)
	resp, err := rawClient.Get(base + "/v1/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want, _ := samples.Open("chat-single-call")
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes; want %d", len(got), len(want))
	}
	stop()
}

// TestSaveTimed: --save-timed writes a recording of stdin while --save
// keeps the exact bytes.
func TestSaveTimed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	timed, raw := filepath.Join(dir, "timed.sse"), filepath.Join(dir, "raw.sse")
	code, _, errs := runCLI(t, []byte(chatStream), "timeline", "--save-timed", timed, "--save", raw)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(raw); string(b) != chatStream {
		t.Fatalf("--save wrote %q", b)
	}
	data, _ := os.ReadFile(timed)
	rec, err := capture.ParseRecording(data)
	if err != nil {
		t.Fatal(err)
	}
	if string(rec.Bytes()) != chatStream || rec.Source != "stdin" {
		t.Fatalf("recording body %q, source %q", rec.Bytes(), rec.Source)
	}
	for _, c := range rec.Body {
		if c.At == capture.NoTime {
			t.Fatalf("chunk %q has no time", c.Data)
		}
	}
	// The recording reads back as the same calls.
	code, out, _ := runCLI(t, nil, "calls", "--json", timed)
	if code != 0 || !strings.Contains(out, `"name":"get_weather"`) {
		t.Fatalf("calls of the recording: %d %s", code, out)
	}
}

func TestParseReplayArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		ok   bool
	}{
		{[]string{"x.sse"}, true},
		{[]string{"x.sse", "--speed", "0"}, false},
		{[]string{"--speed", "2", "x.sse", "--listen", ":0"}, true},
		{[]string{}, false},
		{[]string{"a", "b"}, false},
	}
	for _, tt := range tests {
		if _, err := parseReplayArgs(tt.args); (err == nil) != tt.ok {
			t.Errorf("parseReplayArgs(%q) = %v; want ok %v", tt.args, err, tt.ok)
		}
	}
}

// sseType and rawClient are ssetest's, named as the tests here use them.
const sseType = ssetest.ContentType

var rawClient = ssetest.RawClient
