package model

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
)

// capturesDir finds ../shared/captures beside the project root.
func capturesDir(t *testing.T) string {
	t.Helper()
	return filepath.Dir(fixtures.Shared(t, "captures/MANIFEST.tsv"))
}

type manifestRow struct {
	File, Dialect, Calls, Text, Notes string
}

type wantCall struct {
	ID        *string `json:"id"`
	Name      string  `json:"name"`
	Arguments string  `json:"arguments"`
	Kind      string  `json:"kind"`
}

func TestManifestCaptures(t *testing.T) {
	dir := capturesDir(t)
	rows := readManifestPlain(t, dir)
	if len(rows) == 0 {
		t.Fatal("manifest has no rows")
	}
	for _, row := range rows {
		t.Run(row.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, row.File))
			if err != nil {
				t.Fatal(err)
			}
			s := Assemble(data, capture.FormatAuto, Options{KeepEvents: true})
			rep := s.Report()
			sameReportJSON(t, s, rep)
			if rep.Dialect != row.Dialect {
				t.Errorf("dialect = %s; want %s", rep.Dialect, row.Dialect)
			}
			var want []wantCall
			if err := json.Unmarshal([]byte(row.Calls), &want); err != nil {
				t.Fatalf("manifest calls: %v", err)
			}
			if len(rep.Calls) != len(want) {
				t.Fatalf("%d calls; want %d\ngot %s", len(rep.Calls), len(want), mustJSON(rep.Calls))
			}
			for i, w := range want {
				g := rep.Calls[i]
				if !reflect.DeepEqual(g.ID, w.ID) {
					t.Errorf("call %d id = %v; want %v", i, deref(g.ID), deref(w.ID))
				}
				if g.Name != w.Name {
					t.Errorf("call %d name = %q; want %q", i, g.Name, w.Name)
				}
				if w.Kind != "" && g.Kind != w.Kind {
					t.Errorf("call %d kind = %q; want %q", i, g.Kind, w.Kind)
				}
				if row.Dialect == "gemini" {
					if !sameJSON(g.Arguments, w.Arguments) {
						t.Errorf("call %d arguments = %s; want (as JSON) %s", i, g.Arguments, w.Arguments)
					}
				} else if g.Arguments != w.Arguments {
					t.Errorf("call %d arguments = %q; want %q", i, g.Arguments, w.Arguments)
				}
			}
			var wantText any
			if err := json.Unmarshal([]byte(row.Text), &wantText); err != nil {
				t.Fatalf("manifest text: %v", err)
			}
			gotText := normalize(rep.Text)
			if !reflect.DeepEqual(gotText, wantText) {
				t.Errorf("text = %q; want %q", gotText, wantText)
			}
			// Every byte is accounted for: events tile the capture.
			var at int64
			for i, ev := range s.Events.All() {
				if ev.Offset != at {
					t.Fatalf("event %d starts at %d; previous ended at %d", i, ev.Offset, at)
				}
				at = ev.Offset + int64(ev.Len)
			}
			if at != int64(len(data)) {
				t.Fatalf("events cover %d of %d bytes", at, len(data))
			}
		})
	}
}

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}

// normalize turns the report's text into what encoding/json decodes the
// manifest's into.
func normalize(v any) any {
	switch t := v.(type) {
	case []string:
		out := make([]any, len(t))
		for i, s := range t {
			out[i] = s
		}
		return out
	}
	return v
}

// readManifestPlain splits MANIFEST.tsv on tabs only.
func readManifestPlain(t *testing.T, dir string) []manifestRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []manifestRow
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if i == 0 {
			continue
		}
		rec := strings.Split(line, "\t")
		if len(rec) < 9 {
			t.Fatalf("manifest line %d has %d fields", i+1, len(rec))
		}
		rows = append(rows, manifestRow{File: rec[0], Dialect: rec[1], Calls: rec[6], Text: rec[7], Notes: rec[8]})
	}
	return rows
}
