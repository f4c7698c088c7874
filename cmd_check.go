package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

func checkCommand() command {
	return command{
		name: "check", args: "[FILE|-]", summary: "protocol findings and the outcome, for CI (exit 1 when it fails)",
		about: checkAbout, exits: checkExits,
		flags: func() *flag.FlagSet { return readFlags("check", new(options), new(string)) },
		run:   runCheck,
	}
}

// runCheck implements `streamtap check`. It returns the exit code: 0 when
// no finding is at or above --fail-on, 1 when one is, 2 for bad usage or
// input that cannot be read. It takes the
// flags every reading command takes (--format, --sample, --save) besides
// its own.
func runCheck(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) int {
	debug.SetMemoryLimit(checkMemoryLimit)
	o, err := parseFlags("check", args)
	var failOn checks.Severity
	var profile checks.Profile
	if err == nil {
		if failOn, err = checks.ParseSeverity(o.failOn); err != nil {
			err = fmt.Errorf("--fail-on: %w", err)
		}
	}
	if err == nil {
		if profile, err = checks.ParseProfile(o.profile); err != nil {
			err = fmt.Errorf("--profile: %w", err)
		}
	}
	if err != nil {
		return parseFailed("check", err, stdout, stderr)
	}
	src, err := openSource(o, stdin, false)
	if err != nil {
		fmt.Fprintf(stderr, "streamtap check: %v\n", err)
		return 2
	}
	defer src.Close()
	opts, c := checks.Attach(model.Options{})
	s, err := ingest(ctx, src, o, opts, nil)
	if err != nil {
		fmt.Fprintf(stderr, "streamtap check: %v\n", err)
		return 2
	}
	rep := c.Report(s, profile)
	w := bufio.NewWriter(stdout)
	if o.json {
		err = checks.WriteJSON(w, rep)
	} else {
		err = checks.WriteText(w, rep)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(stderr, "streamtap check: write: %v\n", err)
		return 2
	}
	if rep.Fails(failOn) {
		return 1
	}
	return 0
}

func rulesFlags() *flag.FlagSet { return rulesFlagSet(new(bool)) }

func rulesFlagSet(asJSON *bool) *flag.FlagSet {
	fs := newFlagSet("rules")
	fs.BoolVar(asJSON, "json", false, "print a JSON array of {id, dialect, severity, tolerant, summary, refs}")
	return fs
}

// runRules implements `streamtap rules [--json]`: every rule with its
// severity under each profile and its summary.
func runRules(_ context.Context, args []string, _ *os.File, stdout, stderr io.Writer) int {
	var asJSON bool
	positional, err := parseInterspersed(rulesFlagSet(&asJSON), args)
	if err != nil {
		return parseFailed("rules", err, stdout, stderr)
	}
	if len(positional) > 0 {
		return usageFailed("rules", fmt.Errorf("rules takes no arguments (got %s)", strings.Join(positional, " ")), stderr)
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
		return 2
	}
	return 0
}
