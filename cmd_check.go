package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/ui"
)

func checkCommand() command {
	return command{
		name: "check", args: "[FILE|-]", summary: "protocol findings and the outcome, for CI (exit 1 when it fails)",
		about: checkAbout, exits: checkExits,
		flags: func() *flag.FlagSet { return readFlags("check", new(options), new(string)) },
		run:   runCheck,
	}
}

// outcomeNames are the outcomes a finished stream can have (model.Outcome),
// the names --allow-outcome takes.
var outcomeNames = model.Outcomes()

// outcomeFails reports whether a stream that ended with state fails check
// and request: checks.OutcomeFails says which outcomes do, unless allow
// names it.
func outcomeFails(state string, allow outcomeSet) bool {
	return checks.OutcomeFails(state) && !allow.has(state)
}

// outcomeSet is the value of --allow-outcome: outcome names, given as a
// comma-separated list, the flag repeatable. Its zero value is empty.
type outcomeSet struct{ names []string }

func (s *outcomeSet) String() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.names, ",")
}

// Set adds the outcomes of a comma-separated list; a name that is not an
// outcome is an error.
func (s *outcomeSet) Set(v string) error {
	for name := range strings.SplitSeq(v, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(outcomeNames, name) {
			return fmt.Errorf("%q is not an outcome (want %s)", name, strings.Join(outcomeNames, ", "))
		}
		if !s.has(name) {
			s.names = append(s.names, name)
		}
	}
	return nil
}

func (s *outcomeSet) has(name string) bool { return s != nil && slices.Contains(s.names, name) }

// runCheck implements `streamtap check`. It returns the exit code: 0 when
// no finding is at or above --fail-on and the outcome passes, 1 when
// either fails, 2 for bad usage or input that cannot be read. It takes the
// flags every reading command takes (--format, --sample, --save) besides
// its own.
func runCheck(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) int {
	keepHeapNear(checkHeap)
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
	if err := o.loadRequest(); err != nil {
		printErrorAs(stderr, "streamtap check", err)
		return 2
	}
	if ar, err := loadArchive(o, stdin); err != nil || ar != nil {
		if err != nil {
			printErrorAs(stderr, "streamtap check", err)
			return 2
		}
		return runArchive(ctx, "check", ar, o, stdout, stderr, func(src *capture.Source, o options, stdout io.Writer) int {
			return checkSource(ctx, src, o, failOn, profile, stdout, stderr)
		})
	}
	src, err := openSource(ctx, o, stdin, stderr, false)
	if err != nil {
		printErrorAs(stderr, "streamtap check", err)
		return 2
	}
	defer src.Close()
	if o.saveHAR != "" {
		closeHAR, err := saveHAR(src, nil, o)
		if err != nil {
			printErrorAs(stderr, "streamtap check", err)
			return 2
		}
		defer closeHAR()
	}
	return checkSource(ctx, src, o, failOn, profile, stdout, stderr)
}

// checkSource checks one stream and writes its report; it returns the
// exit code as runCheck does.
func checkSource(ctx context.Context, src *capture.Source, o options, failOn checks.Severity, profile checks.Profile, stdout, stderr io.Writer) int {
	if o.saveTimed != "" {
		closeRec, err := saveTimed(src, o)
		if err != nil {
			printErrorAs(stderr, "streamtap check", err)
			return 2
		}
		defer closeRec()
	}
	opts, c := attachChecks(model.Options{}, src, o)
	s, err := readStream(ctx, src, o, opts, nil)
	if errors.Is(err, context.Canceled) {
		return readFailed(stderr, err)
	}
	if err != nil {
		printErrorAs(stderr, "streamtap check", err)
		return 2
	}
	rep := c.Report(s, profile)
	outcomeFailed := outcomeFails(rep.Outcome.State, o.allow)
	pass := !rep.Fails(failOn) && !outcomeFailed
	w := bufio.NewWriter(stdout)
	if o.json {
		err = writeCheckJSON(w, rep, pass)
	} else {
		err = ui.WriteCheckReport(w, rep)
		if err == nil && outcomeFailed {
			state := ui.Safe(rep.Outcome.State)
			_, err = fmt.Fprintf(w, "outcome %s fails the check (allow it with --allow-outcome %s)\n", state, state)
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		printErrorAs(stderr, "streamtap check", fmt.Errorf("write: %w", err))
		return 2
	}
	if !pass {
		return 1
	}
	return 0
}

// writeCheckJSON writes the report's JSON (checks.Report.MarshalJSON) with
// the verdict added as a last member, "pass": true exactly when the exit
// code is 0. The report's own members are kept as they are: scripts rely
// on them.
func writeCheckJSON(w io.Writer, rep checks.Report, pass bool) error {
	b, err := rep.MarshalJSON()
	if err != nil {
		return err
	}
	obj, ok := bytes.CutSuffix(b, []byte("}"))
	if !ok {
		return fmt.Errorf("check report is not a JSON object: %.40q", b)
	}
	_, err = fmt.Fprintf(w, "%s,\"pass\":%t}\n", obj, pass)
	return err
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
