package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/ui"
)

// BenchmarkSessionsListRetained sends b.N sessions of about 151 KB (a
// Responses sample over and over) through the proxy with its sessions
// list, in process, and reports what the list retains per session once
// they ended (heap after a collection, over the heap before): with a
// spill directory (the proxy's default on a terminal) and without one
// (every model kept, as before), in the same run. It also reports the
// time to open the newest session from its row (a load from the spill).
//
//	go test ./proxy -run '^$' -bench SessionsListRetained -benchtime 500x
func BenchmarkSessionsListRetained(b *testing.B) {
	sample, err := samples.Open("responses-parallel-calls")
	if err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat(sample, 151<<10/len(sample)+1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sseType)
		rc := http.NewResponseController(w)
		for rest := body; len(rest) > 0; rest = rest[min(4096, len(rest)):] {
			_, _ = w.Write(rest[:min(4096, len(rest))])
			_ = rc.Flush()
		}
	}))
	b.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	for _, spill := range []bool{true, false} {
		name := map[bool]string{true: "spill", false: "in-memory"}[spill]
		b.Run(name, func(b *testing.B) {
			msgs := make(chan []model.SessionUpdate, 1024)
			feed := NewFeed(func(batch []model.SessionUpdate) { msgs <- batch })
			defer feed.Abort()
			o := Options{Upstream: u, HeadTimeout: DefaultHeadTimeout, Feed: feed}
			if spill {
				o.Spill = b.TempDir()
			}
			srv := httptest.NewServer(New(o, io.Discard))
			defer srv.Close()
			m := ui.NewSessions(ui.Options{Source: "bench", Checks: ui.StrictChecks})
			m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
			ended := make(chan int)
			go func() { // the program's loop: apply each batch, draw
				n := 0
				for batch := range msgs {
					m.Update(ui.Sessions(batch))
					_ = m.View()
					for _, u := range batch {
						if u.Ended {
							n++
						}
					}
					if n == b.N {
						ended <- n
						return
					}
				}
			}()
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for range b.N {
				resp, err := rawClient.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader(`{"model":"m"}`))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			select {
			case <-ended:
			case <-time.After(time.Minute):
				b.Fatal("the sessions did not all end")
			}
			b.StopTimer()
			runtime.GC()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N)/1024, "retained-KB/session")

			start := time.Now()
			_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
			runCmds(m, cmd)
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "open-ms")
			if v := m.View().Content; !strings.Contains(v, "ended: completed") {
				b.Fatalf("the newest session did not open:\n%s", v)
			}
			runtime.KeepAlive(m)
		})
	}
}
