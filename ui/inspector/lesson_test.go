package inspector

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/streamtap/streamtap/model"
)

// lessonModel reads sample name into an inspector in lesson mode as the
// program does (live, frames, then the source's end), w×h.
func lessonModel(t *testing.T, name string, w, h int, o Options) *Model {
	t.Helper()
	data := sampleBytes(t, name)
	s := model.NewSession(model.Options{KeepEvents: true, Raw: strings.NewReader(string(data))})
	o.Source, o.Live, o.Checks = "sample "+name, true, fakeChecks
	m := newProgram(s, o)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(batch(frames(data)))
	m.Update(SourceDone(nil))
	return m
}

// TestLessonGolden draws lesson mode at 80×24 (compact: a few timeline
// rows over the calls as of the event, what it does in the status line),
// 160×45 and 200×60 (timeline, calls as of the event and explanation side
// by side), at a delta of get_weather while get_local_time has not begun:
// the class has stepped there with space.
func TestLessonGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 45}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := lessonModel(t, goldenSample, size[0], size[1], Options{LessonMode: true})
			for range 22 {
				press(m, "space")
			}
			out := viewOf(m)
			checkFits(t, out, size[0], size[1])
			golden.RequireEqual(t, ansi.Strip(out))
		})
	}
}

// TestLessonMode: --lesson opens a sample at #0 with the explanation on,
// space steps one event a press, the status line says where the class is
// and what the event does, never that the stream ended before the last
// event; from 160 columns the explanation has a column of its own beside
// the calls; L leaves lesson mode and space replays again.
func TestLessonMode(t *testing.T) {
	m := lessonModel(t, "responses-single-call", 200, 60, Options{LessonMode: true})
	if got := m.insp.Selected(); got != 0 {
		t.Fatalf("a lesson opens at #%d; want #0", got)
	}
	if !m.insp.det.explain || m.insp.r.explain.W == 0 || sideName(m) != "calls" {
		t.Fatalf("at 200 columns: explain %v, explain column %d cells, side pane %s; want the calls beside the explanation", m.insp.det.explain, m.insp.r.explain.W, sideName(m))
	}
	press(m, "space")
	if got := m.insp.Selected(); got != 1 || m.insp.rep.playing {
		t.Fatalf("space in a lesson: at #%d, playing %v; want #1, not playing", got, m.insp.rep.playing)
	}
	press(m, "space", "space")
	v := plainView(m)
	status := lastLine(v)
	ex, _ := model.Explain(m.insp.les.shape)
	does := strings.Join(strings.Fields(ex.Does), " ")
	if !strings.Contains(status, "lesson #3 of") || !strings.Contains(status, does[:min(len(does), 30)]) {
		t.Errorf("the status line should say where the lesson is and what #3 does (%q):\n%s", does, status)
	}
	if strings.Contains(status, "ended") {
		t.Errorf("the status line says the stream ended at #3:\n%s", status)
	}
	if !strings.Contains(v, "explain  #3") {
		t.Errorf("the explanation column should explain #3:\n%s", v)
	}
	press(m, "G")
	if status := lastLine(plainView(m)); !strings.Contains(status, "ended: completed") {
		t.Errorf("at the last event the status line should say how the stream ended:\n%s", status)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if m.insp.r.explain.W != 0 || sideName(m) != "detail" {
		t.Errorf("at 120 columns: explain column %d cells, side %s; want the detail pane with its explanation", m.insp.r.explain.W, sideName(m))
	}
	press(m, "L", "g", "space")
	if m.insp.les.on || !m.insp.rep.playing {
		t.Errorf("after L, space should replay: lesson %v, playing %v", m.insp.les.on, m.insp.rep.playing)
	}
	press(m, "space", "L")
	if !m.insp.les.on || m.insp.Selected() != 0 {
		t.Errorf("L should start a lesson at #0: lesson %v, at #%d", m.insp.les.on, m.insp.Selected())
	}
}

// TestReplayNeverSaysEndedMidStream: a replay that starts when the stream
// has been read (streamtap replay) does not say the stream ended while it
// plays event 3 of 14.
func TestReplayNeverSaysEndedMidStream(t *testing.T) {
	m := lessonModel(t, "responses-single-call", 120, 40, Options{Replay: 1})
	if !m.insp.rep.playing {
		t.Fatal("the replay should have started")
	}
	for range 3 {
		m.Update(replayTickMsg{gen: m.insp.rep.gen})
	}
	status := lastLine(plainView(m))
	if strings.Contains(status, "ended") || !strings.Contains(status, "event #3 of") {
		t.Errorf("replaying #3 the status line should say so, not that the stream ended:\n%s", status)
	}
}

// TestSpeedBeforeSpace: - and + work before a replay as well as during
// one, say the speed, and the help line shows them next to space.
func TestSpeedBeforeSpace(t *testing.T) {
	m := lessonModel(t, "responses-single-call", 120, 40, Options{})
	if h := ansi.Strip(m.insp.HelpLine()); !strings.Contains(h, "-/+ speed") {
		t.Errorf("the help line should show -/+ beside space: %s", h)
	}
	press(m, "+", "+")
	if m.insp.rep.speed != 4 || !strings.Contains(lastLine(plainView(m)), "replay speed 4x") {
		t.Errorf("+ + before space: speed %v, status %s", m.insp.rep.speed, lastLine(plainView(m)))
	}
	press(m, "space")
	if !m.insp.rep.playing || m.insp.rep.speed != 4 {
		t.Errorf("space should replay at 4x: playing %v, speed %v", m.insp.rep.playing, m.insp.rep.speed)
	}
}

// TestUntimedPace: an untimed stream replays at one event a second at
// 1x, a pace a class can follow.
func TestUntimedPace(t *testing.T) {
	if fixedPace.Seconds() != 1 {
		t.Errorf("untimed replay at 1x steps every %v; docs/inspector.md says one event a second", fixedPace)
	}
}

// TestCompactLesson: at 80×24 a lesson shows the calls as of the event
// under a few timeline rows, and the help line offers x; x expands the
// one-line explanation into the whole card in the calls' place (drawn at
// 80×24), x again brings the calls back. At 120×40 the lesson is not
// compact: x turns the explanation under the detail pane off, as ever.
func TestCompactLesson(t *testing.T) {
	m := lessonModel(t, goldenSample, 80, 24, Options{LessonMode: true})
	for range 22 {
		press(m, "space")
	}
	v := plainView(m)
	if sideName(m) != "calls" || !strings.Contains(v, "as of event #22") {
		t.Fatalf("a lesson at 80×24 should show the calls as of the event:\n%s", v)
	}
	if h := m.insp.HelpLine(); !strings.Contains(ansi.Strip(h), "x explain") {
		t.Errorf("the help line should offer x: %s", ansi.Strip(h))
	}
	press(m, "x")
	out := viewOf(m)
	checkFits(t, out, 80, 24)
	if sideName(m) != "detail" || !strings.Contains(ansi.Strip(out), "explain response.function_call_arguments.delta") {
		t.Fatalf("x should show the explanation card:\n%s", ansi.Strip(out))
	}
	if h := m.insp.HelpLine(); !strings.Contains(ansi.Strip(h), "x calls") {
		t.Errorf("expanded, the help line should say x brings the calls back: %s", ansi.Strip(h))
	}
	golden.RequireEqual(t, ansi.Strip(out))
	press(m, "space", "x")
	if sideName(m) != "calls" || !strings.Contains(plainView(m), "as of event #23") {
		t.Errorf("x again should bring the calls back, as of #23:\n%s", plainView(m))
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if sideName(m) != "detail" || !m.insp.det.explain {
		t.Fatalf("at 120×40 the lesson shows the detail pane with the explanation: side %s, explain %v", sideName(m), m.insp.det.explain)
	}
	press(m, "x")
	if m.insp.det.explain {
		t.Errorf("at 120×40 x turns the explanation off")
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if sideName(m) != "calls" {
		t.Errorf("back at 80×24 the compact lesson shows the calls, not %s", sideName(m))
	}
}
