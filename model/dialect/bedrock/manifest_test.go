package bedrock_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// bedrockRows returns the rows that are AWS event streams (Bedrock streams
// and the encoding's test vectors), and the folder.
func bedrockRows(t *testing.T) (string, []modeltest.Row) {
	t.Helper()
	return modeltest.NextRows(t, "event stream", func(r modeltest.Row) bool { return strings.HasSuffix(r.File, ".eventstream") })
}

// TestManifestBedrock: every Bedrock stream in captures-next assembles
// exactly the calls (arguments byte for byte) and the text its manifest
// states, ends as it says, and its events tile it; every test vector of
// the encoding is decoded (a positive one is an event with no error) or
// refused (a negative one is a bad frame whose error names the check its
// name says fails).
func TestManifestBedrock(t *testing.T) {
	dir, rows := bedrockRows(t)
	for _, row := range rows {
		t.Run(row.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, row.File))
			if err != nil {
				t.Fatal(err)
			}
			s := model.Assemble(data, capture.FormatAuto, model.Options{KeepEvents: true})
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
			if row.Dialect == "eventstream-vector" {
				checkVector(t, s, row.File)
				return
			}
			rep := s.Report()
			dialecttest.SameReportJSON(t, s, rep)
			if rep.Dialect != row.Dialect || rep.Dialects != nil {
				t.Errorf("dialect = %s %v; want %s alone", rep.Dialect, rep.Dialects, row.Dialect)
			}
			var want []modeltest.WantCall
			if err := json.Unmarshal([]byte(row.Calls), &want); err != nil {
				t.Fatalf("manifest calls: %v", err)
			}
			if len(rep.Calls) != len(want) {
				t.Fatalf("%d calls; want %d\ngot %s", len(rep.Calls), len(want), modeltest.MustJSON(rep.Calls))
			}
			for i, w := range want {
				g := rep.Calls[i]
				if !reflect.DeepEqual(g.ID, w.ID) || g.Name != w.Name || g.Arguments != w.Arguments {
					t.Errorf("call %d = %v %q %q; want %v %q %q", i, modeltest.Deref(g.ID), g.Name, g.Arguments, modeltest.Deref(w.ID), w.Name, w.Arguments)
				}
				if g.Status != "completed" || g.ArgumentsJSON != "complete" {
					t.Errorf("call %d: status %s, arguments %s; want completed, complete", i, g.Status, g.ArgumentsJSON)
				}
			}
			var wantText string
			if err := json.Unmarshal([]byte(row.Text), &wantText); err != nil {
				t.Fatalf("manifest text: %v", err)
			}
			if rep.Text != wantText {
				t.Errorf("text = %q; want %q", rep.Text, wantText)
			}
			wantOutcome, detail := model.OutcomeCompleted, ""
			switch {
			case strings.Contains(row.Notes, "guardrail"):
				wantOutcome, detail = model.OutcomeBlocked, "guardrail_intervened"
			case strings.Contains(row.Notes, "stopReason=tool_use"):
				detail = "tool_use"
			case strings.Contains(row.Notes, "stopReason=end_turn"), strings.Contains(row.Notes, "family=anthropic"):
				detail = "end_turn"
			}
			if rep.Outcome.State != wantOutcome || rep.Outcome.Detail != detail {
				t.Errorf("outcome = %+v; want %s (%s)", rep.Outcome, wantOutcome, detail)
			}
			for i, ev := range s.Events.All() {
				if ev.Dialect != s.Dialect() || ev.Kind == model.KindUnknown || ev.Flags&(model.Orphan|model.NonStandard|model.DecodeError) != 0 {
					t.Errorf("event %d (%s): dialect %s, kind %s, flags %b", i, s.TypeName(ev.Type), ev.Dialect, ev.Kind, ev.Flags)
				}
			}
		})
	}
}

// checkVector holds a test vector of the encoding to its name.
func checkVector(t *testing.T, s *model.Session, file string) {
	t.Helper()
	if s.Len() != 1 {
		t.Fatalf("%d events; want one message", s.Len())
	}
	ev := s.Events.At(0)
	refused := map[string]string{"corrupted-length": "prelude CRC mismatch at byte 0", "corrupted-header-len": "prelude CRC mismatch at byte 0",
		"corrupted-headers": "message CRC mismatch at byte 0", "corrupted-payload": "message CRC mismatch at byte 0"}
	for name, check := range refused {
		if strings.Contains(file, "negative-"+name+"__") {
			if ev.Kind != model.KindError || s.TypeName(ev.Type) != model.TypeBadFrame || len(s.Errors) != 1 || s.Errors[0].Message != check {
				t.Fatalf("%s: kind %s, type %s, errors %+v; want a bad frame refused by its %s", file, ev.Kind, s.TypeName(ev.Type), s.Errors, check)
			}
			if o := s.Outcome(); o.State != model.OutcomeError {
				t.Errorf("outcome %+v; want error", o)
			}
			return
		}
	}
	if !strings.Contains(file, "positive-") {
		t.Fatalf("%s: neither a positive nor a known negative vector", file)
	}
	if ev.Kind == model.KindError || s.TypeName(ev.Type) == model.TypeBadFrame || len(s.Errors) != 0 {
		t.Fatalf("%s: kind %s, type %s, errors %+v; want a decoded message", file, ev.Kind, s.TypeName(ev.Type), s.Errors)
	}
}
