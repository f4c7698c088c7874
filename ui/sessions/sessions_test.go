package sessions

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/ui/internal/uitest"
	"github.com/streamtap/streamtap/ui/theme"
)

// liveSession plays the proxy: it models an exchange's bytes, data, from
// the frames given, and shares the session.
func liveSession(data []byte, fs []capture.Frame, ended bool) *model.Live {
	s := model.NewSession(model.Options{KeepEvents: true, Raw: bytes.NewReader(data)})
	for i := range fs {
		s.Add(&fs[i])
	}
	if ended {
		s.End(nil)
	}
	return model.NewLive(s)
}

// addLive adds frames to a live session as the proxy does, under its lock.
func addLive(l *model.Live, fs []capture.Frame, ended bool) {
	s := l.Lock()
	defer l.Unlock()
	for i := range fs {
		s.Add(&fs[i])
	}
	if ended {
		s.End(nil)
	}
}

func sessionsModel(t testing.TB, w, h int) *Model {
	t.Helper()
	m := NewSessions(Options{Source: "proxy http://127.0.0.1:8787 → https://api.openai.com", Checks: fakeChecks})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// proxyBatch is what the proxy's feed would send for three exchanges: a
// finished Responses stream with two calls, the next turn still streaming
// and leaving a call unanswered, and a request the upstream never answered.
func proxyBatch(t testing.TB) []model.SessionUpdate {
	t.Helper()
	data := sampleBytes(t, goldenSample)
	next := sampleBytes(t, "responses-single-call")
	fs := frames(next)
	ms := time.Millisecond
	req := &model.Request{
		Header:     http.Header{"Authorization": {"Bearer sk-live-secret"}, "Content-Type": {"application/json"}},
		Size:       812,
		Tools:      []string{"get_weather", "get_local_time"},
		ToolChoice: "auto",
		Parallel:   "true",
	}
	req2 := &model.Request{
		Size:     1290,
		Tools:    []string{"get_weather"},
		Previous: "resp_123",
		Outputs:  []model.ToolOutput{{Kind: "function_call_output", CallID: "call_a", Output: `{"temp":21}`}},
	}
	return []model.SessionUpdate{
		{
			Info: model.Exchange{Exchange: capture.Exchange{Method: "POST", Status: 200}, ID: 1, Path: "/v1/responses", Model: "gpt-4.1",
				Dur: 2315 * ms, TTFB: 412 * ms, TFE: 413 * ms, Outcome: "completed", Request: req},
			Live: liveSession(data, frames(data), true), Ended: true,
		},
		{
			Info: model.Exchange{Exchange: capture.Exchange{Method: "POST", Status: 200}, ID: 2, Path: "/v1/responses", Model: "gpt-4.1",
				Dur: 950 * ms, TTFB: 300 * ms, TFE: 301 * ms, TurnOf: 1, Unanswered: []string{"call_b"}, Request: req2},
			Live: liveSession(next, fs[:len(fs)/2], false),
		},
		{
			Info: model.Exchange{Exchange: capture.Exchange{Method: "POST"}, ID: 3, Path: "/v1/chat/completions", Model: "gpt-4o-mini",
				Dur: 12 * ms, TTFB: capture.NoTime, TFE: capture.NoTime, Outcome: "unreachable", Err: "dial tcp: connection refused"},
			Live: liveSession(nil, nil, true), Ended: true,
		},
	}
}

// TestSessionsGolden renders the sessions list, and a session opened from
// it with its request pane, at 80×24 and 120×40.
func TestSessionsGolden(t *testing.T) {
	cases := []struct {
		name  string
		setup func(m *Model)
	}{
		{"list", func(m *Model) {}},
		{"opened", func(m *Model) { press(m, "g", "enter") }},
		{"request", func(m *Model) { press(m, "k", "enter", "7") }},
		// Triage: the list filtered by a path, sorted by findings, two
		// sessions marked for d.
		{"filtered", func(m *Model) { press(m, "/", "r", "e", "s", "p", "enter") }},
		{"by-findings", func(m *Model) { press(m, "s") }},
		{"marked", func(m *Model) { press(m, "g", "m", "j", "m") }},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s_%dx%d", c.name, size[0], size[1]), func(t *testing.T) {
				m := sessionsModel(t, size[0], size[1])
				m.Update(Sessions(proxyBatch(t)))
				c.setup(m)
				out := viewOf(m)
				checkFits(t, out, size[0], size[1])
				if size[0] != 120 || c.name != "list" {
					out = ansi.Strip(out)
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}

func TestSessionsOpenAndBack(t *testing.T) {
	m := sessionsModel(t, 120, 40)
	if v := plainView(m); !strings.Contains(v, "waiting for requests") {
		t.Fatalf("empty list:\n%s", v)
	}
	batch := proxyBatch(t)
	m.Update(Sessions(batch))
	v := plainView(m)
	for _, want := range []string{"gpt-4.1", "✗1 !1 ✗ completed", "● streaming", "✗ unreachable", "of #1 !1", "3 sessions"} {
		if !strings.Contains(v, want) {
			t.Errorf("list lacks %q:\n%s", want, v)
		}
	}
	if m.list.sl.cursor != 2 {
		t.Errorf("following: cursor = %d; want the newest (2)", m.list.sl.cursor)
	}
	press(m, "k")
	if v := plainView(m); !strings.Contains(v, "#2 · answers #1 · no tool output for call_b") {
		t.Errorf("the selected session's line should name the unanswered call:\n%s", v)
	}
	press(m, "g", "enter")
	if m.list.cur == nil || m.insp.Session() != m.list.px[0].s {
		t.Fatalf("enter should open session #1 in the inspector")
	}
	press(m, "G", "3")
	v = plainView(m)
	for _, want := range []string{"get_weather", "get_local_time", "#1 POST /v1/responses"} {
		if !strings.Contains(v, want) {
			t.Errorf("inspector of #1 lacks %q:\n%s", want, v)
		}
	}
	press(m, "esc")
	if m.list.cur != nil {
		t.Fatalf("esc should go back to the list")
	}
	if v := plainView(m); !strings.Contains(v, "sessions") || !strings.Contains(v, "/v1/chat/completions") {
		t.Errorf("back on the list:\n%s", v)
	}

	// Open the live session, then let the rest of its stream arrive: the
	// open panes follow it and it ends.
	press(m, "j", "enter")
	if m.list.cur != m.list.px[1] || !m.insp.Live {
		t.Fatalf("the second session should be open and live")
	}
	next := sampleBytes(t, "responses-single-call")
	fs := frames(next)
	info := batch[1].Info
	info.Outcome = "completed"
	addLive(batch[1].Live, fs[len(fs)/2:], true)
	m.Update(Sessions([]model.SessionUpdate{{Info: info, Ended: true}}))
	if m.insp.Live || m.insp.Session().Len() != len(fs) {
		t.Fatalf("after the end: live=%v len=%d; want false, %d", m.insp.Live, m.insp.Session().Len(), len(fs))
	}
	press(m, "7")
	if v := plainView(m); !strings.Contains(v, "call_a") || !strings.Contains(v, "resp_123") || !strings.Contains(v, "no tool output for 1 call of #1: call_b") {
		t.Errorf("request pane:\n%s", v)
	}
	press(m, "esc")
	if v := plainView(m); strings.Contains(v, "● streaming") {
		t.Errorf("the ended session still shows as streaming:\n%s", v)
	}
}

// TestSessionsUpdatesAreBatched: one message carries many frames of many
// sessions, and sessions seen again are updated, not added.
func TestSessionsUpdatesAreBatched(t *testing.T) {
	m := sessionsModel(t, 100, 30)
	data := sampleBytes(t, "chat-parallel-calls")
	fs := frames(data)
	var batch []model.SessionUpdate
	for id := 1; id <= 5; id++ {
		batch = append(batch, model.SessionUpdate{Info: model.Exchange{Exchange: capture.Exchange{Method: "POST", Status: 200}, ID: id, Path: "/v1/chat/completions"},
			Live: liveSession(data, fs[:3], false)})
	}
	m.Update(Sessions(batch))
	for i := range batch {
		addLive(batch[i].Live, fs[3:], false)
	}
	m.Update(Sessions(batch))
	if len(m.list.px) != 5 {
		t.Fatalf("%d sessions; want 5", len(m.list.px))
	}
	for _, ps := range m.list.px {
		if ps.seen != len(fs) || ps.calls == 0 {
			t.Fatalf("session #%d: %d events, %d calls; want %d events and calls", ps.info.ID, ps.seen, ps.calls, len(fs))
		}
	}
}

func TestSessionsWidthSweep(t *testing.T) {
	t.Parallel()
	for _, h := range []int{10, 15, 24} {
		for _, w := range widths(20, 160, 3) {
			for _, keys := range [][]string{nil, {"g", "enter", "7"}} {
				m := sessionsModel(t, w, h)
				m.Update(Sessions(proxyBatch(t)))
				press(m, keys...)
				out := viewOf(m)
				lines := strings.Split(out, "\n")
				for i, l := range lines {
					if lw := ansi.StringWidth(l); lw > w {
						t.Fatalf("%v at %dx%d: line %d is %d cells: %q", keys, w, h, i, lw, ansi.Strip(l))
					}
				}
				if len(lines) > h {
					t.Fatalf("%v at %dx%d: %d lines", keys, w, h, len(lines))
				}
			}
		}
	}
}

// TestSessionsHostileRequest: terminal escapes in a path, a model name, a
// header, a tool name or a tool output, and credentials in headers and the
// query, never reach the view raw.
func TestSessionsHostileRequest(t *testing.T) {
	evil := "\x1b]0;pwned\x07\x1b[2J"
	req := &model.Request{
		Header:     http.Header{"Authorization": {"Bearer sk-secret-123"}, "X-Api-Key": {"sk-secret-123"}, "X-Evil" + evil: {evil}},
		Tools:      []string{"tool" + evil},
		ToolChoice: `{"type":"function","name":"` + evil + `"}`,
		Previous:   "resp" + evil,
		Outputs:    []model.ToolOutput{{Kind: "tool" + evil, CallID: "call" + evil, Output: "out" + evil + "\u202e"}},
	}
	info := model.Exchange{Exchange: capture.Exchange{Method: "POST" + evil, Status: 200}, ID: 1, Path: "/v1beta/models/x" + evil + ":streamGenerateContent?key=sk-secret-123&alt=sse",
		Model: "m" + evil, Err: evil, Outcome: "failed" + evil, TurnOf: 1, Unanswered: []string{"c" + evil}, Request: req}
	bad := []string{"\x1b]0;", "\x07", "\x1b[2J", "sk-secret-123", "\u202e"}
	for _, keys := range [][]string{nil, {"enter"}, {"enter", "7"}, {"enter", "7", "?"}} {
		m := sessionsModel(t, 140, 50)
		m.Update(Sessions([]model.SessionUpdate{{Info: info, Live: liveSession(nil, nil, true), Ended: true}}))
		press(m, keys...)
		out := viewOf(m)
		for _, b := range bad {
			if strings.Contains(out, b) {
				t.Errorf("after %v the view holds %q raw", keys, b)
			}
		}
		if len(keys) == 2 && !strings.Contains(ansi.Strip(out), "[redacted]") {
			t.Errorf("the request pane should show redacted headers:\n%s", ansi.Strip(out))
		}
	}
}

func TestSessionsKeepIDOrder(t *testing.T) {
	m := sessionsModel(t, 100, 30)
	up := func(ids ...int) {
		var b []model.SessionUpdate
		for _, id := range ids {
			b = append(b, model.SessionUpdate{Info: model.Exchange{Exchange: capture.Exchange{Method: "POST"}, ID: id, Path: fmt.Sprintf("/p%d", id)},
				Live: liveSession(nil, nil, false)})
		}
		m.Update(Sessions(b))
	}
	up(1, 3)
	press(m, "k") // on #1, follow off
	up(2, 4)
	var ids []int
	for _, ps := range m.list.px {
		ids = append(ids, ps.info.ID)
	}
	if fmt.Sprint(ids) != "[1 2 3 4]" {
		t.Fatalf("ids = %v; want [1 2 3 4]", ids)
	}
	if got := m.list.selectedSession().info.ID; got != 1 {
		t.Errorf("selected #%d; want #1 (the cursor stays on its session)", got)
	}
	press(m, "f")
	if got := m.list.selectedSession().info.ID; got != 4 {
		t.Errorf("after f selected #%d; want the newest, #4", got)
	}
}

// TestSessionsFindingsBySeverity: the findings column counts by severity,
// coloured by the worst, and a session that completed with error
// findings never reads as a green success.
func TestSessionsFindingsBySeverity(t *testing.T) {
	data := sampleBytes(t, goldenSample)
	sev := func(sevs ...checks.Severity) func(*model.Session) []checks.Finding {
		return func(*model.Session) []checks.Finding {
			var fs []checks.Finding
			for _, s := range sevs {
				fs = append(fs, checks.Finding{Severity: s, Rule: "r"})
			}
			return fs
		}
	}
	cases := []struct {
		name           string
		check          func(*model.Session) []checks.Finding
		find, outcome  string
		outcomeIsError bool
	}{
		{"errors", sev(checks.Error, checks.Warning, checks.Warning, checks.Info), "✗1 !2 ◇1", "✗ completed", true},
		{"warnings", sev(checks.Warning, checks.Info), "!1 ◇1", "✓ completed", false},
		{"none", sev(), "0", "✓ completed", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := NewSessions(Options{Source: "proxy", Checks: c.check})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
			m.Update(Sessions([]model.SessionUpdate{{
				Info: model.Exchange{Exchange: capture.Exchange{Method: "POST", Status: 200}, ID: 1, Path: "/v1/responses", Outcome: "completed"},
				Live: liveSession(data, frames(data), true), Ended: true,
			}}))
			v := plainView(m)
			if want := c.find + " " + c.outcome; !strings.Contains(v, want) {
				t.Errorf("row lacks %q:\n%s", want, v)
			}
			st := &m.list.Styles
			text, style := m.list.px[0].outcome(st, true)
			if text != c.outcome || (style.GetForeground() == st.Status.Error.GetForeground()) != c.outcomeIsError {
				t.Errorf("outcome %q in %v; want %q, error colour %v", text, style.GetForeground(), c.outcome, c.outcomeIsError)
			}
			if c.name == "errors" {
				_, fstyle := m.list.px[0].cell("find", false, true, st)
				if fstyle.GetForeground() != st.Timeline.Finding[theme.SevError].GetForeground() {
					t.Errorf("the findings column of a session with errors should take the error colour")
				}
			}
		})
	}
}

// TestSessionsWarning: a warning the proxy gave as it started (a config
// file it passed over) stays in the status line, which the screen would
// otherwise leave silent, escaped like any text.
func TestSessionsWarning(t *testing.T) {
	t.Parallel()
	m := NewSessions(Options{Source: "proxy http://127.0.0.1:8787 → https://api.openai.com", Warning: "passed over config /tmp/x/.streamtap.yaml\x1b[2J: owned by another user (uid 4242)"})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 20})
	status := uitest.LastLine(plainView(m))
	if !strings.Contains(status, `passed over config /tmp/x/.streamtap.yaml\x1b[2J: owned by another user (uid 4242)`) || !strings.Contains(status, "proxy http://127.0.0.1:8787") {
		t.Errorf("status line %q; want the warning, escaped, and the source", status)
	}
}
