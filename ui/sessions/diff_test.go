package sessions

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/diffview"
)

// drainCmds runs cmd and hands the model what it returns, and what that
// returns, until nothing is left; a command still running after a
// moment (a notice's fade) is left.
func drainCmds(m *Model, cmd tea.Cmd, depth int) {
	if cmd == nil || depth > 20 {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(300 * time.Millisecond):
		return
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			drainCmds(m, c, depth+1)
		}
		return
	}
	if msg == nil {
		return
	}
	_, next := m.Update(msg)
	drainCmds(m, next, depth+1)
}

// pairDiff is the constructor ui.NewSessions gives the list.
func pairDiff(e *app.Env, a, b DiffSide) DiffPage {
	return diffview.NewPair(e, a.S, a.Rec, a.Name, streamdiff.NewSide(b.Name, b.S, b.Rec), diffview.Config{B: b.Name, Compare: streamdiff.DefaultOptions()})
}

// pressRun presses keys and runs what they start.
func pressRun(m *Model, keys ...string) {
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		drainCmds(m, cmd, 0)
	}
}

// TestSessionsDiffMarked: m marks two sessions and d opens the
// side-by-side diff page on them, which compares them event by event;
// esc comes back to the list, once it has cleared the page's search.
// Before, the list had no way to compare.
func TestSessionsDiffMarked(t *testing.T) {
	m := NewSessions(Options{Source: "proxy", Checks: fakeChecks})
	m.list.NewDiff = pairDiff
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	one, two := sampleBytes(t, "chat-parallel-calls"), sampleBytes(t, goldenSample)
	var batch []model.SessionUpdate
	for i, data := range [][]byte{one, one, two} {
		batch = append(batch, model.SessionUpdate{
			Info: model.Exchange{Exchange: capture.Exchange{Method: "POST", Status: 200}, ID: i + 1, Path: fmt.Sprintf("/v1/s%d", i+1), Outcome: "completed"},
			Live: liveSession(data, frames(data), true), Ended: true,
		})
	}
	m.Update(Sessions(batch))

	pressRun(m, "g", "d")
	if m.list.diff != nil {
		t.Fatal("d with nothing marked should not open the diff page")
	}
	pressRun(m, "m", "j", "m")
	if v := plainView(m); !strings.Contains(v, "2 marked") || !strings.Contains(v, "*1") || !strings.Contains(v, "*2") {
		t.Errorf("the list should show the marks:\n%s", v)
	}
	pressRun(m, "d")
	if m.list.diff == nil {
		t.Fatalf("d should open the diff page on #1 and #2:\n%s", plainView(m))
	}
	v := plainView(m)
	for _, want := range []string{"#1 POST /v1/s1", "#2 POST /v1/s2", "equivalent", "no differences"} {
		if !strings.Contains(v, want) {
			t.Errorf("the diff page of two equal streams lacks %q:\n%s", want, v)
		}
	}
	// The page's search: esc clears it first, and only then goes back.
	pressRun(m, "/")
	pressRun(m, "c", "a", "l", "l")
	pressRun(m, "enter")
	if v := plainView(m); !strings.Contains(v, "/call  A ") {
		t.Fatalf("/call on the diff page should search both sides:\n%s", v)
	}
	pressRun(m, "esc")
	if v := plainView(m); m.list.diff == nil || strings.Contains(v, "/call  A ") {
		t.Fatalf("esc should clear the page's search and stay on the page:\n%s", v)
	}
	pressRun(m, "esc")
	if m.list.diff != nil || !strings.Contains(plainView(m), "/v1/s3") {
		t.Fatalf("esc should come back to the list:\n%s", plainView(m))
	}

	// Two different streams: the page says how they differ.
	pressRun(m, "m", "G", "m") // unmark #2, mark #3: #1 and #3
	pressRun(m, "d")
	if m.list.diff == nil {
		t.Fatalf("d should open the diff page on #1 and #3:\n%s", plainView(m))
	}
	if v := plainView(m); !strings.Contains(v, "#3 POST /v1/s3") || strings.Contains(v, "no differences") {
		t.Errorf("the diff page of #1 and #3:\n%s", v)
	}
}

// TestSessionsKeepMarked: --keep lets the oldest ended sessions go, but
// not one marked for d.
func TestSessionsKeepMarked(t *testing.T) {
	m := NewSessions(Options{Source: "proxy", Keep: 2})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	add := func(id int) {
		m.Update(Sessions([]model.SessionUpdate{{
			Info: model.Exchange{Exchange: capture.Exchange{Method: "POST", Status: 200}, ID: id, Path: fmt.Sprintf("/p%d", id), Outcome: "completed"},
			Live: liveSession(nil, nil, true), Ended: true,
		}}))
	}
	add(1)
	press(m, "m")
	for id := 2; id <= 5; id++ {
		add(id)
	}
	if got := listedPaths(m); got != "/p1 /p5" {
		t.Errorf("kept %q; want the marked /p1 and the newest /p5", got)
	}
}
