package proxy

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/ingest"
	"github.com/streamtap/streamtap/model"
)

// bigEventStream is a Responses stream of one function call whose
// arguments arrive as three one-byte deltas, one delta of n bytes and a
// last one-byte delta, so that the assembled arguments tell whether the
// proxy modelled every event in order. It returns the stream and the
// arguments.
func bigEventStream(n int) (stream []byte, args string) {
	big := make([]byte, 0, n+16)
	for i := 0; len(big) < n; i++ {
		big = append(strconv.AppendInt(append(big, 'w'), int64(i), 10), ' ')
	}
	payload := string(big[:n])
	var b bytes.Buffer
	b.Grow(n + 2048)
	seq := 0
	event := func(typ, data string) {
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":%q,\"sequence_number\":%d,%s}\n\n", typ, typ, seq, data)
		seq++
	}
	event("response.created", `"response":{"id":"resp_big","status":"in_progress","output":[]}`)
	event("response.output_item.added", `"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"write_file"}`)
	for _, d := range []string{"a", "b", "c", payload, "z"} {
		event("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":0,"delta":"`+d+`"`)
	}
	event("response.completed", `"response":{"id":"resp_big","status":"completed","output":[]}`)
	return b.Bytes(), "abc" + payload + "z"
}

// TestProxyPassesEventsOfAnySize runs client ↔ proxy ↔ upstream with one
// event of 1 B to 50 MB, around ingest.LendAbove in particular: the
// client gets the upstream's bytes unchanged, the session models every
// event in order, the recording holds the stream. It used to deadlock
// on any event over 1 MiB: the proxy's pump lent the frame and waited for
// a release that only its own goroutine could make. Each exchange has a
// liveness bound (a minute; it takes well under a second) that dumps
// the goroutines when it is hit.
func TestProxyPassesEventsOfAnySize(t *testing.T) {
	sizes := []int{1, 100, ingest.LendAbove - 300, ingest.LendAbove + 1, 2_000_000, 50_000_000}
	if testing.Short() {
		sizes = sizes[:5]
	}
	for _, withFeed := range []bool{false, true} {
		for _, n := range sizes {
			t.Run(fmt.Sprintf("feed=%v/%d", withFeed, n), func(t *testing.T) {
				stream, args := bigEventStream(n)
				up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.Copy(io.Discard, r.Body)
					w.Header().Set("Content-Type", sseType)
					_, _ = w.Write(stream)
				}))
				// A stuck exchange would hold Close forever: after a
				// failure the servers are left to the end of the process.
				defer closeUnlessFailed(t, up)
				u, _ := url.Parse(up.URL)
				dir := t.TempDir()
				o := Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, Record: dir}
				if withFeed {
					o.Feed = NewFeed(func([]model.SessionUpdate) {})
					defer o.Feed.Abort()
				}
				p := New(o, io.Discard)
				done := make(chan *session, 1)
				p.onDone = func(s *session) { done <- s }
				srv := httptest.NewServer(p)
				defer closeUnlessFailed(t, srv)

				type result struct {
					sum [sha256.Size]byte
					n   int64
					err error
				}
				got := make(chan result, 1)
				go func() {
					resp, err := rawClient.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
					if err != nil {
						got <- result{err: err}
						return
					}
					defer resp.Body.Close()
					h := sha256.New()
					k, err := io.Copy(h, resp.Body)
					got <- result{sum: [sha256.Size]byte(h.Sum(nil)), n: k, err: err}
				}()
				var r result
				select {
				case r = <-got:
				case <-time.After(time.Minute):
					var dump strings.Builder
					_ = pprof.Lookup("goroutine").WriteTo(&dump, 1)
					t.Fatalf("the client did not get the stream within a minute (a deadlock?):\n%s", dump.String())
				}
				if r.err != nil {
					t.Fatal(r.err)
				}
				if r.n != int64(len(stream)) || r.sum != sha256.Sum256(stream) {
					t.Fatalf("client got %d bytes (sha256 %x); want the upstream's %d unchanged", r.n, r.sum[:6], len(stream))
				}
				var s *session
				select {
				case s = <-done:
				case <-time.After(time.Minute):
					t.Fatal("the session did not end within a minute")
				}
				ms := s.live.Lock()
				calls, bytesIn, outcome := ms.Calls(), ms.Bytes(), ms.Outcome().State
				var final string
				if len(calls) == 1 {
					final = calls[0].FinalArgs()
				}
				s.live.Unlock()
				if len(calls) != 1 || final != args || bytesIn != int64(len(stream)) || outcome != "completed" {
					t.Fatalf("session: %d calls, args of %d bytes (want %d, in order: %v), %d bytes (want %d), outcome %q",
						len(calls), len(final), len(args), final == args, bytesIn, len(stream), outcome)
				}
				files, _ := filepath.Glob(filepath.Join(dir, "*.sse"))
				if len(files) != 1 {
					t.Fatalf("recordings = %v; want 1", files)
				}
				data, err := os.ReadFile(files[0])
				if err != nil {
					t.Fatal(err)
				}
				rec, err := capture.ParseRecording(data)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(rec.Bytes(), stream) {
					t.Fatalf("the recording holds %d body bytes; want the %d streamed", len(rec.Bytes()), len(stream))
				}
			})
		}
	}
}

// closeUnlessFailed closes srv when t passed. httptest.Server.Close waits
// for every handler to return, which a deadlocked one never does.
func closeUnlessFailed(t *testing.T, srv *httptest.Server) {
	if !t.Failed() {
		srv.Close()
	}
}
