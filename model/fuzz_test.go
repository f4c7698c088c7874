package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// seedGlobs name the recorded streams that seed the fuzz corpora: the
// project's samples and the real captures kept beside the project root. The
// targets run without them.
var seedGlobs = []string{"../samples/*.sse", "../samples/*.eventstream",
	filepath.Join(fixtures.SharedRoot(), "captures", "*.sse"),
	filepath.Join(fixtures.SharedRoot(), "captures-next", "ollama*.ndjson"),
	filepath.Join(fixtures.SharedRoot(), "captures-next", "*.eventstream"),
	filepath.Join(fixtures.SharedRoot(), "captures-app", "*.txt"),
	filepath.Join(fixtures.SharedRoot(), "captures-app", "*.sse")}

// assembleDeadline bounds one assembly in a fuzz run. Inputs there are
// small, so anything near it is a hang, not a slow machine.
const assembleDeadline = 20 * time.Second

// sse joins data lines into an SSE stream, one event per line.
func sse(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("data: " + l + "\n\n")
	}
	return b.String()
}

// dialectSeeds are small streams of each dialect, including the defects the
// assembly must survive.
var dialectSeeds = []string{
	// Responses, complete.
	sse(
		`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","model":"gpt-5"}}`,
		`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","call_id":"call_1","name":"get_weather","arguments":""}}`,
		`{"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_1","output_index":0,"delta":"{\"loc"}`,
		`{"type":"response.function_call_arguments.delta","sequence_number":3,"item_id":"fc_1","output_index":0,"delta":"ation\":\"Paris\"}"}`,
		`{"type":"response.function_call_arguments.done","sequence_number":4,"item_id":"fc_1","output_index":0,"arguments":"{\"location\":\"Paris\"}"}`,
		`{"type":"response.output_item.done","sequence_number":5,"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}`,
		`{"type":"response.completed","sequence_number":6,"response":{"id":"resp_1","status":"completed","output":[{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"get_weather","arguments":"{\"location\":\"Paris\"}"}]}}`,
	),
	// Responses deltas lacking item_id (and output_index), then a second
	// open call that makes the fallback ambiguous.
	sse(
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"a"}}`,
		`{"type":"response.function_call_arguments.delta","delta":"{\"x\":"}`,
		`{"type":"response.function_call_arguments.delta","delta":"1}"}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_2","type":"function_call","call_id":"call_2","name":"b"}}`,
		`{"type":"response.function_call_arguments.delta","delta":"{}"}`,
		`{"type":"response.function_call_arguments.delta","item_id":"fc_9","delta":"{}"}`,
		`{"type":"response.output_item.done","output_index":7,"item":{"id":"fc_7","type":"function_call"}}`,
	),
	// Chat, one call.
	sse(
		`{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`,
	),
	// Chat tool calls with a missing index.
	sse(
		`{"id":"c2","object":"chat.completion.chunk","choices":[{"delta":{"tool_calls":[{"id":"call_1","function":{"name":"f","arguments":"{\"a\""}}]}}]}`,
		`{"id":"c2","object":"chat.completion.chunk","choices":[{"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}]}`,
		`{"id":"c2","object":"chat.completion.chunk","choices":[{"delta":{"tool_calls":[{"id":"call_2","function":{"name":"g","arguments":"{}"}}]}}]}`,
		`{"id":"c2","object":"chat.completion.chunk","choices":[{"delta":{"tool_calls":[{"index":null,"function":{"arguments":{"x":1}}}]},"finish_reason":"tool_calls"}]}`,
	),
	// Chat with every call at index 0.
	sse(
		`{"id":"c3","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}`,
		`{"id":"c3","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_2","function":{"name":"g","arguments":"{\"b\":"}}]}}]}`,
		`{"id":"c3","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"2}"}}]}}]}`,
		`{"id":"c3","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`,
	),
	// Anthropic, one tool_use block.
	"event: message_start\n" + sse(`{"type":"message_start","message":{"id":"msg_1","model":"claude","content":[]}}`) +
		"event: content_block_start\n" + sse(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`) +
		"event: ping\n" + sse(`{"type":"ping"}`) +
		"event: content_block_delta\n" + sse(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": "}}`) +
		"event: content_block_delta\n" + sse(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}`) +
		"event: content_block_stop\n" + sse(`{"type":"content_block_stop","index":0}`) +
		"event: message_delta\n" + sse(`{"type":"message_delta","delta":{"stop_reason":"tool_use"}}`) +
		"event: message_stop\n" + sse(`{"type":"message_stop"}`),
	// Anthropic deltas and stops for blocks never started.
	sse(
		`{"type":"message_start","message":{"id":"msg_2"}}`,
		`{"type":"content_block_delta","index":5,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
		`{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"x"}}`,
		`{"type":"content_block_stop","index":9}`,
		`{"type":"content_block_stop","index":5}`,
		`{"type":"content_block_start","index":5,"content_block":{"type":"thinking","thinking":"t","signature":"s"}}`,
	),
	// Chat without [DONE]: every choice finished, then the usage chunk
	// (Writer's end); and a refusal, a filter, a prompt refused outright.
	sse(
		`{"id":"c4","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a"},"message":{"content":"a"},"finish_reason":null}]}`,
		`{"id":"c4","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":null,"type":null,"function":{"name":null,"arguments":null}}]},"finish_reason":"length"}]}`,
		`{"id":"c4","object":"chat.completion.chunk","choices":[],"usage":{"total_tokens":3}}`,
	),
	`[{"promptFeedback":{"blockReason":"SAFETY"}},{"promptFeedback":{"blockReason":null},"candidates":[]}]`,
	sse(`{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"content_filter"}}}`),
	// Gemini, one whole call.
	sse(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":1}}}]},"finishReason":"STOP"}],"modelVersion":"gemini-2.5","responseId":"r1"}`),
	// Gemini partialArgs, with odd JSON paths.
	sse(
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.loc","stringValue":"Bos","willContinue":true}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.loc","stringValue":"ton"}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$[0]","numberValue":1},{"jsonPath":"$..a","boolValue":true},{"jsonPath":"$.a[99999999]","nullValue":null},{"jsonPath":"$['x']","stringValue":"y"},{"jsonPath":"$.b[3]","listValue":[1,2]},{"jsonPath":"$.b[1].c","structValue":{"d":"e"}},{"jsonPath":"$[","stringValue":""},{"jsonPath":"","numberValue":2},{"jsonPath":"$.loc.deeper","stringValue":"z"}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`,
	),
	// Gemini partialArgs with no call open, and an array body.
	sse(`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}]}}]}}]}`),
	`[{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]},{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}}}]},"finishReason":"STOP"}]}]`,
	// Ollama /api/chat: thinking, text, whole calls (an id and index,
	// arguments escaped as Go escapes them), done_reason stop.
	"{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"hm\"},\"done\":false}\n" +
		"{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":false}\n" +
		"{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"call_a\",\"function\":{\"index\":0,\"name\":\"f\",\"arguments\":{\"q\":\"\\u003cb\\u003e\"}}},{\"function\":{\"name\":\"g\",\"arguments\":{}}}]},\"done\":false}\n" +
		"{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"eval_count\":3}\n",
	// Ollama /api/generate: top-level tool_calls, string and absent
	// arguments, a repeated id, a blank line, an error line, a line
	// after done:true, a last line without its newline.
	"{\"model\":\"llama3\",\"response\":\"A\",\"thinking\":\"t\",\"done\":false}\n\n" +
		"{\"model\":\"llama3\",\"response\":\"\",\"tool_calls\":[{\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}},{\"id\":\"c\",\"function\":{\"index\":-1}}],\"done\":false}\n" +
		"{\"error\":\"boom\"}\n{\"model\":\"llama3\",\"response\":\"\",\"done\":true,\"done_reason\":\"length\",\"context\":[1,2]}\n" +
		"{\"model\":\"llama3\",\"response\":\"late\",\"done\":false}\n{\"model\":\"llama3\",\"mess",
	// Ollama lines with odd members: done not a bool, message not an
	// object, done_reason a number.
	"{\"model\":\"m\",\"message\":\"x\",\"done\":false}\n{\"model\":\"m\",\"done\":\"true\"}\n{\"model\":\"m\",\"message\":{\"tool_calls\":{}},\"done\":true,\"done_reason\":7}\n",
	// Whole Converse responses: every block kind, input as a string and
	// absent, a union with two members, then odd shapes (content not an
	// array, a block not an object, stopReason not a string), and one
	// after a ConverseStream-shaped line.
	`{"output":{"message":{"role":"assistant","content":[{"text":"a"},{"toolUse":{"toolUseId":"t","name":"f","input":{"x":1}}},` +
		`{"toolUse":{"toolUseId":"u","name":"g","input":"{\"y\":2}"}},{"toolUse":{"name":"h"}},{"reasoningContent":{"reasoningText":{"text":"r","signature":"s"}}},` +
		`{"reasoningContent":{"redactedContent":"AA=="}},{"toolResult":{"toolUseId":"t","content":[{"text":"ok"}]}},{"image":{"format":"png"},"text":"b"}]}},` +
		`"stopReason":"tool_use","usage":{"inputTokens":1},"metrics":{"latencyMs":1}}`,
	"{\"output\":{\"message\":{\"content\":{}}},\"stopReason\":7}\n{\"output\":{\"message\":{\"content\":[1,null,[]]}},\"stopReason\":\"max_tokens\"}\n" +
		"{\"stopReason\":\"end_turn\"}\n{\"output\":{\"message\":{}},\"stopReason\":\"guardrail_intervened\"}\n",
	// Whole InvokeModel bodies of the text models, one per family, a
	// guardrail's intervention, then odd shapes (a results element not an
	// object, an empty completion, a number for a text, a second body).
	"{\"inputTextTokenCount\":3,\"results\":[{\"tokenCount\":1,\"outputText\":\"a\",\"completionReason\":\"LENGTH\"}],\"amazon-bedrock-guardrailAction\":\"INTERVENED\"}\n" +
		"{\"generation\":\"b\",\"prompt_token_count\":1,\"generation_token_count\":1,\"stop_reason\":\"stop\"}\n{\"outputs\":[{\"text\":\"c\",\"stop_reason\":\"length\"},7]}\n" +
		"{\"id\":\"i\",\"generations\":[{\"text\":\"d\",\"finish_reason\":\"ERROR_TOXIC\"}],\"prompt\":\"p\"}\n" +
		"{\"id\":1,\"completions\":[{\"data\":{\"text\":\"e\"},\"finishReason\":{\"reason\":\"endoftext\"}}]}\n" +
		"{\"type\":\"completion\",\"completion\":\"f\",\"stop_reason\":\"max_tokens\"}\n",
	"{\"inputTextTokenCount\":1,\"results\":[1,{\"outputText\":\"x\",\"completionReason\":\"FINISH\"}]}\n{\"completion\":\"\",\"stop_reason\":\"stop_sequence\"}\n" +
		"{\"outputs\":[{\"text\":\"\\u0000\\u001b[2J\",\"stop_reason\":\"stop\"}]}\n{\"generation\":7,\"prompt_token_count\":1,\"generation_token_count\":1,\"stop_reason\":\"stop\"}\n",
	// Errors and odd shapes.
	sse(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
	sse(`{"error":{"message":"bad","code":"x"}}`, `42`, `[1,2]`, `hello`, `{"type":7}`, `{}`),
	"HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{\"error\":{\"message\":\"Incorrect API key\",\"code\":\"invalid_api_key\"}}",
	"{\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\n{\"type\":\"response.output_text.delta\",\"delta\":\"b\"}\n",
	"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"a\"",
	// Choice indexes far out of range once made Texts allocate a slice that
	// long; deep array indexes once rendered as megabytes of nulls.
	sse(`{"object":"chat.completion.chunk","choices":[{"index":999999999999,"delta":{"content":"x"}},{"index":-1,"delta":{"content":"y"}}]}`),
	sse(`{"candidates":[{"index":300000000,"content":{"parts":[{"text":"x"}]}}]}`),
	sse(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$` + strings.Repeat("[65535]", 40) + `","numberValue":1}],"willContinue":true}}]}}]}`),
}

// addFileSeeds adds every recorded stream to the corpus, and nothing when
// there are none.
func addFileSeeds(tb testing.TB, add func(data []byte)) {
	for _, glob := range seedGlobs {
		files, _ := filepath.Glob(glob) // the patterns are valid; no files is no seeds
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				tb.Fatal(err)
			}
			add(data)
		}
	}
}

// assembleWithin assembles data on another goroutine and fails the test if
// that panics or does not finish within assembleDeadline.
func assembleWithin(t *testing.T, data []byte, opts Options) *Session {
	t.Helper()
	type result struct {
		s     *Session
		panic any
		stack []byte
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{panic: p, stack: debug.Stack()}
			}
		}()
		done <- result{s: Assemble(data, capture.FormatAuto, opts)}
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			t.Fatalf("Assemble(%q) panicked: %v\n%s", data, r.panic, r.stack)
		}
		return r.s
	case <-time.After(assembleDeadline):
		t.Fatalf("Assemble(%q) did not finish within %v", data, assembleDeadline)
	}
	return nil
}

// checkTiling asserts that the session's events tile data: contiguous, in
// order, every byte in exactly one event, and each readable back.
func checkTiling(t *testing.T, s *Session, data []byte) {
	t.Helper()
	if s.Events.Len() != s.Len() {
		t.Fatalf("%d events kept; Len() = %d", s.Events.Len(), s.Len())
	}
	var at int64
	for i := range s.Events.All() {
		ev := s.Events.At(i)
		if ev.Offset != at {
			t.Fatalf("event %d starts at %d; previous ended at %d", i, ev.Offset, at)
		}
		if ev.Len < 0 {
			t.Fatalf("event %d has length %d", i, ev.Len)
		}
		at = ev.Offset + int64(ev.Len)
		if s.opts.Raw != nil {
			raw, err := s.Raw(ev)
			if err != nil || !bytes.Equal(raw, data[ev.Offset:at]) {
				t.Fatalf("Raw(event %d) = %q, %v; want %q", i, raw, err, data[ev.Offset:at])
			}
		}
	}
	if at != int64(len(data)) {
		t.Fatalf("events cover %d of %d bytes", at, len(data))
	}
	if s.Bytes() != int64(len(data)) {
		t.Fatalf("Bytes() = %d; want %d", s.Bytes(), len(data))
	}
}

// checkArgsAsOf asserts that every call's arguments as of each event are a
// consistent view: growing by appending (or, for Gemini partialArgs, valid
// JSON at every step, and not much larger than the input they came from)
// and ending at what FinalArgs and Args report.
func checkArgsAsOf(t *testing.T, s *Session, inputLen int) {
	t.Helper()
	last := s.Len() - 1
	// Rendering may escape each input byte (\ufffd) and pads arrays with at
	// most maxPathPad nulls.
	maxRender := 8*inputLen + 6*maxPathPad
	for _, it := range s.Calls() {
		streamed, _ := geminiEnded(it)
		var prev []byte
		for ord := -1; ord <= last; ord++ {
			cur := it.ArgsAsOf(ord)
			if streamed {
				if !json.Valid(cur) {
					t.Fatalf("call %d: Gemini ArgsAsOf(%d) = %q is not JSON", it.Index, ord, cur)
				}
				if len(cur) > maxRender {
					t.Fatalf("call %d: Gemini ArgsAsOf(%d) is %d bytes from %d bytes of input", it.Index, ord, len(cur), inputLen)
				}
				continue
			}
			if !bytes.HasPrefix(cur, prev) {
				t.Fatalf("call %d: ArgsAsOf(%d) = %q does not extend ArgsAsOf(%d) = %q", it.Index, ord, cur, ord-1, prev)
			}
			prev = cur
		}
		final := it.ArgsAsOf(last)
		if streamed {
			if got := it.FinalArgs(); string(final) != got {
				t.Fatalf("call %d: Gemini ArgsAsOf(last) = %q; FinalArgs = %q", it.Index, final, got)
			}
		} else if !bytes.Equal(final, it.Args.Bytes()) {
			t.Fatalf("call %d: ArgsAsOf(last) = %q; Args = %q", it.Index, final, it.Args.Bytes())
		}
	}
}

// FuzzAssemble runs whole streams through framing and assembly: it never
// panics, always finishes, its events tile the input, every call's
// arguments as of any event are consistent, the items of each response
// are kept in output order, and the report marshals.
func FuzzAssemble(f *testing.F) {
	addFileSeeds(f, func(data []byte) { f.Add(data) })
	for _, s := range dialectSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := assembleWithin(t, data, Options{KeepEvents: true, Raw: bytes.NewReader(data)})
		checkTiling(t, s, data)
		checkArgsAsOf(t, s, len(data))
		checkOutputs(t, s)
		rep := s.Report()
		if _, err := json.Marshal(rep); err != nil {
			t.Fatalf("json.Marshal(Report()) = %v", err)
		}
		if len(rep.Calls) != len(s.Calls()) {
			t.Fatalf("report has %d calls; session %d", len(rep.Calls), len(s.Calls()))
		}
		for _, it := range s.ItemsAsOf(s.Len() / 2) {
			it.Text.AsOf(s.Len() / 2)
			it.Args.FragmentAt(s.Len() / 2)
			it.SourcesDisagree()
		}
		checkSourcesAsOf(t, s)
	})
}

// checkSourcesAsOf holds the as-of queries to the whole-stream ones: as of
// the last event they answer what FinalArgs, SourcesDisagree and
// TextSourcesDisagree answer, and no statement as of an event was made
// after it.
func checkSourcesAsOf(t *testing.T, s *Session) {
	last := s.Len() - 1
	for _, it := range s.Items {
		if got, want := it.FinalArgsAsOf(last), it.FinalArgs(); got != want {
			t.Fatalf("item %d: FinalArgsAsOf(last) = %q; FinalArgs() = %q", it.Index, got, want)
		}
		_, want := it.SourcesDisagree()
		if _, got := it.SourcesAsOf(-1); got != want {
			t.Fatalf("item %d: SourcesAsOf(-1) disagree = %v; SourcesDisagree() = %v", it.Index, got, want)
		}
		_, want = it.TextSourcesDisagree()
		if _, got := it.TextSourcesAsOf(-1); got != want {
			t.Fatalf("item %d: TextSourcesAsOf(-1) disagree = %v; TextSourcesDisagree() = %v", it.Index, got, want)
		}
		for _, ord := range []int{it.First, (it.First + it.Last) / 2, it.Last} {
			stmts, _ := it.SourcesAsOf(ord)
			texts, _ := it.TextSourcesAsOf(ord)
			for _, st := range append(stmts, texts...) {
				if st.Ordinal > ord {
					t.Fatalf("item %d: as of %d, %s was stated at event %d", it.Index, ord, st.Name, st.Ordinal)
				}
			}
			it.FinalArgsAsOf(ord)
			it.FinalTextAsOf(ord)
		}
	}
}

// quote returns s as a JSON string.
func quote(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fragments cuts s into pieces whose lengths are the bytes of cuts, the
// rest forming the last piece. A cut inside a UTF-8 sequence moves to its
// end: producers send JSON strings, which cannot hold half a character.
// Empty pieces are kept; producers send those too.
func fragments(s string, cuts []byte) []string {
	var out []string
	for _, c := range cuts {
		n := min(int(c), len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// dialectWrappers wraps argument fragments in a stream of each dialect that
// streams arguments as text.
var dialectWrappers = []struct {
	name string
	wrap func(t *testing.T, args string, frags []string) string
}{
	{"responses", func(t *testing.T, args string, frags []string) string {
		a := quote(t, args)
		lines := []string{
			`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress"}}`,
			`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","call_id":"call_1","name":"f","arguments":""}}`,
		}
		for i, fr := range frags {
			lines = append(lines, fmt.Sprintf(`{"type":"response.function_call_arguments.delta","sequence_number":%d,"item_id":"fc_1","output_index":0,"delta":%s}`, i+2, quote(t, fr)))
		}
		lines = append(lines,
			`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":`+a+`}`,
			`{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"f","arguments":`+a+`}}`,
			`{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"f","arguments":`+a+`}]}}`,
		)
		return sse(lines...)
	}},
	{"chat", func(t *testing.T, _ string, frags []string) string {
		lines := []string{
			`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":` + quote(t, frags[0]) + `}}]},"finish_reason":null}]}`,
		}
		for _, fr := range frags[1:] {
			lines = append(lines, `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":`+quote(t, fr)+`}}]},"finish_reason":null}]}`)
		}
		lines = append(lines, `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`)
		return sse(lines...)
	}},
	{"anthropic", func(t *testing.T, _ string, frags []string) string {
		var b strings.Builder
		ev := func(name, data string) { b.WriteString("event: " + name + "\ndata: " + data + "\n\n") }
		ev("message_start", `{"type":"message_start","message":{"id":"msg_1","content":[]}}`)
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`)
		for _, fr := range frags {
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+quote(t, fr)+`}}`)
		}
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"}}`)
		ev("message_stop", `{"type":"message_stop"}`)
		return b.String()
	}},
}

// FuzzArgAssembly cuts an arguments string into fragments, streams them in
// each dialect, and expects the assembled arguments back byte for byte.
func FuzzArgAssembly(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"location":"Paris","unit":"celsius"}`, `{"a":[1,2,{"b":null}],"c":true}`,
		`{"q":"line\nbreak\ttab \"quoted\" back\\slash"}`, `{"html":"<a href='x'>&amp;</a>"}`,
		`{"emoji":"😀","accents":"é ü ß","cjk":"天気"}`, "{\"ctl\":\"\x00\x01\x1f\"}", "{\"ls\":\"\u2028\u2029\"}",
		`{"loc`, `not json at all`, `{"a":1}{"b":2}`, `   {"spaces" : 1 }   `,
	} {
		f.Add(s, []byte{1, 2, 3})
		f.Add(s, []byte{0, 0, 5, 0})
	}
	addFileSeeds(f, func(data []byte) {
		s := Assemble(data, capture.FormatAuto, Options{})
		for _, it := range s.Calls() {
			f.Add(it.FinalArgs(), []byte{4, 7, 1})
		}
	})
	f.Fuzz(func(t *testing.T, args string, cuts []byte) {
		if !utf8.ValidString(args) {
			t.Skip("JSON strings cannot carry invalid UTF-8: encoding/json replaces it")
		}
		frags := fragments(args, cuts)
		if got := strings.Join(frags, ""); got != args {
			t.Fatalf("fragments(%q) = %q; joined %q", args, frags, got)
		}
		for _, d := range dialectWrappers {
			stream := []byte(d.wrap(t, args, frags))
			s := assembleWithin(t, stream, Options{KeepEvents: true})
			checkTiling(t, s, stream)
			calls := s.Calls()
			if len(calls) != 1 {
				t.Fatalf("%s: %d calls from %q; want 1", d.name, len(calls), stream)
			}
			it := calls[0]
			if got := it.FinalArgs(); got != args {
				t.Fatalf("%s: FinalArgs() = %q; want %q (fragments %q)", d.name, got, args, frags)
			}
			if got := it.Args.String(); got != args {
				t.Fatalf("%s: assembled deltas = %q; want %q (fragments %q)", d.name, got, args, frags)
			}
			if src, differ := it.SourcesDisagree(); differ {
				t.Fatalf("%s: sources disagree: %q", d.name, src)
			}
			if st := s.CallStatus(it); st != "completed" {
				t.Fatalf("%s: call status = %q; want completed", d.name, st)
			}
		}
	})
}

// The seeds take Bedrock streams too (model/internal/modeltest): Nova and
// Titan inside InvokeModel chunks, a damaged message, an exception, a
// chunk whose bytes is no base64.
func init() { dialectSeeds = append(dialectSeeds, modeltest.BedrockSeeds()...) }
