package checks

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// checkSample checks an embedded sample with cfg applied.
func checkSample(t *testing.T, name string, p Profile, cfg Config) Report {
	t.Helper()
	data, err := samples.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	opts, c := Attach(model.Options{})
	c.SetConfig(cfg)
	s := model.Assemble(data, capture.FormatAuto, opts)
	return c.Report(s, p)
}

// ruleSeverities lists a report's findings as "rule=severity".
func ruleSeverities(r Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Rule+"="+f.Severity.String())
	}
	return out
}

func mustConfig(t *testing.T, edits ...func(*Config) error) Config {
	t.Helper()
	var c Config
	for _, e := range edits {
		if err := e(&c); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func disable(p string) func(*Config) error { return func(c *Config) error { return c.Disable(p) } }
func regrade(p string, s Severity) func(*Config) error {
	return func(c *Config) error { return c.SetSeverity(p, s) }
}

// TestConfigReport holds SetConfig to what it promises on a real stream
// (broken-sequence-gap: an info responses/seq-gap and an error
// responses/text-done-mismatch): disabled rules' findings are gone, the
// others regraded under either profile, the last change to name a rule
// wins, and the outcome is untouched.
func TestConfigReport(t *testing.T) {
	t.Parallel()
	const sample = "broken-sequence-gap.sse"
	tests := []struct {
		name    string
		profile Profile
		cfg     Config
		want    []string
	}{
		{"none", Strict, Config{}, []string{"responses/seq-gap=info", "responses/text-done-mismatch=error"}},
		{"disable one", Strict, mustConfig(t, disable("responses/seq-gap")), []string{"responses/text-done-mismatch=error"}},
		{"disable a prefix", Strict, mustConfig(t, disable("responses/*")), nil},
		{"other prefix", Strict, mustConfig(t, disable("chat/*")), []string{"responses/seq-gap=info", "responses/text-done-mismatch=error"}},
		{"lower", Strict, mustConfig(t, regrade("responses/text-done-mismatch", Warning)), []string{"responses/seq-gap=info", "responses/text-done-mismatch=warning"}},
		{"raise over the tolerant profile", Tolerant, mustConfig(t, regrade("responses/seq-gap", Error)), []string{"responses/seq-gap=error", "responses/text-done-mismatch=error"}},
		{"severity after disable turns it on", Strict, mustConfig(t, disable("responses/*"), regrade("responses/seq-gap", Warning)), []string{"responses/seq-gap=warning"}},
		{"disable after severity wins", Strict, mustConfig(t, regrade("responses/seq-gap", Warning), disable("responses/seq-gap")), []string{"responses/text-done-mismatch=error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := checkSample(t, sample, tt.profile, tt.cfg)
			got := ruleSeverities(r)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings = %v; want %v", got, tt.want)
			}
			if r.Outcome.State != "completed" {
				t.Errorf("outcome = %q; want completed", r.Outcome.State)
			}
		})
	}
}

// TestConfigThen: a command line's changes (next) win over a file's.
func TestConfigThen(t *testing.T) {
	t.Parallel()
	file := mustConfig(t, disable("responses/seq-gap"), regrade("responses/text-done-mismatch", Info))
	flags := mustConfig(t, regrade("responses/seq-gap", Warning))
	both := file.Then(flags)
	if sev, on := both.Grade("responses/seq-gap", Info); !on || sev != Warning {
		t.Errorf("Grade(seq-gap) = %v, %v; want warning, true", sev, on)
	}
	if sev, on := both.Grade("responses/text-done-mismatch", Error); !on || sev != Info {
		t.Errorf("Grade(text-done-mismatch) = %v, %v; want info, true", sev, on)
	}
	if sev, on := both.Grade("chat/tool-index-collision", Error); !on || sev != Error {
		t.Errorf("Grade(an unchanged rule) = %v, %v; want error, true", sev, on)
	}
	if _, on := file.Grade("responses/seq-gap", Info); on {
		t.Error("Then changed its receiver")
	}
	if !(Config{}).IsZero() || both.IsZero() {
		t.Error("IsZero is wrong")
	}
}

// TestConfigRefusesUnknownRules: a typo must not leave a rule on silently.
func TestConfigRefusesUnknownRules(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", "chat/no-such-rule", "nope/*", "chat", "chat/", "*", "chat/identity-changed/*"} {
		var c Config
		if err := c.Disable(p); err == nil {
			t.Errorf("Disable(%q) = nil; want an error", p)
		}
		if err := c.SetSeverity(p, Info); err == nil {
			t.Errorf("SetSeverity(%q) = nil; want an error", p)
		}
		if !c.IsZero() {
			t.Errorf("a refused pattern %q was kept", p)
		}
	}
	var c Config
	err := c.Disable("nope/*")
	if err == nil || !strings.Contains(err.Error(), "chat/*") {
		t.Errorf("Disable(nope/*) = %v; want the prefixes listed", err)
	}
	if err := c.SetSeverity("chat/identity-changed", Severity(7)); err == nil {
		t.Error("SetSeverity accepted severity 7")
	}
}

// TestConfigEffective: what `streamtap rules` shows.
func TestConfigEffective(t *testing.T) {
	t.Parallel()
	seqGap := *ruleByID["responses/seq-missing"] // warning, info under tolerant
	if seqGap.Severity == seqGap.Tolerant {
		t.Fatalf("responses/seq-missing grades alike under both profiles (%v): pick another rule", seqGap.Severity)
	}
	var none Config
	if sev, on := none.Effective(seqGap, Strict); !on || sev != seqGap.Severity {
		t.Errorf("strict: %v, %v; want %v", sev, on, seqGap.Severity)
	}
	if sev, on := none.Effective(seqGap, Tolerant); !on || sev != seqGap.Tolerant {
		t.Errorf("tolerant: %v, %v; want %v", sev, on, seqGap.Tolerant)
	}
	c := mustConfig(t, regrade("responses/*", Warning))
	if sev, on := c.Effective(seqGap, Tolerant); !on || sev != Warning {
		t.Errorf("overridden: %v, %v; want warning", sev, on)
	}
	if !c.Changed("responses/seq-missing") || c.Changed("chat/identity-changed") {
		t.Error("Changed is wrong")
	}
	c = mustConfig(t, disable("responses/seq-missing"))
	if _, on := c.Effective(seqGap, Strict); on {
		t.Error("a disabled rule is on")
	}
}
