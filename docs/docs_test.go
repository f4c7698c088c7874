package docs

import (
	"strings"
	"testing"
)

// TestRuleSection: a rule's section runs from its heading to the next
// heading of its level or above, whatever the code blocks hold.
func TestRuleSection(t *testing.T) {
	t.Parallel()
	doc := "# t\\n\\n## Group\\n\\n### a/one\\n- **Wire:** x\\n\\n```sh\\n# a comment, not a heading\\n```\\n#### detail\\nmore\\n\\n### a/two\\ntwo\\n## Next\\n"
	doc = strings.ReplaceAll(doc, `\n`, "\n")
	for _, tt := range []struct{ heading, want string }{
		{"### a/one", "### a/one\n- **Wire:** x\n\n```sh\n# a comment, not a heading\n```\n#### detail\nmore"},
		{"### a/two", "### a/two\ntwo"},
		{"## Next", "## Next"},
	} {
		got, ok := section(doc, tt.heading)
		if !ok || got != tt.want {
			t.Errorf("section(%q) = %q, %v; want %q", tt.heading, got, ok, tt.want)
		}
	}
	if _, ok := section(doc, "### a/three"); ok {
		t.Error("a missing section was found")
	}
	if s, ok := RuleSection("framing/no-data"); !ok || !strings.HasPrefix(s, "### framing/no-data\n- **Wire:**") || strings.Contains(s, "framing/unterminated-event") {
		t.Errorf("RuleSection(framing/no-data) = %q, %v", s, ok)
	}
}

// TestRuleURL: the anchor GitHub gives each rule's heading, on the tag of
// a release and on main otherwise.
func TestRuleURL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ id, version, want string }{
		{"chat/args-empty", "v1.4.0", Repository + "/blob/v1.4.0/docs/rules.md#chatargs-empty"},
		{"framing/no-data", "(devel)", Repository + "/blob/main/docs/rules.md#framingno-data"},
		{"responses/seq-gap", "v0.0.0-20261201120000-abcdef123456", Repository + "/blob/main/docs/rules.md#responsesseq-gap"},
	} {
		if got := RuleURL(tt.id, tt.version); got != tt.want {
			t.Errorf("RuleURL(%q, %q) = %s; want %s", tt.id, tt.version, got, tt.want)
		}
	}
}
