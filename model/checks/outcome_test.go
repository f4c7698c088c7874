package checks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model"
)

// TestOutcomeTables holds the outcome tables of docs/check.md and
// docs/rules.md to the code: a row for every outcome a finished stream
// can have, and its "fails check" cell saying what OutcomeFails says.
func TestOutcomeTables(t *testing.T) {
	for _, doc := range []string{filepath.Join("docs", "check.md"), filepath.Join("docs", "rules.md")} {
		data, err := os.ReadFile(filepath.Join(projectRoot(t), doc))
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]string{} // outcome → its last cell
		var order []string
		in := false
		for line := range strings.Lines(string(data)) {
			line = strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(line, "| outcome |") && strings.Contains(line, "fails `check`"):
				in = true
				continue
			case in && !strings.HasPrefix(line, "|"):
				in = false
			}
			if !in || strings.HasPrefix(line, "|---") {
				continue
			}
			cells := strings.Split(strings.Trim(line, "|"), "|")
			name := strings.Trim(strings.TrimSpace(cells[0]), "`")
			rows[name] = strings.TrimSpace(cells[len(cells)-1])
			order = append(order, name)
		}
		if !slices.Equal(order, model.Outcomes()) {
			t.Errorf("%s: the outcome table lists %q; want %q", doc, order, model.Outcomes())
		}
		for name, fails := range rows {
			want := "no"
			if OutcomeFails(name) {
				want = "yes"
			}
			if fails != want {
				t.Errorf("%s: %s fails check: %q; want %q", doc, name, fails, want)
			}
		}
	}
}
