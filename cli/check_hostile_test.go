package cli

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/streamtap/streamtap/internal/sariftest"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/suite"
)

// ciJSON is, as the inside of a JSON string, what a stream may carry to
// break a CI log or a report format: a line break followed by a GitHub
// workflow command, the markers GitHub (first syntax), Azure Pipelines
// and TeamCity obey anywhere in a line, a command after white space the
// runner trims (U+00A0), the workflow commands' own escapes, the end of
// an XML CDATA section, XML's specials and the code points XML 1.0 does
// not allow (U+FFFE, U+FFFF).
const ciJSON = `\n::error title=forged::from a stream ##[error]forged ##vso[task.setvariable variable=X]1 ##teamcity[message text='x'] ]]> <&'> \ufffe\uffff %0A%3A,: \u00a0::warning::x`

// ciName is a recording's file name made of the same: a pull request
// names its files.
const ciName = "rec\n::error title=forged::name ##[error]x ]]><&'\" \ufffe\uffff\xff %0A,: \u00a0::warning::y"

// ciCommand finds what a CI runner obeys anywhere in a line of its log.
var ciCommand = regexp.MustCompile(`##[#A-Za-z]*\[`)

// ghCommandLine is a workflow command check writes: one of the three
// annotation commands, its properties (whose values hold no raw ":" or
// ","), then its data.
var ghCommandLine = regexp.MustCompile(`^::(error|warning|notice)( [a-z]+=[^:,]*(,[a-z]+=[^:,]*)*)?::(.*)$`)

// hostileSuite lays out recordings whose stream text and names carry
// hostileText, hostileC0 and ciJSON, with inputs that cannot be read, and
// returns the directory.
func hostileSuite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"broken-item-id-changes", "broken-cut-before-terminal", "broken-done-args-differ", "chat-single-call"} {
		data, err := samples.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		data = hostileFields.ReplaceAll(data, []byte(`"$1":"`+hostileText+ciJSON))
		data = append(data, "data: {\"error\":{\"message\":\""+ciJSON+"\"}}\n\n"...)
		write(name+".sse", data)
	}
	write(ciName+".sse", []byte(hostileChat))
	write(ciName+" not a stream.jsonl", []byte(ciName+hostileText+hostileC0+"\n"))
	write(ciName+".har", []byte(`{"log": `+ciName)) // cut: unreadable
	return dir
}

// TestCheckOutputsInjectNothing runs check in every output format, over
// recordings whose names and stream text carry every class of hostile
// character, and along its error paths, and reads what it prints as a CI
// log and each format's reader would: no line starts a workflow command
// (after the white space the runner trims) but the github format's own,
// which parse as exactly one command each; no line holds a command
// marker; stdout and stderr are UTF-8 with no raw control, bidi or
// invisible character; and each format parses with a strict parser (JUnit
// as XML 1.0, SARIF against its schema, JSON lines as JSON).
func TestCheckOutputsInjectNothing(t *testing.T) {
	t.Parallel()
	dir := hostileSuite(t)
	missing := filepath.Join(dir, ciName+" missing.sse")
	badConfig := filepath.Join(t.TempDir(), ".streamtap.yaml")
	if err := os.WriteFile(badConfig, []byte("disable: [\""+strings.ReplaceAll(ciJSON, `\u00a0`, " ")+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory a pull request names, holding a link out of it: the
	// line that says it was skipped names the directory.
	sub := filepath.Join(t.TempDir(), ciName+" dir")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "ok.sse"), []byte(hostileChat), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Symlink(filepath.Join(dir, ciName+".sse"), filepath.Join(sub, ciName+" out.sse")) // where links are made
	runs := [][]string{
		{dir},
		{sub},
		{filepath.Join(dir, ciName+".sse"), missing},
		{"--request", missing, filepath.Join(dir, ciName+".sse")},
		{"--config", missing, dir},
		{"--config", badConfig, dir},
		{"--disable", ciName, dir},
		{"--severity", ciName + "=" + ciName, dir},
	}
	for _, format := range suite.Formats {
		for _, args := range runs {
			args := append([]string{"--output-format", format}, args...)
			code, stdout, stderr := runCheckArgs(t, nil, args...)
			what := fmt.Sprintf("check %q (exit %d)", args, code)
			if stdout == "" && stderr == "" {
				t.Errorf("%s printed nothing", what)
			}
			ciLogSafe(t, what+": stdout", stdout, format == "github")
			ciLogSafe(t, what+": stderr", stderr, false)
			if code == 2 && stdout == "" {
				continue // usage: stderr only
			}
			wellFormed(t, what, format, stdout)
		}
	}
}

// ciLogSafe fails when out, read as lines of a CI log, holds a command
// other than the github format's (commands true), or a raw character a
// terminal or a log viewer obeys.
func ciLogSafe(t *testing.T, what, out string, commands bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s is not UTF-8", what)
	}
	if i := rawHiddenAt(strings.ReplaceAll(out, "\n", "")); i >= 0 {
		t.Errorf("%s holds a raw hidden character: %q", what, out)
	}
	if m := ciCommand.FindString(out); m != "" {
		t.Errorf("%s holds the command marker %q:\n%s", what, m, out)
	}
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		if !strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			continue
		}
		if !commands || !ghCommandLine.MatchString(line) {
			t.Errorf("%s: a line starts a workflow command:\n%s", what, line)
		}
	}
}

// wellFormed parses out as format's reader does.
func wellFormed(t *testing.T, what, format, out string) {
	t.Helper()
	switch format {
	case "junit":
		dec := xml.NewDecoder(strings.NewReader(out))
		dec.Strict = true
		for {
			_, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Errorf("%s: JUnit is not well-formed XML: %v\n%s", what, err, out)
				break
			}
		}
	case "sarif":
		sariftest.Validate(t, sariftest.Schema(t, "../suite/testdata/sarif-schema-2.1.0.json", suite.SARIFSchema), []byte(out))
	case "json":
		for line := range strings.Lines(out) {
			if !json.Valid([]byte(line)) {
				t.Errorf("%s: a line is not JSON: %q", what, line)
			}
		}
	}
}

// TestErrorLineIsOneLine: an error that names a file whose name holds a
// line break is one line, the name shown escaped whole (it was split
// there, its second half a line of its own: a forged workflow command).
func TestErrorLineIsOneLine(t *testing.T) {
	t.Parallel()
	name := filepath.Join(t.TempDir(), "nope\n::error::forged.sse")
	for _, args := range [][]string{{"check", name}, {"check", "--output-format", "github", name}, {"calls", name}, {"timeline", name}} {
		_, _, stderr := runCLI(t, nil, args...)
		if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, `nope\n::error::forged.sse`) {
			t.Errorf("%q: stderr %q; want one line naming the file escaped whole", args, stderr)
		}
	}
}

// TestOutputsWriteNoCICommand: the other headless commands, text and
// JSON, write no CI log command from what a stream or a name holds
// either: every output escapes through termtext.Safe or jsonscan.
func TestOutputsWriteNoCICommand(t *testing.T) {
	t.Parallel()
	dir := hostileSuite(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.sse"))
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, f := range files {
		for _, args := range [][]string{
			{"calls"}, {"calls", "--json"}, {"events"}, {"events", "--explain"}, {"timeline"}, {"timeline", "--explain"},
			{"diff", files[0]}, {"diff", "--json", files[0]}, {"check"}, {"check", "--json"},
		} {
			args = append(args, f)
			_, stdout, stderr := runCLI(t, nil, args...)
			what := fmt.Sprintf("streamtap %q", args)
			ciLogSafe(t, what+": stdout", stdout, false)
			ciLogSafe(t, what+": stderr", stderr, false)
		}
	}
}
