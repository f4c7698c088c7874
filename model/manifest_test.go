package model_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// capturesDir finds ../shared/captures beside the project root.
func capturesDir(t *testing.T) string {
	t.Helper()
	return filepath.Dir(fixtures.Shared(t, "captures/MANIFEST.tsv"))
}

// The rows of a MANIFEST.tsv and how they are compared, shared with the
// dialects' tests (model/internal/modeltest).
type wantCall = modeltest.WantCall

var (
	readManifestPlain = modeltest.ReadManifest
	deref             = modeltest.Deref
	mustJSON          = modeltest.MustJSON
	sameJSON          = modeltest.SameJSON
)

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
			s := model.Assemble(data, capture.FormatAuto, model.Options{KeepEvents: true})
			rep := s.Report()
			dialecttest.SameReportJSON(t, s, rep)
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
