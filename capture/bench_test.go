package capture

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchChunk is the read size of Source.Read, so the framer sees the input
// split the way it is when reading a file.
const benchChunk = 256 << 10

// benchResponses returns about size bytes of an OpenAI Responses stream in
// which function-call arguments arrive in 3–10 byte deltas, the traffic
// that dominates a large tool-call capture. The output is deterministic.
func benchResponses(size int) []byte {
	const args = `{"location":"Zürich, Switzerland","units":"celsius","days":3,` +
		`"paths":["src/","internal/server/"],"query":"where is \"max_connections\" set"}`
	var b []byte
	event := func(typ string, v map[string]any) {
		v["type"] = typ
		data, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		b = fmt.Appendf(b, "event: %s\ndata: %s\n\n", typ, data)
	}
	for r := 0; len(b) < size; r++ {
		seq := 0
		next := func() int { seq++; return seq - 1 }
		resp := map[string]any{"id": fmt.Sprintf("resp_%048x", r), "object": "response", "status": "in_progress", "output": []any{}}
		event("response.created", map[string]any{"sequence_number": next(), "response": resp})
		var output []any
		for c := range 3 {
			id := fmt.Sprintf("fc_%046x%02d", r, c)
			item := map[string]any{"id": id, "type": "function_call", "status": "in_progress", "arguments": "",
				"call_id": fmt.Sprintf("call_%024d", r*3+c), "name": "get_weather"}
			event("response.output_item.added", map[string]any{"sequence_number": next(), "output_index": c, "item": item})
			for i, n := 0, 0; i < len(args); i += n {
				n = min(3+(i*7+c)%8, len(args)-i)
				event("response.function_call_arguments.delta", map[string]any{"sequence_number": next(),
					"item_id": id, "output_index": c, "delta": args[i : i+n], "obfuscation": "Xq3kPz9aLw"})
			}
			event("response.function_call_arguments.done", map[string]any{"sequence_number": next(),
				"item_id": id, "output_index": c, "arguments": args})
			item["status"], item["arguments"] = "completed", args
			event("response.output_item.done", map[string]any{"sequence_number": next(), "output_index": c, "item": item})
			output = append(output, item)
		}
		resp["status"], resp["output"] = "completed", output
		event("response.completed", map[string]any{"sequence_number": next(), "response": resp})
	}
	return b
}

func BenchmarkFrameSSE(b *testing.B) {
	data := benchResponses(8 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	frames := 0
	for b.Loop() {
		frames = 0
		emit := func(*Frame) { frames++ }
		fr := NewFramer(FormatSSE)
		for p := data; len(p) > 0; {
			n := min(benchChunk, len(p))
			fr.Feed(p[:n], NoTime, emit)
			p = p[n:]
		}
		fr.Finish(NoTime, emit)
	}
	b.ReportMetric(float64(frames), "frames/op")
}

// BenchmarkHugeFirstLine frames one 50 MB JSON line arriving in read-sized
// pieces, detected and named: detection waits for the line's newline, and
// must not search the line again on every read (it did: 200 reads of
// 256 KiB searched 5 GB). Compare auto with jsonl in the same run.
func BenchmarkHugeFirstLine(b *testing.B) {
	line := []byte(`{"model":"m","message":{"role":"assistant","content":"` + strings.Repeat("x", 50<<20) + `"},"done":false}` + "\n")
	for _, format := range []Format{FormatJSONL, FormatAuto} {
		b.Run(format.String(), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				fr := NewFramer(format)
				emit := func(*Frame) {}
				for p := line; len(p) > 0; {
					n := min(benchChunk, len(p))
					fr.Feed(p[:n], NoTime, emit)
					p = p[n:]
				}
				fr.Finish(NoTime, emit)
			}
		})
	}
}
