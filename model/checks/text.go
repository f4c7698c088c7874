package checks

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WriteText writes a report for people: the outcome, one line per finding
// (severity, rule, events, message), and a count. Control characters that
// came from the stream are escaped, so a hostile stream cannot drive the
// terminal.
func WriteText(w io.Writer, r Report) error {
	var b strings.Builder
	b.WriteString("outcome: ")
	b.WriteString(escape(r.Outcome.State))
	if r.Outcome.Detail != "" {
		b.WriteString(" (")
		b.WriteString(escape(r.Outcome.Detail))
		b.WriteString(")")
	}
	b.WriteByte('\n')
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%-7s %s", f.Severity, escape(f.Rule))
		if len(f.Events) > 0 {
			ev := make([]string, len(f.Events))
			for i, e := range f.Events {
				ev[i] = strconv.Itoa(e)
			}
			fmt.Fprintf(&b, " [%s]", strings.Join(ev, ","))
		}
		b.WriteString(": ")
		b.WriteString(escape(f.Message))
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%s, %s, %s\n", plural(r.Count(Error), "error"), plural(r.Count(Warning), "warning"), plural(r.Count(Info), "info"))
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as one JSON document (see Report.MarshalJSON)
// followed by a newline.
func WriteJSON(w io.Writer, r Report) error {
	b, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// escape replaces control characters (C0, DEL, C1, and the Unicode line and
// paragraph separators) and invalid UTF-8 with Go-style escapes.
func escape(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
