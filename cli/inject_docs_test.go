package cli

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/inject"
	"github.com/streamtap/streamtap/internal/fixtures"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/inject.md's list of defects")

// defectTable is docs/inject.md's list of defects, from the defects
// themselves: each with what it does and, rule by rule, the dialects
// where that rule reports it.
func defectTable() string {
	var b strings.Builder
	b.WriteString("| defect | what it does | rule (dialects) |\n|---|---|---|\n")
	for _, d := range inject.Defects() {
		var rules []string
		by := map[string][]string{}
		for _, v := range d.Variants {
			rule := v.Rule
			if rule == "" {
				rule = "none: legal"
			} else {
				rule = "`" + rule + "`"
			}
			if len(v.Also) > 0 {
				rule += ", with `" + strings.Join(v.Also, "`, `") + "`"
			}
			if by[rule] == nil {
				rules = append(rules, rule)
			}
			by[rule] = append(by[rule], v.Dialect.String())
		}
		var parts []string
		for _, r := range rules {
			parts = append(parts, r+" ("+strings.Join(by[r], ", ")+")")
		}
		summary := strings.ReplaceAll(d.Summary, "|", "\\|")
		if d.Rewrites {
			summary += " (rewrites the events from there on)"
		}
		b.WriteString("| `" + d.Name + "` | " + summary + " | " + strings.Join(parts, "; ") + " |\n")
	}
	return b.String()
}

// TestInjectDocsList holds docs/inject.md's list of defects to the
// defects: `go test ./cli -run TestInjectDocsList -update` rewrites it.
func TestInjectDocsList(t *testing.T) {
	path := fixtures.Path("docs/inject.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- defects:begin (go test ./cli -run TestInjectDocsList -update) -->\n", "<!-- defects:end -->"
	doc := string(data)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/inject.md lacks the markers of its list of defects")
	}
	want := doc[:i+len(begin)] + defectTable() + doc[j:]
	if want == doc {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/inject.md's list of defects is not the defects': run go test ./cli -run TestInjectDocsList -update")
}
