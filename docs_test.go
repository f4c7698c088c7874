package main_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// docLink is a markdown link's target: [text](target).
var docLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// codeSpan is an inline code span, whose text is never a link.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

// TestDocLinks follows every link between the project's documents (README,
// docs/, samples/README.md): the file must exist and, for a link to a
// heading, the heading too, so that moving a section cannot leave a link
// that leads nowhere (README's reference moved into docs/ once).
func TestDocLinks(t *testing.T) {
	t.Parallel()
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "README.md", filepath.Join("samples", "README.md"))
	anchors := map[string]map[string]bool{} // document → its headings' anchors
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		a := map[string]bool{}
		seen := map[string]int{}
		for _, line := range proseLines(string(data)) {
			if !strings.HasPrefix(line, "#") {
				continue
			}
			slug := headingAnchor(strings.TrimLeft(line, "#"))
			if n := seen[slug]; n > 0 {
				a[slug+"-"+strconv.Itoa(n)] = true
			} else {
				a[slug] = true
			}
			seen[slug]++
		}
		anchors[path] = a
		return a
	}
	links := 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range proseLines(string(data)) {
			for _, m := range docLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, anchor, _ := strings.Cut(target, "#")
				path := doc
				if file != "" {
					path = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s links to %s: no such file", doc, target)
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[anchor] {
					t.Errorf("%s links to %s: %s has no heading with that anchor", doc, target, path)
				}
			}
		}
	}
	if links == 0 {
		t.Fatal("no link found: is the pattern still right?")
	}
}

// proseLines is a markdown document's lines outside fenced code blocks.
func proseLines(doc string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// headingAnchor is the anchor GitHub gives a heading: lower case, spaces
// as hyphens, and every character but letters, digits, hyphens and
// underscores dropped.
func headingAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestCIRunsREADMETests holds .ci/run to the test command README gives:
// the line of README's code blocks that says it is what CI runs must be a
// line of .ci/run, so that a newcomer runs what CI runs.
func TestCIRunsREADMETests(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join(".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	var cmd string
	fenced := false
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if c, comment, ok := strings.Cut(line, "#"); fenced && ok && strings.Contains(comment, "(.ci/run)") {
			cmd = strings.TrimSpace(c)
		}
	}
	if cmd == "" {
		t.Fatal("README.md has no command marked as what CI runs (.ci/run)")
	}
	for _, line := range strings.Split(string(ci), "\n") {
		if strings.TrimSpace(line) == cmd {
			return
		}
	}
	t.Errorf(".ci/run never runs %q, the test command README.md gives", cmd)
}

// mentionedDoc matches a document named in a document: one in capitals
// (README.md, PROTOCOL.md) or a page of docs/ or samples/.
var mentionedDoc = regexp.MustCompile(`(?:\b(?:docs|samples)/[a-z0-9_-]+|\b[A-Z][A-Z0-9_]*)\.md\b`)

// webAddress is a URL, whose path may name documents of other projects.
var webAddress = regexp.MustCompile(`https?://[^\s)>]+`)

// TestDocsCiteOnlyTheRepository holds the documents to files a reader of
// the repository has: every markdown file they name exists in it (they
// cited PROTOCOL.md, notes kept beside the project, not in it).
func TestDocsCiteOnlyTheRepository(t *testing.T) {
	t.Parallel()
	have := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".md") {
			have[d.Name()] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "README.md", filepath.Join("samples", "README.md"))
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := webAddress.ReplaceAllString(string(data), "")
		for _, m := range mentionedDoc.FindAllString(text, -1) {
			if have[filepath.Base(m)] {
				continue
			}
			t.Errorf("%s names %s, which the repository does not hold", doc, m)
		}
	}
}
