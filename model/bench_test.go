package model_test

import (
	"encoding/json"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// The benchmarks here time what `streamtap calls` does to a file: framing,
// decoding and assembly, without the per-event index, then the report. Each
// runs over about 8 MB of a generated stream; scripts/gencapture writes the
// same shapes at 100 MB for scripts/bench.sh.

func BenchmarkAssembleResponses(b *testing.B) { benchAssemble(b, "responses") }
func BenchmarkAssembleChat(b *testing.B)      { benchAssemble(b, "chat") }
func BenchmarkAssembleAnthropic(b *testing.B) { benchAssemble(b, "anthropic") }
func BenchmarkAssembleOllama(b *testing.B)    { benchAssemble(b, "ollama") }

var benchSink model.CallsReport

func benchAssemble(b *testing.B, dialect string) {
	data, want := modeltest.GenStream(dialect, modeltest.BenchSize)
	dialecttest.CheckBenchStream(b, data, want)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		benchSink = dialecttest.AssembleChunked(data).Report()
	}
	b.ReportMetric(float64(len(want)), "calls/op")
}

// BenchmarkDecodeEncodingJSON is the yardstick the issue names: framing
// the same streams and decoding every event with encoding/json into small
// structs, as a client that only wants the calls would. It runs in the
// same `go test -bench` as BenchmarkAssemble*, so the two compare on one
// machine at one moment.
func BenchmarkDecodeEncodingJSON(b *testing.B) {
	for _, dialect := range []string{"responses", "chat", "anthropic"} {
		b.Run(dialect, func(b *testing.B) {
			data, _ := modeltest.GenStream(dialect, modeltest.BenchSize)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				decodeEncodingJSON(b, data)
			}
		})
	}
}

// smallEvent holds what a minimal client reads from an event of any of
// the three dialects.
type smallEvent struct {
	Type        string          `json:"type"`
	ItemID      string          `json:"item_id"`
	OutputIndex int             `json:"output_index"`
	Index       int             `json:"index"`
	Delta       json.RawMessage `json:"delta"`
	Arguments   string          `json:"arguments"`
	Item        *struct {
		ID, Type, CallID, Name, Arguments string
	} `json:"item"`
	ContentBlock *struct {
		Type, ID, Name string
	} `json:"content_block"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name, Arguments string
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

func decodeEncodingJSON(b *testing.B, data []byte) {
	fr := capture.NewFramer(capture.FormatAuto)
	emit := func(f *capture.Frame) {
		if !f.HasData || string(f.Data) == "[DONE]" {
			return
		}
		var ev smallEvent
		if err := json.Unmarshal(f.Data, &ev); err != nil {
			b.Fatal(err)
		}
	}
	for p := data; len(p) > 0; {
		n := min(modeltest.BenchChunk, len(p))
		fr.Feed(p[:n], capture.NoTime, emit)
		p = p[n:]
	}
	fr.Finish(capture.NoTime, emit)
}
