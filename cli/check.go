package cli

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
	"github.com/streamtap/streamtap/suite"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/plain"
)

// The command's help: under its usage line, and after its flags.
const (
	checkAbout = `Checks a stream against the protocol rules (streamtap rules lists them) and
prints the stream's outcome and the findings. Reads stdin when FILE is -, or
when no FILE is given and stdin is a pipe.

Several inputs, or a DIR (its recordings, recursively: files named *.sse,
*.jsonl, *.ndjson, *.json, *.har, *.yaml, *.yml, *.chunks.txt, *.http,
*.eventstream, hidden ones skipped), are checked one by one: a verdict for
each (for each session of a HAR file or a cassette), then a line for each
input that did not pass and a summary; the exit code is the worst. Under a
DIR a link that leads out of it is skipped (--follow-links reads it), and
a link to nothing or a named pipe is unreadable. --quiet prints only what
does not pass. --output-format junit, sarif or github writes the verdicts
for CI: a JUnit test case per input, a SARIF 2.1.0 log whose results point
at the line and bytes of the events they cite, or GitHub Actions
annotations.

--disable and --severity turn rules off or grade them otherwise, and
--fail-on, --profile and --allow-outcome set the policy; so does a
.streamtap.yaml (keys disable, severity, fail-on, profile, allow-outcome)
found from each input's directory up to the repository's root or your
home (one another user owns is passed over), or the file --config names.
A flag given wins. Every output names the config file used.

An input that holds data but no LLM stream fails, and its findings are
not shown: they would quote its bytes.

The check fails on a finding at or above --fail-on, and on an outcome of
error (an HTTP error or an error event), failed, blocked (a refusal or a
filter), truncated (cut before the model finished) or empty, even without
findings: a 401 body or a cut stream fails a CI job; completed, incomplete
(stopped at a limit) and closed pass. --allow-outcome lets named outcomes
pass. The text output says which outcome failed the check; --json adds
"pass": the verdict.

With the request the stream answers (--request FILE, or the request body a
timed recording, a HAR file or a cassette carries), the request/… rules also
hold every call to it: arguments against the tool's JSON Schema, undeclared
tools, tool_choice, parallel calls.
`
	checkExits = `exit codes: 0 pass, 1 fail (findings or outcome), 2 unreadable input or bad
usage; with several inputs, the worst of theirs
`
)

// checkCommand judges a stream by the protocol rules and its outcome. It
// ends with exit status 0 when no finding is at or above --fail-on and
// the outcome passes, 1 when either fails, 2 for bad usage or input that
// cannot be read; its error lines name it ("streamtap check: …").
func checkCommand() command {
	c := readingCommand(&reader{
		name: "check", heap: checkHeap, namesErrors: true, marks: jsonMarks, many: true,
		flags:   checkFlags,
		parsed:  parseCheckFlags,
		instead: checkSuite,
		one:     checkStream,
	}, "protocol findings and the outcome, for CI (exit 1 when it fails)", checkAbout)
	c.args = "[FILE|DIR|-]..."
	c.exits = checkExits
	return c
}

// checkFlags defines check's own flags.
func checkFlags(fs *flag.FlagSet, o *options) {
	requestFlag(fs, o)
	fs.BoolVar(&o.json, "json", false, `print one JSON object {"outcome", "findings", "pass"} instead of text (--output-format json)`)
	fs.StringVar(&o.outputFormat, "output-format", "text", "print the verdicts as `FORMAT`: text, json, junit (JUnit XML), sarif (SARIF 2.1.0) or github (GitHub Actions workflow commands)")
	o.rules = new(ruleFlags)
	defineRuleFlags(fs, o.rules, "from each input's directory up")
	o.failOnName, o.profileName = namedFlag{value: "error"}, namedFlag{value: "strict"}
	fs.Var(&o.failOnName, "fail-on", "fail on a finding at or above `SEVERITY`: error, warning or info")
	fs.Var(&o.profileName, "profile", "judge by `PROFILE`: strict (the official contract) or tolerant (legal variations and common vendor habits are info)")
	fs.BoolVar(&o.quiet, "quiet", false, "print only the inputs that do not pass (and, in GitHub commands, only the findings that fail), then the summary; with one input that passes, nothing")
	fs.BoolVar(&o.quiet, "q", false, "short for --quiet")
	fs.BoolVar(&o.followLinks, "follow-links", false, "read the files that links under a DIR lead to outside it (without it they are skipped, and said so)")
	fs.Var(&o.allow, "allow-outcome", "let the stream's `OUTCOMES` pass, a comma-separated list of error, failed, blocked, truncated, empty (completed, incomplete and closed always pass); may be repeated")
}

// parseCheckFlags reads --fail-on and --profile.
func parseCheckFlags(o *options) (err error) {
	if o.failOn, err = checks.ParseSeverity(o.failOnName.value); err != nil {
		return fmt.Errorf("--fail-on: %w", err)
	}
	if o.profile, err = checks.ParseProfile(o.profileName.value); err != nil {
		return fmt.Errorf("--profile: %w", err)
	}
	if !slices.Contains(suite.Formats, o.outputFormat) {
		return fmt.Errorf("--output-format %s: want one of %s", o.outputFormat, strings.Join(suite.Formats, ", "))
	}
	if o.json {
		if o.outputFormat != "text" && o.outputFormat != "json" {
			return fmt.Errorf("--json is --output-format json: give one of them")
		}
		o.outputFormat = "json"
	}
	o.json = o.outputFormat == "json"
	if o.quiet && (o.outputFormat == "junit" || o.outputFormat == "sarif") {
		return fmt.Errorf("--quiet leaves out what passes; --output-format %s is a document of every input: give one of them", o.outputFormat)
	}
	if len(o.inputs) > 1 || suite.Many(o.inputs) {
		for _, f := range []struct{ name, value string }{{"--save", o.save}, {"--save-timed", o.saveTimed}, {"--save-har", o.saveHAR}} {
			if f.value != "" {
				return fmt.Errorf("%s writes what one input holds: give one input", f.name)
			}
		}
		if o.session > 0 {
			return fmt.Errorf("--session %d chooses a session of one archive: give one input", o.session)
		}
	}
	return nil
}

// checkStyle colours check's text on a terminal, as diff does: never
// under NO_COLOR, nor into a pipe or a file.
func checkStyle(stdout io.Writer) plain.CheckStyle {
	return plain.CheckStyle{Color: isTerminal(stdout) && os.Getenv("NO_COLOR") == ""}
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

// checkStream checks one stream and writes its report; it ends as check
// does.
func checkStream(ctx context.Context, src *capture.Source, o options, stdout, stderr io.Writer) error {
	o.rules.configs.PassedOver = passedOver(stderr)
	o, cfg, cfgPath, err := o.rules.policyFor(o, inputDir(o))
	if err != nil {
		return err
	}
	opts, c := attachChecks(model.Options{}, src, o)
	c.SetConfig(cfg)
	sniff := new(streamSniff)
	opts = opts.WithObserver(sniff)
	s, err := readStream(ctx, src, o, opts, nil)
	if err != nil {
		return readError(err)
	}
	rep := c.Report(s, o.profile)
	outcomeFailed := outcomeFails(rep.Outcome.State, o.allow)
	pass := !rep.Fails(o.failOn) && !outcomeFailed
	v := suite.Verdict{Report: rep, Pass: pass}
	if sniff.notAStream(s) && !o.allow.has(model.OutcomeNotAStream) {
		v.Withhold()
		rep, pass = v.Report, false
	}
	w := bufio.NewWriter(stdout)
	st := checkStyle(stdout)
	switch {
	case o.quiet && pass:
		// --quiet: nothing to say
	case o.json:
		err = writeCheckJSON(w, rep, pass, cfgPath, v.NotAStream)
	default:
		if cfgPath != "" {
			fmt.Fprintf(w, "config: %s\n", termtext.Safe(cfgPath))
		}
		err = plain.WriteCheckReportStyled(w, rep, st)
		if err == nil && outcomeFailed {
			state := termtext.Safe(rep.Outcome.State)
			_, err = fmt.Fprintf(w, "%s fails the check (allow it with --allow-outcome %s)\n", st.Fail("outcome "+state), state)
		}
		if err == nil && v.NotAStream {
			_, err = fmt.Fprintln(w, st.Fail(v.NotAStreamMessage()))
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if !pass {
		return exitStatus(statusFailed)
	}
	return nil
}

// writeCheckJSON writes the report's JSON (checks.Report.MarshalJSON) with
// the verdict added as a last member, "pass": true exactly when the exit
// code is 0, and before it "config", the config file that judged it, when
// one did, and "not_a_stream": true when the input holds no LLM stream
// (its findings withheld). The report's own members are kept as they
// are: scripts rely on them.
func writeCheckJSON(w io.Writer, rep checks.Report, pass bool, config string, notAStream bool) error {
	b, err := rep.MarshalJSON()
	if err != nil {
		return err
	}
	obj, ok := bytes.CutSuffix(b, []byte("}"))
	if !ok {
		return fmt.Errorf("check report is not a JSON object: %.40q", b)
	}
	if config != "" {
		obj = append(append(obj, `,"config":`...), jsonscan.AppendQuote(nil, config)...)
	}
	if notAStream {
		obj = append(obj, `,"not_a_stream":true`...)
	}
	_, err = fmt.Fprintf(w, "%s,\"pass\":%t}\n", obj, pass)
	return err
}
