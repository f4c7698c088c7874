package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// The generated streams of the benchmarks: about 8 MB of each dialect in
// reads of the size capture.Source.Read makes; scripts/gencapture writes
// the same shapes at 100 MB for scripts/bench.sh.
const (
	BenchSize  = 8 << 20
	BenchChunk = 256 << 10
)

// Call is one call a generated stream holds: its name and its arguments.
type Call struct{ Name, Args string }

// benchGen writes a generated stream. It is deterministic.
type benchGen struct {
	buf   bytes.Buffer
	tmp   bytes.Buffer
	enc   *json.Encoder
	rng   *rand.Rand
	calls []Call
}

// GenStream returns about size bytes of a stream in the dialect, made of
// responses one after another, each with optional text and one to four
// parallel calls whose arguments arrive in 3–10 byte deltas, and the calls
// it holds.
func GenStream(dialect string, size int) ([]byte, []Call) {
	g := &benchGen{rng: rand.New(rand.NewPCG(1, 2))}
	g.enc = json.NewEncoder(&g.tmp)
	g.enc.SetEscapeHTML(false)
	turn := map[string]func(int){"responses": g.responses, "chat": g.chat, "anthropic": g.anthropic, "ollama": g.ollama}[dialect]
	for r := 0; g.buf.Len() < size; r++ {
		turn(r)
	}
	return g.buf.Bytes(), g.calls
}

func (g *benchGen) json(v any) []byte {
	g.tmp.Reset()
	if err := g.enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(g.tmp.Bytes(), []byte("\n"))
}

func (g *benchGen) event(name string, v any) {
	if name != "" {
		fmt.Fprintf(&g.buf, "event: %s\n", name)
	}
	fmt.Fprintf(&g.buf, "data: %s\n\n", g.json(v))
}

// split cuts s into 3–10 byte pieces at rune boundaries.
func (g *benchGen) split(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(3+g.rng.IntN(8), len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

var benchWords = strings.Fields("I'll check the weather in Zürich and São Paulo, then search “config.yaml” for max_connections.")

func (g *benchGen) shape() (text []string, calls []Call) {
	if g.rng.IntN(2) == 0 {
		text = benchWords
	}
	places := []string{"Zürich, Switzerland", "São Paulo, Brazil", "東京都渋谷区", "Austin, TX"}
	for range 1 + g.rng.IntN(4) {
		var args map[string]any
		name := "get_weather"
		if g.rng.IntN(2) == 0 {
			args = map[string]any{"location": places[g.rng.IntN(len(places))], "units": "celsius", "days": 1 + g.rng.IntN(7)}
		} else {
			name = "search_files"
			args = map[string]any{"query": `where is "max_connections" set <& \d+>`, "paths": []string{"src/", `C:\Users\dev\`},
				"filters": map[string]any{"ext": []string{".go", ".yaml"}, "max_results": 10 * (1 + g.rng.IntN(5))}}
		}
		c := Call{Name: name, Args: string(g.json(args))}
		calls = append(calls, c)
		g.calls = append(g.calls, c)
	}
	return text, calls
}

func (g *benchGen) responses(r int) {
	text, calls := g.shape()
	seq := 0
	ev := func(typ string, v map[string]any) {
		v["type"], v["sequence_number"] = typ, seq
		seq++
		g.event(typ, v)
	}
	resp := map[string]any{"id": fmt.Sprintf("resp_%048x", r), "object": "response", "created_at": 1758670764 + r,
		"status": "in_progress", "model": "gpt-5-mini-2025-08-07", "output": []any{}, "usage": nil}
	ev("response.created", map[string]any{"response": resp})
	ev("response.in_progress", map[string]any{"response": resp})
	var output []any
	idx := 0
	if text != nil {
		id := fmt.Sprintf("msg_%048x", r)
		item := map[string]any{"id": id, "type": "message", "status": "in_progress", "content": []any{}, "role": "assistant"}
		ev("response.output_item.added", map[string]any{"output_index": idx, "item": item})
		for i, w := range text {
			if i > 0 {
				w = " " + w
			}
			ev("response.output_text.delta", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "delta": w, "logprobs": []any{}})
		}
		all := strings.Join(text, " ")
		ev("response.output_text.done", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "text": all, "logprobs": []any{}})
		item["status"], item["content"] = "completed", []any{map[string]any{"type": "output_text", "annotations": []any{}, "text": all}}
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
		idx++
	}
	for c, call := range calls {
		id := fmt.Sprintf("fc_%046x%02d", r, c)
		item := map[string]any{"id": id, "type": "function_call", "status": "in_progress", "arguments": "",
			"call_id": fmt.Sprintf("call_%019d%05d", r, c), "name": call.Name}
		ev("response.output_item.added", map[string]any{"output_index": idx, "item": item})
		for _, d := range g.split(call.Args) {
			ev("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": idx, "delta": d, "obfuscation": "Xq3kPz9aLw"})
		}
		ev("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": idx, "arguments": call.Args})
		item["status"], item["arguments"] = "completed", call.Args
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
		idx++
	}
	resp["status"], resp["output"] = "completed", output
	resp["usage"] = map[string]any{"input_tokens": 812, "output_tokens": 40 * len(output), "total_tokens": 812 + 40*len(output)}
	ev("response.completed", map[string]any{"response": resp})
}

func (g *benchGen) chat(r int) {
	text, calls := g.shape()
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": fmt.Sprintf("chatcmpl-%029d", r), "object": "chat.completion.chunk", "created": 1727346178 + r,
			"model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_5050236cbd",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	}
	g.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for i, w := range text {
		if i > 0 {
			w = " " + w
		}
		g.event("", chunk(map[string]any{"content": w}, nil))
	}
	for c, call := range calls {
		g.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": c, "id": fmt.Sprintf("call_%019d%05d", r, c),
			"type": "function", "function": map[string]any{"name": call.Name, "arguments": ""}}}}, nil))
		for _, d := range g.split(call.Args) {
			g.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": c, "function": map[string]any{"arguments": d}}}}, nil))
		}
	}
	g.event("", chunk(map[string]any{}, "tool_calls"))
	g.buf.WriteString("data: [DONE]\n\n")
}

func (g *benchGen) anthropic(r int) {
	text, calls := g.shape()
	g.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_01%022d", r), "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 377, "output_tokens": 1}}})
	block := func(idx int, v map[string]any) {
		g.event("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": v})
	}
	delta := func(idx int, v map[string]any) {
		g.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": v})
	}
	stop := func(idx int) {
		g.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
	}
	idx := 0
	if text != nil {
		block(idx, map[string]any{"type": "text", "text": ""})
		g.buf.WriteString("event: ping\ndata: {\"type\": \"ping\"}\n\n")
		for i, w := range text {
			if i > 0 {
				w = " " + w
			}
			delta(idx, map[string]any{"type": "text_delta", "text": w})
		}
		stop(idx)
		idx++
	}
	for c, call := range calls {
		block(idx, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_01%017d%05d", r, c), "name": call.Name, "input": map[string]any{}})
		delta(idx, map[string]any{"type": "input_json_delta", "partial_json": ""})
		for _, d := range g.split(call.Args) {
			delta(idx, map[string]any{"type": "input_json_delta", "partial_json": d})
		}
		stop(idx)
		idx++
	}
	g.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 40 * len(calls)}})
	g.event("message_stop", map[string]any{"type": "message_stop"})
}

// ollama writes one /api/chat exchange as NDJSON: the text a word a line,
// each call whole in a line of its own (Ollama streams no argument
// deltas), then the done line. Exchanges follow one another, each a
// response of its own.
func (g *benchGen) ollama(r int) {
	text, calls := g.shape()
	created := fmt.Sprintf("2025-09-18T09:12:%02d.%09dZ", r%60, r)
	line := func(message map[string]any) {
		g.buf.Write(g.json(map[string]any{"model": "qwen3:8b", "created_at": created, "message": message, "done": false}))
		g.buf.WriteByte('\n')
	}
	for i, w := range text {
		if i > 0 {
			w = " " + w
		}
		line(map[string]any{"role": "assistant", "content": w})
	}
	for c, call := range calls {
		line(map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": fmt.Sprintf("call_%08d", r*4+c),
			"function": map[string]any{"index": c, "name": call.Name, "arguments": json.RawMessage(call.Args)}}}})
	}
	g.buf.Write(g.json(map[string]any{"model": "qwen3:8b", "created_at": created, "message": map[string]any{"role": "assistant", "content": ""},
		"done": true, "done_reason": "stop", "total_duration": 1873402115, "load_duration": 41263390, "prompt_eval_count": 212,
		"prompt_eval_duration": 98311402, "eval_count": 71, "eval_duration": 1720885106}))
	g.buf.WriteByte('\n')
}
