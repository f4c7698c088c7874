package plain

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"testing"

	"github.com/streamtap/streamtap/model"
)

// statusChangeWalk is statusChange as it was: a walk over every response
// for every event (quadratic in the responses of a stream), kept as the
// reference the search must agree with.
func statusChangeWalk(s *model.Session, ord int) string {
	for _, r := range s.Responses {
		if ord < r.First {
			continue
		}
		for _, cf := range r.Finish {
			for _, c := range cf.Reasons {
				if c.Ordinal == ord {
					if cf.Choice > 0 {
						return fmt.Sprintf("choice %d finish %s", cf.Choice, SafeLabel(c.Value))
					}
					return "finish " + SafeLabel(c.Value)
				}
			}
		}
	}
	for _, r := range s.Responses {
		if ord < r.First {
			continue
		}
		for i, c := range r.Status {
			if c.Ordinal == ord {
				if i > 0 {
					return "status " + SafeLabel(r.Status[i-1].Value) + "→" + SafeLabel(c.Value)
				}
				return "status " + SafeLabel(c.Value)
			}
		}
	}
	return ""
}

var responseID = regexp.MustCompile(`"id": ?"([^"]*)"`)

// TestStatusChangeManyResponses holds the search for the change an event
// made to the walk it replaced, on streams of many responses of each
// dialect (several choices, errors, cut responses among them).
func TestStatusChangeManyResponses(t *testing.T) {
	for _, name := range []string{
		"anthropic-text-then-tool", "chat-parallel-calls", "chat-single-call", "broken-chat-all-index-0",
		"gemini-call", "responses-single-call", "broken-cut-before-terminal", "ollama-chat-tool-calls",
	} {
		t.Run(name, func(t *testing.T) {
			one := append(bytes.TrimRight(sampleBytes(t, name), "\n"), "\n\n"...)
			var data []byte
			for i := range 5 {
				// each copy its own ids, so that the copies are five
				// responses of one stream whatever the dialect keys them by
				data = append(data, responseID.ReplaceAll(one, fmt.Appendf(nil, `"id":"${1}-%d"`, i))...)
			}
			s := newSession(data)
			if len(s.Responses) < 2 {
				t.Skipf("%s repeated makes %d responses", name, len(s.Responses))
			}
			changes := 0
			for ord := range s.Len() {
				got, want := statusChange(s, ord), statusChangeWalk(s, ord)
				if got != want {
					t.Errorf("statusChange(%d) = %q; want %q", ord, got, want)
				}
				if want != "" {
					changes++
				}
			}
			if changes == 0 {
				t.Errorf("no event of %d responses changed a status: the test compares nothing", len(s.Responses))
			}
		})
	}
}

// BenchmarkTimelineManyResponses writes the timeline of streams of 1,000
// and 10,000 Anthropic responses: the time per event stays flat (the
// search), where the walk made it grow with the responses.
func BenchmarkTimelineManyResponses(b *testing.B) {
	one := append(bytes.TrimRight(sampleBytes(b, "anthropic-text-then-tool"), "\n"), "\n\n"...)
	for _, n := range []int{1000, 10000} {
		var data []byte
		for i := range n {
			data = append(data, responseID.ReplaceAll(one, fmt.Appendf(nil, `"id":"${1}-%d"`, i))...)
		}
		s := newSession(data)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				for ord := range s.Len() {
					_ = WriteTimelineLine(io.Discard, s, s.Events.At(ord), ord, 0, nil)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*s.Len()), "ns/event")
		})
	}
}
