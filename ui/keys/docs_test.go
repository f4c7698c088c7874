package keys

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// The key table in docs/inspector.md sits between these markers and is
// made from the key map by keysTable, so that the document and the help
// cannot drift.
const (
	keysBegin = "<!-- keys: made from ui/keys/keys.go by TestKeysTable; `go test ./ui/keys -run TestKeysTable -update` remakes it -->\n"
	keysEnd   = "<!-- end of keys -->\n"
)

// update, with -update, rewrites docs/inspector.md's key table (the split left the
// package without the flag its message names).
var _ = flag.Bool("update", false, "rewrite docs/inspector.md's key table")

// keysTable renders every binding of k, by group, as a Markdown table:
// the keys bound and what the help says they do.
func keysTable(k *Map) string {
	var b strings.Builder
	b.WriteString("| | keys | does |\n|---|---|---|\n")
	for _, g := range k.Groups() {
		for i, kb := range g.Bindings {
			name := ""
			if i == 0 {
				name = g.Name
			}
			var keys []string
			for _, s := range kb.Keys() {
				keys = append(keys, "`"+s+"`")
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", name, strings.Join(keys, " "), kb.Help().Desc)
		}
	}
	return b.String()
}

// TestKeysTable holds docs/inspector.md's key table to the key map; with
// -update it writes the table made from the key map into it.
func TestKeysTable(t *testing.T) {
	const path = "../../docs/inspector.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	before, rest, ok := strings.Cut(doc, keysBegin)
	if !ok {
		t.Fatalf("docs/inspector.md lacks the line %q that opens the key table", keysBegin)
	}
	table, after, ok := strings.Cut(rest, keysEnd)
	if !ok {
		t.Fatalf("docs/inspector.md lacks the line %q that closes the key table", keysEnd)
	}
	k := Default()
	want := keysTable(&k)
	if table == want {
		return
	}
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(before+keysBegin+want+keysEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/inspector.md's key table differs from ui/keys/keys.go (go test ./ui/keys -run TestKeysTable -update remakes it):\n--- docs/inspector.md\n%s--- keys.go\n%s", table, want)
}

// TestEveryBindingInHelp: each binding of the key map has help text and
// is in exactly one group, so the full help and docs/inspector.md list it.
func TestEveryBindingInHelp(t *testing.T) {
	k := Default()
	listed := map[string]int{}
	for _, g := range k.Groups() {
		for _, b := range g.Bindings {
			listed[fmt.Sprint(b.Keys(), b.Help())]++
		}
	}
	v := reflect.ValueOf(&k).Elem()
	for i := range v.NumField() {
		group := v.Field(i)
		for j := range group.NumField() {
			name := v.Type().Field(i).Name + "." + group.Type().Field(j).Name
			b := group.Field(j).Interface().(key.Binding)
			if b.Help().Key == "" || b.Help().Desc == "" {
				t.Errorf("%s has no help text", name)
			}
			if n := listed[fmt.Sprint(b.Keys(), b.Help())]; n != 1 {
				t.Errorf("%s is in %d help groups; want 1", name, n)
			}
		}
	}
}
