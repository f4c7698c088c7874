package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// exampleDocs are the documents whose examples TestDocExamples runs and
// TestDocCommandsParse parses: README and every page of docs/.
func exampleDocs(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(fixtures.Path("docs/*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{fixtures.Path("README.md"), fixtures.Path("samples/README.md")}, docs...)
}

// docBlock is a fenced code block of a document: its lines, the line it
// starts on, and the directive of an HTML comment right above its fence
// (<!-- example: … -->), if any.
type docBlock struct {
	doc       string
	line      int
	info      string // what follows the opening fence: sh, json, …
	directive string
	lines     []string
}

// docBlocks is every fenced code block of the document at path.
func docBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	var cur *docBlock
	prev := ""
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			b := docBlock{doc: filepath.Base(path), line: i + 1, info: strings.TrimPrefix(line, "```")}
			if d, ok := strings.CutPrefix(prev, "<!-- example: "); ok {
				b.directive = strings.TrimSuffix(d, " -->")
			}
			cur = &b
		case cur != nil && strings.HasPrefix(line, "```"):
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		}
		prev = line
	}
	return blocks
}

// TestDocExamples runs every example README and docs/ show with its
// output, so that none can drift from what the program prints:
//
//   - a block of "$ " lines (a transcript) runs each command in
//     docs/examples (the inputs the examples name) and compares what it
//     prints, standard output and error as a terminal shows them, with
//     the lines under it; "$ echo $?" compares the exit code. A command is
//     streamtap, optionally piped to head -N, tail -N or sed -n A,Bp.
//   - <!-- example: as streamtap ARGS --> above a transcript runs ARGS
//     instead of its first command, which needs what a test does not have
//     (a network, a gateway): the output shown is that of ARGS.
//   - <!-- example: the JSON of streamtap ARGS --> above a JSON block
//     compares its values (pretty-printed or one a line) with the output.
//   - <!-- example: part of the JSON of streamtap ARGS --> above a JSON
//     block: each of its values is found in the output, at any depth,
//     where every member it shows has the value it shows (members it
//     leaves out may be anything).
//   - <!-- example: the file NAME --> above a block: docs/examples/NAME,
//     which later examples read, holds exactly the block.
//   - <!-- example: not run: REASON --> above a transcript says why it
//     cannot run (a terminal, a live server); every other transcript runs.
//
// The commands run in process, one after the other, in docs/examples.
func TestDocExamples(t *testing.T) {
	t.Chdir(fixtures.Path("docs/examples"))
	ran := 0
	for _, doc := range exampleDocs(t) {
		for _, b := range docBlocks(t, doc) {
			where := fmt.Sprintf("%s:%d", b.doc, b.line)
			switch {
			case strings.HasPrefix(b.directive, "not run: "):
				continue
			case strings.HasPrefix(b.directive, "the JSON of streamtap "):
				runJSONExample(t, where, strings.TrimPrefix(b.directive, "the JSON of "), b.lines, false)
				ran++
			case strings.HasPrefix(b.directive, "part of the JSON of streamtap "):
				runJSONExample(t, where, strings.TrimPrefix(b.directive, "part of the JSON of "), b.lines, true)
				ran++
			case strings.HasPrefix(b.directive, "the file "):
				name := strings.TrimPrefix(b.directive, "the file ")
				data, err := os.ReadFile(name)
				if err != nil {
					t.Errorf("%s: %v", where, err)
				} else if string(data) != strings.Join(b.lines, "\n")+"\n" {
					t.Errorf("%s: the block differs from docs/examples/%s, which the examples read", where, name)
				}
				ran++
			case len(b.lines) > 0 && strings.HasPrefix(b.lines[0], "$ "):
				runTranscript(t, where, b)
				ran++
			case b.directive != "":
				t.Errorf("%s: the directive %q is not one TestDocExamples knows", where, b.directive)
			}
		}
	}
	if ran == 0 {
		t.Fatal("no example found: are the patterns still right?")
	}
}

// runTranscript runs the "$ " commands of b in turn and compares the
// lines each prints with the lines under it.
func runTranscript(t *testing.T, where string, b docBlock) {
	t.Helper()
	code := 0
	first := true
	for i := 0; i < len(b.lines); {
		cmd := strings.TrimPrefix(b.lines[i], "$ ")
		j := i + 1
		for j < len(b.lines) && !strings.HasPrefix(b.lines[j], "$ ") {
			j++
		}
		want := strings.Join(b.lines[i+1:j], "\n")
		at := fmt.Sprintf("%s (line %d)", where, b.line+1+i)
		i = j
		if as, ok := strings.CutPrefix(b.directive, "as "); ok && first {
			cmd = as
		}
		first = false
		if cmd == "echo $?" {
			if got := strconv.Itoa(code); got != want {
				t.Errorf("%s: exit %s; the document shows %s", at, got, want)
			}
			continue
		}
		r, err := runShellLine(t, cmd)
		if err != nil {
			t.Errorf("%s: %s: %v", at, cmd, err)
			continue
		}
		code = r.code
		// Trailing spaces are the terminal's to show, not a document's.
		if got := trimLines(r.screen); got != trimLines(want) {
			t.Errorf("%s: %s prints\n%s\nthe document shows\n%s", at, cmd, got, want)
		}
	}
}

// runJSONExample runs the command line cmd and compares the JSON values
// it prints with those of the block: equal, or with part, each found in
// the output.
func runJSONExample(t *testing.T, where, cmd string, lines []string, part bool) {
	t.Helper()
	r, err := runShellLine(t, cmd)
	if err != nil {
		t.Errorf("%s: %s: %v", where, cmd, err)
		return
	}
	got := r.stdout
	gotValues, err := jsonValues(got)
	if err != nil {
		t.Errorf("%s: %s prints what is not JSON: %v\n%s", where, cmd, err, got)
		return
	}
	wantValues, err := jsonValues(strings.Join(lines, "\n"))
	if err != nil {
		t.Errorf("%s: the block is not JSON: %v", where, err)
		return
	}
	if part {
		for _, w := range wantValues {
			if !slices.ContainsFunc(gotValues, func(g any) bool { return containsJSON(g, w) }) {
				t.Errorf("%s: %s prints\n%s\nwhich holds nothing like the document's %v", where, cmd, got, w)
			}
		}
		return
	}
	if !reflect.DeepEqual(gotValues, wantValues) {
		t.Errorf("%s: %s prints\n%s\nwhose JSON differs from the document's", where, cmd, got)
	}
}

// containsJSON reports whether part is found in whole, at any depth, as
// subsetJSON finds it.
func containsJSON(whole, part any) bool {
	if subsetJSON(part, whole) {
		return true
	}
	switch w := whole.(type) {
	case map[string]any:
		for _, v := range w {
			if containsJSON(v, part) {
				return true
			}
		}
	case []any:
		for _, v := range w {
			if containsJSON(v, part) {
				return true
			}
		}
	}
	return false
}

// subsetJSON reports whether whole has every member part shows, with
// the value it shows (arrays element by element, of the same length).
func subsetJSON(part, whole any) bool {
	switch p := part.(type) {
	case map[string]any:
		w, ok := whole.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range p {
			if wv, ok := w[k]; !ok || !subsetJSON(v, wv) {
				return false
			}
		}
		return true
	case []any:
		w, ok := whole.([]any)
		if !ok || len(w) != len(p) {
			return false
		}
		for i := range p {
			if !subsetJSON(p[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(part, whole)
	}
}

// trimLines cuts the trailing spaces of each line of s and its trailing
// line ends.
func trimLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// jsonValues decodes every JSON value of s, one after the other.
func jsonValues(s string) ([]any, error) {
	var out []any
	dec := json.NewDecoder(strings.NewReader(s))
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// syncBuffer is a buffer two writers share, so that standard output and
// error interleave as a terminal would show them.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// shellRun is what one command line of a document did: its exit code,
// its standard output, and what a terminal would show (standard output
// and error interleaved as they were written).
type shellRun struct {
	code           int
	stdout, screen string
}

// runShellLine runs one command line of a document: streamtap with its
// arguments (quoted as a POSIX shell quotes), then filters it may be
// piped to.
func runShellLine(t *testing.T, line string) (shellRun, error) {
	t.Helper()
	words, err := shellWords(line)
	if err != nil {
		return shellRun{}, err
	}
	var stages [][]string
	start := 0
	for i, w := range words {
		if w == "|" {
			stages = append(stages, words[start:i])
			start = i + 1
		}
	}
	stages = append(stages, words[start:])
	if len(stages[0]) == 0 || stages[0][0] != "streamtap" {
		return shellRun{}, fmt.Errorf("a command must be streamtap: %q", line)
	}
	stdin, err := os.Open(os.DevNull)
	if err != nil {
		return shellRun{}, err
	}
	defer stdin.Close()
	var out, errb, screen syncBuffer
	code := run(t.Context(), stages[0][1:], stdin, io.MultiWriter(&out, &screen), io.MultiWriter(&errb, &screen))
	r := shellRun{code: code, stdout: out.b.String(), screen: screen.b.String()}
	if len(stages) > 1 {
		// A pipe filters standard output; the error reaches the
		// terminal as it is, shown after it.
		for _, f := range stages[1:] {
			if r.stdout, err = filterLines(f, r.stdout); err != nil {
				return shellRun{}, err
			}
		}
		r.screen = r.stdout + errb.b.String()
	}
	return r, nil
}

// filterLines applies one of the filters a document pipes output to:
// head -N, tail -N or sed -n A,Bp.
func filterLines(f []string, text string) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	from, to := 0, len(lines) // the lines kept: [from, to)
	switch {
	case len(f) == 2 && (f[0] == "head" || f[0] == "tail") && strings.HasPrefix(f[1], "-"):
		n, err := strconv.Atoi(f[1][1:])
		if err != nil {
			return "", fmt.Errorf("%s: %v", f[0], err)
		}
		if f[0] == "head" {
			to = min(n, len(lines))
		} else {
			from = max(len(lines)-n, 0)
		}
	case len(f) == 3 && f[0] == "sed" && f[1] == "-n" && strings.HasSuffix(f[2], "p"):
		a, b, ok := strings.Cut(strings.TrimSuffix(f[2], "p"), ",")
		first, err1 := strconv.Atoi(a)
		last, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil {
			return "", fmt.Errorf("sed: only -n A,Bp is known: %q", f[2])
		}
		from, to = min(first-1, len(lines)), min(last, len(lines))
	default:
		return "", fmt.Errorf("a filter TestDocExamples does not know: %q", strings.Join(f, " "))
	}
	return strings.Join(lines[from:to], ""), nil
}

// shellWords splits a command line as a POSIX shell does for the forms
// documents use: words, single and double quotes, backslash escapes, and
// | as a word of its own.
func shellWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '|':
			flush()
			words = append(words, "|")
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", line)
			}
			w.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					i++
				}
				w.WriteByte(line[i])
			}
			if i == len(line) {
				return nil, fmt.Errorf("unterminated \" in %q", line)
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}
