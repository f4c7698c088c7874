package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/docs"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/suite"
	"github.com/streamtap/streamtap/termtext"
)

// rulesAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const rulesAbout = `Lists every rule the checks know: id, severity in the strict profile (and
in the tolerant one when it differs), summary. docs/rules.md explains each.

With RULE ids (or PREFIX/* for a dialect's), prints what docs/rules.md says
of each instead: what is on the wire, what it breaks, where it was seen, how
to fix it (the binary carries the page), and the address of its section.

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
	fs.BoolVar(&o.json, "json", false, "print a JSON array of {id, dialect, severity, tolerant, summary, refs, effective, help_uri} (with RULEs, \"doc\" too: the rule's section)")
	fs.StringVar(&o.profile, "profile", "", "show the severities check gives under `PROFILE`: strict (the default) or tolerant")
	defineRuleFlags(fs, &o.rules, "from the working directory up")
	return fs
}

// rulesCommand lists the rules of the checks.
func rulesCommand() command {
	return command{name: "rules", summary: "every rule the checks know, or what one means", about: rulesAbout, flags: rulesFlags, run: runRules,
		args:     "[RULE|PREFIX/*]...",
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
	rules := checks.Rules()
	if len(positional) > 0 {
		if rules, err = selectRules(rules, positional); err != nil {
			return usageError("rules", err)
		}
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
	w := bufio.NewWriter(stdout)
	if len(positional) > 0 && !o.json {
		writeRuleDocs(w, rules, effective, !cfg.IsZero() || o.profile != "" || file.Profile != nil)
		if err := w.Flush(); err != nil {
			return exitStatus(statusError)
		}
		return nil
	}
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
			// HelpURI is the rule's section of docs/rules.md in the
			// repository; Doc the section itself, with RULEs named.
			HelpURI string `json:"help_uri"`
			Doc     string `json:"doc,omitempty"`
		}
		out := make([]ruleJSON, len(rules))
		for i, r := range rules {
			refs := r.Refs
			if refs == nil {
				refs = []string{}
			}
			out[i] = ruleJSON{ID: r.ID, Dialect: r.Dialect, Severity: r.Severity, Tolerant: r.Tolerant, Summary: r.Summary,
				Refs: refs, Effective: effective(r), HelpURI: docs.RuleURL(r.ID, moduleVersion())}
			if len(positional) > 0 {
				out[i].Doc, _ = docs.RuleSection(r.ID)
			}
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

// selectRules picks the rules args name, in the order named: ids, or
// PREFIX/* for every rule of a prefix. A name that is no rule is an error
// that suggests the nearest.
func selectRules(all []checks.Rule, args []string) ([]checks.Rule, error) {
	var out []checks.Rule
	for _, a := range args {
		n := len(out)
		prefix, isPrefix := strings.CutSuffix(a, "*")
		for _, r := range all {
			if r.ID == a || isPrefix && strings.HasPrefix(r.ID, prefix) && strings.HasSuffix(prefix, "/") {
				if !slices.ContainsFunc(out, func(x checks.Rule) bool { return x.ID == r.ID }) {
					out = append(out, r)
				}
			}
		}
		if len(out) == n {
			ids := make([]string, len(all))
			for i, r := range all {
				ids[i] = r.ID
			}
			msg := fmt.Sprintf("no rule %s ('streamtap rules' lists them)", termtext.Safe(a))
			if near := nearest(a, ids); len(near) > 0 {
				msg = fmt.Sprintf("no rule %s (did you mean %s?)", termtext.Safe(a), orList(near))
			}
			return nil, errors.New(msg)
		}
	}
	return out, nil
}

// writeRuleDocs writes each rule's line (as the list shows it) and its
// section of docs/rules.md, then the section's address.
func writeRuleDocs(w io.Writer, rules []checks.Rule, effective func(checks.Rule) string, changed bool) {
	for i, r := range rules {
		if i > 0 {
			fmt.Fprintln(w)
		}
		sev := r.Severity.String()
		if r.Tolerant != r.Severity {
			sev += " (tolerant: " + r.Tolerant.String() + ")"
		}
		if changed {
			sev += "; check grades it " + effective(r) + " here"
		}
		fmt.Fprintf(w, "%s: %s\n%s\n\n", r.ID, sev, r.Summary)
		if sec, ok := docs.RuleSection(r.ID); ok {
			_, body, _ := strings.Cut(sec, "\n") // the heading is the line above
			fmt.Fprintln(w, strings.TrimSpace(body))
		}
		fmt.Fprintf(w, "\n%s\n", docs.RuleURL(r.ID, moduleVersion()))
	}
}
