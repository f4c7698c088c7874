package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Formats are the names --output-format takes: the text for people (the
// default), JSON (one object per input), JUnit XML, SARIF 2.1.0 and
// GitHub Actions workflow commands.
var Formats = []string{"text", "json", "junit", "sarif", "github"}

// Output writes the verdicts of a run in one format. The text, JSON,
// GitHub and SARIF formats write each verdict as it comes, so a long run
// shows its progress and holds no report it has written; JUnit is one
// document whose head counts the verdicts, written by Close. It is not
// safe for concurrent use.
type Output struct {
	format string
	w      io.Writer
	run    Run // the verdicts, kept for JUnit only
	sarif  *SARIFWriter
	sum    Summary
	// configs are the config files that judged the verdicts, in the
	// order first met: the text and GitHub formats name them at the end.
	configs []string
	// text writes a report's lines as the single-input text output does
	// (the command's own writer, so both read alike).
	text func(io.Writer, checks.Report) error
	// written counts the verdicts the text format wrote; failed lists
	// those that did not pass, a line each, for the end of the run.
	written int
	failed  []string

	// Quiet writes only the verdicts that do not pass, and of a failing
	// one's findings in the GitHub format only those that fail (the text,
	// JSON and GitHub formats; JUnit and SARIF are documents of every
	// input). The summary stays.
	Quiet bool
	// Fail and Pass, when set, decorate the text format's words for what
	// fails and what passes (the command colours them on a terminal).
	Fail, Pass func(string) string
}

// NewOutput returns an Output in format (one of Formats) to w, judging by
// failOn; version names streamtap in SARIF; text writes the lines of a
// report in the text format.
func NewOutput(format string, w io.Writer, failOn checks.Severity, version string, text func(io.Writer, checks.Report) error) (*Output, error) {
	ok := false
	for _, f := range Formats {
		ok = ok || f == format
	}
	if !ok {
		return nil, fmt.Errorf("unknown output format %q (want %s)", format, strings.Join(Formats, ", "))
	}
	o := &Output{format: format, w: w, run: Run{FailOn: failOn, Version: version}, text: text}
	if format == "sarif" {
		o.sarif = NewSARIFWriter(w, version)
	}
	return o, nil
}

// Add writes (or, for JUnit and SARIF, keeps) one verdict.
func (o *Output) Add(v Verdict) error {
	o.sum.Add(&v)
	if v.Skipped != "" {
		return nil
	}
	if v.Config != "" && !slices.Contains(o.configs, v.Config) {
		o.configs = append(o.configs, v.Config)
	}
	switch o.format {
	case "junit":
		o.run.Verdicts = append(o.run.Verdicts, v)
		return nil
	case "sarif":
		return o.sarif.Add(&v)
	}
	if o.Quiet && v.Err == nil && v.Pass {
		return nil
	}
	switch o.format {
	case "github":
		failOn := checks.Info
		if o.Quiet {
			failOn = v.Threshold(o.run.FailOn)
		}
		return writeGitHub(o.w, &v, failOn)
	case "json":
		return writeJSONLine(o.w, &v)
	}
	if v.Err != nil || !v.Pass {
		o.failed = append(o.failed, safe(v.Label())+": "+v.why(o.run.FailOn))
	}
	return o.writeText(&v)
}

// paint decorates s with f when set.
func paint(f func(string) string, s string) string {
	if f == nil {
		return s
	}
	return f(s)
}

// why says in a few words why v does not pass: the rules that fail it
// (the first three), its outcome, that it holds no stream, or why it
// could not be read. Safe to print.
func (v *Verdict) why(runFailOn checks.Severity) string {
	if v.Err != nil {
		msg := strings.TrimPrefix(v.Err.Error(), v.Input+": ")
		if pe := (*fs.PathError)(nil); errors.As(v.Err, &pe) && pe.Path == v.Input {
			msg = pe.Op + ": " + pe.Err.Error() // the label names the file
		}
		return "unreadable (" + safe(msg) + ")"
	}
	var parts, rules []string
	for _, f := range v.Failing(v.Threshold(runFailOn)) {
		if !slices.Contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	if n := len(rules); n > 3 {
		rules = append(rules[:3], fmt.Sprintf("%d more", n-3))
	}
	if len(rules) > 0 {
		parts = append(parts, safe(strings.Join(rules, ", ")))
	}
	if v.OutcomeFails {
		parts = append(parts, "outcome "+safe(v.Report.Outcome.State))
	}
	if v.NotAStream {
		parts = append(parts, "not an LLM stream")
	}
	return strings.Join(parts, "; ")
}

// Close writes what waits for the end: the JUnit document or the end of
// the SARIF log, the summary line of the text and GitHub formats and a
// line for each config file that judged the run (JSON has none: every
// line has one shape, names its config, and `jq -s` sums them). It
// returns the run's summary.
func (o *Output) Close() (Summary, error) {
	var err error
	switch o.format {
	case "junit":
		err = WriteJUnit(o.w, o.run)
	case "sarif":
		err = o.sarif.Close()
	case "github":
		_, err = fmt.Fprintf(o.w, "streamtap check: %s\n", o.sum)
		for _, c := range o.configs {
			if err == nil {
				_, err = fmt.Fprintf(o.w, "streamtap check: config %s\n", safe(c))
			}
		}
	case "text":
		var b bytes.Buffer
		if o.written > 0 {
			b.WriteByte('\n')
		}
		if len(o.failed) > 0 && o.sum.Checked > 1 {
			fmt.Fprintf(&b, "%s\n", paint(o.Fail, "what did not pass:"))
			for _, f := range o.failed {
				fmt.Fprintf(&b, "  %s\n", f)
			}
		}
		fmt.Fprintf(&b, "%s\n", o.summaryText())
		_, err = o.w.Write(b.Bytes())
		for _, c := range o.configs {
			if err == nil {
				_, err = fmt.Fprintf(o.w, "config: %s\n", safe(c))
			}
		}
	}
	return o.sum, err
}

// writeText writes a verdict for people: a header naming the input and
// its verdict, then its report as the single-input output writes it.
//
//	# recordings/a.sse: fail
//	outcome: truncated (the stream ended without its terminal event)
//	error   responses/no-terminal [0,11]: …
//	1 error, 0 warnings, 0 infos
//	outcome truncated fails the check (allow it with --allow-outcome truncated)
func (o *Output) writeText(v *Verdict) error {
	var b bytes.Buffer
	if o.written > 0 {
		b.WriteByte('\n')
	}
	o.written++
	word := paint(o.Pass, "pass")
	switch {
	case v.Err != nil:
		word = paint(o.Fail, "unreadable")
	case !v.Pass:
		word = paint(o.Fail, "fail")
	}
	fmt.Fprintf(&b, "# %s: %s\n", safe(v.Label()), word)
	if v.Err != nil {
		fmt.Fprintf(&b, "%s\n", safe(errorText(v)))
	} else {
		if err := o.text(&b, v.Report); err != nil {
			return err
		}
		if v.OutcomeFails {
			state := safe(v.Report.Outcome.State)
			fmt.Fprintf(&b, "%s fails the check (allow it with --allow-outcome %s)\n", paint(o.Fail, "outcome "+state), state)
		}
		if v.NotAStream {
			fmt.Fprintf(&b, "%s\n", paint(o.Fail, v.NotAStreamMessage()))
		}
	}
	_, err := o.w.Write(b.Bytes())
	return err
}

// writeJSONLine writes a verdict as one JSON line: the single-input
// object ({"outcome", "findings", "pass"}) with "input" first, and for an
// archive's session "session" and "exchange" as a single archive's lines
// carry them, then "config" (the config file that judged it) when there
// is one, and "not_a_stream": true for an input that holds no LLM stream
// (its findings withheld); an unreadable input is {"input", "error",
// "pass": false}.
func writeJSONLine(w io.Writer, v *Verdict) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteString(`{"input":`)
	_ = enc.Encode(v.Input)
	if v.Session > 0 {
		b.WriteString(`,"session":`)
		_ = enc.Encode(v.Session)
		b.WriteString(`,"exchange":`)
		_ = enc.Encode(struct {
			Method string `json:"method"`
			URL    string `json:"url"`
			Status int    `json:"status"`
		}{v.Exchange.Method, v.Exchange.URL, v.Exchange.Status})
	}
	if v.Config != "" {
		b.WriteString(`,"config":`)
		_ = enc.Encode(v.Config)
	}
	if v.Err != nil {
		b.WriteString(`,"error":`)
		_ = enc.Encode(errorText(v))
		b.WriteString(`,"pass":false}`)
	} else {
		rep, err := v.Report.MarshalJSON()
		if err != nil {
			return err
		}
		rest, ok := bytes.CutPrefix(rep, []byte("{"))
		rest, ok2 := bytes.CutSuffix(rest, []byte("}"))
		if !ok || !ok2 {
			return fmt.Errorf("check report is not a JSON object: %.40q", rep)
		}
		b.WriteByte(',')
		b.Write(rest)
		if v.NotAStream {
			b.WriteString(`,"not_a_stream":true`)
		}
		fmt.Fprintf(&b, `,"pass":%t}`, v.Pass)
	}
	line := bytes.ReplaceAll(b.Bytes(), []byte("\n"), nil) // the encoder's newlines, never a string's
	line = append(jsonscan.AppendSafe(nil, line), '\n')
	_, err := w.Write(line)
	return err
}

// summaryText is the summary line, its counts of what did not pass
// painted as failing, of what passed as passing.
func (o *Output) summaryText() string {
	if o.Fail == nil && o.Pass == nil {
		return o.sum.String()
	}
	s := o.sum.String()
	for _, part := range []struct {
		n    int
		word string
		f    func(string) string
	}{{o.sum.Passed, " passed", o.Pass}, {o.sum.Failed, " failed", o.Fail}, {o.sum.Unreadable, " unreadable", o.Fail}} {
		if part.n > 0 {
			w := fmt.Sprint(part.n) + part.word
			s = strings.Replace(s, " "+w, " "+paint(part.f, w), 1)
		}
	}
	return s
}
