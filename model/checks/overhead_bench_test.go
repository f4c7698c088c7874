package checks

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// BenchmarkCheckOverhead holds docs/performance.md's promise, "check within
// 20% of calls", on the captures scripts/bench.sh measures: the same
// generator (scripts/gencapture), 8 MB of each dialect. For each it runs
// what `calls --json` does to a file (framing, assembly, the calls report
// written) and what `check --json` does (the same with a Checker observing,
// then the report judged and marshalled), on one goroutine, so
//
//	go test -run '^$' -bench CheckOverhead -count 10 ./model/checks > new.txt
//	benchstat -col /cmd new.txt
//
// shows check's time as a ratio of calls' in the same run. Besides the
// elapsed time each reports cpu-ns/op, the CPU time of the process (the
// collector's included) per op, as the scripts measure the commands: on a
// shared machine it moves far less than the elapsed time. The generated
// captures concatenate thousands of responses, so every dialect's check
// reports repeated terminal events: the findings cost what they cost on a
// real stream of that shape.
func BenchmarkCheckOverhead(b *testing.B) {
	for _, dialect := range []string{"responses", "chat", "anthropic"} {
		b.Run("dialect="+dialect, func(b *testing.B) {
			data := genCapture(b, dialect)
			b.Run("cmd=calls", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				cpu := startCPU()
				for b.Loop() {
					s := model.NewSession(model.Options{})
					feedChunked(s, data)
					if err := s.WriteReportJSON(io.Discard); err != nil {
						b.Fatal(err)
					}
				}
				cpu.report(b)
			})
			b.Run("cmd=check", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				cpu := startCPU()
				for b.Loop() {
					opts, c := Attach(model.Options{})
					s := model.NewSession(opts)
					feedChunked(s, data)
					if _, err := c.Report(s, Strict).MarshalJSON(); err != nil {
						b.Fatal(err)
					}
				}
				cpu.report(b)
			})
		})
	}
}

// feedChunked frames data in reads of 256 KB, as capture.Source reads a
// file, adds every frame to s and ends it.
func feedChunked(s *model.Session, data []byte) {
	fr := capture.NewFramer(capture.FormatAuto)
	emit := func(f *capture.Frame) { s.Add(f) }
	for off := 0; off < len(data); off += 256 << 10 {
		fr.Feed(data[off:min(off+256<<10, len(data))], capture.NoTime, emit)
	}
	fr.Finish(capture.NoTime, emit)
	s.End(nil)
}

// cpuClock is the process's CPU time (user and system) when a benchmark's
// loop started.
type cpuClock time.Duration

func startCPU() cpuClock { return cpuClock(processCPU()) }

// report adds the CPU time per op since c as the metric cpu-ns/op.
func (c cpuClock) report(b *testing.B) {
	if n := b.N; n > 0 {
		b.ReportMetric(float64(processCPU()-time.Duration(c))/float64(n), "cpu-ns/op")
	}
}

var generated sync.Map // dialect → []byte

// genCapture returns 8 MB of the dialect written by scripts/gencapture
// (run once per dialect and process), or skips when it cannot be run.
func genCapture(b *testing.B, dialect string) []byte {
	if data, ok := generated.Load(dialect); ok {
		return data.([]byte)
	}
	out := filepath.Join(b.TempDir(), dialect+".sse")
	cmd := exec.Command("go", "run", "../../scripts/gencapture", "-dialect", dialect, "-size", "8MB", "-out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Skipf("scripts/gencapture: %v\n%s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	generated.Store(dialect, data)
	return data
}
