package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
			rc, err := ReplayData("sample "+tt.sample, data)
			if err != nil {
				t.Fatal(err)
			}
			var logs syncBuffer
			srv := httptest.NewServer(Replay(rc, ReplayOptions{Log: NewLog(&logs)}))
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
