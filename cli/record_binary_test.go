package cli

import (
	"bufio"
	"bytes"
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
	"github.com/streamtap/streamtap/samples"
)

// TestRecordBinaryBodies: end to end, the proxy's --record DIR keeps a
// Bedrock event stream as NAME.eventstream and an Ollama NDJSON body as
// NAME.ndjson, each message (line) with the time it arrived; check and
// calls read the recording as the stream; and replay --listen serves it
// byte for byte with its media type, to a client that reads its frames as
// they come.
func TestRecordBinaryBodies(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sample, ctype, ext, path, request, call string
		format                                  capture.Format
	}{
		{"bedrock-converse-text-then-tool", capture.EventStreamContentType, ".eventstream",
			"/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream",
			`{"messages":[],"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","inputSchema":{"json":{"type":"object"}}}}]}}`,
			`"name":"get_weather"`, capture.FormatEventStream},
		{"ollama-chat-tool-calls", "application/x-ndjson", ".ndjson", "/api/chat",
			`{"model":"qwen3:8b","messages":[],"tools":[{"type":"function","function":{"name":"get_weather"}},{"type":"function","function":{"name":"get_local_time"}}]}`,
			`"name":"get_weather"`, capture.FormatJSONL},
	} {
		t.Run(tt.sample, func(t *testing.T) {
			t.Parallel()
			want, err := samples.Open(tt.sample)
			if err != nil {
				t.Fatal(err)
			}
			frames := bodyFrames(t, tt.format, want)
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", tt.ctype)
				rc := http.NewResponseController(w)
				for _, f := range frames { // a message (line) per write, a little apart
					if _, err := w.Write(f); err != nil {
						return
					}
					_ = rc.Flush()
					time.Sleep(time.Millisecond)
				}
			}))
			defer up.Close()

			dir := t.TempDir()
			proxyRecord(t, up.URL, dir, tt.path, tt.request)
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			if len(files) != 1 || !strings.HasSuffix(files[0], tt.ext) {
				t.Fatalf("recordings %v; want one %s file", files, tt.ext)
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			rec, err := capture.ParseRecording(data)
			if err != nil || !bytes.Equal(rec.Bytes(), want) || rec.Format != tt.format {
				t.Fatalf("recording: %v, format %v, body of %d bytes; want the %d bytes streamed", err, rec.Format, len(rec.Bytes()), len(want))
			}
			if len(rec.Body) != len(frames) {
				t.Fatalf("recording has %d timed chunks; want one per message (%d)", len(rec.Body), len(frames))
			}
			for i, c := range rec.Body {
				if c.At == capture.NoTime || c.At < rec.HeadAt || i > 0 && c.At < rec.Body[i-1].At {
					t.Fatalf("chunk %d at %v (head at %v, chunk before at %v); want its own arrival time", i, c.At, rec.HeadAt, rec.Body[max(i-1, 0)].At)
				}
			}

			if code, out, errs := runCLI(t, nil, "check", files[0]); code != 0 || !strings.Contains(out, "0 errors, 0 warnings") {
				t.Errorf("check %s = %d\n%s%s", filepath.Base(files[0]), code, out, errs)
			}
			if code, out, errs := runCLI(t, nil, "check", dir); code != 0 || !strings.Contains(out, filepath.Base(files[0])) {
				t.Errorf("check DIR = %d; want the recording's verdict\n%s%s", code, out, errs)
			}
			if code, out, errs := runCLI(t, nil, "calls", "--json", files[0]); code != 0 || !strings.Contains(out, tt.call) {
				t.Errorf("calls --json %s = %d\n%s%s", filepath.Base(files[0]), code, out, errs)
			}

			base, stop := replayListen(t, files[0])
			defer stop()
			resp, err := rawClient.Get(base + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if got := resp.Header.Get("Content-Type"); got != tt.ctype {
				t.Errorf("Content-Type %q; want %q", got, tt.ctype)
			}
			// The client frames the body as it arrives, a read at a time.
			fr := capture.NewFramer(capture.ContentFormat(resp.Header.Get("Content-Type")))
			var got []byte
			var events []string
			emit := func(f *capture.Frame) {
				if f.Flags&(capture.PreludeCRC|capture.MessageCRC|capture.BadLength|capture.Truncated) != 0 {
					t.Errorf("frame %d-%d damaged: %v", f.Start, f.End, f.Flags)
				}
				events = append(events, string(f.Event)+string(f.Data))
			}
			buf := make([]byte, 97)
			for {
				n, err := resp.Body.Read(buf)
				got = append(got, buf[:n]...)
				fr.Feed(buf[:n], 0, emit)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			fr.Finish(0, emit)
			if !bytes.Equal(got, want) || len(events) != len(frames) {
				t.Fatalf("replay served %d bytes in %d frames; want the %d recorded in %d", len(got), len(events), len(want), len(frames))
			}
		})
	}
}

// TestReplayPlainBinary: a file that is not a recording is served with the
// media type of what its bytes are, and the AI SDK's v4 data stream with
// the header that says what its text/plain does not.
func TestReplayPlainBinary(t *testing.T) {
	t.Parallel()
	for name, ctype := range map[string]string{
		"bedrock-invoke-claude-tool": capture.EventStreamContentType,
		"ollama-chat-tool-calls":     "application/x-ndjson",
		"chat-single-call":           sseType,
		"aisdk-data-two-steps":       "text/plain; charset=utf-8",
	} {
		data, _ := samples.Open(name)
		rc, err := proxy.ReplayData(name, data)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(proxy.Replay(rc, proxy.ReplayOptions{}))
		resp, err := rawClient.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		if err != nil || resp.Header.Get("Content-Type") != ctype || !bytes.Equal(got, data) {
			t.Errorf("%s: served as %q (%v); want %q and its bytes", name, resp.Header.Get("Content-Type"), err, ctype)
		}
		if ds := resp.Header.Get(capture.DataStreamHeader); (ds == "v1") != (name == "aisdk-data-two-steps") {
			t.Errorf("%s: %s %q", name, capture.DataStreamHeader, ds)
		}
	}
}

// bodyFrames cuts a body into its frames' bytes.
func bodyFrames(t *testing.T, format capture.Format, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	fr := capture.NewFramer(format)
	emit := func(f *capture.Frame) { out = append(out, bytes.Clone(f.Raw)) }
	fr.Feed(body, 0, emit)
	fr.Finish(0, emit)
	return out
}

// proxyRecord runs `streamtap proxy --no-tui --record dir` in front of
// upstream and sends one POST of body to path through it.
func proxyRecord(t *testing.T, upstream, dir, path, body string) {
	t.Helper()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"proxy", "--no-tui", "--listen", addr, "--upstream", upstream, "--record", dir}, os.Stdin, io.Discard, io.Discard)
	}()
	var resp *http.Response
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; {
		if resp, err = rawClient.Post("http://"+addr+path, "application/json", strings.NewReader(body)); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("the proxy did not answer: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	cancel()
	select {
	case <-exit:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not stop")
	}
}

// replayListen runs `streamtap replay FILE --listen` on a loopback port;
// it returns the base URL and a function that stops it.
func replayListen(t *testing.T, file string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"replay", file, "--listen", "127.0.0.1:0", "--speed", "10"}, nil, io.Discard, pw)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	var base string
	for {
		line, err := br.ReadString('\n')
		if m := regexp.MustCompile(`on (http://\S+)`).FindStringSubmatch(line); m != nil {
			base = m[1]
			break
		}
		if err != nil {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if base == "" {
		cancel()
		t.Fatal("replay did not say where it listens")
	}
	return base, func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("replay exited %d", code)
		}
	}
}
