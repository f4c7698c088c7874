package bedrock

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// Whole InvokeModel bodies of the text models, in the shapes of AWS's
// model-parameter pages and of the bodies recorded in public VCR
// cassettes (the texts are made up here).
const (
	titanBody = `{"inputTextTokenCount":30,"results":[{"tokenCount":29,"outputText":": \"Amazon Bedrock es la forma más sencilla\".","completionReason":"FINISH"}]}`
	// titanGuardrailBody: a guardrail that masked a number, as Bedrock
	// answers with a guardrail's trace on: the model's output, the trace,
	// and the intervention.
	titanGuardrailBody = `{"inputTextTokenCount":28.0,"results":[{"tokenCount":41.0,"outputText":"\nShe found a note reading \"{Account Number}\".","completionReason":"FINISH"}],` +
		`"amazon-bedrock-trace":{"guardrail":{"modelOutput":["{\"inputTextTokenCount\":28,\"results\":[{\"tokenCount\":41,\"outputText\":\"\\nShe found a note reading \\\"1234561666\\\".\",\"completionReason\":\"FINISH\"}]}"],` +
		`"outputs":[{"g1":{"sensitiveInformationPolicy":{"regexes":[{"name":"Account Number","match":"1234561666","action":"ANONYMIZED"}]}}}]}},` +
		`"amazon-bedrock-guardrailAction":"INTERVENED"}`
	llamaBody    = `{"generation":" A llama in the garden is best left alone.","prompt_token_count":26,"generation_token_count":12,"stop_reason":"stop"}`
	mistralBody  = `{"outputs":[{"text":" Lemon juice, mostly.","stop_reason":"stop"}]}`
	cohereBody   = `{"id":"3266ca30-473c-4491-b6ef-5b1f033798d2","generations":[{"id":"5ccd25a1-96ff-4976-8ef6-056c876953d2","text":" Why did the span cross the road?","finish_reason":"COMPLETE"}],"prompt":"Tell me a joke"}`
	jurassicBody = `{"id":1234,"prompt":{"text":"Translate to spanish","tokens":[{"generatedToken":{"token":"▁Translate","logprob":-8.3},"topTokens":null,"textRange":{"start":0,"end":9}}]},` +
		`"completions":[{"data":{"text":"\nTraducir al español","tokens":[{"generatedToken":{"token":"<|endoftext|>","logprob":0.0},"topTokens":null,"textRange":{"start":20,"end":20}}]},"finishReason":{"reason":"endoftext"}}]}`
	claude2Body = `{"type":"completion","completion":" Here is a joke about tracing.","stop_reason":"stop_sequence","stop":"\n\nHuman:"}`
)

// TestInvokeWholeBody: the whole body a text model answers the
// non-streaming InvokeModel with is one bedrock-invoke event, typed
// (invoke response), whose text is the answer and whose stop reason
// gives the outcome in the stream's words. Before, each was an unknown
// event and the stream "truncated (no response recognised)".
func TestInvokeWholeBody(t *testing.T) {
	cases := []struct {
		name, body, family string
		text               string
		state, detail      string
	}{
		{"titan FINISH", titanBody, FamilyTitan, `: "Amazon Bedrock es la forma más sencilla".`, model.OutcomeCompleted, "FINISH"},
		{"titan spread over lines", "{\n  \"inputTextTokenCount\": 5,\n  \"results\": [\n    {\"tokenCount\": 2, \"outputText\": \"Hi.\", \"completionReason\": \"FINISH\"}\n  ]\n}\n",
			FamilyTitan, "Hi.", model.OutcomeCompleted, "FINISH"},
		{"titan LENGTH is incomplete", `{"inputTextTokenCount":5,"results":[{"tokenCount":8,"outputText":"The capital of","completionReason":"LENGTH"}]}`,
			FamilyTitan, "The capital of", model.OutcomeIncomplete, "LENGTH"},
		{"titan CONTENT_FILTERED is blocked", `{"inputTextTokenCount":5,"results":[{"tokenCount":0,"outputText":"","completionReason":"CONTENT_FILTERED"}]}`,
			FamilyTitan, "", model.OutcomeBlocked, "CONTENT_FILTERED"},
		{"titan with a guardrail's intervention is blocked", titanGuardrailBody, FamilyTitan,
			"\nShe found a note reading \"{Account Number}\".", model.OutcomeBlocked, "guardrail_intervened"},
		{"llama stop", llamaBody, FamilyLlama, " A llama in the garden is best left alone.", model.OutcomeCompleted, "stop"},
		{"llama length is incomplete", `{"generation":" Once upon","prompt_token_count":4,"generation_token_count":2,"stop_reason":"length"}`,
			FamilyLlama, " Once upon", model.OutcomeIncomplete, "length"},
		{"llama (DeepSeek) with null counts", `{"generation":"ok","prompt_token_count":null,"generation_token_count":null,"stop_reason":"stop"}`,
			FamilyLlama, "ok", model.OutcomeCompleted, "stop"},
		{"mistral stop", mistralBody, FamilyMistral, " Lemon juice, mostly.", model.OutcomeCompleted, "stop"},
		{"mistral length is incomplete", `{"outputs":[{"text":" Well,","stop_reason":"length"}]}`, FamilyMistral, " Well,", model.OutcomeIncomplete, "length"},
		{"cohere COMPLETE", cohereBody, FamilyCohere, " Why did the span cross the road?", model.OutcomeCompleted, "COMPLETE"},
		{"cohere MAX_TOKENS is incomplete", `{"id":"a","generations":[{"id":"b","text":" Why","finish_reason":"MAX_TOKENS"}],"prompt":"p"}`,
			FamilyCohere, " Why", model.OutcomeIncomplete, "MAX_TOKENS"},
		{"cohere ERROR_TOXIC is blocked", `{"id":"a","generations":[{"id":"b","text":"","finish_reason":"ERROR_TOXIC"}],"prompt":"p"}`,
			FamilyCohere, "", model.OutcomeBlocked, "ERROR_TOXIC"},
		{"jurassic endoftext", jurassicBody, FamilyJurassic, "\nTraducir al español", model.OutcomeCompleted, "endoftext"},
		{"jurassic length is incomplete", `{"id":1,"prompt":{"text":"p"},"completions":[{"data":{"text":"Hola"},"finishReason":{"reason":"length","length":1}}]}`,
			FamilyJurassic, "Hola", model.OutcomeIncomplete, "length"},
		{"claude 2 stop_sequence", claude2Body, FamilyClaudeText, " Here is a joke about tracing.", model.OutcomeCompleted, "stop_sequence"},
		{"claude 2 max_tokens is incomplete, no type", `{"completion":" Once","stop_reason":"max_tokens","stop":null}`,
			FamilyClaudeText, " Once", model.OutcomeIncomplete, "max_tokens"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := model.Assemble([]byte(tc.body), capture.FormatAuto, model.Options{KeepEvents: true})
			rep := s.Report()
			dialecttest.SameReportJSON(t, s, rep)
			if rep.Dialect != "bedrock-invoke" || rep.Dialects != nil {
				t.Fatalf("dialect = %s %v; want only bedrock-invoke", rep.Dialect, rep.Dialects)
			}
			if s.Len() != 1 {
				t.Fatalf("%d events; want the body as one", s.Len())
			}
			ev := s.Events.At(0)
			if got := s.TypeName(ev.Type); got != TypeInvokeResponse || ev.Kind != model.KindTerminal {
				t.Errorf("event = %s %v; want %s terminal", got, ev.Kind, TypeInvokeResponse)
			}
			if rep.Text != tc.text || len(rep.Calls) != 0 {
				t.Errorf("text = %q, %d calls; want %q, none", rep.Text, len(rep.Calls), tc.text)
			}
			if o := s.Outcome(); o.State != tc.state || o.Detail != tc.detail || o.Ordinal != 0 {
				t.Errorf("outcome = %+v; want %s (%s) at event 0", o, tc.state, tc.detail)
			}
			if len(s.Responses) != 1 || s.Responses[0].Created != 0 || s.Responses[0].Terminal != 0 {
				t.Errorf("responses = %+v; want one, created and ended by event 0", s.Responses)
			}
			for _, it := range s.Items {
				if it.Closed != 0 || it.Dialect != Invoke.ID() || it.Status.AsOf(0) != "completed" {
					t.Errorf("item %d closed at %d, dialect %s, status %s; want closed by event 0, bedrock-invoke, completed",
						it.Index, it.Closed, it.Dialect, it.Status.AsOf(0))
				}
			}
			if want := len(tc.text) > 0; (len(s.Items) == 1) != want {
				t.Errorf("%d items; want one only when there is text", len(s.Items))
			}
			sh := s.Shape(ev, 0, []byte(tc.body))
			if sh.Dialect != Invoke.ID() || sh.Type != TypeInvokeResponse {
				t.Errorf("shape = %+v; want the whole body's", sh)
			}
			if _, ok := model.Explain(sh); !ok {
				t.Errorf("shape %+v has no explanation", sh)
			}
			if sh := s.Shape(ev, 0, nil); sh.Type != TypeInvokeResponse {
				t.Errorf("shape without data = %+v; want the whole body's", sh)
			}
			f := focusOn(t, tc.body)
			if got := wholeInvoke(f); got != tc.family {
				t.Errorf("family = %q; want %q", got, tc.family)
			}
		})
	}
}

// focusOn returns a session whose event at hand is body, for the claims.
func focusOn(t *testing.T, body string) *model.Session {
	t.Helper()
	s := model.Assemble(nil, capture.FormatAuto, model.Options{})
	if ok, err := s.Focus([]byte(strings.TrimSpace(body))); !ok || err != nil {
		t.Fatalf("focus(%s) = %v, %v", body, ok, err)
	}
	return s
}

// TestInvokeWholeBodyNearMisses: a body is claimed only with its shape's
// distinguishing members. Every other dialect's body stays its
// dialect's, and wholeInvoke refuses it on its own, whatever the order of
// the registry; bodies that lack one key of a shape stay unknown.
func TestInvokeWholeBodyNearMisses(t *testing.T) {
	cases := []struct{ name, body, dialect string }{
		// Other dialects' bodies.
		{"openai text completion", `{"id":"cmpl-1","object":"text_completion","created":1741682064,"model":"m","choices":[{"index":0,"text":" I'm here.","logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":6,"completion_tokens":100,"total_tokens":106}}`, "openai-chat"},
		{"chat completion", `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`, "openai-chat"},
		{"jamba (choices)", `{"id":"chat-1","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1}}`, "openai-chat"},
		{"responses body", `{"id":"resp_1","object":"response","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"hi"}]}]}`, "openai-responses"},
		{"anthropic message", `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`, "anthropic"},
		{"gemini body", `{"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1}}`, "gemini"},
		{"ollama generate", `{"model":"llama3","response":"hi","done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":2}`, "ollama"},
		{"converse body", `{"output":{"message":{"role":"assistant","content":[{"text":"hi"}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}`, "bedrock-converse"},
		// A key short of a shape.
		{"only generation", `{"generation":"hi"}`, "unknown"},
		{"llama chunk, stop_reason null", `{"generation":"hi","prompt_token_count":3,"generation_token_count":1,"stop_reason":null}`, "unknown"},
		{"llama stream's last chunk as a line", `{"generation":"","prompt_token_count":null,"generation_token_count":50,"stop_reason":"stop",` +
			`"amazon-bedrock-invocationMetrics":{"inputTokenCount":26,"outputTokenCount":50,"invocationLatency":1290,"firstByteLatency":280}}`, "unknown"},
		{"mistral stream's last chunk as a line", `{"outputs":[{"text":".","stop_reason":"stop"}],"amazon-bedrock-invocationMetrics":{"inputTokenCount":5}}`, "unknown"},
		{"llama without the counts", `{"generation":"hi","stop_reason":"stop"}`, "unknown"},
		{"llama, generation not a string", `{"generation":7,"prompt_token_count":3,"generation_token_count":1,"stop_reason":"stop"}`, "unknown"},
		{"titan results without inputTextTokenCount", `{"results":[{"tokenCount":1,"outputText":"hi","completionReason":"FINISH"}]}`, "unknown"},
		{"titan without completionReason", `{"inputTextTokenCount":1,"results":[{"tokenCount":1,"outputText":"hi"}]}`, "unknown"},
		{"titan results not an array", `{"inputTextTokenCount":1,"results":{"outputText":"hi","completionReason":"FINISH"}}`, "unknown"},
		{"titan stream chunk as a line", `{"outputText":"hi","index":0,"totalOutputTextTokenCount":1,"completionReason":"FINISH","inputTextTokenCount":1}`, "unknown"},
		{"mistral without stop_reason", `{"outputs":[{"text":"hi"}]}`, "unknown"},
		{"mistral empty outputs", `{"outputs":[],"stop_reason":"stop"}`, "unknown"},
		{"cohere without finish_reason", `{"id":"a","generations":[{"id":"b","text":"hi"}]}`, "unknown"},
		{"cohere stream chunk as a line", `{"is_finished":true,"finish_reason":"COMPLETE","text":"hi"}`, "unknown"},
		{"jurassic without finishReason", `{"id":1,"completions":[{"data":{"text":"hi"}}]}`, "unknown"},
		{"jurassic finishReason a string", `{"id":1,"completions":[{"data":{"text":"hi"},"finishReason":"length"}]}`, "unknown"},
		{"claude 2 chunk, stop_reason null", `{"completion":" hi","stop_reason":null,"stop":null}`, "unknown"},
		{"completion typed otherwise", `{"type":"x","completion":" hi","stop_reason":"stop_sequence"}`, "unknown"},
		{"typed llama", `{"type":"x","generation":"hi","prompt_token_count":3,"generation_token_count":1,"stop_reason":"stop"}`, "unknown"},
		{"error body", `{"message":"The provided model identifier is invalid."}`, "unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := model.Assemble([]byte(tc.body+"\n"), capture.FormatAuto, model.Options{KeepEvents: true})
			if rep := s.Report(); rep.Dialect != tc.dialect {
				t.Errorf("dialect = %s; want %s", rep.Dialect, tc.dialect)
			}
			if got := wholeInvoke(focusOn(t, tc.body)); got != "" {
				t.Errorf("wholeInvoke = %q; want no claim", got)
			}
		})
	}
}

// TestInvokeWholeBodyInHTTP: a body after a curl -i head, as the proxy or
// a HAR entry hands it, and a body after another body (two answers in one
// file) each make a response of their own.
func TestInvokeWholeBodyInHTTP(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Amzn-Bedrock-Output-Token-Count: 12\r\n\r\n"
	s := model.Assemble([]byte(head+llamaBody), capture.FormatAuto, model.Options{KeepEvents: true})
	rep := s.Report()
	if rep.Dialect != "bedrock-invoke" || rep.Text != " A llama in the garden is best left alone." || rep.Outcome.State != model.OutcomeCompleted {
		t.Errorf("report = %+v", rep)
	}
	s = model.Assemble([]byte(mistralBody+"\n"+`{"outputs":[{"text":" Cut","stop_reason":"length"}]}`+"\n"), capture.FormatAuto, model.Options{KeepEvents: true})
	if len(s.Responses) != 2 || len(s.Items) != 2 || s.Items[1].Response != 1 {
		t.Fatalf("%d responses, %d items; want two of each, one a response", len(s.Responses), len(s.Items))
	}
	if o := s.Outcome(); o.State != model.OutcomeIncomplete || o.Detail != "length" || o.Ordinal != 1 {
		t.Errorf("outcome = %+v; want the last body's: incomplete (length) at event 1", o)
	}
}

// TestInvokeWholeGenerations: a whole body with several generations
// (Cohere's num_generations) gives one text per generation, as a stream of
// them does and as Chat's n does; the worst generation's stop reason
// decides the outcome, as the worst choice's does for Chat. Before, the
// first generation alone was the text.
func TestInvokeWholeGenerations(t *testing.T) {
	cases := []struct {
		name, body    string
		text          []string
		state, detail string
	}{
		{"one cut", `{"id":"a","generations":[{"id":"b","text":"one","finish_reason":"COMPLETE"},{"id":"c","text":"two","finish_reason":"MAX_TOKENS"}],"prompt":"p"}`,
			[]string{"one", "two"}, model.OutcomeIncomplete, "MAX_TOKENS"},
		{"both complete", `{"id":"a","generations":[{"id":"b","text":"one","finish_reason":"COMPLETE"},{"id":"c","text":"two","finish_reason":"COMPLETE"}],"prompt":"p"}`,
			[]string{"one", "two"}, model.OutcomeCompleted, "COMPLETE"},
		{"indexes given", `{"id":"a","generations":[{"id":"c","text":"two","finish_reason":"COMPLETE","index":1},{"id":"b","text":"one","finish_reason":"COMPLETE","index":0}],"prompt":"p"}`,
			[]string{"one", "two"}, model.OutcomeCompleted, "COMPLETE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := model.Assemble([]byte(tc.body), capture.FormatAuto, model.Options{KeepEvents: true})
			rep := s.Report()
			dialecttest.SameReportJSON(t, s, rep)
			if got, ok := rep.Text.([]string); !ok || !slices.Equal(got, tc.text) {
				t.Errorf("text = %#v; want %q", rep.Text, tc.text)
			}
			if o := s.Outcome(); o.State != tc.state || o.Detail != tc.detail {
				t.Errorf("outcome = %+v; want %s (%s)", o, tc.state, tc.detail)
			}
			for _, it := range s.Items {
				if it.Closed != 0 || it.Status.AsOf(0) != "completed" {
					t.Errorf("item %d (choice %d) closed at %d, %s; want closed by event 0, completed", it.Index, it.Choice, it.Closed, it.Status.AsOf(0))
				}
			}
		})
	}
}
