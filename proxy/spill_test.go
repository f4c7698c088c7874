package proxy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"weak"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/internal/wstest"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/ui"
)

// spillBodies are the responses TestSpilledSessionsLoadAsLive sends: every
// sample and shared capture as SSE, and bodies of every other shape the
// proxy frames (whole JSON, JSON lines, an HTTP error, no content type),
// cut, empty or bad.
func spillBodies(t *testing.T) map[string][]byte {
	t.Helper()
	bodies := map[string][]byte{
		"sse no-done":  []byte("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n"),
		"sse cut":      []byte("event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"status\":\"in_progress\"}}\n\nevent: response.output_text.delta\ndata: {\"type\":\"resp"),
		"sse bad-utf8": []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff\xfe ok\"}}]}\n\n"),
		"sse cr-only":  []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\r\rdata: [DONE]\r\r"),
		"sse empty":    nil,
		"json whole":   []byte(`{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}]}`),
		"jsonl lines":  []byte("{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]}}]}\n{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"b\"}]},\"finishReason\":\"STOP\"}]}\n"),
		"error 500":    []byte(`{"error":{"message":"overloaded","type":"server_error"}}`),
		"none no-type": []byte("data: {\"type\":\"message_start\"}\n\n"),
		// The upstream hangs up before the head: no response.
		"hangup before": nil,
		// It ends short of its Content-Length: an error ends it.
		"short sse": []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"cut\"}}]}\n\n"),
	}
	addSamplesAndCaptures(t, bodies, "sse ")
	return bodies
}

// addSamplesAndCaptures adds every sample ("PREFIXsample NAME") and every
// shared capture ("PREFIXcapture FILE") to bodies; the captures are absent
// beside a bare checkout, and the rest still runs.
func addSamplesAndCaptures(t *testing.T, bodies map[string][]byte, prefix string) {
	t.Helper()
	for _, s := range samples.List() {
		data, err := samples.Open(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		bodies[prefix+"sample "+s.Name] = data
	}
	caps := fixtures.SharedGlob("captures/*.sse")
	for _, name := range caps {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		bodies[prefix+"capture "+filepath.Base(name)] = data
	}
}

// spillUpstream answers ?name= with its body, in reads of 777 bytes so
// that events straddle them, typed by the name's first word.
func spillUpstream(t *testing.T, bodies map[string][]byte) *httptest.Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("name")
		kind, _, _ := strings.Cut(name, " ")
		switch kind {
		case "hangup":
			conn, _, _ := http.NewResponseController(w).Hijack()
			conn.Close()
			return
		case "sse":
			w.Header().Set("Content-Type", "text/event-stream")
		case "json":
			w.Header().Set("Content-Type", "application/json")
		case "jsonl":
			w.Header().Set("Content-Type", "application/x-ndjson")
		case "error":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
		case "none":
			w.Header()["Content-Type"] = nil
		case "short":
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Length", strconv.Itoa(len(bodies[name])+100))
		}
		w.Header().Set("X-Secret-Looking", "api-key=kept") // a response header the model keeps as sent
		rc := http.NewResponseController(w)
		for rest := bodies[name]; len(rest) > 0; {
			n := min(777, len(rest))
			_, _ = w.Write(rest[:n])
			_ = rc.Flush()
			rest = rest[n:]
		}
	}))
	t.Cleanup(up.Close)
	return up
}

// TestSpilledSessionsLoadAsLive sends every kind of body through the
// proxy with the sessions list and a spill directory, and holds each
// session loaded back from its spill file to the session as it was live:
// the same events (offsets, times, types, flags), bytes, heads, calls,
// outcome and findings, and the same request for the request pane. A
// WebSocket session too.
func TestSpilledSessionsLoadAsLive(t *testing.T) {
	t.Parallel()
	bodies := spillBodies(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range bodies {
			if !yield(n) {
				return
			}
		}
	})
	up := spillUpstream(t, bodies)
	wsUp, _ := wstest.Server(t, nil, wstest.Responses(t))

	var mu sync.Mutex
	ended := map[int]model.SessionUpdate{}
	feed := NewFeed(func(b []model.SessionUpdate) {
		mu.Lock()
		defer mu.Unlock()
		for _, u := range b {
			if u.Ended {
				ended[u.Info.ID] = u
			}
		}
	})
	t.Cleanup(feed.Abort)
	var spills []string
	start := func(upstream string) (*Proxy, string, chan *session) {
		u, _ := url.Parse(upstream)
		spills = append(spills, t.TempDir())
		p := New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, Feed: feed, Spill: spills[len(spills)-1]}, io.Discard)
		p.spill.segSize = 8 << 10 // several segments
		done := make(chan *session, len(names)+1)
		p.onDone = func(s *session) { done <- s }
		srv := httptest.NewServer(p)
		t.Cleanup(srv.Close)
		return p, srv.URL, done
	}

	_, base, done := start(up.URL)
	live := map[int]*session{}
	what := map[int]string{}
	for _, name := range names { // one at a time: ids follow names
		req, _ := http.NewRequest("POST", base+"/v1/chat/completions?name="+url.QueryEscape(name)+"&key=sk-in-query",
			strings.NewReader(`{"model":"gpt-test","stream":true,"tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"tool","tool_call_id":"call_0","content":"out"}]}`))
		req.Header.Set("Authorization", "Bearer sk-secret")
		req.Header.Set("Content-Type", "application/json")
		if resp, err := rawClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		s := waitSession(t, done)
		live[s.id], what[s.id] = s, name
	}
	// A WebSocket session, on a proxy of its own (same feed: ids follow).
	wsP, wsBase, wsDone := start(wsUp.URL)
	wsP.next.Store(int64(len(names)))
	c, _ := wstest.Dial(t, wsBase, "/v1/responses", http.Header{"Authorization": {"Bearer sk-ws"}})
	wstest.ResponsesTurns(t, c)
	s := waitSession(t, wsDone)
	live[s.id], what[s.id] = s, "websocket responses"

	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(ended)
		mu.Unlock()
		if n == len(live) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d sessions reached the feed's end", n, len(live))
		}
		time.Sleep(10 * time.Millisecond)
	}
	for id, ls := range live {
		name := what[id]
		u := ended[id]
		if u.Stored == nil {
			t.Errorf("%s: no stored copy", name)
			continue
		}
		got, err := u.Stored.Load()
		if err != nil {
			t.Errorf("%s: load: %v", name, err)
			continue
		}
		for _, d := range diffSessions(ls.live.Session(), got.Session) {
			t.Errorf("%s: loaded %s", name, d)
		}
		if !reflect.DeepEqual(got.Request, u.Info.Request) {
			t.Errorf("%s: loaded request %+v; live %+v", name, got.Request, u.Info.Request)
		}
		if err := u.Stored.Remove(); err != nil {
			t.Errorf("%s: remove: %v", name, err)
		}
	}
	for _, dir := range spills {
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("%d spill files left after every copy was removed", len(left))
		}
	}
}

// diffSessions lists how two sessions of the same bytes differ.
func diffSessions(live, loaded *model.Session) []string {
	var out []string
	if live.Len() != loaded.Len() || live.Bytes() != loaded.Bytes() {
		return []string{fmt.Sprintf("has %d events, %d bytes; live %d, %d", loaded.Len(), loaded.Bytes(), live.Len(), live.Bytes())}
	}
	for i := range live.Len() {
		a, b := *live.Events.At(i), *loaded.Events.At(i)
		ra, _ := live.Raw(&a)
		rb, _ := loaded.Raw(&b)
		if a != b || live.TypeName(a.Type) != loaded.TypeName(b.Type) || !bytes.Equal(ra, rb) {
			out = append(out, fmt.Sprintf("event %d = %+v %q %q; live %+v %q %q", i, b, loaded.TypeName(b.Type), rb, a, live.TypeName(a.Type), ra))
			if len(out) > 3 {
				return out
			}
		}
	}
	if ha, hb := heads(live), heads(loaded); !slices.Equal(ha, hb) {
		out = append(out, fmt.Sprintf("heads %q; live %q", hb, ha))
	}
	ea, erra := live.Ended()
	eb, errb := loaded.Ended()
	if ea != eb || fmt.Sprint(erra) != fmt.Sprint(errb) {
		out = append(out, fmt.Sprintf("ended %v (%v); live %v (%v)", eb, errb, ea, erra))
	}
	if oa, ob := live.Outcome(), loaded.Outcome(); oa != ob {
		out = append(out, fmt.Sprintf("outcome %+v; live %+v", ob, oa))
	}
	var ja, jb bytes.Buffer
	_ = live.WriteReportJSON(&ja)
	_ = loaded.WriteReportJSON(&jb)
	if ja.String() != jb.String() {
		out = append(out, fmt.Sprintf("calls report\n%s\nlive\n%s", jb.String(), ja.String()))
	}
	if fa, fb := findingKeys(checks.Check(live, checks.Strict).Findings), findingKeys(checks.Check(loaded, checks.Strict).Findings); !slices.Equal(fa, fb) {
		out = append(out, fmt.Sprintf("findings %v; live %v", fb, fa))
	}
	if _, ok := model.FindObserver[*checks.Checker](loaded); !ok {
		out = append(out, "has no checker: its findings would be computed another way")
	}
	return out
}

// heads lists a session's heads, their headers sorted (the proxy adds
// them in map order).
func heads(s *model.Session) []string {
	var out []string
	for _, h := range s.Heads {
		var fs []string
		for _, f := range h.Header {
			fs = append(fs, string(f.Name)+": "+string(f.Value))
		}
		slices.Sort(fs)
		out = append(out, fmt.Sprintf("%d %s %d %s", h.Ordinal, h.Proto, h.Status, strings.Join(fs, "; ")))
	}
	return out
}

// TestSessionsListFreesEndedSessions: with a spill directory, the
// sessions' models are freed once they ended and the list has their rows
// (the list used to keep them all: 2,000 sessions of 151 KB held 2.2 GB),
// and every one still opens from its row. Without one, the list keeps
// them, as before. With one that refuses the copies (its disk is full,
// /dev/full; or it was removed), they are freed all the same, each row
// says "not kept", the status line counts them and says why, and opening
// one says it cannot be: the list fell back to memory without a word
// (58 → 1,126 MB over 3,000 sessions).
func TestSessionsListFreesEndedSessions(t *testing.T) {
	t.Parallel()
	data, _ := samples.Open("responses-parallel-calls")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sseType)
		_, _ = w.Write(data)
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	const n = 12
	for _, mode := range []string{"spill", "none", "disk full", "removed"} {
		spill := mode != "none"
		t.Run(mode, func(t *testing.T) {
			msgs := make(chan model.SessionUpdate, 4*n)
			feed := NewFeed(func(b []model.SessionUpdate) {
				for _, u := range b {
					msgs <- u
				}
			})
			t.Cleanup(feed.Abort)
			o := Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, Feed: feed}
			if spill {
				o.Spill = t.TempDir()
			}
			p := New(o, io.Discard)
			switch mode {
			case "disk full":
				p.spill.create = func(string) (*os.File, error) { return os.OpenFile("/dev/full", os.O_WRONLY, 0) }
				if _, err := os.Stat("/dev/full"); err != nil {
					t.Skip("no /dev/full")
				}
			case "removed":
				os.Remove(o.Spill)
			}
			refused := mode == "disk full" || mode == "removed"
			var mu sync.Mutex
			var models []weak.Pointer[model.Session]
			p.onDone = func(s *session) {
				mu.Lock()
				models = append(models, weak.Make(s.live.Session()))
				mu.Unlock()
			}
			srv := httptest.NewServer(p)
			t.Cleanup(srv.Close)
			m := ui.NewSessions(ui.Options{Source: "proxy test", Checks: ui.StrictChecks})
			m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
			for range n {
				resp, err := rawClient.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader(`{"model":"m"}`))
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			deadline := time.After(10 * time.Second)
			for ended := 0; ended < n; {
				select {
				case u := <-msgs:
					m.Update(ui.Sessions([]model.SessionUpdate{u}))
					if u.Ended {
						ended++
					}
				case <-deadline:
					t.Fatalf("%d of %d sessions ended", ended, n)
				}
			}
			_ = m.View()
			// The UI saw every session end before the handlers that ended
			// them returned: a handler still running holds its session, and
			// so its model, on its stack (CI once counted the last one
			// alive). Closing the server waits for them all.
			srv.Close()
			p.open.wait(5 * time.Second)
			want := map[bool]int{true: 0, false: n}[spill]
			alive := func() int {
				runtime.GC()
				mu.Lock()
				defer mu.Unlock()
				if len(models) != n {
					t.Fatalf("%d of %d sessions finished", len(models), n)
				}
				k := 0
				for _, w := range models {
					if w.Value() != nil {
						k++
					}
				}
				return k
			}
			k := alive()
			for end := time.Now().Add(2 * time.Second); k != want && time.Now().Before(end); k = alive() {
				time.Sleep(10 * time.Millisecond)
			}
			if k != want {
				t.Errorf("%d of %d ended sessions' models are still in memory; want %d", k, n, want)
			}
			if refused {
				v := ansi.Strip(m.View().Content)
				why := map[string]string{"disk full": "not kept: disk full", "removed": "not kept: spill directory gone"}[mode]
				if !strings.Contains(v, fmt.Sprintf("%d %s", n, why)) || strings.Count(v, notKeptRow) != n {
					t.Errorf("the list does not say the sessions were not kept:\n%s", v)
				}
				m.Update(tea.KeyPressMsg{Code: tea.KeyEnter}) // its command fades the notice
				if v := ansi.Strip(m.View().Content); !strings.Contains(v, fmt.Sprintf("#%d cannot be opened: its bytes were %s", n, why)) {
					t.Errorf("opening a session not kept does not say why:\n%s", v)
				}
				return
			}
			// Every row opens: the newest, then each one up.
			open := func() string {
				_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
				runCmds(m, cmd)
				return ansi.Strip(m.View().Content)
			}
			for i := n; i >= 1; i-- {
				v := open()
				if !strings.Contains(v, fmt.Sprintf("#%d POST /v1/responses", i)) || !strings.Contains(v, "ended: completed") {
					t.Fatalf("#%d did not open:\n%s", i, v)
				}
				m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
				m.Update(tea.KeyPressMsg{Code: 'k', Text: "k"})
			}
		})
	}
}

// notKeptRow is what the outcome column of a session not kept shows.
const notKeptRow = "⊘ not kept"

// runCmds runs a command and feeds its messages back to m, as the program
// does.
func runCmds(m *ui.Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			runCmds(m, c)
		}
	default:
		_, next := m.Update(msg)
		runCmds(m, next)
	}
}

// spillCopy is a session's copy as closeSpill writes it, before DEFLATE:
// an SSE response whose body came in reads of 100 bytes.
func spillCopy(t testing.TB, body []byte) []byte {
	t.Helper()
	meta, err := json.Marshal(spillMeta{
		ID: 1, Method: "POST", Path: "/v1/responses", RequestBody: []byte(`{"model":"m","tools":[{"type":"function","name":"f"}]}`),
		Responded: true, Status: 200, Proto: "HTTP/1.1", ResponseHeader: http.Header{"Content-Type": {"text/event-stream"}},
		HeadAt: time.Millisecond, EndAt: time.Second, Ended: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var reads []byte
	for off := 0; off < len(body); off += 100 {
		reads = binary.AppendUvarint(reads, uint64(min(100, len(body)-off)))
		reads = binary.AppendVarint(reads, int64(time.Millisecond)*int64(off+1))
	}
	out := binary.AppendUvarint(nil, uint64(len(meta)))
	out = append(out, meta...)
	out = binary.AppendUvarint(out, uint64(len(reads)))
	out = append(out, reads...)
	return append(out, body...)
}

// spillFuzzMax bounds FuzzSpillCopy's inputs: a copy of a short stream,
// loaded in a fraction of a millisecond, so the fuzzer runs thousands a
// second and minimises what it finds in moments. Seeded with a copy of a
// 6.7 KB sample and no bound, it spent its 30 s minimising: 22 inputs ran.
const spillFuzzMax = 1 << 10

// FuzzSpillCopy: a copy read back from disk never panics the loader and
// never makes it allocate what a bad length claims; a bad one is an
// error. The seed, whole, loads to its events.
func FuzzSpillCopy(f *testing.F) {
	body, _ := samples.Open("gemini-call")
	body = body[:bytes.LastIndex(body[:400], []byte("\n\n"))+2] // its first events
	seed := spillCopy(f, body)
	if len(seed) > spillFuzzMax {
		f.Fatalf("the seed is %d bytes; want at most %d", len(seed), spillFuzzMax)
	}
	l, err := loadSession(bufio.NewReader(bytes.NewReader(seed)), false)
	if err != nil || l.Session.Len() == 0 || l.Request == nil {
		f.Fatalf("the seed does not load: %v", err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f}) // a part of 2^46 bytes
	f.Add(append(binary.AppendUvarint(nil, 2), "{}"...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > spillFuzzMax {
			return
		}
		_, _ = loadSession(bufio.NewReader(bytes.NewReader(data)), false)
	})
}
