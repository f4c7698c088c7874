package checks

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// benchStream is an ~8 MB Responses stream by the book: reasoning, text and
// function calls with small argument deltas, as a long agent turn looks.
var benchStream = sync.OnceValue(func() []byte {
	const target = 8 << 20
	var b strings.Builder
	seq := 0
	emit := func(typ, body string) {
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":%q,\"sequence_number\":%d,%s}\n\n", typ, typ, seq, body)
		seq++
	}
	snapshot := func(status, output string) string {
		return `"response":{"id":"resp_bench","object":"response","status":"` + status +
			`","model":"gpt-5","reasoning":{"effort":"medium","summary":null},"output":[` + output + `]}`
	}
	emit("response.created", snapshot("in_progress", ""))
	emit("response.in_progress", snapshot("in_progress", ""))
	var output []string
	for idx := 0; b.Len() < target; idx++ {
		id := fmt.Sprintf("fc_%06d", idx)
		call := fmt.Sprintf("call_%06d", idx)
		emit("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%q,"type":"function_call","status":"in_progress","arguments":"","call_id":%q,"name":"write_file"}`, idx, id, call))
		var args strings.Builder
		args.WriteString(`{"path":"notes/file.md","text":"`)
		for range 40 {
			args.WriteString("some words ")
		}
		args.WriteString(`"}`)
		whole := args.String()
		for i := 0; i < len(whole); i += 8 {
			piece := whole[i:min(i+8, len(whole))]
			emit("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"delta":%s,"obfuscation":"Zx9q"`, id, idx, jsonString(piece)))
		}
		emit("response.function_call_arguments.done", fmt.Sprintf(`"item_id":%q,"output_index":%d,"name":"write_file","arguments":%s`, id, idx, jsonString(whole)))
		item := fmt.Sprintf(`{"id":%q,"type":"function_call","status":"completed","arguments":%s,"call_id":%q,"name":"write_file"}`, id, jsonString(whole), call)
		emit("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, idx, item))
		output = append(output, item)
	}
	emit("response.completed", snapshot("completed", strings.Join(output, ",")))
	return []byte(b.String())
})

func jsonString(s string) string { return fmt.Sprintf("%q", s) }

// BenchmarkCheck compares, on the same stream, `calls` (assembly and the
// calls report) with `check` (assembly observed by a Checker, and the
// check report): the check must add at most 20% to calls. "assemble" is
// framing and assembly alone.
func BenchmarkCheck(b *testing.B) {
	data := benchStream()
	feed := func(s *model.Session) { feedChunked(s, data) }
	{
		b.Run("assemble", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				feed(model.NewSession(model.Options{}))
			}
		})
		b.Run("calls", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				s := model.NewSession(model.Options{})
				feed(s)
				_ = s.Report()
			}
		})
		b.Run("check", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				opts, c := Attach(model.Options{})
				s := model.NewSession(opts)
				feed(s)
				if rep := c.Report(s, Strict); len(rep.Findings) != 0 {
					b.Fatalf("bench stream has findings: %v", rep.Findings[0])
				}
			}
		})
		// check+request adds the request rules: every call's arguments
		// validated against a strict schema, once each.
		req := model.ParseRequest([]byte(`{"model":"gpt-5","tools":[{"type":"function","name":"write_file","strict":true,`+
			`"parameters":{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string","maxLength":100000}},"required":["path","text"],"additionalProperties":false}}],`+
			`"tool_choice":"required"}`), "/")
		b.Run("check+request", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				opts, c := Attach(model.Options{})
				c.SetRequest(&req)
				s := model.NewSession(opts)
				feed(s)
				if rep := c.Report(s, Strict); len(rep.Findings) != 0 || len(c.req.verdicts) == 0 {
					b.Fatalf("bench stream has findings (%v) or no call validated", rep.Findings)
				}
			}
		})
	}
}

func TestBenchStreamClean(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an 8 MB stream")
	}
	data := benchStream()
	if len(data) < 8<<20 {
		t.Fatalf("bench stream is %d bytes", len(data))
	}
	rep := CheckBytes(data, capture.FormatAuto, Strict)
	if len(rep.Findings) != 0 || rep.Outcome.State != "completed" {
		t.Fatalf("bench stream: %v, %v", rep.Outcome, rep.Findings[:min(3, len(rep.Findings))])
	}
}

// TestCheckOverhead measures check against calls on the bench stream,
// interleaving runs so that a busy machine slows both alike, and logs the
// minimum of each and their ratio. It runs only when
// STREAMTAP_OVERHEAD is set: timing is no test on a shared CI runner.
func TestCheckOverhead(t *testing.T) {
	if os.Getenv("STREAMTAP_OVERHEAD") == "" {
		t.Skip("set STREAMTAP_OVERHEAD=1 to measure")
	}
	data := benchStream()
	run := func(check bool) time.Duration {
		start := time.Now()
		opts := model.Options{}
		var c *Checker
		if check {
			opts, c = Attach(opts)
		}
		s := model.NewSession(opts)
		feedChunked(s, data)
		if check {
			_ = c.Report(s, Strict)
		} else {
			_ = s.Report()
		}
		return time.Since(start)
	}
	{
		best := [2]time.Duration{time.Hour, time.Hour}
		for range 40 {
			for i, check := range []bool{false, true} {
				best[i] = min(best[i], run(check))
			}
		}
		t.Logf("%d bytes: calls %v (%.0f MB/s), check %v (%.0f MB/s): check adds %.1f%%", len(data),
			best[0], float64(len(data))/best[0].Seconds()/1e6, best[1], float64(len(data))/best[1].Seconds()/1e6,
			100*(best[1].Seconds()/best[0].Seconds()-1))
	}
}

// TestRequestOverhead measures check with a request (every call validated
// against a strict schema) against check without, on the bench stream,
// interleaved, logging the minimum of each and their ratio. It runs only
// when STREAMTAP_OVERHEAD is set.
func TestRequestOverhead(t *testing.T) {
	if os.Getenv("STREAMTAP_OVERHEAD") == "" {
		t.Skip("set STREAMTAP_OVERHEAD=1 to measure")
	}
	data := benchStream()
	req := model.ParseRequest([]byte(`{"tools":[{"type":"function","name":"write_file","strict":true,"parameters":{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}}}}]}`), "/")
	run := func(withRequest bool) time.Duration {
		start := time.Now()
		opts, c := Attach(model.Options{})
		if withRequest {
			c.SetRequest(&req)
		}
		s := model.NewSession(opts)
		feedChunked(s, data)
		if rep := c.Report(s, Strict); len(rep.Findings) > 0 {
			t.Fatalf("findings: %v", rep.Findings[0])
		}
		return time.Since(start)
	}
	best := [2]time.Duration{time.Hour, time.Hour}
	for range 30 {
		for i, with := range []bool{false, true} {
			best[i] = min(best[i], run(with))
		}
	}
	t.Logf("%d bytes: check %v, check with the request %v: the request rules add %.1f%%", len(data),
		best[0], best[1], 100*(best[1].Seconds()/best[0].Seconds()-1))
}
