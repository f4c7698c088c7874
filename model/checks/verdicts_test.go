package checks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// verdict is what check must say of one session of a real recording in
// testdata/verdicts (see its README): the outcome, its detail (a prefix),
// and every finding as "rule [events]", in report order.
type verdict struct {
	file     string
	session  int // from 1, among the sessions model.LLMEntries keeps
	state    string
	detail   string
	findings []string
}

var verdicts = []verdict{
	// Writer never sends [DONE]: the choice has its finish_reason and the
	// usage chunk follows, so the answer is whole (completed, not
	// truncated) and only the terminator is missing. Its fragments send
	// "arguments": null, then "id", "type", "name": null, and every chunk
	// repeats the delta as a message.
	{"chat-writer-tool-call__openllmetry.yaml", 1, model.OutcomeCompleted, "tool_calls", []string{
		"chat/tool-field-null [2 3 4]", "chat/done-missing [6]", "chat/message-in-chunk [1 2 3 4 5]",
	}},
	// vLLM stopped at max_tokens.
	{"chat-vllm-length__openllmetry.yaml", 1, model.OutcomeIncomplete, "length", nil},
	// Azure's content filter cut the answer (a whole chat.completion).
	{"chat-azure-content-filter__openllmetry.yaml", 1, model.OutcomeBlocked, "content_filter", nil},
	{"chat-azure-content-filter__openllmetry.yaml", 2, model.OutcomeCompleted, "stop", nil},
	// Azure's prompt filter refused the prompt with an error coded
	// content_filter.
	{"chat-azure-prompt-filter__openllmetry.yaml", 1, model.OutcomeBlocked, "content_filter: The response was filtered due to the prompt",
		[]string{"framing/error-payload [1]"}},
	// Snowflake Cortex serialises an empty legacy function_call
	// ({"name": "", "arguments": ""}) on a message that calls nothing: no
	// call, so no tool-name-missing, args-empty or stop-with-tool-calls.
	{"chat-snowflake-zero-function-call__pydantic-ai.yaml", 1, model.OutcomeCompleted, "stop", nil},
	// A named tool_choice, answered with the call.
	{"chat-named-tool-choice__pydantic-ai.yaml", 1, model.OutcomeCompleted, "tool_calls", nil},
	// Anthropic stopped at max_tokens mid-stream; refused by the safety
	// classifiers.
	{"anthropic-max-tokens-stream__dd-trace-py.yaml", 1, model.OutcomeIncomplete, "max_tokens", nil},
	{"anthropic-refusal__vercel-ai.chunks.txt", 1, model.OutcomeBlocked, "refusal", nil},
	// Gemini: the limit, a blocked candidate, and a prompt Vertex's Model
	// Armor refused before any candidate (the cassette's OAuth token
	// exchange before it is no session).
	{"gemini-max-tokens__pydantic-ai.yaml", 1, model.OutcomeIncomplete, "MAX_TOKENS", nil},
	{"gemini-safety__pydantic-ai.yaml", 1, model.OutcomeBlocked, "SAFETY", nil},
	{"gemini-model-armor-prompt__pydantic-ai.yaml", 1, model.OutcomeBlocked, "prompt: MODEL_ARMOR", nil},
	// Responses stopped at max_output_tokens: the reason is the detail.
	{"responses-max-output-tokens__dd-trace-py.yaml", 1, model.OutcomeIncomplete, "max_output_tokens", nil},
	// A Bedrock Converse call refused for an expired token: its body names
	// no model (Bedrock names it in the path), yet it is an LLM call, a
	// session that fails.
	{"bedrock-converse-expired-token__dd-trace-py.yaml", 1, model.OutcomeError, "The security token included in the request is expired",
		[]string{"framing/error-payload [1]"}},
	// The Agents SDK's trace upload (204, no body) is no session: the run
	// is its one Responses call, clean.
	{"agents-traces-ingest__openllmetry.yaml", 1, model.OutcomeCompleted, "", nil},
}

// verdictSessions reads a recording of testdata/verdicts as the commands
// do: an archive's sessions (model.LLMEntries), each checked against its
// request; a stream file is one session.
func verdictSessions(t *testing.T, file string) []Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(projectRoot(t), "model", "checks", "testdata", "verdicts", file))
	if err != nil {
		t.Fatal(err)
	}
	if capture.DetectArchive(data) == capture.FormatAuto {
		return []Report{CheckBytes(data, capture.FormatAuto, Strict)}
	}
	ar, err := capture.ReadArchive(data, capture.FormatAuto, capture.ArchiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []Report
	for _, e := range model.LLMEntries(ar) {
		opts, c := Attach(model.Options{})
		if req, _ := model.EntryRequest(&e); req.Parsed {
			c.SetRequest(&req)
		}
		s := model.NewSession(opts)
		err := e.Source(file).Read(t.Context(), capture.ReadOptions{}, func(f *capture.Frame) error {
			s.Add(f)
			return nil
		})
		s.End(err)
		out = append(out, c.Report(s, Strict))
	}
	return out
}

// TestVerdictsOnRealRecordings holds the outcome and the findings of real
// recordings: one vocabulary of outcomes for every dialect, and no false
// alarm on what the vendors document.
func TestVerdictsOnRealRecordings(t *testing.T) {
	t.Parallel()
	for _, v := range verdicts {
		t.Run(fmt.Sprintf("%s#%d", v.file, v.session), func(t *testing.T) {
			t.Parallel()
			reps := verdictSessions(t, v.file)
			if v.session > len(reps) {
				t.Fatalf("%d sessions; want session %d", len(reps), v.session)
			}
			rep := reps[v.session-1]
			if rep.Outcome.State != v.state || !strings.HasPrefix(rep.Outcome.Detail, v.detail) {
				t.Errorf("outcome = %s (%s); want %s (%s…)", rep.Outcome.State, rep.Outcome.Detail, v.state, v.detail)
			}
			var got []string
			for _, f := range rep.Findings {
				got = append(got, fmt.Sprintf("%s %v", f.Rule, f.Events))
			}
			if !slices.Equal(got, v.findings) {
				t.Errorf("findings = %q; want %q", got, v.findings)
				for _, f := range rep.Findings {
					t.Logf("%s %s: %s", f.Severity, f.Rule, f.Message)
				}
			}
		})
	}
}

// A cassette's exchanges that are not LLM calls are no sessions, as a HAR
// file's other APIs are not: the Agents SDK's trace upload and an OAuth
// token exchange are left out; the LLM calls are kept.
func TestLLMEntriesOfCassettes(t *testing.T) {
	t.Parallel()
	for file, want := range map[string][]string{
		"agents-traces-ingest__openllmetry.yaml":           {"POST https://api.openai.com/v1/responses 200"},
		"gemini-model-armor-prompt__pydantic-ai.yaml":      {"POST https://europe-west4-aiplatform.googleapis.com/v1beta1/projects/pydantic-ai/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent 200"},
		"bedrock-converse-expired-token__dd-trace-py.yaml": {"POST https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-sonnet-20240229-v1%3A0/converse 403"},
		"chat-azure-content-filter__openllmetry.yaml":      slices.Repeat([]string{"POST https://traceloop-stg.openai.azure.com/openai/deployments/openllmetry-testing/chat/completions?api-version=2024-02-01 200"}, 4),
	} {
		data, err := os.ReadFile(filepath.Join(projectRoot(t), "model", "checks", "testdata", "verdicts", file))
		if err != nil {
			t.Fatal(err)
		}
		ar, err := capture.ReadArchive(data, capture.FormatAuto, capture.ArchiveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range model.LLMEntries(ar) {
			got = append(got, e.String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: sessions %q; want %q (of %d exchanges)", file, got, want, len(ar.Entries))
		}
	}
}

// Azure's documented first chunk (no choice, prompt_filter_results, an
// empty id, model and created) is no identity change, on a real Azure
// stream.
func TestAzurePromptFilterChunk(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(projectRoot(t), "capture", "testdata", "import", "chat-azure-model-router__vercel-ai.chunks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.SplitN(string(data), "\n", 2)[0], `"prompt_filter_results"`) {
		t.Fatal("the fixture no longer starts with Azure's prompt-filter chunk")
	}
	rep := CheckBytes(data, capture.FormatAuto, Strict)
	if rep.Outcome.State != model.OutcomeCompleted {
		t.Errorf("Azure stream: %s; want completed", rep.Outcome.State)
	}
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Rule, "chat/") {
			t.Errorf("Azure stream: %s %v: %s", f.Rule, f.Events, f.Message)
		}
	}
}
