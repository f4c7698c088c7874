package bedrock_test

import (
	"testing"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

var benchSink model.CallsReport

// BenchmarkBedrockInvoke times an InvokeModel stream carrying the
// generated Anthropic stream of the core's BenchmarkAssembleAnthropic (the
// same calls and text: each event base64 inside a chunk's JSON inside an
// event stream message, as Bedrock wraps Claude's stream) against the
// Anthropic stream itself, in one run: the ratio of their ns/op is the
// cost of the wrapping. "sequential" adds each frame as Add does (one
// goroutine: the proxy, one core); "batched" validates in Batches first,
// as the headless commands' reader does on two cores (here on one
// goroutine, so ns/op is the work of both). scripts/bench.sh measures the
// same through the CLI at 100 MB.
func BenchmarkBedrockInvoke(b *testing.B) {
	sse, want := modeltest.GenStream("anthropic", modeltest.BenchSize)
	streams := []struct {
		name string
		data []byte
	}{{"anthropic", sse}, {"invoke", modeltest.InvokeOf(sse)}}
	for _, path := range []struct {
		name     string
		assemble func([]byte) *model.Session
	}{{"sequential", dialecttest.AssembleChunked}, {"batched", dialecttest.AssembleInBatches}} {
		for _, st := range streams {
			b.Run(path.name+"/"+st.name, func(b *testing.B) {
				dialecttest.CheckBenchStream(b, st.data, want)
				b.SetBytes(int64(len(st.data)))
				b.ReportAllocs()
				for b.Loop() {
					benchSink = path.assemble(st.data).Report()
				}
			})
		}
	}
}
