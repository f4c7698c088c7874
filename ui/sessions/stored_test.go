package sessions

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// fakeStored plays the proxy's spill file: Load models data again, as the
// proxy does from the file.
type fakeStored struct {
	data    []byte
	req     *model.Request
	err     error
	loads   atomic.Int32
	removed atomic.Int32
}

func (f *fakeStored) Load() (model.LoadedSession, error) {
	f.loads.Add(1)
	if f.err != nil {
		return model.LoadedSession{}, f.err
	}
	s := liveSession(f.data, frames(f.data), true).Session()
	return model.LoadedSession{Session: s, Request: f.req}, nil
}

func (f *fakeStored) Remove() error {
	f.removed.Add(1)
	return nil
}

// storedBatch is proxyBatch with a stored copy for each ended session, as
// the proxy's feed sends it with a spill directory.
func storedBatch(t testing.TB) ([]model.SessionUpdate, map[int]*fakeStored) {
	batch := proxyBatch(t)
	stored := map[int]*fakeStored{}
	data := sampleBytes(t, goldenSample)
	for i := range batch {
		if batch[i].Ended {
			f := &fakeStored{data: data, req: batch[i].Info.Request}
			if batch[i].Info.Outcome != "completed" {
				f.data = nil
			}
			stored[batch[i].Info.ID], batch[i].Stored = f, f
		}
	}
	return batch, stored
}

// loadedOf runs cmd and the commands it batches, each on its own
// goroutine (one is the notice's fade, which waits), and returns the
// sessionLoadedMsg among their messages.
func loadedOf(t *testing.T, cmd tea.Cmd) sessionLoadedMsg {
	t.Helper()
	msgs := make(chan tea.Msg, 16)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			switch msg := c().(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					run(c)
				}
			default:
				msgs <- msg
			}
		}()
	}
	run(cmd)
	deadline := time.After(10 * time.Second)
	for {
		select {
		case msg := <-msgs:
			if l, ok := msg.(sessionLoadedMsg); ok {
				return l
			}
		case <-deadline:
			t.Fatal("no session was loaded")
		}
	}
}

// TestSessionsEvictStored: an ended session whose bytes are stored keeps
// only its row (the list shows exactly what it showed with the session in
// memory) and lets its model go; enter loads it again, off the event loop,
// and opens it with its request; esc lets it go again, the inspector too.
// A session still streaming stays. The list used to keep every session's
// model: 2,000 sessions of 151 KB held 2.2 GB.
func TestSessionsEvictStored(t *testing.T) {
	kept := sessionsModel(t, 120, 40)
	kept.Update(Sessions(proxyBatch(t)))
	m := sessionsModel(t, 120, 40)
	batch, stored := storedBatch(t)
	m.Update(Sessions(batch))
	for id, want := range map[int]bool{1: false, 2: true, 3: false} {
		ps := m.list.byID[id]
		if (ps.live != nil) != want || (ps.s != nil) != want {
			t.Errorf("#%d holds its session: %v; want %v", id, ps.live != nil, want)
		}
		if !want && (ps.info.Request != nil || ps.info.RequestHeader != nil) {
			t.Errorf("#%d keeps its request in the row", id)
		}
	}
	for _, keys := range [][]string{nil, {"k"}, {"k"}} {
		press(kept, keys...)
		press(m, keys...)
		if got, want := plainView(m), plainView(kept); got != want {
			t.Fatalf("the list with evicted sessions differs from the list that keeps them:\n%s\nwant\n%s", got, want)
		}
	}

	_, cmd := m.Update(keyMsg("enter")) // #1
	if m.list.cur != nil || !strings.Contains(plainView(m), "loading #1") {
		t.Fatalf("enter on an evicted session should load it first:\n%s", plainView(m))
	}
	msg := loadedOf(t, cmd)
	m.Update(msg)
	if m.list.cur != m.list.byID[1] || m.insp.Session() == nil || m.insp.Session().Len() == 0 || stored[1].loads.Load() != 1 {
		t.Fatalf("the loaded session should be open: cur %v, %d loads", m.list.cur, stored[1].loads.Load())
	}
	press(m, "G", "3")
	v := plainView(m)
	for _, want := range []string{"get_weather", "get_local_time", "#1 POST /v1/responses"} {
		if !strings.Contains(v, want) {
			t.Errorf("the loaded #1 lacks %q:\n%s", want, v)
		}
	}
	press(m, "7")
	if v := plainView(m); !strings.Contains(v, "get_weather") || !strings.Contains(v, "[redacted]") {
		t.Errorf("the loaded #1's request pane should show its request:\n%s", v)
	}
	press(m, "esc")
	if ps := m.list.byID[1]; ps.live != nil || ps.s != nil || ps.info.Request != nil || m.insp.Session() != m.list.blank {
		t.Errorf("back on the list, #1 and the inspector should let the session go")
	}
	if got, want := plainView(m), plainView(kept); got != want {
		t.Errorf("back on the list, the rows changed:\n%s\nwant\n%s", got, want)
	}

	// Keys typed while it loads are for the session, as they were when
	// sessions stayed in memory: enter G 3 shows its calls as of its last
	// event.
	_, cmd = m.Update(keyMsg("enter"))
	press(m, "G", "3")
	m.Update(loadedOf(t, cmd))
	if m.list.cur != m.list.byID[1] || m.insp.Selected() != m.insp.Session().Len()-1 || sideName(m) != "calls" {
		t.Fatalf("keys typed while loading: open %v, event %d of %d, pane %s; want #1 at its last event, calls",
			m.list.cur != nil, m.insp.Selected(), m.insp.Session().Len(), sideName(m))
	}
	press(m, "esc")

	// A load given up with esc opens nothing; a failed one says so.
	_, cmd = m.Update(keyMsg("enter"))
	press(m, "esc")
	if v := plainView(m); strings.Contains(v, "loading") {
		t.Errorf("esc should give the load up:\n%s", v)
	}
	m.Update(loadedOf(t, cmd))
	if m.list.cur != nil {
		t.Errorf("a load given up opened the session")
	}
	stored[1].err = errors.New("gone")
	_, cmd = m.Update(keyMsg("enter"))
	m.Update(loadedOf(t, cmd))
	if v := plainView(m); m.list.cur != nil || !strings.Contains(v, "#1 could not be loaded: gone") {
		t.Errorf("a failed load should leave the list and say why:\n%s", v)
	}
}

// TestSessionsKeep: with Keep the list holds the newest Keep sessions:
// older ended ones go, with their stored copies (removed in a command);
// one still streaming stays whatever its age, and the status line counts
// the ones let go.
func TestSessionsKeep(t *testing.T) {
	m := NewSessions(Options{Source: "proxy", Keep: 3})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
	var stored []*fakeStored
	var cmds []tea.Cmd
	for id := 1; id <= 10; id++ {
		u := model.SessionUpdate{
			Info: model.Exchange{Exchange: capture.Exchange{Method: "POST", Status: 200}, ID: id, Path: fmt.Sprintf("/p%d", id), Outcome: "completed"},
			Live: liveSession(nil, nil, id != 2), Ended: id != 2,
		}
		if id == 2 {
			u.Info.Outcome = "" // still streaming
		} else {
			f := &fakeStored{}
			stored = append(stored, f)
			u.Stored = f
		}
		_, cmd := m.Update(Sessions([]model.SessionUpdate{u}))
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		messagesOf(c)
	}
	out := plainView(m)
	if got := shownPaths(out, 10); strings.Join(got, " ") != "/p2 /p9 /p10" {
		t.Errorf("rows %v; want the streaming /p2 and the newest two:\n%s", got, out)
	}
	if !strings.Contains(out, "3 sessions · 7 older dropped") {
		t.Errorf("the status line should count the sessions let go:\n%s", out)
	}
	removed := 0
	for i, f := range stored {
		removed += int(f.removed.Load())
		if want := int32(0); i < 7 && f.removed.Load() != 1 || i >= 7 && f.removed.Load() != want {
			t.Errorf("stored copy %d removed %d times", i, f.removed.Load())
		}
	}
	if removed != 7 {
		t.Errorf("%d copies removed; want 7", removed)
	}
	if m.list.sl.cursor != 2 || m.list.pxCount[classCompleted] != 2 || m.list.pxCount[classLive] != 1 {
		t.Errorf("cursor %d, counts %v; want the newest selected, 2 completed and 1 live", m.list.sl.cursor, m.list.pxCount)
	}
}
