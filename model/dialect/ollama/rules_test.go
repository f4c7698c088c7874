package ollama_test

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/dialect/ollama"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// TestRules runs the rules' trigger and near-miss cases.
func TestRules(t *testing.T) {
	t.Parallel()
	dialecttest.Run(t, cases())
}

// TestEveryRuleTested: every rule of the dialect has a case that
// triggers it and a near miss.
func TestEveryRuleTested(t *testing.T) {
	dialecttest.EveryRuleTested(t, ollama.Rules.Rules, cases())
}

// with replaces line i of the base.
func with(i int, line string) []string {
	b := modeltest.OllBase()
	b[i] = line
	return b
}

func cases() []dialecttest.Case {
	gen := `{"model":"llama3","created_at":"2024-05-24T21:02:00.855283Z","response":"A","done":false}` + "\n" +
		`{"model":"llama3","created_at":"2024-05-24T21:02:02.699896Z","response":"","done":true,"done_reason":"stop","context":[1,2]}` + "\n"
	base := modeltest.OllBase()
	return []dialecttest.Case{
		dialecttest.Hit("ollama/blank-line", "blank line between lines", modeltest.NDJSON(base[:2])+"\n"+modeltest.NDJSON(base[2:]), 2),
		dialecttest.Hit("ollama/blank-line", "blank lines at the end", modeltest.NDJSON(base)+"\n\n", 4),
		dialecttest.Hit("ollama/blank-line", "blank line before an invalid line", modeltest.NDJSON(base[:2])+"\n{\"mess\n"+modeltest.NDJSON(base[2:]), 2),
		dialecttest.Miss("ollama/blank-line", "every line ended once", modeltest.NDJSON(base)),

		dialecttest.Hit("ollama/args-not-object", "arguments as a string", modeltest.NDJSON(with(2, modeltest.OllCall("call_1", "0", `"get_weather"`, `"{\"city\":\"Paris\"}"`))), 2),
		dialecttest.Hit("ollama/args-not-object", "no arguments", modeltest.NDJSON(with(2, strings.Replace(modeltest.OllCall("call_1", "0", `"f"`, `{}`), `,"arguments":{}`, ``, 1))), 2),
		dialecttest.Miss("ollama/args-not-object", "arguments {}", modeltest.NDJSON(with(2, modeltest.OllCall("call_1", "0", `"get_time"`, `{}`)))),

		dialecttest.Hit("ollama/call-split", "same id twice", modeltest.NDJSON(append(base[:3:3], modeltest.OllCall("call_k2x7q9ma", "0", `"get_weather"`, `{"unit":"c"}`), base[3])), 2, 3),
		dialecttest.Hit("ollama/call-split", "same index, no ids", modeltest.NDJSON(append(with(2, modeltest.OllCall("", "0", `"get_weather"`, `{"city":"Paris"}`))[:3],
			modeltest.OllCall("", "0", `"get_weather"`, `{"unit":"c"}`), base[3])), 2, 3),
		dialecttest.Hit("ollama/call-split", "a nameless piece", modeltest.NDJSON(append(base[:3:3], modeltest.OllCall("", "", `""`, `{"unit":"c"}`), base[3])), 3),
		dialecttest.Miss("ollama/call-split", "two calls, two ids", modeltest.NDJSON(append(base[:3:3], modeltest.OllCall("call_8fj3v0wd", "1", `"get_local_time"`, `{}`), base[3]))),
		dialecttest.Miss("ollama/call-split", "two calls without ids or indexes", modeltest.NDJSON(append(with(2, modeltest.OllCall("", "", `"a"`, `{}`))[:3], modeltest.OllCall("", "", `"a"`, `{}`), base[3]))),
		dialecttest.Miss("ollama/call-split", "the same id in the next response", modeltest.NDJSON(append(with(3, modeltest.OllDone(`,"done_reason":"length"`)), modeltest.OllCall("call_k2x7q9ma", "0", `"get_weather"`, `{}`),
			modeltest.OllDone(`,"done_reason":"length"`)))),

		dialecttest.Hit("ollama/done-reason-unknown", "tool_calls", modeltest.NDJSON(with(3, modeltest.OllDone(`,"done_reason":"tool_calls"`))), 3),
		dialecttest.Hit("ollama/done-reason-unknown", "empty", modeltest.NDJSON(with(3, modeltest.OllDone(`,"done_reason":""`))), 3),
		dialecttest.Miss("ollama/done-reason-unknown", "load", modeltest.NDJSON([]string{modeltest.OllDone(`,"done_reason":"load"`)})),
		dialecttest.Miss("ollama/done-reason-unknown", "none (servers before done_reason)", modeltest.NDJSON(with(3, modeltest.OllDone(``)))),

		func() dialecttest.Case {
			c := dialecttest.Hit("ollama/stop-with-tool-calls", "calls, then stop", modeltest.NDJSON(with(3, modeltest.OllDone(`,"done_reason":"stop"`))), 3)
			c.Sev = dialecttest.Sev(checks.Info)
			return c
		}(),
		dialecttest.Miss("ollama/stop-with-tool-calls", "stop without calls", modeltest.NDJSON(append(base[:2:2], modeltest.OllDone(`,"done_reason":"stop"`)))),
		dialecttest.Miss("ollama/stop-with-tool-calls", "generate, stop", gen),

		dialecttest.Hit("ollama/done-missing", "cut after the call", modeltest.NDJSON(base[:3]), 2),
		dialecttest.Hit("ollama/done-missing", "cut mid-line", modeltest.NDJSON(base[:3])+base[3][:30], 3),
		dialecttest.Miss("ollama/done-missing", "an error line ends it", modeltest.NDJSON(append(base[:2:2], `{"error":"an error was encountered while running the model: unexpected EOF"}`))),
		dialecttest.Miss("ollama/done-missing", "generate", gen),

		dialecttest.Hit("ollama/after-done", "a line after done", modeltest.NDJSON(append(base, modeltest.OllChat(`,"content":"late"`))), 3, 4),
		dialecttest.Hit("ollama/after-done", "an invalid line after done", modeltest.NDJSON(base)+"{\"mess\n", 3, 4),
		dialecttest.Miss("ollama/after-done", "blank lines after done", modeltest.NDJSON(base)+"\n"),
	}
}

// TestOllamaWireQuirks: what Ollama does by design stays quiet, under both
// profiles: no [DONE], no event: lines or sequence numbers, NDJSON lines
// that are not SSE, a call whole in one line, done_reason stop after tool
// calls (info at most), arguments escaped as Go escapes them.
func TestOllamaWireQuirks(t *testing.T) {
	t.Parallel()
	stream := modeltest.NDJSON(append(modeltest.OllBase()[:3:3],
		modeltest.OllCall("call_8fj3v0wd", "1", `"search"`, `{"q":"\u003cb\u003e \u0026"}`),
		modeltest.OllDone(`,"done_reason":"stop"`)))
	for _, p := range []checks.Profile{checks.Strict, checks.Tolerant} {
		rep := checks.CheckBytes([]byte(stream), capture.FormatAuto, p)
		if rep.Outcome.State != model.OutcomeCompleted || rep.Outcome.Detail != "stop" {
			t.Errorf("%s: outcome %v; want completed (stop)", p, rep.Outcome)
		}
		for _, f := range rep.Findings {
			if f.Rule != "ollama/stop-with-tool-calls" || f.Severity != checks.Info {
				t.Errorf("%s: finding %s %s: %s; want only the info on stop", p, f.Severity, f.Rule, f.Message)
			}
		}
	}
}

// TestOllamaOutcomes: done_reason stop → completed, length → incomplete,
// an error line → error, no done line → truncated.
func TestOllamaOutcomes(t *testing.T) {
	t.Parallel()
	base := modeltest.OllBase()
	for _, tt := range []struct {
		name, stream, state, detail string
	}{
		{"stop", modeltest.NDJSON(with(3, modeltest.OllDone(`,"done_reason":"stop"`))), model.OutcomeCompleted, "stop"},
		{"length", modeltest.NDJSON(base), model.OutcomeIncomplete, "length"},
		{"error line", modeltest.NDJSON(append(base[:2:2], `{"error":"model runner has unexpectedly stopped"}`)), model.OutcomeError, "model runner has unexpectedly stopped"},
		{"no done line", modeltest.NDJSON(base[:3]), model.OutcomeTruncated, "the stream ended without its terminal event"},
	} {
		rep := checks.CheckBytes([]byte(tt.stream), capture.FormatAuto, checks.Strict)
		if rep.Outcome.State != tt.state || rep.Outcome.Detail != tt.detail {
			t.Errorf("%s: outcome %v; want %s (%s)", tt.name, rep.Outcome, tt.state, tt.detail)
		}
	}
}

// FuzzOllamaChecks runs the rules on any input seeded with the Ollama
// cases: they never panic, and the report marshals.
func FuzzOllamaChecks(f *testing.F) {
	for _, tc := range cases() {
		f.Add([]byte(tc.Stream))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []checks.Profile{checks.Strict, checks.Tolerant} {
			rep := checks.CheckBytes(data, capture.FormatAuto, p)
			if _, err := rep.MarshalJSON(); err != nil {
				t.Fatalf("report: %v", err)
			}
		}
	})
}
