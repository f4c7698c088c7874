package suite

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model/checks"
)

// The common JUnit XML shape, as the readers of CI systems take it
// (Jenkins' junit plugin, GitLab, the Ant junit task's schema): declared
// here apart from the writer's types, so that the test reads the output
// as a reader would.
type (
	jSuites struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Suites   []jSuite `xml:"testsuite"`
	}
	jSuite struct {
		Name     string  `xml:"name,attr"`
		Tests    int     `xml:"tests,attr"`
		Failures int     `xml:"failures,attr"`
		Errors   int     `xml:"errors,attr"`
		Skipped  int     `xml:"skipped,attr"`
		Cases    []jCase `xml:"testcase"`
	}
	jCase struct {
		Name      string    `xml:"name,attr"`
		Classname string    `xml:"classname,attr"`
		File      string    `xml:"file,attr"`
		Failures  []jResult `xml:"failure"`
		Errors    []jResult `xml:"error"`
		SystemOut string    `xml:"system-out"`
	}
	jResult struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// jShape lists the elements of the common shape and the attributes each
// may carry.
var jShape = map[string][]string{
	"testsuites": {"name", "tests", "failures", "errors", "time", "disabled"},
	"testsuite":  {"name", "tests", "failures", "errors", "skipped", "time", "timestamp", "hostname", "id", "package", "disabled"},
	"testcase":   {"name", "classname", "time", "file", "line", "assertions", "status"},
	"failure":    {"message", "type"},
	"error":      {"message", "type"},
	"skipped":    {"message"},
	"system-out": nil,
	"system-err": nil,
	"properties": nil,
	"property":   {"name", "value"},
}

// checkJUnitShape reads out token by token, as a strict XML parser, and
// fails on an element or attribute outside the common shape.
func checkJUnitShape(t *testing.T, out []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(out))
	dec.Strict = true
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, out)
		}
		if se, ok := tok.(xml.StartElement); ok {
			attrs, known := jShape[se.Name.Local]
			if !known {
				t.Errorf("element <%s> is not part of the JUnit shape", se.Name.Local)
			}
			for _, a := range se.Attr {
				if !slices.Contains(attrs, a.Name.Local) {
					t.Errorf("<%s %s=…> is not part of the JUnit shape", se.Name.Local, a.Name.Local)
				}
			}
		}
	}
}

// TestJUnitParses writes a run over real streams as JUnit XML and reads it
// back as a CI system's reader would: one testcase per verdict, counts
// that add up, a failure naming the failing rules, their events and
// messages and the outcome, an error for the unreadable input, and hostile
// text escaped for a terminal and intact through XML.
func TestJUnitParses(t *testing.T) {
	t.Parallel()
	run, _ := sampleRun(t)
	var out bytes.Buffer
	if err := WriteJUnit(&out, run); err != nil {
		t.Fatal(err)
	}
	checkJUnitShape(t, out.Bytes())
	var doc jSuites
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d testsuites; want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	if len(s.Cases) != len(run.Verdicts) || s.Tests != len(s.Cases) || doc.Tests != s.Tests {
		t.Fatalf("%d testcases, tests=%d/%d; want %d", len(s.Cases), s.Tests, doc.Tests, len(run.Verdicts))
	}
	var failures, errs int
	for i, tc := range s.Cases {
		v := &run.Verdicts[i]
		if tc.Name != xmlSafe(v.Label()) || tc.Classname == "" {
			t.Errorf("testcase %d: name %q classname %q; want %q", i, tc.Name, tc.Classname, v.Label())
		}
		switch {
		case v.Err != nil:
			errs++
			if len(tc.Errors) != 1 || len(tc.Failures) != 0 || !strings.Contains(tc.Errors[0].Message, "missing.sse") {
				t.Errorf("%s: errors %+v failures %+v; want one error naming the file", tc.Name, tc.Errors, tc.Failures)
			}
		case !v.Pass:
			failures++
			if len(tc.Failures) != 1 || len(tc.Errors) != 0 {
				t.Fatalf("%s: failures %+v errors %+v; want one failure", tc.Name, tc.Failures, tc.Errors)
			}
			f := tc.Failures[0]
			failing := v.Failing(run.FailOn)
			wantType := "outcome"
			if len(failing) > 0 {
				wantType = failing[0].Rule
			}
			if f.Type != wantType {
				t.Errorf("%s: failure type %q; want %q", tc.Name, f.Type, wantType)
			}
			for _, fd := range failing {
				evs := make([]string, len(fd.Events))
				for j, e := range fd.Events {
					evs[j] = strconv.Itoa(e)
				}
				line := fd.Severity.String() + " " + fd.Rule + " [" + strings.Join(evs, ",") + "]: " + xmlSafe(fd.Message)
				if !slices.Contains(strings.Split(f.Text, "\n"), line) {
					t.Errorf("%s: the failure's text lacks %q:\n%s", tc.Name, line, f.Text)
				}
			}
			if v.OutcomeFails != strings.Contains(f.Message, "outcome "+v.Report.Outcome.State) ||
				v.OutcomeFails != strings.Contains(f.Text, "--allow-outcome "+v.Report.Outcome.State) {
				t.Errorf("%s: the failure %+v does not say whether the outcome %s fails", tc.Name, f, v.Report.Outcome.State)
			}
			if n := v.Report.Count(checks.Error); n > 0 && !strings.Contains(f.Message, countWord(n, "error")) {
				t.Errorf("%s: the failure's message %q does not count %d errors", tc.Name, f.Message, n)
			}
		default:
			if len(tc.Failures)+len(tc.Errors) != 0 {
				t.Errorf("%s passes, yet has %+v %+v", tc.Name, tc.Failures, tc.Errors)
			}
		}
		for _, fd := range v.Report.Findings {
			if !strings.Contains(tc.SystemOut, xmlSafe(fd.Message)) {
				t.Errorf("%s: system-out lacks the finding %q", tc.Name, fd.Message)
			}
		}
	}
	if failures == 0 || s.Failures != failures || doc.Failures != failures || s.Errors != errs || doc.Errors != errs {
		t.Errorf("failures=%d/%d errors=%d/%d; want %d and %d", s.Failures, doc.Failures, s.Errors, doc.Errors, failures, errs)
	}
	if !strings.Contains(out.String(), safe(hostile)[:20]) {
		t.Error("the hostile message is not in the output")
	}
	if bytes.ContainsAny(out.Bytes(), "\x1b\x07\r\u009b\u202e") {
		t.Error("raw control text reached the XML")
	}
}

// TestJUnitEmpty: a run without inputs is still a document with zero
// tests.
func TestJUnitEmpty(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := WriteJUnit(&out, Run{}); err != nil {
		t.Fatal(err)
	}
	checkJUnitShape(t, out.Bytes())
	var doc jSuites
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil || doc.Tests != 0 {
		t.Errorf("empty run: %v, %+v", err, doc)
	}
}
