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
)

// rulesAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const rulesAbout = `Lists every rule the checks know: id, severity in the strict profile (and
in the tolerant one when it differs), summary. docs/rules.md explains each.
`

func rulesFlags() *flag.FlagSet { return rulesFlagSet(new(bool)) }

func rulesFlagSet(asJSON *bool) *flag.FlagSet {
	fs := newFlagSet("rules")
	fs.BoolVar(asJSON, "json", false, "print a JSON array of {id, dialect, severity, tolerant, summary, refs}")
	return fs
}

// rulesCommand lists the rules of the checks.
func rulesCommand() command {
	return command{name: "rules", summary: "every rule the checks know", about: rulesAbout, flags: rulesFlags, run: runRules,
		noSample: "rules takes no --sample: it lists the rules (check a sample with streamtap check --sample NAME)"}
}

// runRules implements `streamtap rules [--json]`: every rule with its
// severity under each profile and its summary.
func runRules(_ context.Context, args []string, _ *os.File, stdout, _ io.Writer) error {
	var asJSON bool
	positional, err := parseInterspersed(rulesFlagSet(&asJSON), args)
	if err != nil {
		return usageError("rules", err)
	}
	if len(positional) > 0 {
		return usageError("rules", fmt.Errorf("rules takes no arguments (got %s)", strings.Join(positional, " ")))
	}
	rules := checks.Rules()
	w := bufio.NewWriter(stdout)
	if asJSON {
		type ruleJSON struct {
			ID       string          `json:"id"`
			Dialect  string          `json:"dialect"`
			Severity checks.Severity `json:"severity"`
			Tolerant checks.Severity `json:"tolerant"`
			Summary  string          `json:"summary"`
			Refs     []string        `json:"refs"`
		}
		out := make([]ruleJSON, len(rules))
		for i, r := range rules {
			refs := r.Refs
			if refs == nil {
				refs = []string{}
			}
			out[i] = ruleJSON{r.ID, r.Dialect, r.Severity, r.Tolerant, r.Summary, refs}
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
		for _, r := range rules {
			sev := r.Severity.String()
			if r.Tolerant != r.Severity {
				sev += "/" + r.Tolerant.String()
			}
			fmt.Fprintf(w, "%-*s  %-13s  %s\n", width, r.ID, sev, r.Summary)
		}
		fmt.Fprintln(w, "\nseverity: strict profile, then tolerant when it differs (error/info).")
	}
	if err := w.Flush(); err != nil {
		return exitStatus(statusError) // stdout is gone: nowhere to say more
	}
	return nil
}
