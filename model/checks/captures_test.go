package checks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// captureFinding is a finding a real capture yields, with the reason it is
// right. note is the phrase of the capture's MANIFEST.tsv notes that names
// the defect; it is empty when only the bytes (quoted in the comment) show
// it.
type captureFinding struct {
	rule   string
	events []int
	note   string
}

// captureFindings lists every finding the strict profile reports on the
// real captures in ../shared/captures. A capture not listed yields none.
// Event ordinals count every frame from 0, comments included.
var captureFindings = map[string][]captureFinding{
	"anthropic__text-then-tool-use__anthropic-sdk-python.sse": {
		// The file's last bytes are `data: {"type":"message_stop"}` with no
		// line ending at all: a WHATWG parser discards the pending event at
		// EOF, so a spec client never sees message_stop.
		{fUnterminated, []int{14}, "file ends without a trailing blank line"},
	},
	"chat__anthropic-openai-compat-index1__vercel-ai.sse": {
		// Event 3 opens the only call with "tool_calls":[{"index":1,
		// "id":"toolu_sanitized",…}]: no call ever takes index 0 (Anthropic's
		// compat layer numbers tool calls by content block, and block 0 is
		// the text). openai-python's stream helper indexes
		// tool_calls[delta.index] and fails on it.
		{"chat/tool-index-not-dense", []int{3}, "tool_call indices: 1"},
		// The file ends `data: [DONE]\n`: one line ending, no blank line, so
		// a spec parser discards the [DONE] at EOF (the notes do not
		// mention it; the bytes do).
		{fUnterminated, []int{8}, ""},
	},
	// chat__azure-model-router-filter-chunk__vercel-ai.sse yields none:
	// its event 0 is Azure's documented prompt-filter chunk
	// ({"choices":[],"created":0,"id":"","model":"",
	// "prompt_filter_results":[…]}), which names no completion, so the
	// id, model and created of event 1 on are no change (the manifest's
	// note still calls it one).
	"chat__groq-tool-validation-error__pydantic-ai.sse": {
		// Event 94 is `event: error` with {"error":{"message":"Tool call
		// validation failed: …","type":"invalid_request_error",
		// "code":"tool_use_failed"}}: the outcome is error, and the
		// missing finish_reason and [DONE] after it are not reported again.
		{fErrorPayload, []int{94}, "error object in stream"},
	},
	"chat__openrouter-kimi-variant-a__simonw-llm.sse": {
		// Event 2 opens the call {"index":0,"id":"0","type":"function",
		// "function":{"name":"llm_version","arguments":""}}; event 3 sends
		// the same "id":"0" and "name":"llm_version" again with
		// "arguments":"{}". openai-python's accumulate_delta concatenates
		// them into "00" and "llm_versionllm_version".
		{"chat/tool-id-repeated", []int{2, 3}, "id repeated on 1 later fragments"},
		// No chunk has a non-null finish_reason; event 5 is the [DONE].
		{"chat/finish-reason-missing", []int{5}, "no finish_reason"},
	},
	"chat__xai-call__vercel-ai.sse": {
		// Events 0–4 carry "created":1770774064, events 5–7
		// "created":1770774066: xAI stamps each chunk. Harmless (info).
		{"chat/created-changed", []int{0, 5}, ""},
	},
	"gemini__partial-args-array-missing-terminal__vercel-ai.sse": {
		// Event 0 opens writeItems with "willContinue":true; event 14, the
		// last partialArgs ($.operations[1].price), has no willContinue,
		// and event 15 is {"text":""} with "finishReason":"STOP": the
		// empty functionCall {} end marker never comes (what the vercel
		// fixture's name says). Clients waiting for the marker lose the
		// call; the call itself is complete (info).
		{"gemini/partial-args-no-end-marker", []int{0, 14, 15}, ""},
	},
	"responses__error-insufficient-quota-failed__vercel-ai.sse": {
		// Event 2 is {"type":"error","sequence_number":2,"error":{"type":
		// "insufficient_quota","code":"insufficient_quota",…}}, followed by
		// response.failed: a legitimate failure, reported as the outcome.
		{fErrorPayload, []int{2}, `in-stream "error" event`},
	},
	"responses__lmstudio-args-only-in-done__vercel-ai.sse": {
		// Event 73 adds fc_z9synwu0kvc33k6e9u3dq4 with "arguments":"";
		// event 74 is function_call_arguments.done with the whole
		// {"location":"San Francisco"} and no delta came before it.
		{"responses/args-done-only", []int{73, 74}, "no argument deltas"},
	},
	"responses__openrouter-no-event-lines__pydantic-ai.sse": {
		// OpenRouter writes no event: line on any event: the OpenAI SDKs
		// read data.type, EventSource listeners get nothing.
		{"responses/event-name-missing", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, "no event: lines"},
		// Event 41 is data: [DONE] after response.completed (event 40).
		{"responses/done-sentinel", []int{40, 41}, "ends with data: [DONE] (official OpenAI does not)"},
		// The notes miss this one; the bytes show it. Events 3–39 stream
		// the reasoning item as "rs_tmp_2kbe7x16sax" (output_item.added
		// at event 3, output_item.done at event 39), but
		// response.completed (event 40) lists output[0] as
		// {"type":"reasoning","id":"rs_tmp_ku4i7pagjwn",…}: OpenRouter
		// renames items between the stream and the snapshot
		// (rbb-dev/Open-WebUI-OpenRouter-pipe#54 reports the same for
		// calls). Only a reasoning item differs, so it is a warning, not
		// an error: clients that merge the stream with the snapshot by id
		// keep a duplicate.
		{"responses/terminal-output-mismatch", []int{3, 40}, ""},
	},
	"responses__single-call-no-seqnum-2025-03__pydantic-ai.sse": {
		// None of the 11 events has a sequence_number (a 2025-03 gpt-4o
		// recording, before the field existed).
		{"responses/seq-missing", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, "no sequence_number fields at all"},
	},
}

// capturesDir finds ../shared/captures beside the project root.
func capturesDir(t *testing.T) string {
	t.Helper()
	return filepath.Dir(fixtures.Shared(t, "captures/MANIFEST.tsv"))
}

// manifestNotes reads the notes column of MANIFEST.tsv by file name.
func manifestNotes(t *testing.T, dir string) map[string]string {
	t.Helper()
	notes := map[string]string{}
	for _, r := range modeltest.ReadManifest(t, dir) {
		notes[r.File] = r.Notes
	}
	return notes
}

// TestCaptures holds the checks to zero false alarms on real traffic: a
// capture whose notes name no defect yields no error or warning, and every
// finding on a capture is one listed (and justified) above.
func TestCaptures(t *testing.T) {
	dir := capturesDir(t)
	notes := manifestNotes(t, dir)
	if len(notes) == 0 {
		t.Fatal("manifest has no rows")
	}
	for file := range captureFindings {
		if _, ok := notes[file]; !ok {
			t.Errorf("captureFindings lists %s, which is not in the manifest", file)
		}
	}
	for file, note := range notes {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			rep := CheckBytes(data, capture.FormatAuto, Strict)
			want := captureFindings[file]
			namesDefect := false
			for _, w := range want {
				if w.note == "" {
					continue
				}
				if !strings.Contains(note, w.note) {
					t.Errorf("notes %q do not contain %q", note, w.note)
				}
				namesDefect = true
			}
			if !namesDefect {
				for _, f := range rep.Findings {
					if f.Severity >= Warning {
						t.Errorf("notes name no defect, but %s %s %v: %s", f.Severity, f.Rule, f.Events, f.Message)
					}
				}
			}
			got := make([]string, len(rep.Findings))
			for i, f := range rep.Findings {
				got[i] = fmt.Sprintf("%s %v", f.Rule, f.Events)
			}
			exp := make([]string, len(want))
			for i, w := range want {
				exp[i] = fmt.Sprintf("%s %v", w.rule, w.events)
			}
			slices.Sort(got)
			slices.Sort(exp)
			if !slices.Equal(got, exp) {
				t.Errorf("findings = %v; want %v", got, exp)
				for _, f := range rep.Findings {
					t.Logf("%s %s %v: %s", f.Severity, f.Rule, f.Events, f.Message)
				}
			}
			// The tolerant profile never grades higher than the strict one.
			tol := CheckBytes(data, capture.FormatAuto, Tolerant)
			for i, f := range tol.Findings {
				if f.Severity > rep.Findings[i].Severity {
					t.Errorf("tolerant %s is %s, strict %s", f.Rule, f.Severity, rep.Findings[i].Severity)
				}
			}
		})
	}
}
