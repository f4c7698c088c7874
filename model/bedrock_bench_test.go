package model

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// BenchmarkBedrockInvoke times an InvokeModel stream carrying
// BenchmarkAssembleAnthropic's events (the same calls and text: each event
// base64 inside a chunk's JSON inside an event stream message, as Bedrock
// wraps Claude's stream) against the Anthropic stream itself, in one run:
// the ratio of their ns/op is the cost of the wrapping. "sequential" adds
// each frame as Add does (one goroutine: the proxy, one core); "batched"
// validates in Batches first, as the headless commands' reader does on
// two cores (here on one goroutine, so ns/op is the work of both).
// scripts/bench.sh measures the same through the CLI at 100 MB.
func BenchmarkBedrockInvoke(b *testing.B) {
	sse, want := genStream("anthropic", benchSize)
	streams := []struct {
		name string
		data []byte
	}{{"anthropic", sse}, {"invoke", invokeOf(sse)}}
	for _, path := range []struct {
		name     string
		assemble func([]byte) *Session
	}{{"sequential", assembleChunked}, {"batched", assembleInBatches}} {
		for _, st := range streams {
			b.Run(path.name+"/"+st.name, func(b *testing.B) {
				checkBenchStream(b, st.data, want)
				b.SetBytes(int64(len(st.data)))
				b.ReportAllocs()
				for b.Loop() {
					benchSink = path.assemble(st.data).Report()
				}
			})
		}
	}
}

// assembleInBatches assembles data as the headless commands' reader and
// session do, on one goroutine: reads of benchChunk bytes, every frame
// validated by a Batch, each Batch added after its read.
func assembleInBatches(data []byte) *Session {
	s := NewSession(Options{})
	fr := capture.NewFramer(capture.FormatAuto)
	var bt Batch
	emit := func(f *capture.Frame) {
		bt.Add(f, false)
		bt.ValidateLast()
	}
	flush := func() {
		_ = s.AddBatch(&bt, nil)
		bt.Reset()
	}
	for p := data; len(p) > 0; {
		n := min(benchChunk, len(p))
		fr.Feed(p[:n], capture.NoTime, emit)
		flush()
		p = p[n:]
	}
	fr.Finish(capture.NoTime, emit)
	flush()
	s.End(nil)
	return s
}

// invokeOf wraps each data event of an Anthropic SSE stream (pings
// aside: Bedrock sends none) in an InvokeModel chunk, with the random
// padding Bedrock adds to every payload.
func invokeOf(sse []byte) []byte {
	const pad = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123"
	headers := []capture.Field{
		{Name: []byte(":event-type"), Value: []byte("chunk")},
		{Name: []byte(":content-type"), Value: []byte("application/json")},
		{Name: []byte(":message-type"), Value: []byte("event")},
	}
	var out, payload []byte
	n := 0
	for block := range bytes.SplitSeq(sse, []byte("\n\n")) {
		_, data, ok := bytes.Cut(block, []byte("data: "))
		if !ok || bytes.Contains(data, []byte(`"ping"`)) {
			continue
		}
		n++
		payload = append(payload[:0], `{"bytes":"`...)
		payload = base64.StdEncoding.AppendEncode(payload, data)
		payload = append(payload, `","p":"`...)
		payload = append(payload, pad[:1+n*7%len(pad)]...)
		payload = append(payload, `"}`...)
		out = capture.AppendEventStream(out, headers, payload)
	}
	return out
}
