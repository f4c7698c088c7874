package suite

import (
	"encoding/xml"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/termtext"
)

// The JUnit XML shape that CI systems read (Jenkins, GitLab, Azure
// Pipelines, the GitHub test-report actions): <testsuites> holding one
// <testsuite> of <testcase>s, each with at most one <failure> or <error>
// and its <system-out>. There is no one published schema; these are the
// elements and attributes all of them read (Ant's junit task wrote them
// first), plus the testcase's "file" that GitHub's reporters use to
// annotate.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string           `xml:"name,attr"`
		Tests      int              `xml:"tests,attr"`
		Failures   int              `xml:"failures,attr"`
		Errors     int              `xml:"errors,attr"`
		Skipped    int              `xml:"skipped,attr"`
		Properties *junitProperties `xml:"properties"`
		Cases      []junitCase      `xml:"testcase"`
	}
	// junitProperties are the testsuite's <properties>: one "config"
	// property for each config file that judged its cases.
	junitProperties struct {
		Property []junitProperty `xml:"property"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		File      string        `xml:"file,attr,omitempty"`
		Failure   *junitProblem `xml:"failure"`
		Error     *junitProblem `xml:"error"`
		SystemOut *junitText    `xml:"system-out"`
	}
	// junitText is an element's text as CDATA: the lines of a report read
	// as they are in the file, without an entity for each quote and
	// newline.
	junitText struct {
		Text string `xml:",cdata"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",cdata"`
	}
)

// junitClass is every testcase's classname: the check, as a test suite
// would name the class of its tests.
const junitClass = "streamtap.check"

// xmlSafe is text made safe for a terminal (safe), then legal in XML
// (xmlLegal).
func xmlSafe(s string) string { return xmlLegal(safe(s)) }

// xmlLegal shows escaped, as safe shows the others, the two code points
// safe keeps that XML 1.0 does not allow in a document (U+FFFE, U+FFFF:
// https://www.w3.org/TR/xml/#charsets). Everything else safe leaves is a
// legal character; encoding/xml escapes markup and splits a CDATA section
// around "]]>".
func xmlLegal(s string) string {
	if !strings.ContainsAny(s, "\ufffe\uffff") {
		return s
	}
	return strings.NewReplacer("\ufffe", termtext.EscapeRune(0xfffe), "\uffff", termtext.EscapeRune(0xffff)).Replace(s)
}

// WriteJUnit writes the run as JUnit XML: a testcase per verdict (an
// input, or a session of an archive) named by its label. A failing one
// has a <failure> whose type is the first failing rule ("outcome" when
// only the outcome fails, "not-a-stream" when only that does), whose
// message counts what fails, and whose
// text lists each failing finding (severity, rule, events, message) and
// the outcome; an unreadable input has an <error>. Every testcase with
// anything to say carries the whole report, findings under the
// threshold included, in <system-out>, after the config file that judged
// it; the testsuite's <properties> name each config file used. Text is
// escaped for a terminal first (a report viewer may print it), then for
// XML.
func WriteJUnit(w io.Writer, run Run) error {
	suite := junitSuite{Name: "streamtap check"}
	for i := range run.Verdicts {
		v := &run.Verdicts[i]
		tc := junitCase{Name: xmlSafe(v.Label()), Classname: junitClass, File: xmlSafe(v.File)}
		if c := xmlSafe(v.Config); c != "" {
			if suite.Properties == nil {
				suite.Properties = new(junitProperties)
			}
			if !slices.Contains(suite.Properties.Property, junitProperty{"config", c}) {
				suite.Properties.Property = append(suite.Properties.Property, junitProperty{"config", c})
			}
		}
		switch {
		case v.Err != nil:
			suite.Errors++
			tc.Error = &junitProblem{Type: "unreadable", Message: xmlSafe(errorText(v))}
		case !v.Pass:
			suite.Failures++
			tc.Failure = junitFailure(v, v.Threshold(run.FailOn))
		}
		if v.Err == nil && (len(v.Report.Findings) > 0 || v.Report.Outcome.State != "completed" || v.NotAStream) {
			tc.SystemOut = &junitText{xmlLegal(reportText(v))}
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{Name: suite.Name, Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitFailure says why a verdict fails.
func junitFailure(v *Verdict, failOn checks.Severity) *junitProblem {
	failing := v.Failing(failOn)
	var lines, reasons []string
	typ := "outcome"
	if len(failing) > 0 {
		typ = failing[0].Rule
		var n [3]int
		for _, f := range failing {
			n[f.Severity]++
			lines = append(lines, findingLine(f))
		}
		for _, sev := range []checks.Severity{checks.Error, checks.Warning, checks.Info} {
			if n[sev] > 0 {
				reasons = append(reasons, countWord(n[sev], sev.String()))
			}
		}
	}
	if v.OutcomeFails {
		reasons = append(reasons, "outcome "+v.Report.Outcome.State)
		lines = append(lines, safe(v.outcomeMessage()))
	}
	if v.NotAStream {
		if len(failing) == 0 && !v.OutcomeFails {
			typ = notAStreamRule
		}
		reasons = append(reasons, "not an LLM stream")
		lines = append(lines, v.NotAStreamMessage())
	}
	return &junitProblem{Type: xmlSafe(typ), Message: strings.Join(reasons, ", "), Text: xmlLegal(strings.Join(lines, "\n"))}
}

// reportText is the verdict's report as the text output writes it: the
// config file that judged it, the outcome, then a line per finding.
func reportText(v *Verdict) string {
	var b strings.Builder
	if v.Config != "" {
		b.WriteString("config: " + safe(v.Config) + "\n")
	}
	b.WriteString("outcome: " + safe(v.Report.Outcome.State))
	if d := v.Report.Outcome.Detail; d != "" {
		b.WriteString(" (" + safe(d) + ")")
	}
	for _, f := range v.Report.Findings {
		b.WriteString("\n" + findingLine(f))
	}
	return b.String()
}

// countWord is "1 error" or "3 errors"; "info" has no plural.
func countWord(n int, word string) string {
	s := strconv.Itoa(n) + " " + word
	if n != 1 && word != "info" {
		s += "s"
	}
	return s
}
