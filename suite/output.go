package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	case "github":
		return WriteGitHub(o.w, &v)
	case "json":
		return writeJSONLine(o.w, &v)
	}
	return o.writeText(&v)
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
		_, err = fmt.Fprintf(o.w, "\n%s\n", o.sum)
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
	if o.sum.Checked > 1 {
		b.WriteByte('\n')
	}
	word := "pass"
	switch {
	case v.Err != nil:
		word = "unreadable"
	case !v.Pass:
		word = "fail"
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
			fmt.Fprintf(&b, "outcome %s fails the check (allow it with --allow-outcome %s)\n", state, state)
		}
		if v.NotAStream {
			fmt.Fprintf(&b, "%s\n", v.NotAStreamMessage())
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
