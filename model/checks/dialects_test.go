package checks

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// TestRulesRegistered holds the rule registry to the model's dialects:
// every dialect has rules, named for it, and no rules belong to a dialect
// the model does not know.
func TestRulesRegistered(t *testing.T) {
	known := map[model.Dialect]bool{}
	for _, d := range model.AllDialects() {
		known[d] = true
		r := rulesOf(d)
		if r == nil {
			t.Errorf("dialect %s has no rules registered", d)
			continue
		}
		if len(r.Rules) == 0 {
			t.Errorf("dialect %s registers no rule", d)
		}
		if r.New == nil || r.New() == nil {
			t.Errorf("dialect %s's rules remember nothing: new is missing", d)
		}
		short := d.Info().Short
		for _, rule := range r.Rules {
			if rule.Dialect != short || !strings.HasPrefix(rule.ID, short+"/") {
				t.Errorf("dialect %s registers rule %s (dialect %q); want ids %s/…", d, rule.ID, rule.Dialect, short)
			}
		}
	}
	for i, r := range dialects {
		if !known[r.dialect] {
			t.Errorf("rules %d are registered for %s, which the model does not know", i, r.dialect)
		}
		if slices.IndexFunc(dialects, func(o *DialectRules) bool { return o.dialect == r.dialect }) != i {
			t.Errorf("dialect %s has rules registered twice", r.dialect)
		}
		if r.AfterDone != "" && ruleByID[r.AfterDone] == nil {
			t.Errorf("dialect %s: afterDone names unknown rule %s", r.dialect, r.AfterDone)
		}
	}
	n := len(framingRules) + len(requestRules)
	for _, r := range dialects {
		n += len(r.Rules)
	}
	if len(Rules()) != n {
		t.Errorf("Rules() lists %d rules; the transport and the dialects register %d", len(Rules()), n)
	}
}

// echoChecks is a made-up dialect's rules: one finding for the first event
// it observes, one at the end for every item it saw.
type echoChecks struct {
	Base
	first, items int
	seen         bool
}

func (e *echoChecks) NewItem(*model.Item, int) { e.items++ }

func (e *echoChecks) Observe(c *Checker, _ *model.Session, ord int, _ *model.Event, _ *capture.Frame) {
	if !e.seen {
		e.seen, e.first = true, ord
		c.Add("echo/first", []int{ord}, "event %d is the first the echo rules see", ord)
	}
}

func (e *echoChecks) Finish(out *Checker, _ *model.Session, _ bool) {
	out.Add("echo/items", []int{e.first}, "%d items", e.items)
}

// registerRules swaps the registered rules for rs for the rest of the
// test. A test that calls it must not run in parallel with others.
func registerRules(t *testing.T, rs ...*DialectRules) {
	t.Helper()
	saved, savedTable, savedByID := dialects, table, ruleByID
	dialects = rs
	table, ruleByID = indexRules()
	t.Cleanup(func() { dialects, table, ruleByID = saved, savedTable, savedByID })
}

// TestDialectRulesRegistration registers a rule set in place of Gemini's
// and checks the Gemini sample: the Checker observes, remembers and
// reports through whatever is registered, so a dialect's rules need their
// files and one line in model/dialects, nothing in the Checker.
func TestDialectRulesRegistration(t *testing.T) {
	data, err := samples.Open("gemini-call")
	if err != nil {
		t.Fatal(err)
	}
	gemini, _ := model.Lookup("gemini")
	echo := DialectRules{
		dialect: gemini,
		New:     func() Judge { return new(echoChecks) },
		Rules: []Rule{
			NewRule("echo/first", Info, Info, "the first event the echo rules see"),
			NewRule("echo/items", Warning, Info, "how many items the echo rules saw"),
		},
	}
	var rs []*DialectRules
	for _, r := range dialects {
		if r.dialect != gemini {
			rs = append(rs, r)
		}
	}
	registerRules(t, append(rs, &echo)...)
	rep := CheckBytes(data, capture.FormatAuto, Strict)
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Rule+" "+f.Severity.String()+" "+f.Message)
	}
	want := []string{"echo/items warning 2 items", "echo/first info event 0 is the first the echo rules see"} // its text and its call; the worst first
	if !slices.Equal(got, want) {
		t.Errorf("findings %q; want %q", got, want)
	}
	ids := []string{}
	for _, r := range Rules() {
		ids = append(ids, r.ID)
	}
	if !slices.Contains(ids, "echo/items") || slices.Contains(ids, "gemini/partial-args-no-end-marker") {
		t.Errorf("Rules() = %v; want the echo rules in place of Gemini's", ids)
	}
}
