package sessions

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// ended is a batch of n ended sessions, #1 to #n, with paths /p1 … /pn.
func endedSessions(n int) []model.SessionUpdate {
	var b []model.SessionUpdate
	for id := 1; id <= n; id++ {
		b = append(b, model.SessionUpdate{
			Info: model.Exchange{Exchange: capture.Exchange{Method: "POST", Status: 200}, ID: id, Path: fmt.Sprintf("/p%d", id), Outcome: "completed"},
			Live: liveSession(nil, nil, true), Ended: true,
		})
	}
	return b
}

// shownPaths lists the sessions whose rows the screen shows.
func shownPaths(screen string, n int) []string {
	var out []string
	for id := 1; id <= n; id++ {
		if strings.Contains(screen, fmt.Sprintf(" /p%d ", id)) {
			out = append(out, fmt.Sprintf("/p%d", id))
		}
	}
	return out
}

// TestSessionsSizedLate: the list lays out the same whether its size
// comes before or after the sessions (an imported archive hands them all
// over before the terminal's size is known), and after the window grows:
// as many rows as fit, the selected one among them, the newest when
// following.
func TestSessionsSizedLate(t *testing.T) {
	const w, h, rows = 100, 20, 15 // all lines but the title, the column header, the selected line, help and status
	for _, n := range []int{5, 30} {
		sizedFirst := NewSessions(Options{Source: "archive"})
		sizedFirst.Update(tea.WindowSizeMsg{Width: w, Height: h})
		sizedFirst.Update(Sessions(endedSessions(n)))
		want := ansi.Strip(viewOf(sizedFirst))

		cases := map[string]func(m *Model){
			"sized after the sessions": func(m *Model) {
				m.Update(Sessions(endedSessions(n)))
				m.Update(tea.WindowSizeMsg{Width: w, Height: h})
			},
			"too small, then grown": func(m *Model) {
				m.Update(tea.WindowSizeMsg{Width: w, Height: 6})
				m.Update(Sessions(endedSessions(n)))
				m.Update(tea.WindowSizeMsg{Width: w, Height: h})
			},
		}
		for name, setup := range cases {
			t.Run(fmt.Sprintf("%d_%s", n, strings.ReplaceAll(name, " ", "_")), func(t *testing.T) {
				m := NewSessions(Options{Source: "archive"})
				setup(m)
				if got := ansi.Strip(viewOf(m)); got != want {
					t.Errorf("rows shown %v; want %v as when sized first:\n%s", shownPaths(got, n), shownPaths(want, n), got)
				}
			})
		}
		if got := shownPaths(want, n); len(got) != min(n, rows) || got[len(got)-1] != fmt.Sprintf("/p%d", n) {
			t.Errorf("sized first, %d sessions: rows shown %v; want the last %d, the newest selected:\n%s", n, got, min(n, rows), want)
		}
	}
}

// TestSessionsFirstSession: an archive's list opens on its first session
// and does not follow, whatever came first, its sessions or its size.
func TestSessionsFirstSession(t *testing.T) {
	for _, sizedFirst := range []bool{true, false} {
		m := NewSessions(Options{Source: "archive", FirstSession: true})
		if sizedFirst {
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
		}
		m.Update(Sessions(endedSessions(30)))
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
		out := ansi.Strip(viewOf(m))
		if got := shownPaths(out, 30); len(got) != 15 || got[0] != "/p1" || !strings.Contains(out, "sessions  1/30") || strings.Contains(out, "follow on") {
			t.Errorf("sized first %v: rows shown %v; want /p1 to /p15, on the first, not following:\n%s", sizedFirst, got, out)
		}
	}
}
