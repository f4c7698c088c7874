// Command gencapture writes a synthetic but realistic LLM tool-call stream,
// for benchmarking streamtap on captures far larger than any real one:
//
//	go run ./scripts/gencapture -dialect responses -size 100MB -out big.sse
//
// The responses, chat and anthropic dialects write many responses (or
// completions, or messages) one after another until the file reaches -size
// (or, with -turns, until they have written that many).
// Each holds an optional text part and one to four parallel function calls
// whose arguments are realistic JSON split into 3–10 byte deltas, the way
// models stream them. The big-event dialect writes one Responses response
// whose single function_call_arguments.delta event is about -size bytes.
//
// The bedrock and bedrock-invoke dialects write Amazon Bedrock streams as
// AWS event streams (binary messages with CRCs): bedrock the ConverseStream,
// bedrock-invoke InvokeModelWithResponseStream chunks wrapping Anthropic
// events in base64. They write exactly the messages the anthropic dialect
// writes, with the same seed, converted: the same calls and text, turn for
// turn, so that
//
//	gencapture -dialect anthropic -size 100MB -out a.sse        # prints responses=N
//	gencapture -dialect bedrock -turns N -out b.eventstream
//
// give two captures of the same content whose reading times compare. The
// aisdk-ui dialect writes the same turns as the AI SDK's UI message
// stream of one agent run, a step a turn (-turns N as for bedrock).
//
// Every payload is built with encoding/json, so escaping is what a real
// server would send. The output depends only on the flags: the random
// source is seeded by -seed.
//
// On success it prints one line of key=value facts to stderr, among them
// largest_event (the size in bytes of the largest SSE frame), which
// scripts/bench.sh reads to compute the memory budget.
//
// It imports only the standard library and is not part of streamtap.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/streamtap/streamtap/scripts/internal/bytesize"
)

func main() {
	dialect := flag.String("dialect", "responses", "responses, chat, anthropic, bedrock, bedrock-invoke, aisdk-ui or big-event")
	sizeArg := flag.String("size", "100MB", "target file size (B, KB, MB, GB, KiB, MiB, GiB); for big-event, the size of the big event")
	turns := flag.Int("turns", 0, "write exactly this many responses instead of filling -size")
	out := flag.String("out", "-", "output file, - for stdout")
	seed := flag.Uint64("seed", 1, "seed of the random source")
	flag.Parse()

	size, err := bytesize.Parse(*sizeArg)
	if err != nil {
		fatal(err)
	}
	var w io.Writer = os.Stdout
	var f *os.File
	if *out != "-" {
		if f, err = os.Create(*out); err != nil {
			fatal(err)
		}
		w = f
	}
	g := newGen(w, *seed)
	g.turnsWanted = *turns
	switch *dialect {
	case "responses":
		g.fill(size, g.responsesTurn)
	case "chat":
		g.fill(size, g.chatTurn)
	case "anthropic":
		g.fill(size, g.anthropicTurn)
	case "bedrock", "bedrock-invoke":
		g.bedrock = &bedrockOut{invoke: *dialect == "bedrock-invoke", blocks: map[int]string{}}
		g.fill(size, g.anthropicTurn)
	case "aisdk-ui":
		g.aisdk = &aisdkOut{blocks: map[int]*aisdkBlock{}}
		g.fill(size, g.anthropicTurn)
		g.aisdkEnd()
	case "big-event":
		g.bigEvent(size)
	default:
		fatal(fmt.Errorf("unknown dialect %q (want responses, chat, anthropic, bedrock, bedrock-invoke, aisdk-ui or big-event)", *dialect))
	}
	err = g.w.Flush()
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fatal(err)
	}
	fmt.Fprintf(os.Stderr, "gencapture: dialect=%s bytes=%d events=%d responses=%d calls=%d largest_event=%d\n",
		*dialect, g.bytes, g.events, g.turns, g.calls, g.largest)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "gencapture:", err)
	os.Exit(1)
}

// gen writes SSE frames and counts what it wrote.
type gen struct {
	w   *bufio.Writer
	rng *rand.Rand
	buf bytes.Buffer
	enc *json.Encoder

	bytes, events, largest int64
	turns, calls           int
	clock                  int64 // created_at of the current response
	turnsWanted            int   // -turns: write this many turns, whatever the size

	// bedrock, when set, turns the Anthropic events into Bedrock event
	// stream messages (bedrock.go); aisdk into the AI SDK's UI message
	// stream (aisdk.go).
	bedrock *bedrockOut
	aisdk   *aisdkOut
}

func newGen(w io.Writer, seed uint64) *gen {
	g := &gen{w: bufio.NewWriterSize(w, 1<<20), rng: rand.New(rand.NewPCG(seed, 0x5eed)), clock: 1758670764}
	g.enc = json.NewEncoder(&g.buf)
	g.enc.SetEscapeHTML(false) // APIs send <, > and & as they are
	return g
}

// fill writes turns until the output reaches size bytes, or -turns of
// them.
func (g *gen) fill(size int64, turn func()) {
	for g.turnsWanted > 0 && g.turns < g.turnsWanted || g.turnsWanted == 0 && g.bytes < size {
		turn()
		g.turns++
		g.clock += 1 + int64(g.rng.IntN(20))
	}
}

// event writes one SSE frame: an optional event: line, then v as one data:
// line.
func (g *gen) event(name string, v any) {
	if g.bedrock != nil {
		g.bedrockEvent(name, v)
		return
	}
	if g.aisdk != nil {
		g.aisdkEvent(name, v)
		return
	}
	g.buf.Reset()
	if name != "" {
		g.buf.WriteString("event: ")
		g.buf.WriteString(name)
		g.buf.WriteByte('\n')
	}
	g.buf.WriteString("data: ")
	if err := g.enc.Encode(v); err != nil { // Encode ends the line with '\n'
		fatal(err)
	}
	g.buf.WriteByte('\n')
	g.flush()
}

// raw writes a frame given as text, such as a [DONE] or a ping.
func (g *gen) raw(frame string) {
	if g.bedrock != nil || g.aisdk != nil {
		return // a ping: Bedrock and the AI SDK forward none
	}
	g.buf.Reset()
	g.buf.WriteString(frame)
	g.flush()
}

func (g *gen) flush() {
	n := int64(g.buf.Len())
	g.bytes += n
	g.events++
	g.largest = max(g.largest, n)
	if _, err := g.w.Write(g.buf.Bytes()); err != nil {
		fatal(err)
	}
}

const (
	hexDigits = "0123456789abcdef"
	alnum     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

func (g *gen) id(prefix, alphabet string, n int) string {
	b := make([]byte, len(prefix), len(prefix)+n)
	copy(b, prefix)
	for range n {
		b = append(b, alphabet[g.rng.IntN(len(alphabet))])
	}
	return string(b)
}

func pick[T any](g *gen, xs []T) T { return xs[g.rng.IntN(len(xs))] }

// split cuts s into pieces of 3–10 bytes, never inside a UTF-8 sequence,
// the sizes model deltas have in practice.
func (g *gen) split(s string) []string {
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

// words cuts text into token-like pieces: a word with its leading space.
func words(text string) []string {
	var out []string
	for i, w := range strings.Split(text, " ") {
		if i > 0 {
			w = " " + w
		}
		out = append(out, w)
	}
	return out
}

// obj is a JSON object that keeps its members in the order given, as
// servers send them: key, value, key, value…
type obj []any

// MarshalJSON encodes the members with encoding/json, without HTML
// escaping, since APIs send <, > and & as they are.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		for j, v := range o[i : i+2] {
			if err := enc.Encode(v); err != nil {
				return nil, err
			}
			b.Truncate(b.Len() - 1) // Encode's newline
			if j == 0 {
				b.WriteByte(':')
			}
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// encode returns v as compact JSON text.
func encode(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// --- Realistic arguments -------------------------------------------------

var (
	cities    = []string{"San Francisco, CA", "Zürich, Switzerland", "São Paulo, Brazil", "東京都渋谷区", "Edinburgh, UK", "Kraków, Poland", "Austin, TX", "Montréal, QC"}
	queries   = []string{"flaky test in TestRetryBackoff", "where is \"max_connections\" set", "TODO(perf): avoid copying <buf>", "error wrapping with %w", "deprecated API: ioutil.ReadAll", "memory leak in worker pool & scheduler"}
	dirs      = []string{"src/", "internal/server/", "pkg/api/v2/", "cmd/streamtap/", "docs/", "tests/integration/", "C:\\Users\\dev\\project\\"}
	files     = []string{"internal/server/handler.go", "src/components/Chart.tsx", "README.md", "config/prod.yaml", "scripts/deploy.sh", "pkg/api/v2/types.go"}
	people    = []string{"José Álvarez", "Zoë O'Brien", "Nguyễn Văn An", "Priya Raman", "Émile Durand", "Søren Kierkegaard"}
	codeLines = []string{
		"if err != nil {\n\treturn fmt.Errorf(\"open %s: %w\", path, err)\n}",
		"for i := 0; i < len(xs); i++ {\n\tsum += xs[i]\n}",
		"const re = /\\d+\\.\\d+/g;\nconst m = s.match(re);",
		"print(f\"{name!r}: {value:>10}\")\t# aligned",
		"SELECT * FROM \"users\" WHERE email LIKE '%@example.com';",
		"echo \"done ✅\" && exit 0",
	}
	texts = []string{
		"I'll check the weather in both cities and then look at the files you mentioned.",
		"Let me search the repository for the failing test first.",
		"Sure — I'll schedule that and send the invites to everyone on the list.",
		"Running the query now; this can take a few seconds on the full table.",
		"Voilà: I'll open “config/prod.yaml” and compare it with the staging copy.",
		"Here's my plan: read the handler, patch the error path, then rerun the tests.",
	}
)

// tool is a function the generated model calls. params lists its
// parameters and their JSON types, for the tools[] a Responses response
// echoes.
type tool struct {
	name, desc string
	params     []string // name, type, name, type…
	args       func(g *gen) obj
}

var tools = []tool{
	{"get_weather", "Get the current weather and a short forecast", []string{"location", "string", "units", "string", "days", "integer"},
		func(g *gen) obj {
			return obj{"location", pick(g, cities), "units", pick(g, []string{"celsius", "fahrenheit"}), "days", 1 + g.rng.IntN(7)}
		}},
	{"search_files", "Search the workspace for text", []string{"query", "string", "paths", "array", "max_results", "integer", "include_hidden", "boolean"},
		func(g *gen) obj {
			var paths []string
			for range 1 + g.rng.IntN(3) {
				paths = append(paths, pick(g, dirs))
			}
			return obj{"query", pick(g, queries), "paths", paths, "max_results", 10 * (1 + g.rng.IntN(5)), "include_hidden", g.rng.IntN(4) == 0}
		}},
	{"read_file", "Read lines of a file", []string{"path", "string", "start_line", "integer", "end_line", "integer"},
		func(g *gen) obj {
			s := 1 + g.rng.IntN(400)
			return obj{"path", pick(g, files), "start_line", s, "end_line", s + 20 + g.rng.IntN(120)}
		}},
	{"edit_file", "Replace text in a file", []string{"path", "string", "edits", "array"},
		func(g *gen) obj {
			var edits []obj
			for range 1 + g.rng.IntN(2) {
				edits = append(edits, obj{"old_text", pick(g, codeLines), "new_text", pick(g, codeLines)})
			}
			return obj{"path", pick(g, files), "edits", edits}
		}},
	{"create_event", "Create a calendar event", []string{"title", "string", "start", "string", "duration_minutes", "integer", "attendees", "array", "location", "object", "reminders", "array"},
		func(g *gen) obj {
			var attendees []obj
			for range 1 + g.rng.IntN(4) {
				p := pick(g, people)
				attendees = append(attendees, obj{"name", p, "email", strings.ToLower(strings.Fields(p)[0]) + "@example.com", "optional", g.rng.IntN(3) == 0})
			}
			return obj{
				"title", pick(g, []string{"Design review: streaming parser", "1:1 <Priya & Émile>", "Incident retro #4312", "Q3 planning"}),
				"start", fmt.Sprintf("2025-%02d-%02dT%02d:%02d:00-07:00", 1+g.rng.IntN(12), 1+g.rng.IntN(28), 8+g.rng.IntN(9), 15*g.rng.IntN(4)),
				"duration_minutes", 15 * (1 + g.rng.IntN(6)),
				"attendees", attendees,
				"location", obj{"name", "Room 4B \"Ada\"", "address", "1 Market St, San Francisco, CA 94105", "lat_lng", []float64{37.7941, -122.3951}},
				"reminders", []int{10, 60},
			}
		}},
	{"run_sql", "Run a read-only SQL query", []string{"query", "string", "params", "array", "timeout_ms", "integer"},
		func(g *gen) obj {
			return obj{
				"query", "SELECT id, name, created_at FROM users WHERE team = $1 AND created_at > $2 AND note NOT LIKE '%\\_tmp%' ORDER BY created_at DESC LIMIT $3",
				"params", []any{pick(g, []string{"data-eng", "infra", "ml-platform"}), "2025-01-01T00:00:00Z", 50 + g.rng.IntN(200)},
				"timeout_ms", 5000,
			}
		}},
	{"plot", "Draw a chart", []string{"title", "string", "kind", "string", "series", "array", "axes", "object"},
		func(g *gen) obj {
			var series []obj
			for _, l := range []string{"p50", "p99"} {
				var points [][2]float64
				for i := range 3 + g.rng.IntN(6) {
					points = append(points, [2]float64{float64(i), float64(g.rng.IntN(5000)) / 10})
				}
				series = append(series, obj{"label", l, "points", points})
			}
			return obj{"title", "Latency (ms) by minute", "kind", pick(g, []string{"line", "bar"}), "series", series,
				"axes", obj{"x", "minute", "y", "ms"}}
		}},
}

// call is one generated function call.
type call struct {
	name, args string
}

// turnShape picks what one response holds: maybe some text, and one to four
// parallel calls.
func (g *gen) turnShape() (text string, calls []call) {
	if g.rng.IntN(2) == 0 {
		text = pick(g, texts)
	}
	for range 1 + g.rng.IntN(4) {
		t := pick(g, tools)
		calls = append(calls, call{t.name, encode(t.args(g))})
		g.calls++
	}
	return text, calls
}

// --- OpenAI Responses -----------------------------------------------------

// toolsJSON is the tools[] array a Responses response echoes.
var toolsJSON = func() json.RawMessage {
	var defs []obj
	for _, t := range tools {
		var props obj
		var required []string
		for i := 0; i < len(t.params); i += 2 {
			props = append(props, t.params[i], obj{"type", t.params[i+1]})
			required = append(required, t.params[i])
		}
		defs = append(defs, obj{"type", "function", "name", t.name, "description", t.desc,
			"parameters", obj{"type", "object", "properties", props, "required", required, "additionalProperties", false},
			"strict", true})
	}
	return json.RawMessage(encode(defs))
}()

// resp is one Responses response being streamed.
type resp struct {
	g         *gen
	id        string
	createdAt int64
	seq       int
}

func (g *gen) newResp() *resp {
	return &resp{g: g, id: g.id("resp_", hexDigits, 48), createdAt: g.clock}
}

// emit writes one event: type and sequence_number, then the members given.
func (r *resp) emit(typ string, members ...any) {
	r.g.event(typ, append(obj{"type", typ, "sequence_number", r.seq}, members...))
	r.seq++
}

// object is the response object that lifecycle and terminal events carry.
func (r *resp) object(status string, output []any, usage any) obj {
	if output == nil {
		output = []any{}
	}
	return obj{
		"id", r.id, "object", "response", "created_at", r.createdAt, "status", status, "background", false,
		"error", nil, "incomplete_details", nil, "instructions", nil, "max_output_tokens", nil,
		"model", "gpt-5-mini-2025-08-07", "output", output, "parallel_tool_calls", true, "previous_response_id", nil,
		"reasoning", obj{"effort", "medium", "summary", nil}, "service_tier", "default", "store", true,
		"temperature", 1.0, "text", obj{"format", obj{"type", "text"}, "verbosity", "medium"}, "tool_choice", "auto",
		"tools", toolsJSON, "top_p", 1.0, "truncation", "disabled", "usage", usage, "user", nil, "metadata", obj{},
	}
}

func (g *gen) obfuscation(delta string) string {
	return g.id("", alnum, max(2, 16-len(delta)))
}

func fcItem(id, status, args, callID, name string) obj {
	return obj{"id", id, "type", "function_call", "status", status, "arguments", args, "call_id", callID, "name", name}
}

func (g *gen) responsesTurn() {
	text, calls := g.turnShape()
	r := g.newResp()
	r.emit("response.created", "response", r.object("in_progress", nil, nil))
	r.emit("response.in_progress", "response", r.object("in_progress", nil, nil))
	var output []any
	if g.rng.IntN(2) == 0 {
		it := obj{"id", g.id("rs_", hexDigits, 48), "type", "reasoning", "summary", []any{}}
		r.emit("response.output_item.added", "output_index", len(output), "item", it)
		r.emit("response.output_item.done", "output_index", len(output), "item", it)
		output = append(output, it)
	}
	if text != "" {
		idx, id := len(output), g.id("msg_", hexDigits, 48)
		part := func(text string) obj {
			return obj{"type", "output_text", "annotations", []any{}, "logprobs", []any{}, "text", text}
		}
		r.emit("response.output_item.added", "output_index", idx,
			"item", obj{"id", id, "type", "message", "status", "in_progress", "content", []any{}, "role", "assistant"})
		r.emit("response.content_part.added", "item_id", id, "output_index", idx, "content_index", 0, "part", part(""))
		for _, w := range words(text) {
			r.emit("response.output_text.delta", "item_id", id, "output_index", idx, "content_index", 0,
				"delta", w, "logprobs", []any{}, "obfuscation", g.obfuscation(w))
		}
		r.emit("response.output_text.done", "item_id", id, "output_index", idx, "content_index", 0, "text", text, "logprobs", []any{})
		r.emit("response.content_part.done", "item_id", id, "output_index", idx, "content_index", 0, "part", part(text))
		it := obj{"id", id, "type", "message", "status", "completed", "content", []obj{part(text)}, "role", "assistant"}
		r.emit("response.output_item.done", "output_index", idx, "item", it)
		output = append(output, it)
	}
	for _, c := range calls {
		idx, id, callID := len(output), g.id("fc_", hexDigits, 48), g.id("call_", alnum, 24)
		r.emit("response.output_item.added", "output_index", idx, "item", fcItem(id, "in_progress", "", callID, c.name))
		for _, d := range g.split(c.args) {
			r.emit("response.function_call_arguments.delta", "item_id", id, "output_index", idx, "delta", d, "obfuscation", g.obfuscation(d))
		}
		r.emit("response.function_call_arguments.done", "item_id", id, "output_index", idx, "arguments", c.args)
		it := fcItem(id, "completed", c.args, callID, c.name)
		r.emit("response.output_item.done", "output_index", idx, "item", it)
		output = append(output, it)
	}
	in, out := 200+g.rng.IntN(2000), 20+40*len(output)
	r.emit("response.completed", "response", r.object("completed", output,
		obj{"input_tokens", in, "input_tokens_details", obj{"cached_tokens", 0}, "output_tokens", out,
			"output_tokens_details", obj{"reasoning_tokens", 0}, "total_tokens", in + out}))
}

// --- OpenAI Chat Completions ---------------------------------------------

func (g *gen) chatTurn() {
	text, calls := g.turnShape()
	id, fp := g.id("chatcmpl-", alnum, 29), "fp_"+g.id("", hexDigits, 10)
	chunk := func(choices []obj, extra ...any) {
		g.event("", append(obj{"id", id, "object", "chat.completion.chunk", "created", g.clock, "model", "gpt-4o-2024-08-06",
			"service_tier", "default", "system_fingerprint", fp, "choices", choices}, extra...))
	}
	delta := func(d obj, finish any) {
		chunk([]obj{{"index", 0, "delta", d, "logprobs", nil, "finish_reason", finish}})
	}
	delta(obj{"role", "assistant", "content", "", "refusal", nil}, nil)
	if text != "" {
		for _, w := range words(text) {
			delta(obj{"content", w}, nil)
		}
	}
	for i, c := range calls {
		delta(obj{"tool_calls", []obj{{"index", i, "id", g.id("call_", alnum, 24), "type", "function",
			"function", obj{"name", c.name, "arguments", ""}}}}, nil)
		for _, d := range g.split(c.args) {
			delta(obj{"tool_calls", []obj{{"index", i, "function", obj{"arguments", d}}}}, nil)
		}
	}
	delta(obj{}, "tool_calls")
	in, out := 150+g.rng.IntN(2000), 20+40*len(calls)
	chunk([]obj{}, "usage", obj{"prompt_tokens", in, "completion_tokens", out, "total_tokens", in + out})
	g.raw("data: [DONE]\n\n")
}

// --- Anthropic Messages ---------------------------------------------------

const anthropicPing = "event: ping\ndata: {\"type\": \"ping\"}\n\n"

func (g *gen) anthropicTurn() {
	text, calls := g.turnShape()
	ev := func(typ string, members ...any) { g.event(typ, append(obj{"type", typ}, members...)) }
	ev("message_start", "message", obj{"id", g.id("msg_01", alnum, 22), "type", "message", "role", "assistant",
		"model", "claude-sonnet-4-20250514", "content", []any{}, "stop_reason", nil, "stop_sequence", nil,
		"usage", obj{"input_tokens", 300 + g.rng.IntN(2000), "cache_creation_input_tokens", 0, "cache_read_input_tokens", 0, "output_tokens", 1}})
	idx := 0
	pinged := false
	ping := func() { // one after the first block starts, then now and then
		if !pinged || g.rng.IntN(40) == 0 {
			g.raw(anthropicPing)
			pinged = true
		}
	}
	if text != "" {
		ev("content_block_start", "index", idx, "content_block", obj{"type", "text", "text", ""})
		ping()
		for _, w := range words(text) {
			ev("content_block_delta", "index", idx, "delta", obj{"type", "text_delta", "text", w})
		}
		ev("content_block_stop", "index", idx)
		idx++
	}
	for _, c := range calls {
		ev("content_block_start", "index", idx, "content_block",
			obj{"type", "tool_use", "id", g.id("toolu_01", alnum, 22), "name", c.name, "input", obj{}})
		ping()
		ev("content_block_delta", "index", idx, "delta", obj{"type", "input_json_delta", "partial_json", ""})
		for _, d := range g.split(c.args) {
			ev("content_block_delta", "index", idx, "delta", obj{"type", "input_json_delta", "partial_json", d})
			ping()
		}
		ev("content_block_stop", "index", idx)
		idx++
	}
	ev("message_delta", "delta", obj{"stop_reason", "tool_use", "stop_sequence", nil}, "usage", obj{"output_tokens", 20 + 40*len(calls)})
	ev("message_stop")
}

// --- One big event ----------------------------------------------------------

// bigArgs builds export-style arguments, {"path":…,"rows":[…]}, whose
// JSON-quoted form is about size bytes.
func (g *gen) bigArgs(size int64) string {
	var b, q bytes.Buffer // the arguments; one row of them, quoted
	enc, qenc := json.NewEncoder(&b), json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	qenc.SetEscapeHTML(false)
	b.WriteString(`{"path":"exports/events-2025-06.json","rows":[`)
	quoted := int64(b.Len()) + 32 // the opening, plus the closing "]}" and some slack
	levels := []string{"debug", "info", "warn", "error"}
	for i := 0; quoted < size; i++ {
		start := b.Len()
		if i > 0 {
			b.WriteByte(',')
		}
		row := obj{"id", i, "ts", fmt.Sprintf("2025-06-01T%02d:%02d:%02d.%03dZ", i/3600000%24, i/60000%60, i/1000%60, i%1000),
			"level", pick(g, levels), "msg", pick(g, queries), "tags", []string{pick(g, dirs), pick(g, cities)}}
		if err := enc.Encode(row); err != nil {
			fatal(err)
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		q.Reset()
		if err := qenc.Encode(string(b.Bytes()[start:])); err != nil {
			fatal(err)
		}
		quoted += int64(q.Len() - 3) // less the quotes and the newline
	}
	b.WriteString("]}")
	return b.String()
}

// bigEvent writes one response with one function call whose arguments
// arrive in a single delta of about size bytes. To keep the file near three
// times the event, the arguments are repeated only by the arguments .done
// event and the terminal output[]; output_item.done is left out.
func (g *gen) bigEvent(size int64) {
	args := g.bigArgs(size)
	r := g.newResp()
	r.emit("response.created", "response", r.object("in_progress", nil, nil))
	r.emit("response.in_progress", "response", r.object("in_progress", nil, nil))
	id, callID := g.id("fc_", hexDigits, 48), g.id("call_", alnum, 24)
	r.emit("response.output_item.added", "output_index", 0, "item", fcItem(id, "in_progress", "", callID, "write_file"))
	r.emit("response.function_call_arguments.delta", "item_id", id, "output_index", 0, "delta", args, "obfuscation", g.obfuscation(args))
	r.emit("response.function_call_arguments.done", "item_id", id, "output_index", 0, "arguments", args)
	out := len(args) / 4
	r.emit("response.completed", "response", r.object("completed", []any{fcItem(id, "completed", args, callID, "write_file")},
		obj{"input_tokens", 812, "output_tokens", out, "total_tokens", 812 + out}))
	g.turns, g.calls = 1, 1
}
