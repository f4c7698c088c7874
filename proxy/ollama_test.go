package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// TestProxyOllama: the proxy in front of an Ollama server (OLLAMA_HOST)
// passes its NDJSON through unchanged, lines split across writes, and
// models it as Ollama: the calls, the outcome, a recording (NAME.ndjson)
// that reads back as the same stream, each line at its time.
func TestProxyOllama(t *testing.T) {
	t.Parallel()
	want, err := samples.Open("ollama-chat-tool-calls")
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-ndjson")
		rc := http.NewResponseController(w)
		for off := 0; off < len(want); off += 61 { // lines cut across writes
			if _, err := w.Write(want[off:min(off+61, len(want))]); err != nil {
				return
			}
			_ = rc.Flush()
		}
	}))
	t.Cleanup(up.Close)
	dir := t.TempDir()
	proxyURL, done, logs := startProxy(t, up.URL, func(o *Options) { o.Record = dir })
	body := `{"model":"qwen3:8b","stream":true,"messages":[{"role":"user","content":"Weather in Paris, time in Tokyo?"}],"tools":[{"type":"function","function":{"name":"get_weather"}},{"type":"function","function":{"name":"get_local_time"}}]}`
	resp, err := rawClient.Post(proxyURL+"/api/chat", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, want) || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("client got %d bytes of %q; want the %d bytes the server sent, unchanged", len(got), resp.Header.Get("Content-Type"), len(want))
	}
	s := waitSession(t, done)
	if s.state != model.OutcomeCompleted || len(s.live.Session().Calls()) != 2 || s.req.Model != "qwen3:8b" {
		t.Errorf("session: state %q, %d calls, model %q; want completed, 2, qwen3:8b", s.state, len(s.live.Session().Calls()), s.req.Model)
	}
	for _, w := range []string{"POST /api/chat 200", "dialect=ollama", "calls=2", "outcome=completed"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("log line lacks %q:\n%s", w, logs)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if len(files) != 1 {
		t.Fatalf("recordings = %v; want 1", files)
	}
	src, err := capture.Open(files[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var lines int
	err = src.Read(t.Context(), capture.ReadOptions{}, func(f *capture.Frame) error {
		if f.Kind == capture.FrameEvent {
			lines++
			if f.At == capture.NoTime {
				t.Errorf("line %d has no time", lines)
			}
		}
		return nil
	})
	if err != nil || lines != bytes.Count(want, []byte("\n")) {
		t.Errorf("the recording reads back as %d lines (%v); want %d", lines, err, bytes.Count(want, []byte("\n")))
	}
}
