package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui"
)

// TestSessionsListRequestChecks: the proxy gives each exchange's checks
// the request the client sent, so the sessions list shows the request
// rules' findings, and they are those check finds in the exchange's
// recording (whose header carries the request body).
func TestSessionsListRequestChecks(t *testing.T) {
	t.Parallel()
	const stream = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" +
		"data: [DONE]\n\n"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, stream)
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	msgs := make(chan tea.Msg, 64)
	ended := make(chan struct{}, 1)
	feed := NewFeed(func(b []model.SessionUpdate) {
		msgs <- ui.Sessions(b)
		for _, x := range b {
			if x.Ended {
				ended <- struct{}{}
			}
		}
	})
	t.Cleanup(feed.Abort)
	p := New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, Record: t.TempDir(), Feed: feed}, io.Discard)
	done := make(chan *session, 1)
	p.onDone = func(s *session) { done <- s }
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)

	body := `{"model":"m","stream":true,"messages":[],"tools":[{"type":"function","function":{"name":"g","parameters":{"type":"object"}}}],"tool_choice":"none"}`
	resp, err := rawClient.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	s := waitSession(t, done)

	m := ui.NewSessions(ui.Options{Source: "proxy test", Checks: ui.StrictChecks})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	deadline := time.After(20 * time.Second)
	for waiting := true; waiting; {
		select {
		case msg := <-msgs:
			m.Update(msg)
		case <-ended:
			waiting = false
		case <-deadline:
			t.Fatal("the session did not reach the list")
		}
	}
	for len(msgs) > 0 {
		m.Update(<-msgs)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	_ = m.View()
	got := findingKeys(m.Findings())
	want := findingKeys(checkFile(t, s.recPath))
	for _, rule := range []string{"request/tool-undeclared", "request/tool-choice-violated"} {
		if !slices.ContainsFunc(got, func(k string) bool { return strings.Contains(k, " "+rule+" ") }) {
			t.Errorf("the list's findings %v lack %s", got, rule)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the sessions list's findings differ from check's:\nlist:  %v\ncheck: %v", got, want)
	}
}
