package suite

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model/checks"
)

// ghParsed is a workflow command as the Actions runner reads it.
type ghParsed struct {
	command string
	props   map[string]string
	data    string
}

// parseGHCommand reads a line as actions/runner's ActionCommand.TryParseV2
// does (src/Runner.Common/ActionCommand.cs): after leading spaces the line
// starts with "::"; the command info runs to the next "::"; the name is
// up to the first space; the properties after it are split at "," and
// each at its first "="; properties are unescaped %0D %0A %3A %2C %25 in
// that order, the data %0D %0A %25.
func parseGHCommand(line string) (ghParsed, bool) {
	line = strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(line, "::") {
		return ghParsed{}, false
	}
	end := strings.Index(line[2:], "::")
	if end < 0 {
		return ghParsed{}, false
	}
	info := line[2 : 2+end]
	p := ghParsed{props: map[string]string{}}
	name, props, hasProps := strings.Cut(info, " ")
	p.command = name
	if hasProps {
		for _, kv := range strings.Split(strings.TrimSpace(props), ",") {
			if kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if ok && k != "" && v != "" {
				p.props[strings.ToLower(k)] = unescapeGH(v, "%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
			}
		}
	}
	p.data = unescapeGH(line[2+end+2:], "%0D", "\r", "%0A", "\n", "%25", "%")
	return p, true
}

// unescapeGH replaces each escape in turn, as the runner does (one
// Replace per mapping, in order).
func unescapeGH(s string, pairs ...string) string {
	for i := 0; i < len(pairs); i += 2 {
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s
}

// TestGitHubCommandsParse writes the verdicts of a run over real streams
// as workflow commands and reads every line back as the runner does:
// each is one annotation command of the finding's severity, on the file
// and line of the event it cites, titled with its rule, whose data is the
// message made safe for a terminal, intact through the escaping; a file
// name with "," and ":" survives as a property.
func TestGitHubCommandsParse(t *testing.T) {
	t.Parallel()
	run, files := sampleRun(t)
	for i := range run.Verdicts {
		v := &run.Verdicts[i]
		var out bytes.Buffer
		if err := WriteGitHub(&out, v); err != nil {
			t.Fatal(err)
		}
		type want struct {
			cmd, title, data string
			line             int
		}
		var wants []want
		switch {
		case v.Err != nil:
			wants = append(wants, want{"error", "unreadable input", safe(errorText(v)), 0})
		default:
			for _, f := range v.Report.Findings {
				w := want{map[checks.Severity]string{checks.Error: "error", checks.Warning: "warning", checks.Info: "notice"}[f.Severity],
					f.Rule, safe(f.Message), 0}
				if len(f.Events) > 0 && v.Places != nil && v.File != "" {
					w.line = 1 + bytes.Count(files[v.File][:eventAt(t, files[v.File], f.Events[0]).Offset], []byte("\n"))
				}
				wants = append(wants, w)
			}
			if v.OutcomeFails {
				wants = append(wants, want{"error", "outcome " + v.Report.Outcome.State, safe(v.outcomeMessage()), -1})
			}
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			lines = nil
		}
		if len(lines) != len(wants) {
			t.Fatalf("%s: %d lines; want %d:\n%s", v.Label(), len(lines), len(wants), out.String())
		}
		for j, l := range lines {
			got, ok := parseGHCommand(l)
			if !ok {
				t.Fatalf("%s: %q is not a workflow command", v.Label(), l)
			}
			w := wants[j]
			if got.command != w.cmd || got.props["title"] != w.title {
				t.Errorf("%s: ::%s title=%q; want ::%s title=%q", v.Label(), got.command, got.props["title"], w.cmd, w.title)
			}
			if !strings.Contains(got.data, w.data) {
				t.Errorf("%s: data %q; want it to hold %q", v.Label(), got.data, w.data)
			}
			if strings.ContainsAny(got.data, "\r\n\x1b\u009b\u202e") {
				t.Errorf("%s: raw control text in the data %q", v.Label(), got.data)
			}
			if v.File != "" && got.props["file"] != v.File {
				t.Errorf("%s: file=%q; want %q", v.Label(), got.props["file"], v.File)
			}
			if v.File == "" && (got.props["file"] != "" || !strings.HasPrefix(got.data, v.Input+": ")) {
				t.Errorf("%s: no file to annotate, yet file=%q, data %q", v.Label(), got.props["file"], got.data)
			}
			switch {
			case w.line > 0:
				if got.props["line"] != strconv.Itoa(w.line) {
					t.Errorf("%s %s: line=%q; want %d", v.Label(), w.title, got.props["line"], w.line)
				}
			case w.line == 0 && got.props["line"] != "":
				t.Errorf("%s %s: line=%q; want none", v.Label(), w.title, got.props["line"])
			}
		}
	}
}

// TestGitHubEscaping holds the escaping to the runner's own: a value
// with every character the runner unescapes, and lines that try to start
// a command of their own.
func TestGitHubEscaping(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"%0A", "%25", "a,b:c", "x::y", "50% done, 100%0D", "::add-mask::secret", "\n::stop-commands::x"} {
		v := &Verdict{Input: "in:1,2%.sse", File: "in:1,2%.sse", Report: checks.Report{Findings: []checks.Finding{{Rule: "framing/no-data", Severity: checks.Error, Message: s}}}}
		var out bytes.Buffer
		if err := WriteGitHub(&out, v); err != nil {
			t.Fatal(err)
		}
		if strings.Count(out.String(), "\n") != 1 {
			t.Errorf("%q: %d lines: %q", s, strings.Count(out.String(), "\n"), out.String())
		}
		got, ok := parseGHCommand(strings.TrimSuffix(out.String(), "\n"))
		if !ok || got.props["file"] != v.File || got.data != safe(s) {
			t.Errorf("%q: parsed %+v; want file %q, data %q", s, got, v.File, safe(s))
		}
	}
}

// TestGitHubQuiet: a verdict with nothing to say writes nothing, so a
// passing suite adds no annotation.
func TestGitHubQuiet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, data := sampleFile(t, dir, "chat-openrouter-keepalive.sse")
	v := verdictOf(t, path, data, checks.Error)
	var out bytes.Buffer
	if err := WriteGitHub(&out, &v); err != nil || out.Len() != 0 {
		t.Errorf("a clean stream wrote %q (%v)", out.String(), err)
	}
	_ = os.Remove(path)
}

// TestGitHubNamesEachEventOnce: an annotation names every event its
// finding cites, and none twice: the note of events goes after the
// message only with those the message does not name ("… (event 3)" came
// after messages that said "event 3" already).
func TestGitHubNamesEachEventOnce(t *testing.T) {
	t.Parallel()
	run, _ := sampleRun(t)
	notes := 0
	for i := range run.Verdicts {
		v := &run.Verdicts[i]
		for _, f := range v.Report.Findings {
			note := eventsNote(f.Message, f.Events)
			named := namedEvents(f.Message + note)
			for _, e := range f.Events {
				n := 0
				for _, r := range named {
					if r[0] <= e && e <= r[1] {
						n++
					}
				}
				if n == 0 {
					t.Errorf("%s %s: event %d is not named in %q", v.Label(), f.Rule, e, f.Message+note)
				}
			}
			if note != "" {
				notes++
				for _, e := range namedEvents(note) {
					if slices.ContainsFunc(namedEvents(f.Message), func(r [2]int) bool { return r[0] <= e[0] && e[0] <= r[1] }) {
						t.Errorf("%s %s: event %d named in the message and again in the note %q", v.Label(), f.Rule, e[0], f.Message+note)
					}
				}
			}
		}
	}
	for _, tt := range []struct {
		msg    string
		events []int
		want   string
	}{
		{"event 3: done_reason \"stop\" after 2 tool calls", []int{3}, ""},
		{"call get_weather is opened at event 2 as item \"a\" and renamed \"b\" (events 12, 13)", []int{2, 12, 13}, ""},
		{"the response of events 0–12 has no response.completed", []int{0, 12}, ""},
		{"the stream ends without data: [DONE]", []int{7}, " (event 7)"},
		{"the arguments differ: deltas (event 13) say x", []int{13, 14, 15}, " (events 14, 15)"},
	} {
		if got := eventsNote(tt.msg, tt.events); got != tt.want {
			t.Errorf("eventsNote(%q, %v) = %q; want %q", tt.msg, tt.events, got, tt.want)
		}
	}
}
