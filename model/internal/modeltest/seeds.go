package modeltest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// The fuzz targets' seeds: small streams of every dialect made by hand
// (Seeds) and the recorded ones (FileSeeds).

// SSE joins data lines into an SSE stream, one event per line.
func SSE(lines ...string) string { return DataSSE(lines) }

// Seeds are small streams of each dialect, including the defects the
// assembly must survive; a new slice on each call.
func Seeds() []string { return slices.Concat(handSeeds, BedrockSeeds()) }

// seedGlobs name the recorded streams that seed the fuzz corpora: the
// project's samples and the real captures kept beside the project root. The
// targets run without them.
var seedGlobs = []string{fixtures.Path("samples/*.sse"), fixtures.Path("samples/*.eventstream"),
	filepath.Join(fixtures.SharedRoot(), "captures", "*.sse"),
	filepath.Join(fixtures.SharedRoot(), "captures-next", "ollama*.ndjson"),
	filepath.Join(fixtures.SharedRoot(), "captures-next", "*.eventstream"),
	filepath.Join(fixtures.SharedRoot(), "captures-app", "*.txt"),
	filepath.Join(fixtures.SharedRoot(), "captures-app", "*.sse")}

// handSeeds are small streams of each dialect, including the defects the
// assembly must survive.
var handSeeds = []string{
	// Responses, complete.
	SSE(
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
	SSE(
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"a"}}`,
		`{"type":"response.function_call_arguments.delta","delta":"{\"x\":"}`,
		`{"type":"response.function_call_arguments.delta","delta":"1}"}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_2","type":"function_call","call_id":"call_2","name":"b"}}`,
		`{"type":"response.function_call_arguments.delta","delta":"{}"}`,
		`{"type":"response.function_call_arguments.delta","item_id":"fc_9","delta":"{}"}`,
		`{"type":"response.output_item.done","output_index":7,"item":{"id":"fc_7","type":"function_call"}}`,
	),
	// Chat, one call.
	SSE(
		`{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`,
	),
	// Chat tool calls with a missing index.
	SSE(
		`{"id":"c2","object":"chat.completion.chunk","choices":[{"delta":{"tool_calls":[{"id":"call_1","function":{"name":"f","arguments":"{\"a\""}}]}}]}`,
		`{"id":"c2","object":"chat.completion.chunk","choices":[{"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}]}`,
		`{"id":"c2","object":"chat.completion.chunk","choices":[{"delta":{"tool_calls":[{"id":"call_2","function":{"name":"g","arguments":"{}"}}]}}]}`,
		`{"id":"c2","object":"chat.completion.chunk","choices":[{"delta":{"tool_calls":[{"index":null,"function":{"arguments":{"x":1}}}]},"finish_reason":"tool_calls"}]}`,
	),
	// Chat with every call at index 0.
	SSE(
		`{"id":"c3","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}`,
		`{"id":"c3","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_2","function":{"name":"g","arguments":"{\"b\":"}}]}}]}`,
		`{"id":"c3","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"2}"}}]}}]}`,
		`{"id":"c3","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`,
	),
	// Anthropic, one tool_use block.
	"event: message_start\n" + SSE(`{"type":"message_start","message":{"id":"msg_1","model":"claude","content":[]}}`) +
		"event: content_block_start\n" + SSE(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`) +
		"event: ping\n" + SSE(`{"type":"ping"}`) +
		"event: content_block_delta\n" + SSE(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": "}}`) +
		"event: content_block_delta\n" + SSE(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}`) +
		"event: content_block_stop\n" + SSE(`{"type":"content_block_stop","index":0}`) +
		"event: message_delta\n" + SSE(`{"type":"message_delta","delta":{"stop_reason":"tool_use"}}`) +
		"event: message_stop\n" + SSE(`{"type":"message_stop"}`),
	// Anthropic deltas and stops for blocks never started.
	SSE(
		`{"type":"message_start","message":{"id":"msg_2"}}`,
		`{"type":"content_block_delta","index":5,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
		`{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"x"}}`,
		`{"type":"content_block_stop","index":9}`,
		`{"type":"content_block_stop","index":5}`,
		`{"type":"content_block_start","index":5,"content_block":{"type":"thinking","thinking":"t","signature":"s"}}`,
	),
	// Chat without [DONE]: every choice finished, then the usage chunk
	// (Writer's end); and a refusal, a filter, a prompt refused outright.
	SSE(
		`{"id":"c4","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a"},"message":{"content":"a"},"finish_reason":null}]}`,
		`{"id":"c4","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":null,"type":null,"function":{"name":null,"arguments":null}}]},"finish_reason":"length"}]}`,
		`{"id":"c4","object":"chat.completion.chunk","choices":[],"usage":{"total_tokens":3}}`,
	),
	`[{"promptFeedback":{"blockReason":"SAFETY"}},{"promptFeedback":{"blockReason":null},"candidates":[]}]`,
	SSE(`{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"content_filter"}}}`),
	// Gemini, one whole call.
	SSE(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":1}}}]},"finishReason":"STOP"}],"modelVersion":"gemini-2.5","responseId":"r1"}`),
	// Gemini partialArgs, with odd JSON paths.
	SSE(
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.loc","stringValue":"Bos","willContinue":true}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.loc","stringValue":"ton"}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$[0]","numberValue":1},{"jsonPath":"$..a","boolValue":true},{"jsonPath":"$.a[99999999]","nullValue":null},{"jsonPath":"$['x']","stringValue":"y"},{"jsonPath":"$.b[3]","listValue":[1,2]},{"jsonPath":"$.b[1].c","structValue":{"d":"e"}},{"jsonPath":"$[","stringValue":""},{"jsonPath":"","numberValue":2},{"jsonPath":"$.loc.deeper","stringValue":"z"}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`,
	),
	// Gemini partialArgs with no call open, and an array body.
	SSE(`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}]}}]}}]}`),
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
	SSE(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
	SSE(`{"error":{"message":"bad","code":"x"}}`, `42`, `[1,2]`, `hello`, `{"type":7}`, `{}`),
	"HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{\"error\":{\"message\":\"Incorrect API key\",\"code\":\"invalid_api_key\"}}",
	"{\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\n{\"type\":\"response.output_text.delta\",\"delta\":\"b\"}\n",
	"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"a\"",
	// Choice indexes far out of range once made Texts allocate a slice that
	// long; deep array indexes once rendered as megabytes of nulls.
	SSE(`{"object":"chat.completion.chunk","choices":[{"index":999999999999,"delta":{"content":"x"}},{"index":-1,"delta":{"content":"y"}}]}`),
	SSE(`{"candidates":[{"index":300000000,"content":{"parts":[{"text":"x"}]}}]}`),
	SSE(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$` + strings.Repeat("[65535]", 40) + `","numberValue":1}],"willContinue":true}}]}}]}`),
}

// FileSeeds hands add every recorded stream seedGlobs names, and nothing
// when there are none.
func FileSeeds(tb testing.TB, add func(data []byte)) {
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
