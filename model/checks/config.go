package checks

import (
	"fmt"
	"strings"
)

// Config is what a user changed of the rules: rules turned off and rules
// given another severity, as check's --disable and --severity flags and
// its config file say. The zero Config changes nothing.
//
// Changes are kept in the order they were made and the last one that
// names a rule wins, so a command line applied after a config file
// overrides it: a file that disables a rule and a --severity that grades
// it turn it back on. A Config is a value; its methods that change it take
// a pointer, the others copy nothing.
type Config struct {
	changes []ruleChange
}

// ruleChange is one change: the rules a pattern names turned off, or
// given a severity.
type ruleChange struct {
	pattern string
	off     bool
	sev     Severity
}

// Disable turns off the rules pattern names: one rule id
// ("chat/identity-changed") or every rule of a prefix ("chat/*"). A
// pattern that names no rule is an error: a typo would otherwise leave
// the rule on without a word.
func (c *Config) Disable(pattern string) error {
	if err := checkPattern(pattern); err != nil {
		return err
	}
	c.changes = append(c.changes, ruleChange{pattern: pattern, off: true})
	return nil
}

// SetSeverity grades every finding of the rules pattern names (as
// Disable's) at sev, under either profile, and turns them on again if an
// earlier change disabled them.
func (c *Config) SetSeverity(pattern string, sev Severity) error {
	if err := checkPattern(pattern); err != nil {
		return err
	}
	if sev > Error {
		return fmt.Errorf("unknown severity %d", sev)
	}
	c.changes = append(c.changes, ruleChange{pattern: pattern, sev: sev})
	return nil
}

// Then returns c's changes followed by next's: next wins where both name
// a rule.
func (c Config) Then(next Config) Config {
	all := make([]ruleChange, 0, len(c.changes)+len(next.changes))
	return Config{changes: append(append(all, c.changes...), next.changes...)}
}

// IsZero says whether c changes nothing.
func (c Config) IsZero() bool { return len(c.changes) == 0 }

// Grade returns the severity a finding of rule, graded sev by its rule
// and the profile, has under c, and false when c turns the rule off.
func (c Config) Grade(rule string, sev Severity) (Severity, bool) {
	for i := len(c.changes) - 1; i >= 0; i-- {
		ch := c.changes[i]
		if !matches(ch.pattern, rule) {
			continue
		}
		if ch.off {
			return sev, false
		}
		return ch.sev, true
	}
	return sev, true
}

// Effective is the severity r's findings get under profile p and c, for
// `streamtap rules`: the rule's grade under the profile, or the one c
// gives it; false when c turns it off. (A few rules grade one documented
// case lower than their severity; c's severity replaces that grade too.)
func (c Config) Effective(r Rule, p Profile) (Severity, bool) {
	sev := r.Severity
	if p == Tolerant {
		sev = min(sev, r.Tolerant)
	}
	return c.Grade(r.ID, sev)
}

// Changed says whether c names rule id at all.
func (c Config) Changed(id string) bool {
	for _, ch := range c.changes {
		if matches(ch.pattern, id) {
			return true
		}
	}
	return false
}

// SetConfig makes Report apply cfg: the findings of the rules it turns
// off are dropped, the others graded as it says, before the report is
// ordered. The outcome is untouched: cfg governs findings only.
func (c *Checker) SetConfig(cfg Config) { c.cfg = cfg }

// Config is the configuration SetConfig gave (the zero Config when none):
// a session modelled again is judged as the first was.
func (c *Checker) Config() Config { return c.cfg }

// matches says whether pattern names rule id: the id itself, or "p/*"
// for an id that starts with "p/".
func matches(pattern, id string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "/*"); ok {
		rest, ok := strings.CutPrefix(id, prefix)
		return ok && strings.HasPrefix(rest, "/")
	}
	return pattern == id
}

// checkPattern refuses a pattern that names no rule.
func checkPattern(pattern string) error {
	if pattern == "" {
		return fmt.Errorf("empty rule id")
	}
	for _, r := range table {
		if matches(pattern, r.ID) {
			return nil
		}
	}
	if strings.HasSuffix(pattern, "/*") {
		return fmt.Errorf("%q names no rule ('streamtap rules' lists them; a prefix is one of %s)", pattern, strings.Join(prefixes(), ", "))
	}
	return fmt.Errorf("unknown rule %q ('streamtap rules' lists them)", pattern)
}

// prefixes lists the rule ids' prefixes, each as a pattern ("chat/*").
func prefixes() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range table {
		if !seen[r.Dialect] {
			seen[r.Dialect] = true
			out = append(out, r.Dialect+"/*")
		}
	}
	return out
}
