// Package docs carries the project's reference pages that the binary
// shows: the rule catalogue (rules.md), so that `streamtap rules ID`, a
// SARIF log's help and the inspector's rule text (the findings pane's o)
// say what the repository's page says wherever the binary runs, with no
// checkout beside it. It imports nothing of the project.
package docs

import (
	_ "embed"
	"regexp"
	"strings"
)

// RulesMD is docs/rules.md: a "### RULE-ID" section for every rule.
//
//go:embed rules.md
var RulesMD string

// Repository is where the pages are published.
const Repository = "https://github.com/streamtap/streamtap"

// RuleSection returns the section of rules.md on rule id: its "### id"
// heading and the lines up to the next heading, trimmed; false when there
// is none.
func RuleSection(id string) (string, bool) {
	return section(RulesMD, "### "+id)
}

// OutcomesSection returns the section of rules.md on outcomes.
func OutcomesSection() (string, bool) { return section(RulesMD, "## Outcomes") }

// section is the part of doc from the line heading to the next heading
// of its level or above (outside a fenced code block), trimmed.
func section(doc, heading string) (string, bool) {
	at := strings.Index(doc, "\n"+heading+"\n")
	if at < 0 {
		return "", false
	}
	level := strings.IndexByte(heading, ' ') // the heading's "#"s
	body := doc[at+1+len(heading)+1:]
	n, fenced := 0, false
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if h := headingLevel(line); !fenced && h > 0 && h <= level {
			break
		}
		n += len(line)
	}
	return strings.TrimSpace(heading + "\n" + body[:n]), true
}

// headingLevel is the level of a Markdown heading line ("## x" is 2), 0
// for another line.
func headingLevel(line string) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n == len(line) || line[n] != ' ' {
		return 0
	}
	return n
}

// RuleURL is the address of rule id's section of rules.md in the
// repository, at the tag version names when it is a release (v1.2.3), on
// main otherwise: what a SARIF log's helpUri points at.
func RuleURL(id, version string) string {
	return pageURL(version) + "#" + Anchor(id)
}

// OutcomesURL is the address of the section on outcomes.
func OutcomesURL(version string) string { return pageURL(version) + "#outcomes" }

// release matches a release version: not a pseudo-version, not (devel).
var release = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

func pageURL(version string) string {
	ref := "main"
	if release.MatchString(version) {
		ref = version
	}
	return Repository + "/blob/" + ref + "/docs/rules.md"
}

// Anchor is the fragment GitHub gives the heading of rule id's section:
// the heading's text lowercased, with what is neither a letter, a digit,
// a space, "-" nor "_" dropped ("chat/args-empty" → "chatargs-empty").
func Anchor(id string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
