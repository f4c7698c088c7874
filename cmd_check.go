package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

const checkUsage = `usage: streamtap check [--json] [--fail-on error|warning|info] [--profile strict|tolerant]
                       [--format F] [--sample NAME] [FILE|-]

Checks a recorded stream against the protocol rules (streamtap rules lists
them) and prints the findings and the stream's outcome. Reads stdin when
FILE is - or when no FILE is given and stdin is a pipe.

exit codes: 0 nothing at or above --fail-on (default error), 1 something is,
2 unreadable input or bad usage
`

// runCheck implements `streamtap check`. It returns the exit code: 0 when
// no finding is at or above --fail-on, 1 when one is, 2 for bad usage or
// input that cannot be read. It takes the flags every reading command
// takes (--format, --sample, --save) besides its own.
func runCheck(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	o, err := parseFlags("check", args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, checkUsage)
		return 0
	}
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
		fmt.Fprintf(stderr, "streamtap check: %v (see streamtap check --help)\n", err)
		return 2
	}
	src, err := openSource(o, stdin, false)
	if err != nil {
		fmt.Fprintf(stderr, "streamtap check: %v\n", err)
		return 2
	}
	defer src.Close()
	opts, c := checks.Attach(model.Options{})
	s, err := ingest(context.Background(), src, o, opts, nil)
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

// runRules implements `streamtap rules [--json]`: every rule with its
// severity under each profile and its summary.
func runRules(args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet("streamtap rules", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "usage: streamtap rules [--json]")
			return 0
		}
		fmt.Fprintln(stdout, "usage: streamtap rules [--json]")
		return 2
	}
	rules := checks.Rules()
	w := bufio.NewWriter(stdout)
	if *asJSON {
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
