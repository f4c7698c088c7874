package inspector

import (
	"fmt"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
)

func benchModel(b *testing.B, n int) *Model {
	b.Helper()
	data := synthStream(n)
	m := newProgram(newSession(data), Options{Source: "bench"})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m
}

// BenchmarkViewTimeline measures one frame while the selection moves down
// the timeline (the calls pane beside it follows), the key-to-frame work.
func BenchmarkViewTimeline(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			m := benchModel(b, n)
			m.insp.tl.SelectOrd(n / 2)
			down := keyMsg("j")
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				m.Update(down)
				_ = m.View()
			}
		})
	}
}

// BenchmarkViewIdle measures a frame with nothing changed (cached rows).
func BenchmarkViewIdle(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			m := benchModel(b, n)
			m.insp.tl.SelectOrd(n / 2)
			_ = m.View()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}

// BenchmarkIngestBatch measures Update adding one batch of 256 frames and
// drawing the next frame, on a session that already holds n events.
func BenchmarkIngestBatch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			data := synthStream(n + 200_000)
			fs := frames(data)
			m := liveModel(&testing.T{}, data, 120, 40)
			m.Update(batch(fs[:n]))
			next := n
			// Each batch is made with the clock stopped, in one reused
			// model.Batch: the reader makes it on its own goroutine.
			bt := &model.Batch{KeepRaw: true}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if next+256 > len(fs) {
					b.StopTimer()
					m = liveModel(&testing.T{}, data, 120, 40)
					m.Update(batch(fs[:n]))
					next = n
					b.StartTimer()
				}
				b.StopTimer()
				bt.Reset()
				for i := next; i < next+256; i++ {
					bt.Add(&fs[i], false)
				}
				b.StartTimer()
				m.Update(Frames(bt, nil))
				_ = m.View()
				next += 256
			}
		})
	}
}

// BenchmarkKeyLatency reports the distribution of key-to-frame CPU time
// (Update of a key press, then View) as p50 and p99 metrics, on a live
// session of 300k events: "indexing" interleaves a 256-frame batch, as the
// pump delivers them, between key presses; "indexed" presses keys on the
// finished session. Terminal I/O is not included: the numbers are the
// program's share of the latency. Run with -benchtime=1x: each run measures
// 2000 presses itself.
func BenchmarkKeyLatency(b *testing.B) {
	const total, presses = 300_000, 2000
	data := synthStream(total)
	fs := frames(data)
	keys := []tea.Msg{keyMsg("j"), keyMsg("j"), keyMsg("k"), keyMsg("G"), keyMsg("g"), keyMsg("ctrl+d")}
	// Batches are made between presses, untimed, in one reused
	// model.Batch: the reader makes them on its own goroutine.
	bt := &model.Batch{KeepRaw: true}
	measure := func(b *testing.B, m *Model, between func(i int)) {
		lat := make([]time.Duration, 0, presses)
		for i := range presses {
			if between != nil {
				between(i)
			}
			t0 := time.Now()
			m.Update(keys[i%len(keys)])
			_ = m.View()
			lat = append(lat, time.Since(t0))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	}
	b.Run("indexing", func(b *testing.B) {
		for b.Loop() {
			m := liveModel(&testing.T{}, data, 120, 40)
			next := 0
			measure(b, m, func(int) {
				if next < len(fs) {
					end := min(next+256, len(fs))
					bt.Reset()
					for i := next; i < end; i++ {
						bt.Add(&fs[i], false)
					}
					m.Update(Frames(bt, nil))
					next = end
				}
			})
		}
	})
	b.Run("indexed", func(b *testing.B) {
		for b.Loop() {
			m := liveModel(&testing.T{}, data, 120, 40)
			m.Update(batch(fs))
			measure(b, m, nil)
		}
	})
}

// BenchmarkFilterEnter measures pressing enter on a filter word over a
// 100k-event session: "update" is the Update call (what delays the next
// key), "total" also runs the command that finds the rows.
func BenchmarkFilterEnter(b *testing.B) {
	const n = 100_000
	m := benchModel(b, n)
	for _, run := range []string{"update", "total"} {
		b.Run(run, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				m.Update(keyMsg(`\`))
				for _, r := range "fc_000123" {
					m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
				}
				b.StartTimer()
				_, cmd := m.Update(keyMsg("enter"))
				if run == "total" && cmd != nil {
					m.Update(cmd())
				}
				b.StopTimer()
				m.Update(keyMsg("esc"))
				b.StartTimer()
			}
		})
	}
}
