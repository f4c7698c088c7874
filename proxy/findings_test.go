package proxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/ingest"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/ui"
)

// TestSessionsListFindingsMatchCheck sends every sample, every shared
// capture and a few bad bodies through the proxy with the sessions list,
// opens each session, and holds its findings pane to what `streamtap
// check` finds in the session's recording (read as check reads a file):
// the list must see the bytes the checks need, as check does.
func TestSessionsListFindingsMatchCheck(t *testing.T) {
	t.Parallel()
	bodies := map[string][]byte{
		"no-done":   []byte("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n"),
		"anth-noev": []byte("data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\ndata: {\"type\":\"message_stop\"}\n\n"),
		"cut":       []byte("event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"status\":\"in_progress\"}}\n\nevent: response.output_text.delta\ndata: {\"type\":\"resp"),
		"bad-utf8":  []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff\xfe ok\"}}]}\n\n"),
		"cr-only":   []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\r\rdata: [DONE]\r\r"),
		"empty":     nil,
	}
	addSamplesAndCaptures(t, bodies, "")
	names := make([]string, 0, len(bodies))
	for name := range bodies {
		names = append(names, name)
	}
	slices.Sort(names)

	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(bodies[r.URL.Query().Get("name")])
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	dir := t.TempDir()
	type news struct {
		msg   tea.Msg
		ended int
	}
	msgs := make(chan news, 1024)
	feed := NewFeed(func(b []model.SessionUpdate) {
		n := 0
		for _, u := range b {
			if u.Ended {
				n++
			}
		}
		msgs <- news{ui.Sessions(b), n}
	})
	t.Cleanup(feed.Abort)
	p := New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, Record: dir, Feed: feed}, io.Discard)
	done := make(chan *session, len(names))
	p.onDone = func(s *session) { done <- s }
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)

	m := ui.NewSessions(ui.Options{Source: "proxy test", Checks: ui.StrictChecks})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	recs := map[int]string{}
	for _, name := range names { // one at a time: session i+1 is names[i]
		resp, err := rawClient.Get(srv.URL + "/v1/chat/completions?name=" + url.QueryEscape(name))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		s := waitSession(t, done)
		recs[s.id] = s.recPath
	}
	deadline := time.After(20 * time.Second)
	for ended := 0; ended < len(names); {
		select {
		case n := <-msgs:
			m.Update(n.msg)
			ended += n.ended
		case <-deadline:
			t.Fatal("the sessions did not all reach the list")
		}
	}
	press := func(k tea.KeyPressMsg) { m.Update(k); _ = m.View() }
	press(tea.KeyPressMsg{Code: 'g', Text: "g"})
	for i, name := range names {
		press(tea.KeyPressMsg{Code: tea.KeyEnter})
		got := findingKeys(m.Findings())
		want := findingKeys(checkFile(t, recs[i+1]))
		if !slices.Equal(got, want) {
			t.Errorf("%s: the sessions list's findings differ from check's:\nlist:  %v\ncheck: %v", name, got, want)
		}
		press(tea.KeyPressMsg{Code: tea.KeyEscape})
		press(tea.KeyPressMsg{Code: 'j', Text: "j"})
	}
}

// checkFile checks a file the way `streamtap check` does.
func checkFile(t *testing.T, path string) []checks.Finding {
	t.Helper()
	src, err := capture.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	opts, c := checks.Attach(model.Options{Raw: src.ReaderAt()})
	s := model.NewSession(opts)
	err = ingest.Session(t.Context(), src, capture.ReadOptions{}, s, nil, nil, true, false)
	s.End(err)
	return c.Report(s, checks.Strict).Findings
}

func findingKeys(fs []checks.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %v: %s", f.Severity, f.Rule, f.Events, f.Message))
	}
	slices.Sort(out)
	return out
}
