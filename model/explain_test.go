package model_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// probeType feeds typ as the only event of a stream, in the variants a
// handler may need to claim it (an Anthropic-looking one, a Responses one
// with a sequence_number, a whole message with content), and returns the
// events the model treats as known: of a dialect, of a known kind, not
// flagged non-standard.
func probeType(typ string) []dialecttest.Shaped {
	q := strconv.Quote(typ)
	var known []dialecttest.Shaped
	for _, body := range []string{`{"type":` + q + `}`, `{"type":` + q + `,"sequence_number":0}`, `{"type":` + q + `,"content":[]}`} {
		_, evs := dialecttest.ShapeStream([]byte("event: "+typ+"\ndata: "+body+"\n\n"), capture.FormatSSE)
		ev := evs[len(evs)-1]
		if ev.Ev.Dialect != model.DialectUnknown && ev.Ev.Kind != model.KindUnknown && ev.Ev.Flags&(model.NonStandard|model.DecodeError) == 0 {
			known = append(known, ev)
		}
	}
	return known
}

// TestExplainEveryKnownType: every event type a dialect handler knows has
// its own explanation. The types are not listed here: every string in the
// model's source is offered to the model, and whatever it claims as a
// type of its dialect must be explained, so a type added to a handler
// without an explanation fails this test.
func TestExplainEveryKnownType(t *testing.T) {
	claimed := map[string]bool{}
	missing := map[model.Shape]bool{}
	for _, lit := range modeltest.SourceLiterals(t) {
		for _, ev := range probeType(lit) {
			claimed[lit] = true
			for _, sh := range []model.Shape{ev.WithData, ev.Bare} {
				if _, ok := model.Explain(sh); !ok && !missing[sh] {
					missing[sh] = true
					t.Errorf("type %q (%s, %s): no explanation for shape %v", lit, ev.Ev.Dialect, ev.Ev.Kind, sh)
				}
			}
		}
	}
	// The probe must find what the handlers' tables list, or it has
	// stopped working.
	// (The responses package's TestTablesClaimed holds its tables to its
	// claims.)
	var tables []string
	tables = append(tables, "response.created", "message_start", "content_block_delta", "ping", "keepalive", "error")
	for _, typ := range tables {
		if !claimed[typ] {
			t.Errorf("the probe did not find %q among the model's known types", typ)
		}
	}
}

// TestExplainEveryKnownBlockAndDelta: every Anthropic block type and
// delta type the handler reads has its own explanation, found the same
// way: offered every string of the source, the model says which it knows.
func TestExplainEveryKnownBlockAndDelta(t *testing.T) {
	const start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"content\":[]}}\n\n"
	blocks, deltas := 0, 0
	for _, lit := range modeltest.SourceLiterals(t) {
		q := strconv.Quote(lit)
		s, evs := dialecttest.ShapeStream([]byte(start+
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":"+q+"}}\n\n"+
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"), capture.FormatSSE)
		if it := s.Items[0]; it.Role != model.RoleOther || lit == "text" {
			blocks++
			for _, ev := range evs[1:] {
				if _, ok := model.Explain(ev.WithData); !ok {
					t.Errorf("block type %q: no explanation for %v", lit, ev.WithData)
				}
			}
			if evs[1].WithData.Sub != lit {
				t.Errorf("block type %q: shape %v; want sub %q", lit, evs[1].WithData, lit)
			}
		}
		s, evs = dialecttest.ShapeStream([]byte(start+
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"+q+
			",\"text\":\"a\",\"partial_json\":\"a\",\"thinking\":\"a\",\"signature\":\"a\"}}\n\n"), capture.FormatSSE)
		ev, it := evs[2], s.Items[0]
		if ev.Ev.Kind == model.KindArgsDelta || it.Text.Count() > 0 || it.Sign.Count() > 0 {
			deltas++
			want := model.Shape{Dialect: dialecttest.Dialect(t, "anthropic"), Type: "content_block_delta", Sub: lit}
			if _, ok := model.Explain(want); !ok {
				t.Errorf("delta type %q: no explanation for %v", lit, want)
			}
			if ev.WithData != want {
				t.Errorf("delta type %q: shape from data %v; want %v", lit, ev.WithData, want)
			}
		}
	}
	if blocks < 6 || deltas < 4 {
		t.Errorf("found %d block types and %d delta types; the handler knows more", blocks, deltas)
	}
}

// corpus returns every stream the model is tested on: the samples, the
// fixtures in testdata, the shared real captures when present, and
// malformed input for the shapes every dialect shares.
func corpus(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{
		"bad/invalid-json":  []byte("data: {\"type\":\n\n"),
		"bad/not-object":    []byte("data: [1,2]\n\n"),
		"bad/untyped":       []byte("data: {\"hello\":1}\n\n"),
		"bad/no-data":       []byte("event: message_start\n\n"),
		"bad/empty-data":    []byte("data:\n\n"),
		"bad/remainder":     []byte("data: {\"type\":\"response.created\"}\n\ndata: {\"ty"),
		"bad/http-error":    []byte("HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n\r\n{\"error\":{\"message\":\"slow down\"}}"),
		"bad/done-alone":    []byte("data: [DONE]\n\n"),
		"bad/nonstandard-r": []byte("data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{}}\n\ndata: {\"type\":\"response.reasoning_part.done\",\"sequence_number\":1}\n\n"),
		"bad/nonstandard-a": []byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: x\ndata: {\"type\":\"content_block_wiggle\"}\n\n"),
		"bad/error-body":    []byte("{\"error\":{\"message\":\"no\"}}"),
	}
	add := func(pattern string) {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = b
		}
	}
	add(filepath.Join("..", "samples", "*.sse"))
	add(filepath.Join("..", "samples", "*.eventstream"))
	add(filepath.Join("testdata", "*.txt"))
	if len(out) < 20 {
		t.Fatalf("corpus has %d streams; the samples are missing", len(out))
	}
	return out
}

// TestExplainCorpus: every event of every stream the model is tested on
// gets a shape the table explains, whether or not its data is at hand, and
// the shape it got when added is the one it has once the stream is whole
// (the timeline and events commands see the first, the inspector the
// second).
func TestExplainCorpus(t *testing.T) {
	streams := corpus(t)
	if caps := capturesDirOrEmpty(); caps != "" {
		paths, _ := filepath.Glob(filepath.Join(caps, "*.sse"))
		next, _ := filepath.Glob(filepath.Join(caps, "..", "captures-next", "*.eventstream"))
		paths = append(paths, next...)
		// The application leg's AI SDK exchanges: bodies, and the proxy's
		// recordings (their head claims the body).
		for _, pattern := range []string{"aisdk-*.sse", "aisdk-*.txt", "recordings/aisdk-*"} {
			app, _ := filepath.Glob(filepath.Join(caps, "..", "captures-app", pattern))
			paths = append(paths, app...)
		}
		paths = append(paths, appCaptures()...)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			streams[p] = b
		}
	}
	for name, data := range streams {
		s, evs := dialecttest.ShapeStream(data, capture.FormatAuto)
		for _, e := range evs {
			for _, sh := range []model.Shape{e.WithData, e.Bare} {
				if _, ok := model.Explain(sh); !ok {
					t.Errorf("%s #%d (%s %s %s): no explanation for %v", name, e.Ord, e.Ev.Dialect, e.Ev.Kind, s.TypeName(e.Ev.Type), sh)
				}
			}
			if later := s.Shape(s.Events.At(e.Ord), e.Ord, e.Data); later != e.WithData {
				t.Errorf("%s #%d: shape %v when added, %v at the end", name, e.Ord, e.WithData, later)
			}
		}
	}
}

// capturesDirOrEmpty is capturesDir without skipping: "" when the shared
// captures are absent.
func capturesDirOrEmpty() string {
	if files := fixtures.SharedGlob("captures/MANIFEST.tsv"); len(files) == 0 {
		return ""
	}
	return filepath.Join(fixtures.SharedRoot(), "captures")
}

// TestShape names the shape of chosen events of the samples and fixtures,
// from their data and from the session alone.
func TestShape(t *testing.T) {
	tests := []struct {
		stream string
		ord    int
		want   string
	}{
		{"../samples/chat-parallel-calls.sse", 0, "chat.completion.chunk/role"},
		{"../samples/chat-parallel-calls.sse", 1, "chat.completion.chunk/tool_calls.first"},
		{"../samples/chat-parallel-calls.sse", 2, "chat.completion.chunk/tool_calls.continuation"},
		{"../samples/chat-single-call.sse", -2, "chat.completion.chunk/finish_reason"},
		{"../samples/chat-parallel-calls.sse", -2, "chat.completion.chunk/usage"},
		{"../samples/chat-parallel-calls.sse", -1, "[DONE]"},
		{"../samples/anthropic-text-then-tool.sse", 0, "message_start"},
		{"../samples/anthropic-text-then-tool.sse", 1, "content_block_start/text"},
		{"../samples/anthropic-text-then-tool.sse", 3, "content_block_delta/text_delta"},
		{"../samples/anthropic-thinking-then-tool.sse", 1, "content_block_start/thinking"},
		{"../samples/anthropic-thinking-then-tool.sse", 2, "content_block_delta/thinking_delta"},
		{"../samples/responses-reasoning-then-call.sse", 4, "response.reasoning_summary_text.delta"},
		{"../samples/gemini-call.sse", 0, "(gemini chunk)/text"},
		{"testdata/gemini-partial-args-nested__vercel-ai.chunks.txt", 0, "(gemini chunk)/functionCall.start"},
		{"testdata/gemini-partial-args-nested__vercel-ai.chunks.txt", 1, "(gemini chunk)/partialArgs"},
		{"../samples/chat-openrouter-keepalive.sse", 0, "(comment)"},
		{"../samples/bedrock-converse-text-then-tool.eventstream", 0, "messageStart"},
		{"../samples/bedrock-converse-text-then-tool.eventstream", 1, "contentBlockDelta/text"},
		{"../samples/bedrock-converse-text-then-tool.eventstream", 6, "contentBlockStop"},
		{"../samples/bedrock-converse-text-then-tool.eventstream", 7, "contentBlockStart/toolUse"},
		{"../samples/bedrock-converse-text-then-tool.eventstream", 8, "contentBlockDelta/toolUse"},
		{"../samples/bedrock-converse-text-then-tool.eventstream", 13, "contentBlockStop/toolUse"},
		{"../samples/bedrock-converse-text-then-tool.eventstream", -2, "messageStop"},
		{"../samples/bedrock-converse-text-then-tool.eventstream", -1, "metadata"},
		{"../samples/bedrock-invoke-claude-tool.eventstream", 0, "message_start"},
		{"../samples/bedrock-invoke-claude-tool.eventstream", 2, "content_block_delta/text_delta"},
		{"../samples/bedrock-invoke-claude-tool.eventstream", 7, "content_block_start/tool_use"},
		{"../samples/bedrock-invoke-claude-tool.eventstream", 8, "content_block_delta/input_json_delta"},
		{"../samples/bedrock-invoke-claude-tool.eventstream", -1, "message_stop"},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(tt.stream)
		if err != nil {
			t.Fatal(err)
		}
		_, evs := dialecttest.ShapeStream(data, capture.FormatAuto)
		i := tt.ord
		if i < 0 {
			i += len(evs)
		}
		e := evs[i]
		if e.WithData.String() != tt.want || e.Bare.String() != tt.want {
			t.Errorf("%s #%d: Shape = %v (from data), %v (bare); want %s", tt.stream, i, e.WithData, e.Bare, tt.want)
		}
	}
}

// TestShapeByFact checks the shapes told from facts the session keeps:
// the signature delta, the tool_use and thinking block stops, the end
// marker of a streamed Gemini call, a hosted tool's status family.
func TestShapeByFact(t *testing.T) {
	find := func(stream string, want string) {
		t.Helper()
		data, err := os.ReadFile(stream)
		if err != nil {
			t.Fatal(err)
		}
		_, evs := dialecttest.ShapeStream(data, capture.FormatAuto)
		for _, e := range evs {
			if e.WithData.String() == want {
				if e.Bare != e.WithData {
					t.Errorf("%s #%d: bare shape %v; from data %v", stream, e.Ord, e.Bare, e.WithData)
				}
				return
			}
		}
		t.Errorf("%s: no event of shape %s", stream, want)
	}
	find("../samples/anthropic-thinking-then-tool.sse", "content_block_delta/signature_delta")
	find("../samples/anthropic-thinking-then-tool.sse", "content_block_stop/thinking")
	find("../samples/anthropic-text-then-tool.sse", "content_block_start/tool_use")
	find("../samples/anthropic-text-then-tool.sse", "content_block_delta/input_json_delta")
	find("../samples/anthropic-text-then-tool.sse", "content_block_stop/tool_use")
	find("../samples/anthropic-text-then-tool.sse", "ping")
	find("testdata/gemini-partial-args-nested__vercel-ai.chunks.txt", "(gemini chunk)/functionCall.end")
	find("../samples/gemini-call.sse", "(gemini chunk)/functionCall")
	find("../samples/responses-websocket-turns.sse", "(http)")

	s, evs := dialecttest.ShapeStream([]byte("data: {\"type\":\"response.web_search_call.searching\",\"sequence_number\":0,\"item_id\":\"ws_1\",\"output_index\":0}\n\n"), capture.FormatSSE)
	if got := evs[0].WithData; got != (model.Shape{Dialect: dialecttest.Dialect(t, "openai-responses"), Type: "response.web_search_call.*"}) {
		t.Errorf("web search status: Shape = %v (%s)", got, s.TypeName(evs[0].Ev.Type))
	}
}

// TestShapeChatQuietChunk: a Chat chunk that adds nothing is told by its
// data (Azure's prompt_filter_results chunk carries neither role nor
// usage); without the data, by its place.
func TestShapeChatQuietChunk(t *testing.T) {
	stream := "data: {\"id\":\"\",\"object\":\"\",\"choices\":[],\"prompt_filter_results\":[]}\n\n" +
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}\n\n" +
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"total_tokens\":3}}\n\n"
	_, evs := dialecttest.ShapeStream([]byte(stream), capture.FormatSSE)
	got := []string{evs[0].WithData.Sub, evs[1].WithData.Sub, evs[2].WithData.Sub}
	if want := []string{"empty", "role", "usage"}; !slices.Equal(got, want) {
		t.Errorf("quiet chunks from data = %v; want %v", got, want)
	}
	if got := evs[0].Bare.Sub; got != "role" {
		t.Errorf("first chunk without data = %q; want role (the first chunk of a response)", got)
	}
}

// TestShapeSkipsBigData: data over model.ShapeDataMax is not read; the shape
// then comes from the session.
func TestShapeSkipsBigData(t *testing.T) {
	stream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"content\":[]}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" +
		strings.Repeat("a", model.ShapeDataMax) + "\"}}\n\n"
	s, evs := dialecttest.ShapeStream([]byte(stream), capture.FormatSSE)
	e := evs[2]
	wrong := []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta"}}` + strings.Repeat(" ", model.ShapeDataMax))
	if got := s.Shape(s.Events.At(e.Ord), e.Ord, wrong); got.Sub != "text_delta" {
		t.Errorf("Shape with data over the bound = %v; want text_delta, from the session", got)
	}
}
