// Package suite serves `streamtap check` over a test suite's recordings,
// as CI runs it: it finds the inputs under directories (Expand), the config
// file that turns rules off or regrades them (Configs), where the events a
// finding cites are in their file (Positions), and writes the verdicts in
// the formats CI systems read: JUnit XML, SARIF 2.1.0 and GitHub workflow
// commands.
//
// It models nothing itself: the command reads each input and hands over
// the judged report (a Verdict). It reads files (directories, config
// files, an input's bytes to count its lines) but knows no terminal
// beyond the one escaper every output goes through.
package suite

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/termtext"
)

// safe makes text from a stream, a file name or an error printable: the
// one escaper of the terminal outputs (control characters, escape
// sequences, C1, bidi and invalid UTF-8 shown escaped). Every format runs
// its text through it before its own escaping, so a CI log that shows the
// output is as safe as a terminal.
var safe = termtext.Safe

// Verdict is check's judgement of one input, or of one session of an
// archive.
type Verdict struct {
	// Input names the input in reports: a path as given or found, "stdin",
	// "sample NAME".
	Input string
	// File is the file the events are in, which locations point into: the
	// input's path, "" for standard input or a sample. An archive's
	// sessions name the archive; their events are in its bodies, so Places
	// is nil for them.
	File string
	// Session is the session of an archive, from 1, and Sessions how many
	// the archive holds; 0 for a stream.
	Session, Sessions int
	// Exchange is an archive session's request and status, its URL
	// already redacted; zero for a stream.
	Exchange Exchange

	// Config is the config file that judged it (its rule changes and
	// policy), "" for none; FailOn is the threshold it was judged by when
	// it differs from the run's (a config file's fail-on), nil otherwise.
	Config string
	FailOn *checks.Severity

	Report checks.Report
	// OutcomeFails says the outcome fails the check (--allow-outcome does
	// not name it), and Pass that the input passes: no finding at or above
	// the run's --fail-on and an outcome that passes.
	OutcomeFails, Pass bool
	// Err is why the input could not be read; Report is empty then.
	Err error
	// Skipped says why a file a directory's walk found was not judged (a
	// .json or .yaml file that holds no LLM stream); no format writes it
	// but the summary's count.
	Skipped string

	// NotAStream says the input holds data but no LLM stream (no dialect
	// recognised an event): it fails, and its findings, which would quote
	// its bytes (a credentials file a link led to), are withheld: Withheld
	// counts them.
	NotAStream bool
	Withheld   int

	// Places says where the events the report cites are in File, by
	// ordinal (see Positions); nil when unknown.
	Places map[int]Place
	// Last is the ordinal of the stream's last event, -1 when it has none:
	// where a stream that ended too soon (truncated) is pointed at.
	Last int
}

// Label is how reports name the verdict: the input, and for an archive's
// session "#N" and its request.
func (v *Verdict) Label() string {
	if v.Session == 0 {
		return v.Input
	}
	s := v.Input + " #" + strconv.Itoa(v.Session)
	if x := v.Exchange.String(); x != "" {
		s += " (" + x + ")"
	}
	return s
}

// Exchange is the HTTP exchange an archive's session recorded.
type Exchange struct {
	Method, URL string
	Status      int
}

// String is "POST https://… 200", or "" for none.
func (x Exchange) String() string {
	if x.Method == "" && x.URL == "" {
		return ""
	}
	return x.Method + " " + x.URL + " " + strconv.Itoa(x.Status)
}

// Withhold marks v as the verdict on an input that holds no LLM stream:
// it fails, and its findings are withheld (NotAStream).
func (v *Verdict) Withhold() {
	v.NotAStream, v.Pass = true, false
	v.Withheld += len(v.Report.Findings)
	v.Report.Findings = nil
}

// notAStreamRule is the rule id under which the formats that file every
// failure under a rule (JUnit's type, SARIF) report an input that holds
// no LLM stream.
const notAStreamRule = "not-a-stream"

// NotAStreamMessage says why v fails when it holds no LLM stream.
func (v *Verdict) NotAStreamMessage() string {
	s := "not an LLM stream: no event in it is one of a known dialect"
	if v.Withheld > 0 {
		s += "; not shown: its " + countWord(v.Withheld, "finding") + ", which would quote its bytes (streamtap events lists its events)"
	}
	return s
}

// Threshold is the severity v was judged by: its own, else the run's.
func (v *Verdict) Threshold(run checks.Severity) checks.Severity {
	if v.FailOn != nil {
		return *v.FailOn
	}
	return run
}

// Failing returns the findings that fail the check under failOn, in the
// report's order.
func (v *Verdict) Failing(failOn checks.Severity) []checks.Finding {
	var out []checks.Finding
	for _, f := range v.Report.Findings {
		if f.Severity >= failOn {
			out = append(out, f)
		}
	}
	return out
}

// outcomeEvent is the event a failing outcome is pointed at: the one that
// decided it, or the last event for a stream that ended too soon; -1 for
// none.
func (v *Verdict) outcomeEvent() int {
	if v.Report.Outcome.Ordinal >= 0 {
		return v.Report.Outcome.Ordinal
	}
	return v.Last
}

// outcomeMessage says why the outcome fails the check, as the text output
// does.
func (v *Verdict) outcomeMessage() string {
	o := v.Report.Outcome
	s := "outcome " + o.State
	if o.Detail != "" {
		s += " (" + o.Detail + ")"
	}
	return s + " fails the check (allow it with --allow-outcome " + o.State + ")"
}

// Cited returns the ordinals of the events v's report cites, with the
// event its failing outcome points at: the events Places must locate.
func (v *Verdict) Cited() []int {
	var out []int
	for _, f := range v.Report.Findings {
		out = append(out, f.Events...)
	}
	if v.OutcomeFails {
		if e := v.outcomeEvent(); e >= 0 {
			out = append(out, e)
		}
	}
	return out
}

// Run is what the formats that describe a whole run (JUnit, SARIF) write:
// every verdict, the threshold they were judged by, and streamtap's
// version.
type Run struct {
	Verdicts []Verdict
	FailOn   checks.Severity
	Version  string
}

// Summary counts a run's verdicts, and the files skipped: those with no
// stream in them, and links not followed (SkippedLinks, of Skipped).
type Summary struct {
	Checked, Passed, Failed, Unreadable, Skipped int
	SkippedLinks                                 int
}

// Add counts one verdict.
func (s *Summary) Add(v *Verdict) {
	if v.Skipped != "" {
		s.Skipped++
		if strings.HasPrefix(v.Skipped, "a link to ") {
			s.SkippedLinks++
		}
		return
	}
	s.Checked++
	switch {
	case v.Err != nil:
		s.Unreadable++
	case v.Pass:
		s.Passed++
	default:
		s.Failed++
	}
}

// String is the summary's line: "checked 12: 10 passed, 1 failed, 1
// unreadable; 2 skipped (no stream in them)" (unreadable and skipped only
// when there are some; "3 skipped (2 with no stream in them, 1 link not
// followed)" when links were).
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "checked %d: %d passed, %d failed", s.Checked, s.Passed, s.Failed)
	if s.Unreadable > 0 {
		fmt.Fprintf(&b, ", %d unreadable", s.Unreadable)
	}
	switch noStream := s.Skipped - s.SkippedLinks; {
	case s.SkippedLinks == 0 && noStream > 0:
		fmt.Fprintf(&b, "; %d skipped (no stream in them)", s.Skipped)
	case s.SkippedLinks > 0:
		var why []string
		if noStream > 0 {
			why = append(why, fmt.Sprintf("%d with no stream in them", noStream))
		}
		why = append(why, countWord(s.SkippedLinks, "link")+" not followed")
		fmt.Fprintf(&b, "; %d skipped (%s)", s.Skipped, strings.Join(why, ", "))
	}
	return b.String()
}

// findingLine is one finding as the text output writes it: "error
// chat/x [3,4]: message", safe to print.
func findingLine(f checks.Finding) string {
	var b strings.Builder
	b.WriteString(f.Severity.String())
	b.WriteByte(' ')
	b.WriteString(safe(f.Rule))
	if len(f.Events) > 0 {
		b.WriteString(" [")
		for i, e := range f.Events {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(e))
		}
		b.WriteByte(']')
	}
	b.WriteString(": ")
	b.WriteString(safe(f.Message))
	return b.String()
}
