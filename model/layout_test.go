package model

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCoreNamesNoDialect: the core (model, model/checks) holds no file
// named after a dialect, tests included: what is a dialect's lives in its
// folder under model/dialect, so that adding or changing one touches its
// folder and one registration line, and the core's tests reach dialects'
// streams only through what every dialect shares
// (model/internal/modeltest, model/internal/dialecttest).
func TestCoreNamesNoDialect(t *testing.T) {
	folders, err := os.ReadDir("dialect")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range folders {
		if f.IsDir() {
			names = append(names, f.Name())
		}
	}
	if len(names) == 0 {
		t.Fatal("no dialect folders under model/dialect")
	}
	for _, dir := range []string{".", "checks"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			words := strings.FieldsFunc(strings.TrimSuffix(filepath.Base(file), ".go"), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
			for _, name := range names {
				if slices.Contains(words, name) {
					t.Errorf("%s is named after the dialect %s: it belongs in model/dialect/%s", filepath.ToSlash(file), name, name)
				}
			}
		}
	}
}
