package proxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui"
)

// TestProxyFeedsSessionsList runs concurrent streams through a proxy with
// the sessions list's feed and drives the UI model with the batches, as
// the program would: every session appears once, ends, opens in the
// inspector with its calls, and its request shows without secrets. Run
// with -race, it also shows the UI never shares a session with the proxy.
func TestProxyFeedsSessionsList(t *testing.T) {
	t.Parallel()
	up := slowUpstream(t, 61, time.Millisecond, nil)
	u, _ := url.Parse(up.URL)
	p := New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout}, io.Discard)
	msgs := make(chan tea.Msg, 64)
	var mu sync.Mutex
	shown, modelled := map[int]*model.Live{}, map[int]*model.Live{}
	p.feed = NewFeed(func(b []model.SessionUpdate) {
		mu.Lock()
		for _, u := range b {
			shown[u.Info.ID] = u.Live
		}
		mu.Unlock()
		msgs <- ui.Sessions(b)
	})
	p.onDone = func(s *session) {
		mu.Lock()
		modelled[s.id] = s.live
		mu.Unlock()
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)

	m := ui.NewSessions(ui.Options{Source: "proxy test", Checks: ui.StrictChecks})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})

	const n = 6
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body := `{"model":"gpt-test","stream":true,"tool_choice":"required","parallel_tool_calls":true,` +
				`"tools":[{"type":"function","name":"get_weather"},{"type":"function","name":"get_local_time"}],` +
				`"input":[{"type":"function_call_output","call_id":"call_prev","output":"{\"ok\":true}"}]}`
			req, _ := http.NewRequest("POST", fmt.Sprintf("%s/v1/responses?sample=responses-parallel-calls&id=%d", srv.URL, i), strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer sk-secret-in-test")
			resp, err := rawClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	clientsDone := make(chan struct{})
	go func() { wg.Wait(); close(clientsDone) }()

	deadline := time.After(15 * time.Second)
	ended := func(v string) bool {
		return strings.Count(v, "✓ completed") == n && strings.Contains(v, fmt.Sprintf("%d sessions", n))
	}
	for {
		select {
		case msg := <-msgs:
			m.Update(msg)
		case <-deadline:
			t.Fatalf("sessions did not all end:\n%s", ansi.Strip(m.View().Content))
		}
		if ended(ansi.Strip(m.View().Content)) {
			break
		}
	}
	<-clientsDone
	p.feed.Abort()
	// Each exchange is modelled once: the sessions list shows the very
	// session the log line and the turn links were read from.
	mu.Lock()
	for id := 1; id <= n; id++ {
		if shown[id] == nil || shown[id] != modelled[id] {
			t.Errorf("session #%d: the list shows %p, the proxy modelled %p; want one session", id, shown[id], modelled[id])
		}
	}
	mu.Unlock()

	m.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	m.Update(tea.KeyPressMsg{Code: '3', Text: "3"})
	v := ansi.Strip(m.View().Content)
	for _, want := range []string{"get_weather", "get_local_time", "ended: completed", "#1 POST /v1/responses"} {
		if !strings.Contains(v, want) {
			t.Errorf("the opened session lacks %q:\n%s", want, v)
		}
	}
	m.Update(tea.KeyPressMsg{Code: '7', Text: "7"})
	v = ansi.Strip(m.View().Content)
	for _, want := range []string{"required", "parallel_tool_calls   true", "call_prev", `{"ok":true}`} {
		if !strings.Contains(v, want) {
			t.Errorf("the request pane lacks %q:\n%s", want, v)
		}
	}
	m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"}) // the headers are at the bottom
	v = ansi.Strip(m.View().Content)
	if !strings.Contains(v, "Authorization: [redacted]") || strings.Contains(v, "sk-secret-in-test") {
		t.Errorf("the request pane should show the API key redacted:\n%s", v)
	}
}

// TestFeedKeepsOrder: many sessions publishing at once, through a slow
// UI, lose none: each arrives, its updates in id order within a batch,
// its last update says it ended, and nothing follows its end.
func TestFeedKeepsOrder(t *testing.T) {
	t.Parallel()
	type got struct {
		ended, late bool
		live        *model.Live
	}
	var mu sync.Mutex
	seen := map[int]*got{}
	unordered := false
	f := NewFeed(func(b []model.SessionUpdate) {
		time.Sleep(time.Millisecond) // a busy UI
		mu.Lock()
		defer mu.Unlock()
		for i, u := range b {
			if i > 0 && b[i-1].Info.ID >= u.Info.ID {
				unordered = true
			}
			g := seen[u.Info.ID]
			if g == nil {
				g = &got{live: u.Live}
				seen[u.Info.ID] = g
			}
			g.late = g.late || g.ended || u.Live != g.live
			g.ended = g.ended || u.Ended
		}
	})
	const sessions, touches = 16, 3000
	var wg sync.WaitGroup
	for id := 1; id <= sessions; id++ {
		wg.Go(func() {
			l := model.NewLive(model.NewSession(model.Options{}))
			f.update(model.Exchange{ID: id}, time.Now(), l)
			for range touches {
				f.touch(id)
			}
			f.end(model.Exchange{ID: id, Outcome: "completed"}, l, nil, nil, "")
			f.touch(id) // after the end: nothing
		})
	}
	wg.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		all := len(seen) == sessions
		for _, g := range seen {
			all = all && g.ended
		}
		mu.Unlock()
		if all || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.Abort()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != sessions || unordered {
		t.Fatalf("%d sessions seen, unordered=%v; want %d in id order", len(seen), unordered, sessions)
	}
	for id, g := range seen {
		if !g.ended || g.late {
			t.Fatalf("session %d: ended=%v late=%v; want true false", id, g.ended, g.late)
		}
	}
}

// TestFeedLiveDurSoFar: every update of a session still open carries its
// duration so far, not the one it had when the proxy last published it
// (a session streaming events was shown at its first "3ms" for seconds:
// each new event resent its stale state).
func TestFeedLiveDurSoFar(t *testing.T) {
	batches := make(chan []model.SessionUpdate, 16)
	f := NewFeed(func(b []model.SessionUpdate) { batches <- b })
	defer f.Abort()
	l := model.NewLive(model.NewSession(model.Options{}))
	started := time.Now().Add(-3 * time.Second) // a session open for 3 s
	f.update(model.Exchange{ID: 1, Dur: 3 * time.Millisecond}, started, l)
	for range 3 {
		f.touch(1) // events arrive
		b := <-batches
		if d := b[0].Info.Dur; d < 3*time.Second {
			t.Fatalf("a live session's update says dur %v; want its time so far (≥ 3s)", d)
		}
	}
	f.end(model.Exchange{ID: 1, Dur: 4 * time.Second, Outcome: "completed"}, l, nil, nil, "")
	if d := (<-batches)[0].Info.Dur; d != 4*time.Second {
		t.Errorf("the ended session's dur is %v; want its final 4s", d)
	}
}
