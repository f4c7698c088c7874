package plain

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/termtext"
)

// WriteCheckReport writes a check report for people: the outcome, one line
// per finding (severity, rule, events, message), and a count. Messages
// quote the stream, so every string goes through Safe: the one terminal
// escaper, which also neutralises bidi overrides and C1 controls.
func WriteCheckReport(w io.Writer, r checks.Report) error {
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
		fmt.Fprintf(&b, "%-7s %s", f.Severity, termtext.Safe(f.Rule))
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
