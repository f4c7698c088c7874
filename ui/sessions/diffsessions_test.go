package sessions

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/streamdiff"
)

// diffRequest declares one of the two tools the golden sample calls and
// no parallel calls: the sample breaks both rules.
const diffRequest = `{"model":"gpt-4.1","stream":true,"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"}}],"parallel_tool_calls":false}`

// proxiedSession models data as the proxy models an exchange: the HTTP
// head first (it covers no bytes of the body), then each event at its
// arrival time, the session's checks knowing the request.
func proxiedSession(t testing.TB, data []byte, req *model.Request) *model.Live {
	t.Helper()
	opts, chk := checks.Attach(model.Options{KeepEvents: true, Raw: bytes.NewReader(data)})
	chk.SetRequest(req)
	s := model.NewSession(opts)
	s.Add(&capture.Frame{Kind: capture.FrameHead, At: 300 * time.Millisecond, Retry: -1, Proto: "HTTP/1.1", Status: 200,
		Header: []capture.Field{{Name: []byte("Content-Type"), Value: []byte("text/event-stream")}}})
	fs := frames(data)
	for i := range fs {
		fs[i].At = 400*time.Millisecond + time.Duration(i)*25*time.Millisecond
		s.Add(&fs[i])
	}
	s.End(nil)
	return model.NewLive(s)
}

// diffOfSessions opens the diff page on two proxied sessions of the
// golden sample and its gateway's cut, as m, m, d do, at w×h.
func diffOfSessions(t testing.TB, w, h int) (*Model, *model.Session) {
	t.Helper()
	m := NewSessions(Options{Source: "proxy", Checks: StrictChecks})
	m.list.NewDiff = pairDiff
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	one := sampleBytes(t, goldenSample)
	bs := strings.Split(strings.TrimSuffix(string(one), "\n\n"), "\n\n")
	two := []byte(strings.Join(append(bs[:22:22], bs[23:]...), "\n\n") + "\n\n") // a delta dropped
	req := model.ParseRequest([]byte(diffRequest), "/v1/responses")
	var batch []model.SessionUpdate
	var first *model.Session
	for i, data := range [][]byte{one, two} {
		live := proxiedSession(t, data, &req)
		if i == 0 {
			first = live.Session()
		}
		batch = append(batch, model.SessionUpdate{
			Info: model.Exchange{Exchange: capture.Exchange{Method: "POST", Status: 200}, ID: i + 1, Path: "/v1/responses",
				Outcome: "completed", Request: &req},
			Live: live, Ended: true,
		})
	}
	m.Update(Sessions(batch))
	pressRun(m, "g", "m", "j", "m", "d")
	if m.list.diff == nil {
		t.Fatalf("m, m, d should open the diff page:\n%s", plainView(m))
	}
	return m, first
}

// TestSessionsDiffOneNumbering: the diff page of two sessions of the
// proxy's list numbers their events as the session's inspector and check
// of its recording do — the HTTP head is #0 — and keeps what the session
// view shows: the time columns, the request pane, the request's findings.
// Modelled again from their bodies' bytes, the sides lost the head (every
// ordinal one less), their times, the request and its findings.
func TestSessionsDiffOneNumbering(t *testing.T) {
	m, orig := diffOfSessions(t, 160, 45)
	dp := m.list.diff
	a := dp.Inspector(streamdiff.SideA)
	s := a.Session()
	if s.Len() != orig.Len() {
		t.Fatalf("side A has %d events; the session has %d", s.Len(), orig.Len())
	}
	for ord := range orig.Len() {
		if got, want := s.TypeName(s.Events.At(ord).Type), orig.TypeName(orig.Events.At(ord).Type); got != want {
			t.Fatalf("A#%d is a %s; the session's #%d is a %s", ord, got, ord, want)
		}
		if got, want := s.Events.At(ord).At, orig.Events.At(ord).At; got != want {
			t.Fatalf("A#%d arrived at %v; the session's #%d at %v", ord, got, ord, want)
		}
	}
	v := plainView(m)
	if !strings.Contains(v, "time") || !strings.Contains(v, "+25ms") {
		t.Errorf("both sides are timed: the time and gap columns should show:\n%s", v)
	}
	if !strings.Contains(v, " - 23 ") {
		t.Errorf("the delta B lacks is A#23 (the session's #23, the head being #0):\n%s", v)
	}
	var rules []string
	for _, f := range a.Findings() {
		rules = append(rules, f.Rule)
	}
	if !strings.Contains(strings.Join(rules, " "), "request/tool-undeclared") {
		t.Errorf("side A's findings lack the request's: %v", rules)
	}
	pressRun(m, "enter")
	if v := plainView(m); !strings.Contains(v, "request") {
		t.Errorf("side A's inspector should have the request pane:\n%s", v)
	}
	pressRun(m, "7")
	if v := plainView(m); !strings.Contains(v, "get_weather") || !strings.Contains(v, "parallel_tool_calls") {
		t.Errorf("7 should show the request the session sent:\n%s", v)
	}
}

// TestSessionsDiffGolden draws the diff page of two proxied sessions at
// 80×24 and 160×45, at its first difference: the head is #0 on both
// sides, the time columns show side by side.
func TestSessionsDiffGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m, _ := diffOfSessions(t, size[0], size[1])
			out := viewOf(m)
			checkFits(t, out, size[0], size[1])
			golden.RequireEqual(t, ansi.Strip(out))
		})
	}
}
