package bedrock_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// TestInvokeFamilies: real InvokeModelWithResponseStream bodies of the
// families streamtap once misread (testdata/invoke, whose README says
// where each comes from) assemble their text, one per generation, end as
// their stop reason says, draw no finding, and every chunk is read as its
// family's: none unknown, none flagged. Before, Claude's Text Completions
// were Anthropic events or an unknown model (text "", truncated), Nova's
// last chunk and its deltas beside a guardrail's action were an unknown
// model (a false bedrock/metadata-missing, the guardrail stream's text
// lost and each contentBlockStop an error), AI21 Jamba's metrics chunk an
// unknown model, and Cohere's two generations one joined text.
func TestInvokeFamilies(t *testing.T) {
	cases := []struct {
		file          string
		text          any
		state, detail string
	}{
		{"claude-text-typed__dd-trace-js.eventstream", " The capital of France is Paris.", model.OutcomeCompleted, "stop_sequence"},
		{"claude-text-untyped__dd-trace-py.eventstream", "", model.OutcomeCompleted, "stop_sequence"},
		{"jamba-metrics-chunk__dd-trace-js.eventstream", " The capital of France is Paris.", model.OutcomeCompleted, "stop"},
		{"nova-metadata-metrics__dd-trace-js.eventstream", "The capital city of France is Paris.", model.OutcomeCompleted, "end_turn"},
		{"cohere-two-generations__dd-trace-py.eventstream",
			[]string{" In machine learning and natural language processing, Long Short", " A large language model (LLM) chain refers"},
			model.OutcomeIncomplete, "MAX_TOKENS"},
		{"nova-guardrail-masked__openllmetry.eventstream", "On their first night in the wilderness, the friends gathered around the campfire, sharing stories and laughter. " +
			"As they settled in for the night, they couldn't resist checking the mysterious string {Account Number} they found in their survival kit.",
			model.OutcomeCompleted, "end_turn"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "invoke", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			opts, c := checks.Attach(model.Options{KeepEvents: true})
			s := model.Assemble(data, capture.FormatAuto, opts)
			rep := s.Report()
			dialecttest.SameReportJSON(t, s, rep)
			if rep.Dialect != "bedrock-invoke" || rep.Dialects != nil {
				t.Errorf("dialect = %s %v; want bedrock-invoke alone", rep.Dialect, rep.Dialects)
			}
			if !reflect.DeepEqual(rep.Text, tc.text) {
				t.Errorf("text = %#v; want %#v", rep.Text, tc.text)
			}
			if rep.Outcome.State != tc.state || rep.Outcome.Detail != tc.detail {
				t.Errorf("outcome = %+v; want %s (%s)", rep.Outcome, tc.state, tc.detail)
			}
			for _, f := range c.Report(s, checks.Strict).Findings {
				t.Errorf("finding %s %s %v: %s", f.Severity, f.Rule, f.Events, f.Message)
			}
			_, shaped := dialecttest.ShapeStream(data, capture.FormatAuto)
			for _, e := range shaped {
				if e.WithData != e.Bare {
					t.Errorf("event %d: shape %v from its data, %v from the session", e.Ord, e.WithData, e.Bare)
				}
			}
			for i, ev := range s.Events.All() {
				if ev.Kind == model.KindUnknown || ev.Flags&(model.Orphan|model.NonStandard|model.DecodeError) != 0 {
					t.Errorf("event %d (%s): kind %s, flags %b", i, s.TypeName(ev.Type), ev.Kind, ev.Flags)
				}
				sh := s.Shape(&ev, i, nil)
				if !dialecttest.Explained(sh) || strings.HasSuffix(sh.String(), "/unknown") {
					t.Errorf("event %d: shape %v", i, sh)
				}
			}
		})
	}
}

// TestNovaBlocksFromDeltas: Nova inside InvokeModel may open every text
// block with its first delta (no contentBlockStart), skip an index, and
// put its tool blocks after them, each opened by contentBlockStart; the
// text joins across the blocks, the call is whole, and no rule fires. The
// stream follows the Converse-shaped chunks of AWS's Nova pages
// (https://docs.aws.amazon.com/nova/latest/userguide/using-invoke-api.html)
// in the layout the issue reports from a real stream.
func TestNovaBlocksFromDeltas(t *testing.T) {
	inner := []string{`{"messageStart":{"role":"assistant"}}`}
	words := []string{"Let", " me", " check", " the", " weather."}
	for i, w := range words {
		idx := i
		if i >= 3 {
			idx++ // index 3 is skipped
		}
		inner = append(inner,
			`{"contentBlockDelta":{"delta":{"text":"`+w+`"},"contentBlockIndex":`+itoa(idx)+`}}`,
			`{"contentBlockStop":{"contentBlockIndex":`+itoa(idx)+`}}`)
	}
	inner = append(inner,
		`{"contentBlockStart":{"start":{"toolUse":{"toolUseId":"tooluse_n1","name":"get_weather"}},"contentBlockIndex":6}}`,
		`{"contentBlockDelta":{"delta":{"toolUse":{"input":"{\"city\":\"Paris\"}"}},"contentBlockIndex":6}}`,
		`{"contentBlockStop":{"contentBlockIndex":6}}`,
		`{"messageStop":{"stopReason":"tool_use"}}`,
		`{"metadata":{"usage":{"inputTokens":9,"outputTokens":12},"metrics":{},"trace":{}},"amazon-bedrock-invocationMetrics":{"inputTokenCount":9,"outputTokenCount":12}}`)
	opts, c := checks.Attach(model.Options{KeepEvents: true})
	s := model.Assemble([]byte(chunks(inner...)), capture.FormatAuto, opts)
	rep := s.Report()
	if rep.Text != "Let me check the weather." || len(rep.Calls) != 1 || rep.Calls[0].Name != "get_weather" ||
		rep.Calls[0].Arguments != `{"city":"Paris"}` || rep.Outcome.State != model.OutcomeCompleted || rep.Outcome.Detail != "tool_use" {
		t.Errorf("report = %+v", rep)
	}
	for _, f := range c.Report(s, checks.Strict).Findings {
		t.Errorf("finding %s %s %v: %s", f.Severity, f.Rule, f.Events, f.Message)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
