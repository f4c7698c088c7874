package checks_test

import (
	"testing"

	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// The transport's and the request's rules run their cases (checks_test.go,
// eventstream_test.go, request_test.go) as each dialect's package runs its
// own: with dialecttest's runner.

// cases are the package's cases as dialecttest's.
func cases() []dialecttest.Case {
	var out []dialecttest.Case
	for _, tc := range checks.AllCases() {
		out = append(out, dialecttest.Case{Rule: tc.Rule, Name: tc.Name, Stream: tc.Stream, Hit: tc.Hit, Events: tc.Events, Sev: tc.Sev, Request: tc.Request})
	}
	return out
}

func TestRules(t *testing.T) {
	t.Parallel()
	dialecttest.Run(t, cases())
}

// TestEveryRuleTested holds the table to the promise that every rule has a
// stream that triggers it and a near miss that does not: the transport's
// and the request's rules here, each dialect's in its package (its
// TestEveryRuleTested, by dialecttest.EveryRuleTested).
func TestEveryRuleTested(t *testing.T) {
	var rules []checks.Rule
	for _, r := range checks.Rules() {
		if r.Dialect == "framing" || r.Dialect == "request" {
			rules = append(rules, r)
		}
	}
	dialecttest.EveryRuleTested(t, rules, cases())
}
