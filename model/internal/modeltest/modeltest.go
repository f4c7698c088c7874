// Package modeltest holds what the tests of the model core, of its checks
// and of each dialect's package (model/dialect/<d>) share and that needs
// no session to build: streams made by hand (each dialect's SSE, JSON
// lines and Bedrock event stream messages), the fuzz targets' seeds, the
// generated streams of the benchmarks, the rows of the shared captures'
// MANIFEST.tsv, JSON comparisons and the string literals of the model's
// source. It imports neither model nor model/checks, so that their own
// internal tests may import it as well as their external ones and the
// dialects'; what works on a session is in model/internal/dialecttest,
// which only external tests can import. Only tests import it.
package modeltest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// Row is one row of a shared captures folder's MANIFEST.tsv: the file,
// its dialect (the format column in captures-next), the calls and text it
// holds (JSON) and the notes.
type Row struct {
	File, Dialect, Calls, Text, Notes string
}

// WantCall is one call of a Row's calls.
type WantCall struct {
	ID        *string `json:"id"`
	Name      string  `json:"name"`
	Arguments string  `json:"arguments"`
	Kind      string  `json:"kind"`
}

// ReadManifest reads dir's MANIFEST.tsv, split on tabs only.
func ReadManifest(t testing.TB, dir string) []Row {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if i == 0 {
			continue
		}
		rec := strings.Split(line, "\t")
		if len(rec) < 9 {
			t.Fatalf("manifest line %d has %d fields", i+1, len(rec))
		}
		rows = append(rows, Row{File: rec[0], Dialect: rec[1], Calls: rec[6], Text: rec[7], Notes: rec[8]})
	}
	return rows
}

// NextRows returns the rows of ../shared/captures-next/MANIFEST.tsv that
// keep selects, and the folder; it skips when the folder is not there and
// fails when no row is selected (what names them in that message).
func NextRows(t testing.TB, what string, keep func(Row) bool) (string, []Row) {
	t.Helper()
	dir := filepath.Dir(fixtures.Shared(t, "captures-next/MANIFEST.tsv"))
	var rows []Row
	for _, r := range ReadManifest(t, dir) {
		if keep(r) {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("captures-next/MANIFEST.tsv lists no %s", what)
	}
	return dir, rows
}

// Deref is *p, or nil for a nil p, for messages.
func Deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// Ptr is a pointer to s.
func Ptr(s string) *string { return &s }

// MustJSON is v as JSON, for messages.
func MustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// SameJSON reports whether a and b are the same JSON value (the same
// bytes, when either is no JSON).
func SameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}
