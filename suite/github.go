package suite

import (
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/model/checks"
)

// WriteGitHub writes v as GitHub Actions workflow commands, which the
// runner turns into annotations on the file and line: one per finding
// (::error, ::warning or ::notice by its severity, titled with its rule),
// one for an outcome that fails the check, one for an input that holds no
// LLM stream, one for an input that could not be read. A verdict with nothing to say writes nothing.
//
// The syntax is "::command key=value,key=value::data"
// (https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions).
// Text goes through the terminal escaper first, then through the
// runner's escaping: % CR LF in the data, and also : and , in a value
// (actions/runner's ActionCommand unescapes exactly these). Every line
// starts with "::" and holds one command, so nothing from a stream can
// start a command of its own.
func WriteGitHub(w io.Writer, v *Verdict) error { return writeGitHub(w, v, checks.Info) }

// writeGitHub is WriteGitHub with only the findings at or above failOn.
func writeGitHub(w io.Writer, v *Verdict, failOn checks.Severity) error {
	var b strings.Builder
	prefix := sessionPrefix(v)
	if v.File == "" && v.Input != "" {
		prefix = v.Label() + ": " // no file to annotate: name the input in the text
	}
	switch {
	case v.Err != nil:
		ghCommand(&b, "error", v.File, 0, "unreadable input", errorText(v))
	default:
		for _, f := range v.Report.Findings {
			if f.Severity < failOn {
				continue
			}
			line := 0
			if len(f.Events) > 0 {
				line = v.Places[f.Events[0]].Line
			}
			ghCommand(&b, ghLevel(f.Severity), v.File, line, f.Rule, prefix+f.Message+eventsNote(f.Message, f.Events))
		}
		if v.OutcomeFails {
			ghCommand(&b, "error", v.File, v.Places[v.outcomeEvent()].Line, "outcome "+v.Report.Outcome.State, prefix+v.outcomeMessage())
		}
		if v.NotAStream {
			ghCommand(&b, "error", v.File, 0, "not an LLM stream", prefix+v.NotAStreamMessage())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// eventsNote is " (events 3, 4)": the ordinals `streamtap events` prints
// of the events a finding cites that its message does not name already
// (most name every one: "… (event 3)" said twice was noise); "" when it
// names them all.
func eventsNote(message string, events []int) string {
	named := namedEvents(message)
	var parts []string
	for _, e := range events {
		if !slices.ContainsFunc(named, func(r [2]int) bool { return r[0] <= e && e <= r[1] }) {
			parts = append(parts, strconv.Itoa(e))
		}
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return " (event " + parts[0] + ")"
	}
	return " (events " + strings.Join(parts, ", ") + ")"
}

// eventRefs matches how a message names events: "event 3", "events 3, 5",
// "events 3–10", "events 2–4, 9".
var eventRefs = regexp.MustCompile(`\bevents? (\d+(?:–\d+)?(?:, \d+(?:–\d+)?)*)`)

// namedEvents lists the events message names (eventRefs), as ranges
// from first to last.
func namedEvents(message string) [][2]int {
	var named [][2]int
	for _, m := range eventRefs.FindAllStringSubmatch(message, -1) {
		for _, part := range strings.Split(m[1], ", ") {
			lo, hi, isRange := strings.Cut(part, "–")
			a, err := strconv.Atoi(lo)
			if err != nil {
				continue
			}
			b := a
			if isRange {
				if b, err = strconv.Atoi(hi); err != nil {
					b = a
				}
			}
			named = append(named, [2]int{a, b})
		}
	}
	return named
}

// ghLevel is the command of a finding's severity.
func ghLevel(s checks.Severity) string {
	switch s {
	case checks.Error:
		return "error"
	case checks.Warning:
		return "warning"
	}
	return "notice"
}

// ghCommand writes one command line: file and line only when known
// (line 0 is none).
func ghCommand(b *strings.Builder, cmd, file string, line int, title, message string) {
	b.WriteString("::")
	b.WriteString(cmd)
	sep := " "
	prop := func(k, v string) {
		b.WriteString(sep + k + "=" + ghProperty(v))
		sep = ","
	}
	if file != "" {
		prop("file", file)
		if line > 0 {
			prop("line", strconv.Itoa(line))
		}
	}
	prop("title", title)
	b.WriteString("::")
	b.WriteString(ghData(message))
	b.WriteByte('\n')
}

// ghData escapes a command's data as actions/toolkit's escapeData does,
// after the terminal escaper.
func ghData(s string) string {
	return ghEscape(safe(s), false)
}

// ghProperty escapes a property value as actions/toolkit's
// escapeProperty does, after the terminal escaper.
func ghProperty(s string) string {
	return ghEscape(safe(s), true)
}

func ghEscape(s string, property bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			b.WriteString("%25")
		case c == '\r':
			b.WriteString("%0D")
		case c == '\n':
			b.WriteString("%0A")
		case property && c == ':':
			b.WriteString("%3A")
		case property && c == ',':
			b.WriteString("%2C")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
