package main_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers says which of the project's top-level packages each one may
// import, so that imports flow one way only:
// capture ← model ← ingest ← ui ← proxy ← cli ← main. ingest is where frames
// cross from a reading goroutine to a modelling one (model must not start
// goroutines or read); ui does not use it, it takes model.Batch values.
// termtext (terminal-safe text) stands beside them, after model: ui, the
// proxy and the commands escape text alike through it. proxy serves HTTP
// and feeds the sessions list with model.SessionUpdate values; it imports
// no ui, and ui never imports it.
// suite (check over a test suite: the inputs under directories, the
// config file, the CI report formats) stands beside termtext too; the
// commands use it. docs carries the reference pages the binary shows
// (the rule catalogue) and imports nothing.
// cli holds the commands and may import every package but the root. The
// root is main.go alone, and it imports cli only (rootFile, rootImports).
// internal/ holds helpers for tests only (a WebSocket peer, SSE blocks,
// the repository's fixtures); e2e/ holds tests only. A layer's own
// test-only helpers (model/internal/modeltest, dialecttest) may use
// internal/ too.
// A package may always import inside its own tree (model → model/jsonscan).
var layers = map[string][]string{
	"capture":  nil,
	"model":    {"capture"},
	"termtext": {"model"},
	"ingest":   {"capture", "model"},
	"inject":   {"capture", "model"}, // defects applied to a recording; inject/fault: transport faults of a served one
	"samples":  nil,
	"docs":     nil,                                                 // the reference pages the binary shows (rules.md)
	"ui":       {"capture", "model", "samples", "termtext", "docs"}, // docs: the findings pane's rule text
	"proxy":    {"capture", "model", "ingest", "termtext"},
	"suite":    {"capture", "model", "termtext", "docs"}, // check over a suite: inputs, config, CI formats
	"cli":      {"capture", "model", "ingest", "inject", "samples", "termtext", "ui", "proxy", "suite", "docs"},
	"internal": {"capture", "model", "samples"},
	"scripts":  {"capture", "model", "samples", "ui", "cli"}, // tools, run with go run (profile runs a command line)
}

// plainLayers must stay free of terminal and highlighting libraries, so
// that they can be tested without a terminal, and so that the proxy does
// not carry Bubble Tea, lipgloss and chroma.
var plainLayers = []string{"capture", "model", "ingest", "inject", "termtext", "proxy", "suite"}

// rootFile is the root's one Go file besides tests, and rootImports the
// only package of the project it may import: the command line lives in
// cli, which tests can drive without building the binary.
const (
	rootFile    = "main.go"
	rootImports = "cli"
)

var uiLibraries = []string{"charm.land/", "github.com/charmbracelet/", "github.com/alecthomas/chroma"}

// modulePath reads the module path from go.mod in the current directory,
// the project root.
func modulePath(t *testing.T) string {
	t.Helper()
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatalf("deps_test must run at the project root: %v", err)
	}
	for line := range strings.Lines(string(mod)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	t.Fatal("go.mod has no module line")
	return ""
}

type goFile struct {
	path    string // relative to the root, slash-separated
	layer   string // first directory of path, "" for the root
	imports []string
}

// sourceFiles parses the imports of every non-test Go file in the project,
// whatever its build tags, skipping directories the go command ignores.
func sourceFiles(t *testing.T) []goFile {
	t.Helper()
	var files []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(path)
		gf := goFile{path: rel}
		if dir, _, ok := strings.Cut(rel, "/"); ok {
			gf.layer = dir
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			gf.imports = append(gf.imports, p)
		}
		files = append(files, gf)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestImportDirection fails on any import that points the wrong way.
func TestImportDirection(t *testing.T) {
	mod := modulePath(t)
	files := sourceFiles(t)
	seen := map[string]int{}
	for _, f := range files {
		seen[f.layer]++
		allowed, known := layers[f.layer]
		if f.layer == "" {
			if f.path != rootFile {
				t.Errorf("%s: the root holds %s alone; commands and their helpers go in cli/", f.path, rootFile)
			}
			allowed, known = []string{rootImports}, true
		}
		if !known {
			t.Errorf("%s: no dependency rule for %s/; add one to layers in deps_test.go", f.path, f.layer)
			continue
		}
		if strings.HasPrefix(f.path, "model/internal/") {
			allowed = append(slices.Clone(allowed), "internal")
		}
		for _, imp := range f.imports {
			if imp == mod {
				t.Errorf("%s imports package main (%s)", f.path, imp)
				continue
			}
			rest, ok := strings.CutPrefix(imp, mod+"/")
			if !ok {
				continue // outside the project
			}
			target, _, _ := strings.Cut(rest, "/")
			if target != f.layer && !slices.Contains(allowed, target) {
				may := "nothing else of the project"
				if len(allowed) > 0 {
					may = strings.Join(allowed, ", ")
				}
				who := f.layer + "/"
				if f.layer == "" {
					who = "the root"
				}
				t.Errorf("%s imports %s; %s may import %s", f.path, imp, who, may)
			}
		}
		if slices.Contains(plainLayers, f.layer) {
			for _, imp := range f.imports {
				for _, lib := range uiLibraries {
					if strings.HasPrefix(imp, lib) {
						t.Errorf("%s imports %s; %s/ must not depend on terminal or highlighting libraries", f.path, imp, f.layer)
					}
				}
			}
		}
	}
	// Guard against a walk that silently found nothing.
	for _, layer := range []string{"", "capture", "model", "ingest", "proxy", "cli"} {
		if seen[layer] == 0 {
			t.Errorf("no Go files found under %q", layer+"/")
		}
	}
}

// uiLayers says which packages of ui's tree each one may import (keyed by
// the path under ui/, "" for ui itself), so that they stack in layers
// with no cycle by construction:
//
//	theme, plain, pane   leaves: styles and glyphs, the commands' writers,
//	                     the pane interface
//	cell, keys           fitting text into cells; the key map and help
//	doc, lanes           the document layout; the lanes pane
//	app                  the router and what every page shares (Env, Page)
//	inspector            the inspector page and its panes
//	sessions, diffview   the pages built on inspectors
//	ui                   the programs cli runs (New, NewSessions, NewDiff)
//
// internal/uitest (helpers for tests) drives programs through app.
var uiLayers = map[string][]string{
	"theme":     nil,
	"plain":     nil,
	"pane":      nil,
	"cell":      {"theme"},
	"keys":      {"theme", "cell"},
	"doc":       {"theme", "plain"},
	"lanes":     {"theme", "cell", "keys", "pane", "plain"},
	"app":       {"theme", "cell", "keys"},
	"inspector": {"theme", "cell", "keys", "pane", "plain", "doc", "lanes", "app"},
	"sessions":  {"theme", "cell", "keys", "pane", "plain", "inspector", "app"},
	"diffview":  {"theme", "cell", "keys", "pane", "plain", "inspector", "app"},
	"":          {"app", "inspector", "sessions", "diffview"},
	"internal":  {"app"},
}

// headlessUI are the packages of ui's tree that the commands print with:
// they import no Bubble Tea, bubbles, lipgloss or chroma, so a command
// that prints text carries no terminal program.
var headlessUI = []string{"plain"}

// TestUIImportDirection fails on any import between ui's packages that
// uiLayers does not allow, and on a terminal library in a headless one.
func TestUIImportDirection(t *testing.T) {
	mod := modulePath(t)
	seen := map[string]int{}
	for _, f := range sourceFiles(t) {
		if f.layer != "ui" {
			continue
		}
		sub, _, _ := strings.Cut(strings.TrimPrefix(f.path, "ui/"), "/")
		if !strings.Contains(strings.TrimPrefix(f.path, "ui/"), "/") {
			sub = "" // a file of ui itself
		}
		seen[sub]++
		allowed, known := uiLayers[sub]
		if !known {
			t.Errorf("%s: no dependency rule for ui/%s/; add one to uiLayers in deps_test.go", f.path, sub)
			continue
		}
		for _, imp := range f.imports {
			if imp == mod+"/ui" {
				t.Errorf("%s imports ui itself; only cli may", f.path)
				continue
			}
			rest, ok := strings.CutPrefix(imp, mod+"/ui/")
			if !ok {
				continue
			}
			target, _, _ := strings.Cut(rest, "/")
			if target != sub && !slices.Contains(allowed, target) {
				may := "nothing else of ui"
				if len(allowed) > 0 {
					may = strings.Join(allowed, ", ")
				}
				t.Errorf("%s imports ui/%s; ui/%s may import %s", f.path, target, sub, may)
			}
		}
		if slices.Contains(headlessUI, sub) {
			for _, imp := range f.imports {
				if strings.HasPrefix(imp, "charm.land/") || strings.HasPrefix(imp, "github.com/alecthomas/chroma") {
					t.Errorf("%s imports %s; ui/%s writes what commands print and must not depend on a terminal program", f.path, imp, sub)
				}
			}
		}
	}
	for sub := range uiLayers {
		if seen[sub] == 0 {
			t.Errorf("no Go files found under ui/%s; drop its rule from uiLayers", sub)
		}
	}
}

// TestModelImportDirection keeps model's tree a core and its plug-ins:
// the core (model, model/jsonscan, model/checks, model/streamdiff) imports
// no dialect, so that it is the contract alone; a dialect
// (model/dialect/<name>) imports the core and no other dialect, so that a
// dialect is a folder that can be added or dropped by itself (one dialect
// that hands events to another finds it by name, model.Lookup); only
// model/dialects, the registration list, imports them all, and only the
// commands (cli) import it. Packages outside model may name a dialect's
// exported constants (its event types), never register one; but ui knows
// no dialect at all: what a view needs of one is in the core's contract
// (DialectInfo, Shape, the explanations), so that a new dialect needs no
// edit of the views.
func TestModelImportDirection(t *testing.T) {
	mod := modulePath(t)
	const dialectDir, list = "model/dialect/", "model/dialects"
	dialectOf := func(path string) string { // "anthropic" for model/dialect/anthropic/…, "" otherwise
		rest, ok := strings.CutPrefix(path, dialectDir)
		if !ok {
			return ""
		}
		name, _, _ := strings.Cut(rest, "/")
		return name
	}
	seen := map[string]int{}
	for _, f := range sourceFiles(t) {
		dir := f.path[:max(strings.LastIndex(f.path, "/"), 0)]
		own := dialectOf(f.path)
		switch {
		case own != "":
			seen["dialect"]++
		case dir == list:
			seen["list"]++
		case f.layer == "model":
			seen["core"]++
		}
		for _, imp := range f.imports {
			rest, ok := strings.CutPrefix(imp, mod+"/")
			if !ok {
				continue
			}
			target := dialectOf(rest + "/")
			switch {
			case rest == list && f.layer != "cli":
				t.Errorf("%s imports %s; only the commands (cli/) register the dialects", f.path, imp)
			case target != "" && f.layer == "ui":
				t.Errorf("%s imports %s; ui knows no dialect: ask the core (model.DialectInfo, model.NamedByShape, Session.Shape)", f.path, imp)
			case target == "" || target == own || dir == list:
			case own != "":
				t.Errorf("%s imports %s; a dialect imports no other dialect (find it by name: model.Lookup)", f.path, imp)
			case f.layer == "model":
				t.Errorf("%s imports %s; the model core imports no dialect", f.path, imp)
			}
		}
	}
	for _, part := range []string{"core", "dialect", "list"} {
		if seen[part] == 0 {
			t.Errorf("no Go files found for the model's %s", part)
		}
	}
}
