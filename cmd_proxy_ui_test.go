package main

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

	"github.com/streamtap/streamtap/capture"
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
	p := newProxy(proxyOptions{upstream: u, headTimeout: defaultHeadTimeout}, io.Discard)
	msgs := make(chan tea.Msg, 64)
	p.feed = newProxyFeed(func(b []ui.SessionUpdate) { msgs <- ui.Sessions(b) })
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)

	m := ui.NewSessions(ui.Options{Source: "proxy test", NewSession: newUISession})
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
	p.feed.abort()

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
	m.Update(tea.KeyPressMsg{Code: '6', Text: "6"})
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

// TestProxyFeedKeepsOrder: many sessions pushing frames at once, through
// a slow UI, lose nothing and keep each session's frames in order, and a
// session's end comes after its last frame.
func TestProxyFeedKeepsOrder(t *testing.T) {
	t.Parallel()
	type got struct {
		frames []int64
		ended  bool
		late   bool // a frame after the end
	}
	var mu sync.Mutex
	seen := map[int]*got{}
	f := newProxyFeed(func(b []ui.SessionUpdate) {
		time.Sleep(time.Millisecond) // a busy UI
		mu.Lock()
		defer mu.Unlock()
		for _, u := range b {
			g := seen[u.Info.ID]
			if g == nil {
				g = &got{}
				seen[u.Info.ID] = g
			}
			if g.ended && len(u.Frames) > 0 {
				g.late = true
			}
			for _, fr := range u.Frames {
				g.frames = append(g.frames, fr.Start)
			}
			g.ended = g.ended || u.Ended
		}
	})
	const sessions, frames = 16, 3000
	var wg sync.WaitGroup
	for id := 1; id <= sessions; id++ {
		wg.Go(func() {
			start := time.Now()
			f.update(ui.Exchange{ID: id}, start, nil)
			for i := range frames {
				f.frame(id, capture.Frame{Start: int64(i)})
			}
			f.end(ui.Exchange{ID: id, Outcome: "completed"}, nil, nil)
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
	f.abort()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != sessions {
		t.Fatalf("%d sessions seen; want %d", len(seen), sessions)
	}
	for id, g := range seen {
		if !g.ended || g.late || len(g.frames) != frames {
			t.Fatalf("session %d: ended=%v late=%v frames=%d; want true false %d", id, g.ended, g.late, len(g.frames), frames)
		}
		for i, s := range g.frames {
			if s != int64(i) {
				t.Fatalf("session %d: frame %d has start %d: out of order", id, i, s)
			}
		}
	}
}

func TestSplitBatch(t *testing.T) {
	t.Parallel()
	fs := func(n int) []capture.Frame { return make([]capture.Frame, n) }
	batch := []ui.SessionUpdate{
		{Info: ui.Exchange{ID: 1}, Frames: fs(3), Ended: true},
		{Info: ui.Exchange{ID: 2}, Frames: fs(9), Ended: true},
		{Info: ui.Exchange{ID: 3}},
	}
	msgs := splitBatch(batch, 4)
	var got []string
	for _, msg := range msgs {
		var parts []string
		total := 0
		for _, u := range msg {
			parts = append(parts, fmt.Sprintf("%d:%d:%v", u.Info.ID, len(u.Frames), u.Ended))
			total += len(u.Frames)
		}
		if total > 4 {
			t.Errorf("a message holds %d frames; want at most 4", total)
		}
		got = append(got, strings.Join(parts, " "))
	}
	want := []string{"1:3:true 2:1:false", "2:4:false", "2:4:true 3:0:false"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("splitBatch = %q; want %q", got, want)
	}
}

// TestParseRequestForThePane: what the request pane shows, in every
// dialect's way of sending tool output back.
func TestParseRequestForThePane(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, path string
		choice, parallel string
		outputs          string
	}{
		{"responses", `{"model":"m","tool_choice":{"type":"function","name":"f"},"parallel_tool_calls":false,` +
			`"input":[{"type":"function_call","call_id":"c1"},{"type":"function_call_output","call_id":"c1","output":"{\"a\": 1}"}]}`,
			"/v1/responses", `{"type":"function","name":"f"}`, "false", `[function_call_output c1 {"a": 1}]`},
		{"chat", `{"model":"m","tool_choice":"auto","messages":[{"role":"tool","tool_call_id":"c2","content":"sunny"}]}`,
			"/v1/chat/completions", "auto", "", "[tool c2 sunny]"},
		{"anthropic", `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x"}]}]}]}`,
			"/v1/messages", "", "", `[tool_result t1 [{"type":"text","text":"x"}]]`},
		{"gemini", `{"contents":[{"parts":[{"functionResponse":{"name":"f","response":{"ok":true}}}]}]}`,
			"/v1beta/models/g:streamGenerateContent", "", "", `[functionResponse f {"ok":true}]`},
		{"not json", `oops`, "/x", "", "", "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			info := parseRequest([]byte(tt.body), tt.path)
			var outs []string
			for _, o := range info.outputs {
				outs = append(outs, o.Kind+" "+o.CallID+" "+o.Output)
			}
			if info.toolChoice != tt.choice || info.parallel != tt.parallel || fmt.Sprint(outs) != tt.outputs {
				t.Errorf("parseRequest(%q) = choice %q parallel %q outputs %q; want %q %q %q",
					tt.body, info.toolChoice, info.parallel, fmt.Sprint(outs), tt.choice, tt.parallel, tt.outputs)
			}
		})
	}
	long := `{"input":[{"type":"function_call_output","call_id":"c","output":"` + strings.Repeat("é", 400) + `"}]}`
	if o := parseRequest([]byte(long), "/").outputs[0].Output; len(o) > maxOutputShown+len("…") || !strings.HasSuffix(o, "…") {
		t.Errorf("a long output is %d bytes; want it cut to %d with an ellipsis", len(o), maxOutputShown)
	}
}

func TestProxyLogFlag(t *testing.T) {
	t.Parallel()
	o, err := parseProxyArgs([]string{"--upstream", "http://127.0.0.1:1", "--log", "proxy.log"})
	if err != nil || o.logFile != "proxy.log" || o.noTUI {
		t.Errorf("parseProxyArgs(--log proxy.log) = %+v, %v; want logFile proxy.log", o, err)
	}
}
