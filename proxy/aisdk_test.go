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

// TestProxyAISDK: the proxy in front of a route built on the Vercel AI SDK
// passes its UI message stream (x-vercel-ai-ui-message-stream: v1) and its
// v4 data stream (text/plain, x-vercel-ai-data-stream: v1) through
// unchanged, chunks cut across writes, and models each as its dialect:
// the calls with their outputs, the outcome; its recording (.sse,
// .datastream)
// reads back as the same stream, each event at its time.
func TestProxyAISDK(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sample, ctype, header, dialect, ext string
		calls                               int
		outcome                             string
	}{
		{"aisdk-ui-two-steps", "text/event-stream", "X-Vercel-Ai-Ui-Message-Stream", "aisdk-ui", ".sse", 1, model.OutcomeCompleted},
		{"broken-aisdk-ui-no-finish", "text/event-stream", "X-Vercel-Ai-Ui-Message-Stream", "aisdk-ui", ".sse", 2, model.OutcomeTruncated},
		{"aisdk-data-two-steps", "text/plain; charset=utf-8", "X-Vercel-Ai-Data-Stream", "aisdk-data", ".datastream", 1, model.OutcomeCompleted},
	} {
		t.Run(tt.sample, func(t *testing.T) {
			t.Parallel()
			want, err := samples.Open(tt.sample)
			if err != nil {
				t.Fatal(err)
			}
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", tt.ctype)
				w.Header().Set(tt.header, "v1")
				rc := http.NewResponseController(w)
				for off := 0; off < len(want); off += 53 { // chunks cut across writes
					if _, err := w.Write(want[off:min(off+53, len(want))]); err != nil {
						return
					}
					_ = rc.Flush()
				}
			}))
			t.Cleanup(up.Close)
			dir := t.TempDir()
			proxyURL, done, logs := startProxy(t, up.URL, func(o *Options) { o.Record = dir })
			body := `{"id":"chat-1","messages":[{"id":"msg-user-1","role":"user","parts":[{"type":"text","text":"Weather?"}]}],"trigger":"submit-message"}`
			resp, err := rawClient.Post(proxyURL+"/api/chat", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Equal(got, want) || resp.Header.Get(tt.header) != "v1" {
				t.Fatalf("client got %d bytes, %s %q; want the %d bytes and the head the route sent", len(got), tt.header, resp.Header.Get(tt.header), len(want))
			}
			s := waitSession(t, done)
			sess := s.live.Session()
			if s.state != tt.outcome || sess.Dialect().String() != tt.dialect || len(sess.Calls()) != tt.calls {
				t.Errorf("session: %s, state %q, %d calls; want %s, %s, %d", sess.Dialect(), s.state, len(sess.Calls()), tt.dialect, tt.outcome, tt.calls)
			}
			if it := sess.Calls()[0]; tt.outcome == model.OutcomeCompleted && (it.Run() == nil || it.Run().OutputAt < 0) {
				t.Errorf("the call's run %+v has no output", it.Run())
			}
			for _, w := range []string{"POST /api/chat 200", "dialect=" + tt.dialect, "outcome=" + tt.outcome} {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("log line lacks %q:\n%s", w, logs)
				}
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*"+tt.ext))
			if len(files) != 1 {
				t.Fatalf("recordings = %v; want 1 %s", files, tt.ext)
			}
			src, err := capture.Open(files[0], nil)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			back := model.NewSession(model.Options{})
			err = src.Read(t.Context(), capture.ReadOptions{}, func(f *capture.Frame) error {
				if f.Kind == capture.FrameEvent && f.At == capture.NoTime {
					t.Errorf("event %d of the recording has no time", back.Len())
				}
				back.Add(f)
				return nil
			})
			back.End(err)
			if rep := back.Report(); rep.Dialect != tt.dialect || len(rep.Calls) != tt.calls || rep.Outcome.State != tt.outcome {
				t.Errorf("the recording reads back as %s, %d calls, %s; want %s, %d, %s", rep.Dialect, len(rep.Calls), rep.Outcome.State, tt.dialect, tt.calls, tt.outcome)
			}
		})
	}
}
