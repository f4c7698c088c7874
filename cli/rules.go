package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/suite"
	"github.com/streamtap/streamtap/termtext"
)

// rulesAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const rulesAbout = `Lists every rule the checks know: id, severity in the strict profile (and
in the tolerant one when it differs), summary. docs/rules.md explains each.

When a config file (.streamtap.yaml, found from the working directory up, or
--config FILE), --disable, --severity or --profile changes how check grades
the rules, the severity shown is the one check gives: "off" for a rule
turned off, and a * on each rule the config or the flags changed.
`

// rulesOptions are the flags of `streamtap rules`.
type rulesOptions struct {
	json    bool
	profile string
	rules   ruleFlags
}

func rulesFlags() *flag.FlagSet { return rulesFlagSet(new(rulesOptions)) }

func rulesFlagSet(o *rulesOptions) *flag.FlagSet {
	fs := newFlagSet("rules")
	fs.BoolVar(&o.json, "json", false, "print a JSON array of {id, dialect, severity, tolerant, summary, refs, effective}")
	fs.StringVar(&o.profile, "profile", "", "show the severities check gives under `PROFILE`: strict (the default) or tolerant")
	defineRuleFlags(fs, &o.rules, "from the working directory up")
	return fs
}

// rulesCommand lists the rules of the checks.
func rulesCommand() command {
	return command{name: "rules", summary: "every rule the checks know", about: rulesAbout, flags: rulesFlags, run: runRules,
		noSample: "rules takes no --sample: it lists the rules (check a sample with streamtap check --sample NAME)"}
}

// runRules implements `streamtap rules [--json]`: every rule with its
// severity under each profile and its summary.
func runRules(_ context.Context, args []string, _ *os.File, stdout, stderr io.Writer) error {
	var o rulesOptions
	positional, err := parseInterspersed(rulesFlagSet(&o), args)
	if err != nil {
		return usageError("rules", err)
	}
	if len(positional) > 0 {
		return usageError("rules", fmt.Errorf("rules takes no arguments (got %s)", strings.Join(positional, " ")))
	}
	profile := checks.Strict
	if o.profile != "" {
		if profile, err = checks.ParseProfile(o.profile); err != nil {
			return usageError("rules", fmt.Errorf("--profile: %w", err))
		}
	}
	o.rules.configs.PassedOver = passedOver(stderr)
	file, err := o.rules.fileFor("")
	if err != nil {
		return commandError("rules", err)
	}
	if file.Profile != nil && o.profile == "" {
		profile = *file.Profile
	}
	cfg := file.Rules.Then(o.rules.edits)
	effective := func(r checks.Rule) string {
		sev, on := cfg.Effective(r, profile)
		if !on {
			return "off"
		}
		return sev.String()
	}
	rules := checks.Rules()
	w := bufio.NewWriter(stdout)
	if o.json {
		type ruleJSON struct {
			ID       string          `json:"id"`
			Dialect  string          `json:"dialect"`
			Severity checks.Severity `json:"severity"`
			Tolerant checks.Severity `json:"tolerant"`
			Summary  string          `json:"summary"`
			Refs     []string        `json:"refs"`
			// Effective is what check grades the rule's findings under
			// --profile and the config: a severity, or "off".
			Effective string `json:"effective"`
		}
		out := make([]ruleJSON, len(rules))
		for i, r := range rules {
			refs := r.Refs
			if refs == nil {
				refs = []string{}
			}
			out[i] = ruleJSON{r.ID, r.Dialect, r.Severity, r.Tolerant, r.Summary, refs, effective(r)}
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
	} else {
		width := 0
		for _, r := range rules {
			width = max(width, len(r.ID))
		}
		changed := !cfg.IsZero() || o.profile != "" || file.Profile != nil
		for _, r := range rules {
			sev := r.Severity.String()
			switch {
			case changed:
				sev = effective(r)
				if cfg.Changed(r.ID) {
					sev += "*"
				}
			case r.Tolerant != r.Severity:
				sev += "/" + r.Tolerant.String()
			}
			fmt.Fprintf(w, "%-*s  %-13s  %s\n", width, r.ID, sev, r.Summary)
		}
		if changed {
			fmt.Fprintf(w, "\nseverity: as check grades it under the %s profile%s (* changed there; off: turned off).\n", profile, rulesSources(&o.rules, file, cfg))
		} else {
			fmt.Fprintln(w, "\nseverity: strict profile, then tolerant when it differs (error/info).")
		}
	}
	if err := w.Flush(); err != nil {
		return exitStatus(statusError) // stdout is gone: nowhere to say more
	}
	return nil
}

// rulesSources says where the rule changes `rules` shows come from: " with
// FILE and the command line", or "" when none.
func rulesSources(rf *ruleFlags, file suite.Config, cfg checks.Config) string {
	var from []string
	if file.Path != "" && (!cfg.IsZero() || file.Profile != nil) {
		from = append(from, termtext.Safe(file.Path))
	}
	if !rf.edits.IsZero() {
		from = append(from, "the command line")
	}
	if len(from) == 0 {
		return ""
	}
	return " with " + strings.Join(from, " and ")
}
