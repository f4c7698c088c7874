package cli

// check over a test suite: several inputs or a directory of recordings,
// the formats CI systems read, and the rules a user turns off or regrades.
// The work is package suite's (inputs, config files, positions, the
// formats); this file wires it to the reading commands' sources.

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/suite"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/plain"
)

// ruleFlags are the rule changes of the command line (--disable,
// --severity, in the order given) and the config file --config names; a
// run shares them, and the config files found for its inputs.
type ruleFlags struct {
	edits   checks.Config
	config  string // --config FILE: this file for every input, no search
	configs suite.Configs

	file    *suite.Config // --config's, once read
	fileErr error
}

// defineRuleFlags defines --disable, --severity and --config into fs;
// found says where the config file is looked for without --config.
func defineRuleFlags(fs *flag.FlagSet, rf *ruleFlags, found string) {
	fs.Func("disable", "turn off `RULES`: rule ids, or PREFIX/* for all of a dialect's, comma-separated; may be repeated", func(v string) error {
		return suite.AddDisabled(&rf.edits, v)
	})
	fs.Func("severity", "grade every finding of RULE at LEVEL (error, warning, info, or off), whatever the profile; `RULE=LEVEL` pairs, comma-separated (RULE may be PREFIX/*); may be repeated", func(v string) error {
		return suite.AddSeverities(&rf.edits, v)
	})
	fs.StringVar(&rf.config, "config", "", "read the rule changes and the policy (keys "+strings.Join(suite.ConfigKeys, ", ")+") from `FILE` instead of the .streamtap.yaml (or .yml) found "+found+" (up to the repository's root or your home)")
}

// fileFor is the config file that governs an input in dir ("" for
// standard input or a sample: the working directory): the one --config
// names, or the one found from dir up; a zero suite.Config for none.
func (rf *ruleFlags) fileFor(dir string) (suite.Config, error) {
	if rf.config == "" {
		cfg, err := rf.configs.For(dir)
		if err != nil {
			return suite.Config{}, fmt.Errorf("config: %w", err)
		}
		return cfg, nil
	}
	if rf.file == nil {
		cfg, err := suite.LoadConfig(rf.config)
		rf.file, rf.fileErr = &cfg, err
	}
	if rf.fileErr != nil {
		return suite.Config{}, fmt.Errorf("config: %w", rf.fileErr)
	}
	return *rf.file, nil
}

// configFor is the rule config of an input in dir: the config file's
// changes, then the command line's.
func (rf *ruleFlags) configFor(dir string) (checks.Config, error) {
	file, err := rf.fileFor(dir)
	if err != nil {
		return checks.Config{}, err
	}
	return file.Rules.Then(rf.edits), nil
}

// policyFor is what judges an input in dir: the rule config (configFor),
// and o with the config file's fail-on, profile and allow-outcome where
// the command line gave none (a flag given wins over the file); and the
// config file's path, "" for none.
func (rf *ruleFlags) policyFor(o options, dir string) (options, checks.Config, string, error) {
	file, err := rf.fileFor(dir)
	if err != nil {
		return o, checks.Config{}, "", err
	}
	if file.FailOn != nil && !o.failOnName.set {
		o.failOn = *file.FailOn
	}
	if file.Profile != nil && !o.profileName.set {
		o.profile = *file.Profile
	}
	if file.AllowOutcome != nil && o.allow.names == nil {
		o.allow = outcomeSet{names: file.AllowOutcome}
	}
	return o, file.Rules.Then(rf.edits), file.Path, nil
}

// passedOver says on w that the search for a config file passed over one
// (another user's), once for each, and that --config reads it.
func passedOver(w io.Writer) func(path, why string) {
	return func(path, why string) {
		fmt.Fprintf(w, "streamtap: passed over the config file %s: %s: name it with --config to use it\n", termtext.Safe(path), why)
	}
}

// inputDir is the directory whose config governs an input: its own, or
// the working directory for standard input and samples.
func inputDir(o options) string {
	if o.sample != "" || o.input == "" || o.input == "-" {
		return ""
	}
	return filepath.Dir(o.input)
}

// suiteMode says whether check runs as over a suite: several inputs, a
// directory, or a format that describes a run (JUnit, SARIF, workflow
// commands). One stream in text or JSON reads as it always has.
func suiteMode(o options) bool {
	return !slices.Contains([]string{"text", "json"}, o.outputFormat) || suite.Many(o.inputs)
}

// checkSuite runs check in suite mode (suiteMode), in place of the reading
// of one stream.
func checkSuite(ctx context.Context, o options, stdin *os.File, stdout, stderr io.Writer) (bool, error) {
	if !suiteMode(o) {
		return false, nil
	}
	return true, runSuite(ctx, o, stdin, stdout, stderr)
}

// runSuite checks each input (each session of an archive) and writes the
// verdicts in the chosen format; an unreadable input is a verdict too,
// its line said on stderr as it comes. The exit status is the worst:
// 2 when an input could not be read, 1 when one fails.
func runSuite(ctx context.Context, o options, stdin *os.File, stdout, stderr io.Writer) error {
	keepHeapNear(checkHeap)
	// The limit alone paces the collector over a suite: with GOGC's
	// default beside it, the small live heap of one recording at a time
	// (each dropped once judged) was collected every 4 MB allocated, 117
	// times over 1,000 recordings where the limit asks for a few, and
	// those collections were half the run's time.
	debug.SetGCPercent(-1)
	var inputs []suite.Input
	switch {
	case o.sample != "":
		inputs = []suite.Input{{Path: ""}} // --sample names it
	case len(o.inputs) > 0:
		inputs = suite.Expand(o.inputs, suite.ExpandOptions{FollowLinks: o.followLinks})
	case capture.IsPipe(stdin):
		inputs = []suite.Input{{Path: "-"}}
	default:
		return usageError("check", errors.New("no input: give FILEs or DIRs, '-' for stdin, or pipe a stream in"))
	}
	// Every input's config file is read before any input is judged: a
	// broken one is one error, said once, and the run judges nothing by
	// half a policy.
	o.rules.configs.PassedOver = passedOver(stderr)
	for _, in := range inputs {
		if in.Err == nil {
			oi := o
			oi.input = in.Path
			if _, _, _, err := o.rules.policyFor(oi, inputDir(oi)); err != nil {
				return commandError("check", err)
			}
		}
	}
	w := bufio.NewWriter(stdout)
	st := checkStyle(stdout)
	out, err := suite.NewOutput(o.outputFormat, w, o.failOn, moduleVersion(), func(w io.Writer, r checks.Report) error {
		return plain.WriteCheckReportStyled(w, r, st)
	})
	if err != nil {
		return usageError("check", err)
	}
	out.Quiet = o.quiet
	if st.Color {
		out.Fail, out.Pass = st.Fail, st.Pass
	}
	for _, in := range inputs {
		verdicts, err := checkInput(ctx, in, o, stdin, stderr)
		if err != nil {
			_ = w.Flush()
			return err
		}
		for _, v := range verdicts {
			if v.Skipped != "" {
				fmt.Fprintf(stderr, "streamtap check: skipped %s: %s\n", termtext.Safe(v.Input), termtext.Safe(v.Skipped))
			}
			if v.Err != nil {
				writeErrorLine(stderr, "streamtap check", v.Err)
			}
			if err := out.Add(v); err != nil {
				return commandError("check", fmt.Errorf("write: %w", err))
			}
		}
	}
	sum, err := out.Close()
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return commandError("check", fmt.Errorf("write: %w", err))
	}
	switch {
	case sum.Unreadable > 0:
		return exitStatus(statusError)
	case sum.Failed > 0:
		return exitStatus(statusFailed)
	}
	return nil
}

// checkInput checks one input: a stream, or each session of an archive.
// It returns an error only when the run must stop (ctrl+c); an input that
// cannot be read is a verdict that says so.
func checkInput(ctx context.Context, in suite.Input, o options, stdin *os.File, stderr io.Writer) ([]suite.Verdict, error) {
	unreadable := func(err error) []suite.Verdict {
		return []suite.Verdict{{Input: in.Path, File: in.Path, Err: err, Last: -1}}
	}
	if in.Err != nil {
		return unreadable(suite.InputError(in.Path, in.Err)), nil
	}
	if in.Skipped != "" {
		return []suite.Verdict{{Input: in.Path, File: in.Path, Skipped: in.Skipped, Last: -1}}, nil
	}
	o.input, o.inputs = in.Path, nil
	o.format = inputFormat(o.input, o.format)
	o, cfg, cfgPath, err := o.rules.policyFor(o, inputDir(o))
	if err != nil {
		return nil, err // runSuite read every config first: not here
	}
	judged := func(vs []suite.Verdict) []suite.Verdict {
		for i := range vs {
			vs[i].Config = cfgPath
			vs[i].FailOn = &o.failOn
		}
		return vs
	}
	// A .json or .yaml file a directory's walk found may be anything (a
	// request body, a tool's config): it is skipped, not failed, when it
	// holds no LLM stream. Named on the command line, it is judged.
	mayHoldNone := in.Found && suite.IsGenericName(in.Path)
	ar, err := loadArchive(ctx, o, stdin)
	if errors.Is(err, context.Canceled) {
		return nil, readError(err)
	}
	if mayHoldNone && errors.Is(err, errNoLLMExchange) {
		return []suite.Verdict{{Input: in.Path, File: in.Path, Skipped: "no LLM exchange in it", Last: -1}}, nil
	}
	if err != nil {
		return unreadable(err), nil
	}
	if ar != nil {
		vs, err := checkArchive(ctx, ar, o, cfg)
		return judged(vs), err
	}
	if o.session > 0 {
		return unreadable(errOneStream), nil
	}
	src, err := openSource(ctx, o, stdin, stderr, false)
	if err != nil {
		return unreadable(err), nil
	}
	defer src.Close()
	if o.saveHAR != "" {
		closeHAR, err := saveHAR(ctx, src, nil, o, stderr)
		if err != nil {
			return unreadable(err), nil
		}
		defer closeHAR()
	}
	v := suite.Verdict{Input: src.Name, File: in.Path}
	if src.Kind != capture.SourceFile {
		v.File = ""
	}
	s, err := judge(ctx, src, o, cfg, &v)
	if err != nil {
		return nil, err
	}
	if mayHoldNone && v.Err == nil && s.Dialect() == model.DialectUnknown && len(s.Responses) == 0 && len(s.Errors) == 0 {
		v = suite.Verdict{Input: in.Path, File: in.Path, Skipped: "no stream in it", Last: -1}
	}
	return judged([]suite.Verdict{v}), nil
}

// checkArchive checks the sessions of an archive (the one --session
// names, or each), a verdict each.
func checkArchive(ctx context.Context, ar *archiveInput, o options, cfg checks.Config) ([]suite.Verdict, error) {
	defer ar.close()
	lo, hi := 0, ar.len()
	if o.session > 0 {
		if o.session > ar.len() {
			return []suite.Verdict{{Input: ar.name, File: o.input, Last: -1,
				Err: fmt.Errorf("--session %d: %s holds %s", o.session, ar.name, sessionsCount(ar.len()))}}, nil
		}
		lo, hi = o.session-1, o.session
	}
	o.format = capture.FormatAuto // an entry reads as `curl -i` output
	var out []suite.Verdict
	for i := lo; i < hi; i++ {
		v := suite.Verdict{Input: ar.name, File: o.input, Session: i + 1, Sessions: ar.len()}
		if o.input == "" || o.input == "-" {
			v.File = ""
		}
		src := ar.source(i, fmt.Sprintf("%s #%d", ar.name, i+1))
		if e := src.Exchange; e != nil {
			v.Exchange = suite.Exchange{Method: e.Method, URL: e.URL, Status: e.Status}
		}
		if _, err := judge(ctx, src, o, cfg, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// judge reads one stream and fills in v's report and verdict, and, when
// the format points into files and v has one, where the cited events are.
// It returns the session read, and an error only for ctrl+c; a read that
// fails is v.Err.
func judge(ctx context.Context, src *capture.Source, o options, cfg checks.Config, v *suite.Verdict) (*model.Session, error) {
	if o.saveTimed != "" {
		closeRec, err := saveTimed(src, o)
		if err != nil {
			v.Err = err
			return nil, nil
		}
		defer closeRec()
	}
	opts, c := attachChecks(model.Options{}, src, o)
	c.SetConfig(cfg)
	sniff := new(streamSniff)
	opts = opts.WithObserver(sniff)
	var pos *suite.Positions
	locate := v.File != "" && v.Session == 0 && (o.outputFormat == "sarif" || o.outputFormat == "github")
	if locate {
		pos = new(suite.Positions)
		opts = opts.WithObserver(pos)
	}
	s, err := readStream(ctx, src, o, opts, nil)
	if errors.Is(err, context.Canceled) {
		return s, readError(err)
	}
	v.Last = s.Len() - 1
	if err != nil {
		v.Err = err
		return s, nil
	}
	v.Report = c.Report(s, o.profile)
	v.OutcomeFails = outcomeFails(v.Report.Outcome.State, o.allow)
	v.Pass = !v.Report.Fails(o.failOn) && !v.OutcomeFails
	if sniff.notAStream(s) && !o.allow.has(model.OutcomeNotAStream) {
		v.Withhold()
	}
	if ra := src.ReaderAt(); locate && ra != nil {
		v.Places, err = pos.Locate(ra, s.Bytes(), v.Cited())
		if err != nil {
			v.Places = nil // the report stands; only its lines are unknown
		}
	}
	return s, nil
}

// streamSniff watches a session for an event that carries data: with no
// dialect recognised, such a session holds no LLM stream at all, where
// one of comments, keep-alives, a sentinel or an HTTP head alone is a
// stream that ended before its first event.
type streamSniff struct{ data bool }

// Observe implements model.Observer.
func (sn *streamSniff) Observe(_ *model.Session, _ int, ev *model.Event, _ *capture.Frame) {
	if ev.Source == capture.FrameEvent && ev.Kind != model.KindKeepalive && ev.Kind != model.KindSentinel {
		sn.data = true
	}
}

// notAStream says whether s, read whole, holds data and no LLM stream.
func (sn *streamSniff) notAStream(s *model.Session) bool {
	return sn.data && s.Dialect() == model.DialectUnknown && len(s.Responses) == 0 && len(s.Errors) == 0
}
