package checks

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// ollChat is an /api/chat line whose message holds role and members.
func ollChat(members string) string {
	return `{"model":"qwen3:8b","created_at":"2025-09-18T09:12:03.418273514Z","message":{"role":"assistant"` + members + `},"done":false}`
}

// ollCall is an /api/chat line with one whole call.
func ollCall(id, index, name, args string) string {
	fn := `"name":` + name + `,"arguments":` + args
	if index != "" {
		fn = `"index":` + index + `,` + fn
	}
	entry := `{"function":{` + fn + `}}`
	if id != "" {
		entry = `{"id":"` + id + `","function":{` + fn + `}}`
	}
	return ollChat(`,"content":"","tool_calls":[` + entry + `]`)
}

// ollDone is the done:true line; members follow done.
func ollDone(members string) string {
	return `{"model":"qwen3:8b","created_at":"2025-09-18T09:12:04.290117408Z","message":{"role":"assistant","content":""},"done":true` + members +
		`,"total_duration":1873402115,"eval_count":71}`
}

// ollBase is a clean /api/chat stream: text (events 0, 1), a call (2),
// the done line (3) with done_reason length, so that no info finding
// rides along.
func ollBase() []string {
	return []string{
		ollChat(`,"content":"","thinking":"Checking."`),
		ollChat(`,"content":"One moment."`),
		ollCall("call_k2x7q9ma", "0", `"get_weather"`, `{"city":"Paris"}`),
		ollDone(`,"done_reason":"length"`),
	}
}

// ndjson joins lines as Ollama writes them: each ended by "\n".
func ndjson(lines []string) string { return strings.Join(lines, "\n") + "\n" }

// with replaces line i of the base.
func with(i int, line string) []string {
	b := ollBase()
	b[i] = line
	return b
}

func ollamaCases() []ruleCase {
	gen := `{"model":"llama3","created_at":"2024-05-24T21:02:00.855283Z","response":"A","done":false}` + "\n" +
		`{"model":"llama3","created_at":"2024-05-24T21:02:02.699896Z","response":"","done":true,"done_reason":"stop","context":[1,2]}` + "\n"
	base := ollBase()
	return []ruleCase{
		hit("ollama/blank-line", "blank line between lines", ndjson(base[:2])+"\n"+ndjson(base[2:]), 2),
		hit("ollama/blank-line", "blank lines at the end", ndjson(base)+"\n\n", 4),
		hit("ollama/blank-line", "blank line before an invalid line", ndjson(base[:2])+"\n{\"mess\n"+ndjson(base[2:]), 2),
		miss("ollama/blank-line", "every line ended once", ndjson(base)),

		hit("ollama/args-not-object", "arguments as a string", ndjson(with(2, ollCall("call_1", "0", `"get_weather"`, `"{\"city\":\"Paris\"}"`))), 2),
		hit("ollama/args-not-object", "no arguments", ndjson(with(2, strings.Replace(ollCall("call_1", "0", `"f"`, `{}`), `,"arguments":{}`, ``, 1))), 2),
		miss("ollama/args-not-object", "arguments {}", ndjson(with(2, ollCall("call_1", "0", `"get_time"`, `{}`)))),

		hit("ollama/call-split", "same id twice", ndjson(append(base[:3:3], ollCall("call_k2x7q9ma", "0", `"get_weather"`, `{"unit":"c"}`), base[3])), 2, 3),
		hit("ollama/call-split", "same index, no ids", ndjson(append(with(2, ollCall("", "0", `"get_weather"`, `{"city":"Paris"}`))[:3],
			ollCall("", "0", `"get_weather"`, `{"unit":"c"}`), base[3])), 2, 3),
		hit("ollama/call-split", "a nameless piece", ndjson(append(base[:3:3], ollCall("", "", `""`, `{"unit":"c"}`), base[3])), 3),
		miss("ollama/call-split", "two calls, two ids", ndjson(append(base[:3:3], ollCall("call_8fj3v0wd", "1", `"get_local_time"`, `{}`), base[3]))),
		miss("ollama/call-split", "two calls without ids or indexes", ndjson(append(with(2, ollCall("", "", `"a"`, `{}`))[:3], ollCall("", "", `"a"`, `{}`), base[3]))),
		miss("ollama/call-split", "the same id in the next response", ndjson(append(with(3, ollDone(`,"done_reason":"length"`)), ollCall("call_k2x7q9ma", "0", `"get_weather"`, `{}`),
			ollDone(`,"done_reason":"length"`)))),

		hit("ollama/done-reason-unknown", "tool_calls", ndjson(with(3, ollDone(`,"done_reason":"tool_calls"`))), 3),
		hit("ollama/done-reason-unknown", "empty", ndjson(with(3, ollDone(`,"done_reason":""`))), 3),
		miss("ollama/done-reason-unknown", "load", ndjson([]string{ollDone(`,"done_reason":"load"`)})),
		miss("ollama/done-reason-unknown", "none (servers before done_reason)", ndjson(with(3, ollDone(``)))),

		func() ruleCase {
			c := hit("ollama/stop-with-tool-calls", "calls, then stop", ndjson(with(3, ollDone(`,"done_reason":"stop"`))), 3)
			c.sev = sevp(Info)
			return c
		}(),
		miss("ollama/stop-with-tool-calls", "stop without calls", ndjson(append(base[:2:2], ollDone(`,"done_reason":"stop"`)))),
		miss("ollama/stop-with-tool-calls", "generate, stop", gen),

		hit("ollama/done-missing", "cut after the call", ndjson(base[:3]), 2),
		hit("ollama/done-missing", "cut mid-line", ndjson(base[:3])+base[3][:30], 3),
		miss("ollama/done-missing", "an error line ends it", ndjson(append(base[:2:2], `{"error":"an error was encountered while running the model: unexpected EOF"}`))),
		miss("ollama/done-missing", "generate", gen),

		hit("ollama/after-done", "a line after done", ndjson(append(base, ollChat(`,"content":"late"`))), 3, 4),
		hit("ollama/after-done", "an invalid line after done", ndjson(base)+"{\"mess\n", 3, 4),
		miss("ollama/after-done", "blank lines after done", ndjson(base)+"\n"),
	}
}

// TestOllamaWireQuirks: what Ollama does by design stays quiet, under both
// profiles: no [DONE], no event: lines or sequence numbers, NDJSON lines
// that are not SSE, a call whole in one line, done_reason stop after tool
// calls (info at most), arguments escaped as Go escapes them.
func TestOllamaWireQuirks(t *testing.T) {
	t.Parallel()
	stream := ndjson(append(ollBase()[:3:3],
		ollCall("call_8fj3v0wd", "1", `"search"`, `{"q":"\u003cb\u003e \u0026"}`),
		ollDone(`,"done_reason":"stop"`)))
	for _, p := range []Profile{Strict, Tolerant} {
		rep := CheckBytes([]byte(stream), capture.FormatAuto, p)
		if rep.Outcome.State != model.OutcomeCompleted || rep.Outcome.Detail != "stop" {
			t.Errorf("%s: outcome %v; want completed (stop)", p, rep.Outcome)
		}
		for _, f := range rep.Findings {
			if f.Rule != "ollama/stop-with-tool-calls" || f.Severity != Info {
				t.Errorf("%s: finding %s %s: %s; want only the info on stop", p, f.Severity, f.Rule, f.Message)
			}
		}
	}
}

// TestOllamaOutcomes: done_reason stop → completed, length → incomplete,
// an error line → error, no done line → truncated.
func TestOllamaOutcomes(t *testing.T) {
	t.Parallel()
	base := ollBase()
	for _, tt := range []struct {
		name, stream, state, detail string
	}{
		{"stop", ndjson(with(3, ollDone(`,"done_reason":"stop"`))), model.OutcomeCompleted, "stop"},
		{"length", ndjson(base), model.OutcomeIncomplete, "length"},
		{"error line", ndjson(append(base[:2:2], `{"error":"model runner has unexpectedly stopped"}`)), model.OutcomeError, "model runner has unexpectedly stopped"},
		{"no done line", ndjson(base[:3]), model.OutcomeTruncated, "the stream ended without its terminal event"},
	} {
		rep := CheckBytes([]byte(tt.stream), capture.FormatAuto, Strict)
		if rep.Outcome.State != tt.state || rep.Outcome.Detail != tt.detail {
			t.Errorf("%s: outcome %v; want %s (%s)", tt.name, rep.Outcome, tt.state, tt.detail)
		}
	}
}

// FuzzOllamaChecks runs the rules on any input seeded with the Ollama
// cases: they never panic, and the report marshals.
func FuzzOllamaChecks(f *testing.F) {
	for _, tc := range ollamaCases() {
		f.Add([]byte(tc.stream))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []Profile{Strict, Tolerant} {
			rep := CheckBytes(data, capture.FormatAuto, p)
			if _, err := rep.MarshalJSON(); err != nil {
				t.Fatalf("report: %v", err)
			}
		}
	})
}
