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

// Validated is how many calls c held to their declarations: a run of the
// request rules that judged none proves nothing
// (TestRequestRulesOnRealArchives).
func Validated(c *Checker) int { return len(c.req.verdicts) }

// ServerCall reports whether it is a call the provider's server runs
// (the request rules judge only the client's).
var ServerCall = serverCall

// QUndeclared is the rule a client call fires when the request declared
// no such tool.
const QUndeclared = qUndeclared
