package plain

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/termtext"
)

// CheckStyle says how WriteCheckReportStyled decorates its text.
type CheckStyle struct {
	// Color colours each finding's severity (error red, warning yellow,
	// info cyan) with ANSI SGR sequences, as diff colours its kinds: only
	// for a terminal, and never under NO_COLOR (the caller decides).
	Color bool
}

// SGR colours of the check report, by severity and verdict.
const (
	sgrError   = "\x1b[31m"
	sgrWarning = "\x1b[33m"
	sgrInfo    = "\x1b[36m"
	sgrPass    = "\x1b[32m"
)

// Severity paints a severity's word (padded to width, the paint around
// the word alone).
func (st CheckStyle) Severity(sev checks.Severity, width int) string {
	word := sev.String()
	pad := strings.Repeat(" ", max(width-len(word), 0))
	switch sev {
	case checks.Error:
		return st.Paint(sgrError, word) + pad
	case checks.Warning:
		return st.Paint(sgrWarning, word) + pad
	}
	return st.Paint(sgrInfo, word) + pad
}

// Fail paints what fails (a verdict, an outcome, a count) red, Pass what
// passes green.
func (st CheckStyle) Fail(s string) string { return st.Paint(sgrBold+sgrError, s) }

// Pass paints what passes green.
func (st CheckStyle) Pass(s string) string { return st.Paint(sgrPass, s) }

// Paint wraps s in the SGR sequence sgr when colouring.
func (st CheckStyle) Paint(sgr, s string) string {
	if !st.Color || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// WriteCheckReport writes a check report for people: the outcome, one line
// per finding (severity, rule, events, message), and a count. Messages
// quote the stream, so every string goes through Safe: the one terminal
// escaper, which also neutralises bidi overrides and C1 controls.
func WriteCheckReport(w io.Writer, r checks.Report) error {
	return WriteCheckReportStyled(w, r, CheckStyle{})
}

// WriteCheckReportStyled is WriteCheckReport in style st.
func WriteCheckReportStyled(w io.Writer, r checks.Report, st CheckStyle) error {
	var b strings.Builder
	b.WriteString("outcome: ")
	b.WriteString(termtext.Safe(r.Outcome.State))
	if r.Outcome.Detail != "" {
		b.WriteString(" (")
		b.WriteString(termtext.Safe(r.Outcome.Detail))
		b.WriteString(")")
	}
	b.WriteByte('\n')
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s %s", st.Severity(f.Severity, 7), termtext.Safe(f.Rule))
		if len(f.Events) > 0 {
			ev := make([]string, len(f.Events))
			for i, e := range f.Events {
				ev[i] = strconv.Itoa(e)
			}
			fmt.Fprintf(&b, " [%s]", strings.Join(ev, ","))
		}
		b.WriteString(": ")
		b.WriteString(termtext.Safe(f.Message))
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%s, %s, %s\n", CountOf(r.Count(checks.Error), "error"), CountOf(r.Count(checks.Warning), "warning"), CountOf(r.Count(checks.Info), "info"))
	_, err := io.WriteString(w, b.String())
	return err
}

// CountOf returns "1 error" or "3 errors".
func CountOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
