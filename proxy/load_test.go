package proxy

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/ssetest"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// Load test bounds: loopback only, a fixed number of streams, each a
// sample sent one event per eventGap.
const (
	loadSessions = 200
	eventGap     = 10 * time.Millisecond
	rampGap      = 500 * time.Microsecond
)

// eventUpstream serves ?sample= one SSE block per write, every eventGap,
// and notes when it wrote each block of the stream ?id=.
type eventUpstream struct {
	mu   sync.Mutex
	sent map[string][]time.Time
}

func (u *eventUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	id := r.URL.Query().Get("id")
	data, err := samples.Open(r.URL.Query().Get("sample"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", sseType)
	w.Header().Set("X-Stream", id)
	rc := http.NewResponseController(w)
	var times []time.Time
	for _, block := range ssetest.Blocks(data) {
		times = append(times, time.Now())
		if _, err := w.Write(block); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		time.Sleep(eventGap)
	}
	u.mu.Lock()
	u.sent[id] = times
	u.mu.Unlock()
}

// loadRun runs loadSessions concurrent streams against base and returns
// every event's latency (client receipt minus upstream write). It fails
// the test when a client gets bytes other than its own sample.
func loadRun(t *testing.T, base string, up *eventUpstream, names []string, tag string) []time.Duration {
	t.Helper()
	type result struct {
		id   string
		recv []time.Time
		err  error
	}
	results := make(chan result, loadSessions)
	var wg sync.WaitGroup
	for i := range loadSessions {
		time.Sleep(rampGap) // sessions start over 100ms, as real clients do, and all overlap
		wg.Go(func() {
			name := names[i%len(names)]
			id := tag + strconv.Itoa(i)
			res := result{id: id}
			defer func() { results <- res }()
			resp, err := rawClient.Post(base+"/v1/responses?sample="+name+"&id="+id, "application/json",
				bytes.NewReader([]byte(`{"model":"load-`+id+`","stream":true}`)))
			if err != nil {
				res.err = err
				return
			}
			defer resp.Body.Close()
			if got := resp.Header.Get("X-Stream"); got != id {
				res.err = fmt.Errorf("stream %s got the head of %s", id, got)
				return
			}
			// An event arrives when its last byte does: time each block by
			// the read that completed it, independent of framing delays
			// (a comment waits for the next line to be framed).
			want, _ := samples.Open(name)
			ends := ssetest.Ends(want)
			var got []byte
			buf := make([]byte, 32<<10)
			for {
				n, err := resp.Body.Read(buf)
				if n > 0 {
					now := time.Now()
					got = append(got, buf[:n]...)
					for len(res.recv) < len(ends) && ends[len(res.recv)] <= len(got) {
						res.recv = append(res.recv, now)
					}
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					res.err = fmt.Errorf("stream %s after %d of %d bytes: %w", id, len(got), len(want), err)
					return
				}
			}
			if !bytes.Equal(got, want) {
				res.err = fmt.Errorf("stream %s (%s): %d bytes differ from the %d sent", id, name, len(got), len(want))
			}
		})
	}
	wg.Wait()
	close(results)
	var lat []time.Duration
	for r := range results {
		if r.err != nil {
			t.Fatal(r.err)
		}
		up.mu.Lock()
		sent := up.sent[r.id]
		up.mu.Unlock()
		if len(sent) != len(r.recv) {
			t.Fatalf("stream %s: %d events sent, %d received", r.id, len(sent), len(r.recv))
		}
		for i := range sent {
			lat = append(lat, r.recv[i].Sub(sent[i]))
		}
	}
	slices.Sort(lat)
	return lat
}

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

// TestProxyLoad runs 200 concurrent streaming sessions through the proxy:
// nothing may be lost or mixed between sessions, each session's model must
// match its sample, and the added latency per event is measured against
// the same load sent straight to the upstream.
func TestProxyLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: skipped with -short")
	}
	var names []string
	want := map[string]model.CallsReport{}
	var totalBytes int64
	for _, s := range samples.List() {
		data, _ := samples.Open(s.Name)
		// Read as the proxy reads it: the answer to the request it
		// forwarded (not the one a recording sample's header states, which
		// the upstream sends as comments).
		sess := model.NewSession(model.Options{Exchange: &capture.Exchange{Method: http.MethodPost, RequestBody: []byte(`{"model":"load","stream":true}`)}})
		_ = capture.FromReader(s.Name, capture.SourceSample, bytes.NewReader(data), false).Read(t.Context(),
			capture.ReadOptions{Format: capture.FormatSSE}, func(f *capture.Frame) error { sess.Add(f); return nil })
		sess.End(nil)
		names = append(names, s.Name)
		want[s.Name] = sess.Report()
	}
	for i := range loadSessions {
		data, _ := samples.Open(names[i%len(names)])
		totalBytes += int64(len(data))
	}
	up := &eventUpstream{sent: map[string][]time.Time{}}
	us := httptest.NewServer(up)
	defer us.Close()

	start := time.Now()
	direct := loadRun(t, us.URL, up, names, "d")
	directTime := time.Since(start)

	proxyURL, done, _ := startProxy(t, us.URL, nil)
	start = time.Now()
	proxied := loadRun(t, proxyURL, up, names, "p")
	proxiedTime := time.Since(start)

	seen := map[string]bool{}
	for range loadSessions {
		s := waitSession(t, done)
		id := s.req.Model
		if seen[id] {
			t.Fatalf("two sessions for %s", id)
		}
		seen[id] = true
		name := names[0]
		if n, err := strconv.Atoi(id[len("load-p"):]); err == nil {
			name = names[n%len(names)]
		}
		got := s.live.Session().Report()
		w := want[name]
		if s.state != w.Outcome.State || len(got.Calls) != len(w.Calls) || fmt.Sprint(got.Text) != fmt.Sprint(w.Text) {
			t.Fatalf("session %s (%s): outcome %s, %d calls; want %s, %d calls", id, name, s.state, len(got.Calls), w.Outcome.State, len(w.Calls))
		}
		for i := range got.Calls {
			if got.Calls[i].Arguments != w.Calls[i].Arguments {
				t.Fatalf("session %s call %d arguments differ from the sample's", id, i)
			}
		}
	}
	t.Logf("%d sessions, %d events, %d bytes each run; direct %v, proxied %v", loadSessions, len(proxied), totalBytes,
		directTime.Round(time.Millisecond), proxiedTime.Round(time.Millisecond))
	t.Logf("event latency direct:  p50 %v p99 %v max %v", pct(direct, .5), pct(direct, .99), pct(direct, 1))
	t.Logf("event latency proxied: p50 %v p99 %v max %v", pct(proxied, .5), pct(proxied, .99), pct(proxied, 1))
	added := pct(proxied, .99) - pct(direct, .99)
	t.Logf("added by the proxy at p99: %v", added)
	// No bound on the numbers: latency is measured (run with -v), never
	// asserted in a test, since a busy machine makes any bound flake; what
	// this test asserts is that nothing is lost, mixed or reordered.
}
