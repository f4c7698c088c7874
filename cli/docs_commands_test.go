package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model/checks"
)

// docCommand matches a command line quoted in a document: a code span
// that starts with the program's name.
var docCommand = regexp.MustCompile("`(streamtap(?: [^`]*)?)`")

// TestDocCommandsParse runs every command line the documents quote
// (README, docs/, samples/README.md: in code spans that start with the
// program's name, and in code blocks, where a command may follow a pipe,
// "$ ", "go run ." or a workflow's "run:") through the command line's
// parser: the command, its flags and their values, and the samples it
// names must exist, so that a renamed flag or command cannot leave a
// document telling people to run what fails (samples said `streamtap
// --proxy`, a flag no command has). Nothing is run; the examples with
// their output are TestDocExamples'.
func TestDocCommandsParse(t *testing.T) {
	t.Parallel()
	for _, doc := range exampleDocs(t) {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(fixtures.Root(), doc)
		var lines [][]string
		text := string(data)
		for _, m := range docCommand.FindAllStringSubmatchIndex(text, -1) {
			line := text[m[2]:m[3]]
			// A line followed by a colon is quoted with the error it
			// gets (`streamtap chek`: `chek is neither …`).
			if usageSyntax(line) || strings.HasPrefix(text[m[1]:], ":") {
				continue
			}
			lines = append(lines, strings.Fields(line))
		}
		for _, b := range docBlocks(t, doc) {
			lines = append(lines, blockCommands(b)...)
		}
		if len(lines) == 0 {
			t.Errorf("%s quotes no command line: is the pattern still right?", name)
		}
		for _, words := range lines {
			err := parseCommandLine(words[1:])
			// A flag named without its value is a mention of it
			// (`streamtap request --save-timed`), and --help asks for help.
			last := words[len(words)-1]
			if errors.Is(err, flag.ErrHelp) || (err != nil && strings.HasPrefix(last, "-") && strings.Contains(err.Error(), "flag needs an argument: -"+strings.TrimLeft(last, "-"))) {
				err = nil
			}
			if err != nil {
				t.Errorf("%s quotes `%s`, which does not parse: %v", name, strings.Join(words, " "), err)
			}
		}
	}
}

// usageSyntax reports whether a quoted command line is a usage line
// rather than one to type: it holds placeholders ([FLAGS], FILE, A, …),
// or it is a message the program prints ("streamtap check: …").
func usageSyntax(line string) bool {
	words := strings.Fields(line)
	if len(words) > 1 && strings.HasSuffix(words[1], ":") {
		return true
	}
	for _, w := range words[1:] {
		bare := strings.Trim(w, "[]|.…'")
		if strings.ContainsAny(w, "[]…") || (bare != "" && bare == strings.ToUpper(bare) && strings.ToLower(bare) != bare) {
			return true
		}
	}
	return false
}

// blockCommands is every streamtap command line of a code block, as
// words (the program's name first): a transcript's "$ " lines, or any
// line of another block, continuation lines joined; each segment of a
// pipeline or list that runs streamtap (or go run .), without its
// redirections and comment.
func blockCommands(b docBlock) [][]string {
	transcript := len(b.lines) > 0 && strings.HasPrefix(b.lines[0], "$ ")
	var joined []string
	cont := ""
	for _, l := range b.lines {
		if transcript && !strings.HasPrefix(l, "$ ") {
			continue
		}
		l = cont + strings.TrimPrefix(l, "$ ")
		if strings.HasSuffix(l, "\\") {
			cont = strings.TrimSuffix(l, "\\") + " "
			continue
		}
		cont = ""
		joined = append(joined, l)
	}
	var out [][]string
	for _, l := range joined {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(strings.TrimPrefix(l, "- "), "run: ")
		words, err := shellWords(l)
		if err != nil {
			continue // prose or output in a block, not a command line
		}
		var seg []string
		flush := func() {
			if len(seg) > 1 && seg[0] == "go" && seg[1] == "run" && len(seg) > 2 && seg[2] == "." {
				seg = append([]string{"streamtap"}, seg[3:]...)
			}
			if len(seg) > 0 && seg[0] == "streamtap" && !usageSyntax(strings.Join(seg, " ")) {
				out = append(out, seg)
			}
			seg = nil
		}
		for i := 0; i < len(words); i++ {
			w := words[i]
			switch {
			case w == "|" || w == ";" || w == "&&" || w == "||":
				flush()
			case strings.HasPrefix(w, "#"):
				i = len(words)
			case w == ">" || w == ">>" || w == "<" || w == "2>":
				i++ // the redirection's file
			case strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>"):
			case strings.HasSuffix(w, ";"):
				seg = append(seg, strings.TrimSuffix(w, ";"))
				flush()
			default:
				seg = append(seg, w)
			}
		}
		flush()
	}
	return out
}

// parseCommandLine parses args (without the program's name) as run
// would, up to running the command: the command found, a mistyped one
// refused, its flags parsed, each sample it names opened.
func parseCommandLine(args []string) error {
	name, rest := splitCommand(args)
	if name == "" {
		if err := mistypedCommand(rest); err != nil {
			return err
		}
	}
	c, _ := lookupCommand(name)
	fs := c.flags()
	positional, err := parseInterspersed(fs, rest)
	if err != nil {
		return err
	}
	if f := fs.Lookup("sample"); f != nil && f.Value.String() != "" {
		positional = append(positional, samplePrefix+f.Value.String())
	}
	for _, p := range positional {
		if sample, ok := strings.CutPrefix(p, samplePrefix); ok {
			if _, err := openSample(sample); err != nil {
				return err
			}
		}
	}
	return nil
}

// docRuleID matches a code span that is a rule id or a dialect's prefix
// (`responses/item-id-changed`, `gemini/*`).
var docRuleID = regexp.MustCompile("`([a-z][a-z0-9]*(?:-[a-z0-9]+)*)/([a-z0-9*-]+)`")

// TestDocRuleIDs holds every rule id the documents quote to the rule
// table: a renamed rule, or one cited from memory
// (`anthropic/signature-missing` for `anthropic/thinking-signature-missing`),
// is an error, as it would be in --disable.
func TestDocRuleIDs(t *testing.T) {
	t.Parallel()
	ids, prefixes := map[string]bool{}, map[string]bool{}
	for _, r := range checks.Rules() {
		ids[r.ID] = true
		prefix, _, _ := strings.Cut(r.ID, "/")
		prefixes[prefix] = true
	}
	for _, doc := range exampleDocs(t) {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(fixtures.Root(), doc)
		for _, m := range docRuleID.FindAllStringSubmatch(string(data), -1) {
			if !prefixes[m[1]] || m[2] == "*" || ids[m[1]+"/"+m[2]] {
				continue
			}
			t.Errorf("%s quotes `%s/%s`, which is no rule", name, m[1], m[2])
		}
	}
}

// TestBrokenSamplesNameTheirRules holds each broken sample's entry in
// samples/README.md to what check reports on it: the rules its source
// names are the rules that fire, no more and no fewer (the entries named
// defect ids of notes the repository does not hold).
func TestBrokenSamplesNameTheirRules(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(fixtures.Path("samples/README.md"))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, "- `broken-")
		if !ok {
			continue
		}
		name, rest, _ := strings.Cut(rest, "`")
		source, _, _ := strings.Cut(rest, " — ")
		var named []string
		for _, m := range docRuleID.FindAllStringSubmatch(source, -1) {
			named = append(named, m[1]+"/"+m[2])
		}
		_, out, _ := runCheckArgs(t, nil, "--json", "--sample", "broken-"+name)
		var report struct {
			Findings []struct{ Rule string } `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &report); err != nil {
			t.Fatalf("broken-%s: %v\n%s", name, err, out)
		}
		var fired []string
		for _, f := range report.Findings {
			fired = append(fired, f.Rule)
		}
		slices.Sort(named)
		slices.Sort(fired)
		if !slices.Equal(named, slices.Compact(fired)) {
			t.Errorf("samples/README.md names the rules %q for broken-%s; check reports %q", named, name, fired)
		}
		found++
	}
	if found == 0 {
		t.Fatal("samples/README.md lists no broken sample: is the pattern still right?")
	}
}
