package modeltest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// SourceLiterals returns every string literal in the non-test source of
// the model core and of every dialect package (model/dialect/*): a
// superset of the event, block and delta types the dialect handlers name,
// whatever table or switch they sit in. Which of them are types is for
// the model to say.
func SourceLiterals(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(fixtures.Path("model/*.go"))
	if err != nil {
		t.Fatal(err)
	}
	dialects, err := filepath.Glob(fixtures.Path("model/dialect/*/*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, dialects...)
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil && v != "" && !strings.ContainsAny(v, " \"\\\n") {
					seen[v] = true
				}
			}
			return true
		})
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}
