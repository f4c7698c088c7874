package sessions

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// triageModel is a list of five sessions of two dialects, statuses and
// models, whose findings differ by rule and severity.
func triageModel(t *testing.T) *Model {
	t.Helper()
	chat := sampleBytes(t, "chat-parallel-calls")
	resp := sampleBytes(t, goldenSample)
	// Findings by session, told apart by their path.
	byPath := map[string][]checks.Finding{
		"/a": {{Severity: checks.Warning, Rule: "chat/finish-reason"}},
		"/b": {{Severity: checks.Error, Rule: "responses/item-id-changes"}, {Severity: checks.Info, Rule: "x"}},
		"/d": {{Severity: checks.Error, Rule: "responses/item-id-changes"}, {Severity: checks.Error, Rule: "y"}},
	}
	var cur string
	check := func(*model.Session) []checks.Finding { return byPath[cur] }
	m := NewSessions(Options{Source: "proxy", Checks: check})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 20})
	for i, s := range []struct {
		path, model string
		status      int
		data        []byte
	}{{"/a", "gpt-4o", 200, chat}, {"/b", "gpt-4.1", 200, resp}, {"/c", "gpt-4o", 429, nil}, {"/d", "gpt-4.1", 200, resp}, {"/e", "o3", 200, chat}} {
		cur = s.path
		m.Update(Sessions([]model.SessionUpdate{{
			Info: model.Exchange{Exchange: capture.Exchange{Method: "POST", Status: s.status}, ID: i + 1, Path: s.path, Model: s.model, Outcome: "completed"},
			Live: liveSession(s.data, frames(s.data), true), Ended: true,
		}}))
	}
	return m
}

func listedPaths(m *Model) string {
	var paths []string
	for _, ps := range m.list.list() {
		paths = append(paths, ps.info.Path)
	}
	return strings.Join(paths, " ")
}

// TestSessionsFilter: `/` narrows the list as it is typed, by path,
// status, model, dialect or a finding's rule; enter keeps it, esc on the
// prompt puts back the one before, esc on the list clears it.
func TestSessionsFilter(t *testing.T) {
	cases := []struct{ query, want string }{
		{"/c", "/c"},
		{"429", "/c"},
		{"gpt-4.1", "/b /d"},
		{"chat", "/a /e"},
		{"item-id", "/b /d"},
		{"gpt-4o chat", "/a"},
		{"nothing-matches", ""},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			m := triageModel(t)
			press(m, "/")
			if !m.list.Typing() {
				t.Fatal("/ should open the filter prompt")
			}
			press(m, strings.Split(c.query, "")...)
			if got := listedPaths(m); got != c.want {
				t.Errorf("while typing %q: %q; want %q", c.query, got, c.want)
			}
			press(m, "enter")
			if got := listedPaths(m); got != c.want || m.list.Typing() {
				t.Errorf("after enter: %q (typing %v); want %q", got, m.list.Typing(), c.want)
			}
			if v := plainView(m); !strings.Contains(v, "/"+c.query) || !strings.Contains(v, "of 5") {
				t.Errorf("the title should name the filter and the total:\n%s", v)
			}
			press(m, "esc")
			if got := listedPaths(m); got != "/a /b /c /d /e" {
				t.Errorf("esc on the list should clear the filter: %q", got)
			}
		})
	}
	m := triageModel(t)
	press(m, "/", "4", "2", "9", "enter", "/", "x", "esc")
	if got := listedPaths(m); got != "/c" {
		t.Errorf("esc on the prompt should restore the filter before it: %q", got)
	}
	press(m, "enter")
	if m.list.cur == nil || m.list.cur.info.Path != "/c" {
		t.Errorf("enter should open the filtered list's selected session")
	}
}

// TestSessionsSortByFindings: s orders the list errors first, then
// warnings and infos, by id among equals; the cursor stays on its session.
func TestSessionsSortByFindings(t *testing.T) {
	m := triageModel(t)
	press(m, "g", "j") // on /b
	press(m, "s")
	if got := listedPaths(m); got != "/d /b /a /c /e" {
		t.Errorf("sorted by findings: %q; want /d /b /a /c /e", got)
	}
	if sel := m.list.selectedSession(); sel == nil || sel.info.Path != "/b" {
		t.Errorf("the cursor should stay on /b")
	}
	if v := plainView(m); !strings.Contains(v, "by findings") {
		t.Errorf("the title should say the order:\n%s", v)
	}
	press(m, "/", "g", "p", "t", "-", "4", ".", "1", "enter")
	if got := listedPaths(m); got != "/d /b" {
		t.Errorf("filter and order together: %q", got)
	}
	press(m, "esc", "s")
	if got := listedPaths(m); got != "/a /b /c /d /e" {
		t.Errorf("s again: %q; want id order", got)
	}
	// A session that arrives while sorted takes its place by findings.
	press(m, "s")
	m.Update(Sessions([]model.SessionUpdate{{Info: model.Exchange{ID: 6, Path: "/f"}, Live: liveSession(nil, nil, false)}}))
	if got := listedPaths(m); !slices.Equal(strings.Fields(got), []string{"/d", "/b", "/a", "/c", "/e", "/f"}) {
		t.Errorf("after a new session: %q", got)
	}
}

// TestSessionsMCP: an MCP exchange names no model: the model column
// shows what its request calls (model.Request.RPC: the tool, for a
// tools/call), the filter finds the whole RPC, and the selected line says
// what it does to the exchange it continues (resumes #1).
func TestSessionsMCP(t *testing.T) {
	m := NewSessions(Options{Source: "proxy"})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 20})
	for i, s := range []struct {
		path, rpc, link string
		turnOf          int
	}{{"/mcp", "tools/call slow_count", "", 0}, {"/mcp2", "", "resumes", 1}} {
		x := model.Exchange{Exchange: capture.Exchange{Method: "POST", Status: 200}, ID: i + 1, Path: s.path, Outcome: "completed", TurnOf: s.turnOf, Link: s.link}
		if s.rpc != "" {
			x.Request = &model.Request{RPC: s.rpc}
		}
		m.Update(Sessions([]model.SessionUpdate{{Info: x, Live: liveSession(nil, nil, true), Ended: true}}))
	}
	if v := plainView(m); !strings.Contains(v, "200 slow_count ") {
		t.Errorf("the list does not show the tool called:\n%s", v)
	}
	press(m, "/", "t", "o", "o", "l", "s", "/", "enter")
	if got := listedPaths(m); got != "/mcp" {
		t.Errorf("filtering by the RPC lists %q; want /mcp", got)
	}
	press(m, "esc", "G")
	if v := plainView(m); !strings.Contains(v, "resumes #1") {
		t.Errorf("the selected line does not say it resumes #1:\n%s", v)
	}
}
