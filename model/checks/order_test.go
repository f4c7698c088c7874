package checks

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// overCap is an Anthropic message whose tool_use block (event 1) gets 120
// text deltas (events 2–121): 120 anthropic/delta-type-mismatch findings,
// all citing the block's start, so every one is told apart by its delta.
func overCap() string {
	return anthSSE(append(append([][2]string{
		{"message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[]}}`},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`},
	}, slices.Repeat([][2]string{{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`}}, 120)...),
		[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		[2]string{"message_stop", `{"type":"message_stop"}`}))
}

// TestFindingsOrder: a rule over its cap lists its findings in stream
// order of the event each names besides the shared one (event 79 before
// event 1039, not in the string order of their messages), and the finding
// that sums up the rest comes after them, naming each one's event.
func TestFindingsOrder(t *testing.T) {
	t.Parallel()
	rep := CheckBytes([]byte(overCap()), capture.FormatSSE, Strict)
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s %d", f.Rule, f.Key()))
	}
	want := []string{"anthropic/stop-reason-missing" + " 0"}
	for e := 2; e < 2+MaxPerRule; e++ {
		want = append(want, fmt.Sprintf("%s %d", "anthropic/delta-type-mismatch", e))
	}
	want = append(want, "anthropic/delta-type-mismatch"+" 52")
	if !slices.Equal(got, want) {
		t.Fatalf("findings by key =\n%q\nwant\n%q", got, want)
	}
	last := rep.Findings[len(rep.Findings)-1]
	if last.Message != "70 more findings of this rule, at events 52–121" || !slices.Equal(last.Events, every(52, 53, 1, MaxEvents-1)) {
		t.Errorf("overflow = %v %q", last.Events, last.Message)
	}
	if !strings.Contains(rep.Findings[1].Message, "text_delta at event 2 ") {
		t.Errorf("first listed %q; want the delta at event 2", rep.Findings[1].Message)
	}
}

// TestFindingsBySeverity: the worst first, whatever the stream order: a
// warning at event 4 before an info at event 0.
func TestFindingsBySeverity(t *testing.T) {
	t.Parallel()
	stream := chat(func(p []string) []string {
		p[2] = strings.Replace(p[2], `"created":1`, `"created":2`, 1)
		return p[:5]
	})
	rep := CheckBytes([]byte(stream), capture.FormatSSE, Strict)
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s %s %v", f.Severity, f.Rule, f.Events))
	}
	want := []string{"warning chat/done-missing [4]", "info chat/created-changed [0 2 3]"}
	if !slices.Equal(got, want) {
		t.Errorf("findings = %q; want %q", got, want)
	}
}

// The summing-up finding names each dropped finding's event, in runs.
func TestOverflowMessage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		keys []int
		want string
	}{
		{[]int{9}, "1 more finding of this rule, at event 9"},
		{[]int{5, 6, 7, 10, 12, 13}, "6 more findings of this rule, at events 5–7, 10, 12–13"},
		{[]int{4, 4}, "2 more findings of this rule, at event 4"},
	} {
		var rt ruleTally
		for _, k := range tt.keys {
			rt.drop([]int{k}, Error)
		}
		if got := rt.overflowMessage(); got != tt.want {
			t.Errorf("overflowMessage(%v) = %q; want %q", tt.keys, got, tt.want)
		}
	}
	var rt ruleTally
	for k := range maxRuns + 3 {
		rt.drop([]int{2 * k}, Info)
	}
	if got := rt.overflowMessage(); !strings.HasSuffix(got, ", 98 and 3 more events") {
		t.Errorf("past maxRuns: %q", got)
	}
}

// FuzzCheck: any stream, checked, never panics, and its report is well
// formed: every finding has a message, events in order within the stream
// and a key among them, and the findings come worst first.
func FuzzCheck(f *testing.F) {
	for _, tc := range allCases() {
		f.Add([]byte(tc.stream))
	}
	// Each dialect's sound stream (their cases, mutations of these, hold
	// their reports to the same in their packages: dialecttest.Run).
	for _, stream := range []string{respSSE(respBase()), dataSSE(chatBase()), anthSSE(anthBase()), dataSSE(gemBase()),
		dataSSE(gemPartial(`{"functionCall":{}}`, `"finishReason":"STOP"`)), ndjson(ollBase()),
		strings.Join(modeltest.ConvBase(), ""), strings.Join(modeltest.InvokeAnthropic(`""`, `"{\"city\":\"Paris\"}"`), "")} {
		f.Add([]byte(stream))
	}
	f.Add([]byte(overCap()))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := assembleChecked(data)
		rep := s.rep
		for i, x := range rep.Findings {
			if x.Message == "" || !slices.IsSorted(x.Events) || len(x.Events) > MaxEvents {
				t.Fatalf("finding %d %v: want a message and at most %d events in order", i, x, MaxEvents)
			}
			if len(x.Events) > 0 && (x.Events[0] < 0 || x.Events[len(x.Events)-1] >= s.n) {
				t.Fatalf("finding %d %v cites an event outside the stream's %d", i, x, s.n)
			}
			if k := x.Key(); len(x.Events) > 0 && !slices.Contains(x.Events, k) {
				t.Fatalf("finding %d %v: key %d is not one of its events", i, x, k)
			}
			if i > 0 && x.Severity > rep.Findings[i-1].Severity {
				t.Fatalf("finding %d (%s) after a %s one", i, x.Severity, rep.Findings[i-1].Severity)
			}
		}
	})
}

type checked struct {
	rep Report
	n   int // events in the stream
}

func assembleChecked(data []byte) checked {
	opts, c := Attach(model.Options{})
	s := model.Assemble(data, capture.FormatAuto, opts)
	return checked{c.Report(s, Strict), s.Len()}
}
