package checks

// What the checks' external tests (package checks_test, which may import
// model/internal/dialecttest) need of the package's unexported state.

// RuleCase is a case of allCases (the transport's and the request's
// rules) in exported fields: dialecttest.Case's, which package checks
// cannot import.
type RuleCase struct {
	Rule, Name, Stream string
	Hit                bool
	Events             []int
	Sev                *Severity
	Request            string
}

// AllCases are allCases, for TestRules and TestEveryRuleTested.
func AllCases() []RuleCase {
	var out []RuleCase
	for _, tc := range allCases() {
		out = append(out, RuleCase{Rule: tc.rule, Name: tc.name, Stream: tc.stream, Hit: tc.hit, Events: tc.events, Sev: tc.sev, Request: tc.request})
	}
	return out
}
