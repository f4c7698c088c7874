// Package samples holds curated streams, embedded in the binary: one or
// more for each dialect streamtap reads (OpenAI Responses, OpenAI Chat
// Completions, Anthropic Messages, Gemini; Ollama's NDJSON, which a .sse
// file holds as well, since every input's format is told by its bytes;
// Amazon Bedrock's ConverseStream and InvokeModel as binary AWS event
// streams), plus broken streams that each show one defect. They are
// written by hand from the protocol documentation,
// not recorded, so that every byte is known and safe to ship. The UI opens
// them as demos; tests and fuzzers use them as fixtures and seeds.
//
// The package is data: it imports nothing from the project, and it never
// reads the file system at run time.
package samples

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Default is the sample opened when streamtap runs with no input.
const Default = "responses-parallel-calls"

// exts are the samples' file extensions: SSE streams, and the binary AWS
// event streams of the Bedrock dialects.
var exts = []string{".sse", ".eventstream"}

//go:embed *.sse *.eventstream
var files embed.FS

// readme lists every sample with its summary and lesson; List reads them
// from it so that the README and the program cannot disagree.
//
//go:embed README.md
var readme string

// MaxLesson is the most runes a lesson may have: with its label it fits
// the inspector's status line at 80 columns.
const MaxLesson = 72

// Sample names one embedded stream.
type Sample struct {
	Name    string // file name without its extension, e.g. "chat-single-call"
	Summary string // what the sample shows, from README.md
	// Lesson is what it teaches in one line of at most MaxLesson runes,
	// from the "Lesson:" line under its entry in README.md.
	Lesson string
}

// List returns every sample, sorted by name. The slice is new on each call.
func List() []Sample {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil // cannot happen: the embedded root always exists
	}
	described := parseReadme(readme)
	var out []Sample
	for _, e := range entries {
		name, ok := cutExt(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		d := described[name]
		out = append(out, Sample{Name: name, Summary: d.summary, Lesson: d.lesson})
	}
	slices.SortFunc(out, func(a, b Sample) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Open returns the bytes of the named sample. The name may carry its
// extension (".sse", ".eventstream") or not. An unknown name gives an error
// wrapping fs.ErrNotExist. The returned slice is a copy the caller may
// modify.
func Open(name string) ([]byte, error) {
	base, _ := cutExt(name)
	if base == "" || strings.ContainsAny(base, `/\`) {
		return nil, fmt.Errorf("sample %q: %w", name, fs.ErrNotExist)
	}
	for _, ext := range exts {
		if b, err := fs.ReadFile(files, base+ext); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("sample %q: %w", name, fs.ErrNotExist)
}

// Lesson returns the lesson of the named sample (with or without its
// extension), or "" for a name that is no sample.
func Lesson(name string) string {
	base, _ := cutExt(name)
	return parseReadme(readme)[base].lesson
}

// cutExt returns name without a sample extension, and whether it had one.
func cutExt(name string) (string, bool) {
	for _, ext := range exts {
		if base, ok := strings.CutSuffix(name, ext); ok {
			return base, true
		}
	}
	return name, false
}

// description is what README.md says of one sample.
type description struct{ summary, lesson string }

// parseReadme maps each sample named in the README to its summary and
// lesson. A sample line is a list item that starts with the name in
// backquotes and puts the summary after an em dash, the source in between;
// the line after it that starts with "Lesson:" holds its lesson. Other
// lines are prose and are skipped.
func parseReadme(s string) map[string]description {
	m := map[string]description{}
	last := ""
	for line := range strings.Lines(s) {
		trimmed := strings.TrimSpace(line)
		if lesson, ok := strings.CutPrefix(trimmed, "Lesson:"); ok && last != "" {
			d := m[last]
			d.lesson = strings.TrimSpace(lesson)
			m[last] = d
			continue
		}
		last = ""
		rest, ok := strings.CutPrefix(trimmed, "- `")
		if !ok {
			continue
		}
		name, rest, ok := strings.Cut(rest, "`")
		if !ok {
			continue
		}
		_, summary, ok := strings.Cut(rest, " — ")
		if !ok {
			continue
		}
		m[name] = description{summary: strings.TrimSpace(summary)}
		last = name
	}
	return m
}
