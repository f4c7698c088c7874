package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// TestReplayLogsTheStreamsOutcome: a replay that sent all of the
// recording logs the recorded stream's outcome, as the proxy logs a
// stream it passed on (outcome=completed, outcome=truncated), not
// outcome=done, which no other line says.
func TestReplayLogsTheStreamsOutcome(t *testing.T) {
	for _, tt := range []struct{ sample, want string }{
		{"responses-single-call", "outcome=completed"},
		{"broken-cut-before-terminal", "outcome=truncated"},
	} {
		t.Run(tt.sample, func(t *testing.T) {
			data, err := samples.Open(tt.sample)
			if err != nil {
				t.Fatal(err)
			}
			rec := &capture.Recording{
				Exchange: capture.Exchange{Status: http.StatusOK, HeadAt: capture.NoTime,
					ResponseHeader: http.Header{"Content-Type": {"text/event-stream"}}},
				Body:   []capture.Chunk{{At: capture.NoTime, Data: data}},
				Format: capture.DetectFormat(data),
			}
			var logs syncBuffer
			srv := httptest.NewServer(Replay(rec, 1, NewLog(&logs)))
			defer srv.Close()
			resp, err := http.Get(srv.URL + "/v1/responses")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Equal(body, data) {
				t.Fatalf("the replay sent %d bytes; want the recording's %d", len(body), len(data))
			}
			srv.Close() // the handler has logged once the server is closed
			if l := logs.String(); !strings.Contains(l, tt.want) || strings.Contains(l, "outcome=done") {
				t.Errorf("the replay's log should say %s:\n%s", tt.want, l)
			}
		})
	}
}
