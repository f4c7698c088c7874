package dialects_test

// These tests hold the application dialects (the AI SDK's UI message
// stream and data stream) to the shared app captures, which span them:
// ../shared/captures-app/MANIFEST.tsv and oracle/.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model"
)

// appInput is one way an exchange of the shared app captures reaches
// streamtap, and how to read it.
type appInput struct {
	name string
	read func(t *testing.T, dir, stem, ext string) *model.Session
}

// appInputs reads an exchange from its body alone, as `curl -i` output
// (its .http head, then the body), from the proxy's recording, from a
// HAR file written from that recording (--save-har) and from a VCR
// cassette of it, each read back as an archive's session.
var appInputs = []appInput{
	{"body", func(t *testing.T, dir, stem, ext string) *model.Session {
		return model.Assemble(readFile(t, dir, stem+ext), capture.FormatAuto, model.Options{KeepEvents: true})
	}},
	{"curl -i", func(t *testing.T, dir, stem, ext string) *model.Session {
		in := append(readFile(t, dir, stem+".http"), readFile(t, dir, stem+ext)...)
		return model.Assemble(in, capture.FormatAuto, model.Options{KeepEvents: true})
	}},
	{"recording", func(t *testing.T, dir, stem, ext string) *model.Session {
		return model.Assemble(readFile(t, dir, recordingOf(stem, ext)), capture.FormatAuto, model.Options{KeepEvents: true})
	}},
	{"har", func(t *testing.T, dir, stem, ext string) *model.Session {
		return fromHAR(t, readFile(t, dir, recordingOf(stem, ext)))
	}},
	{"cassette", func(t *testing.T, dir, stem, ext string) *model.Session {
		return fromCassette(t, readFile(t, dir, stem+".http"), readFile(t, dir, stem+ext))
	}},
}

// fromCassette writes an exchange as vcrpy records one (its head's
// headers, its body as !!binary), reads it back as an archive, and
// models its one LLM session.
func fromCassette(t *testing.T, head, body []byte) *model.Session {
	t.Helper()
	var y strings.Builder
	y.WriteString("interactions:\n- request:\n    body: '{\"id\":\"chat-1\",\"messages\":[]}'\n    headers:\n      Content-Type:\n      - application/json\n")
	y.WriteString("    method: POST\n    uri: http://127.0.0.1:3000/api/chat\n  response:\n    body:\n      string: !!binary |\n        ")
	y.WriteString(base64.StdEncoding.EncodeToString(body))
	y.WriteString("\n    headers:\n")
	for _, line := range strings.Split(string(head), "\n")[1:] {
		name, value, ok := strings.Cut(strings.TrimRight(line, "\r"), ":")
		if !ok {
			continue
		}
		fmt.Fprintf(&y, "      %s:\n      - %q\n", name, strings.TrimSpace(value))
	}
	y.WriteString("    status:\n      code: 200\n      message: OK\nversion: 1\n")
	a, err := capture.ReadArchive([]byte(y.String()), capture.FormatCassette, capture.ArchiveOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, y.String())
	}
	return archiveSession(t, a)
}

// archiveSession models the one LLM session of an archive.
func archiveSession(t *testing.T, a *capture.Archive) *model.Session {
	t.Helper()
	entries := model.LLMEntries(a)
	if len(entries) != 1 {
		t.Fatalf("the archive holds %d LLM sessions; want 1", len(entries))
	}
	s := model.NewSession(model.Options{KeepEvents: true})
	err := entries[0].Source("archive").Read(t.Context(), capture.ReadOptions{}, func(f *capture.Frame) error {
		s.Add(f)
		return nil
	})
	s.End(err)
	return s
}

// recordingOf names the proxy's recording of an exchange.
func recordingOf(stem, ext string) string {
	if ext == ".txt" {
		return filepath.Join("recordings", stem+".rec.txt")
	}
	return filepath.Join("recordings", stem+".rec"+ext)
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fromHAR writes a recording into a HAR file as --save-har does, reads the
// file back as an archive, and models its one LLM session.
func fromHAR(t *testing.T, rec []byte) *model.Session {
	t.Helper()
	var w bytes.Buffer
	h := capture.NewHAR(&w, capture.HAROptions{})
	src := capture.FromReader("rec", capture.SourceFile, bytes.NewReader(rec), false)
	src.Record(h.Entry(nil))
	if err := src.Read(t.Context(), capture.ReadOptions{}, func(*capture.Frame) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := capture.ReadArchive(w.Bytes(), capture.FormatHAR, capture.ArchiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return archiveSession(t, a)
}

// manifestCall is a call as MANIFEST.tsv lists it.
type manifestCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// wantOutcome maps the outcome the notes say the SDK decided onto
// streamtap's vocabulary (docs/check.md): a refusal's finish
// content-filter is blocked, an interrupted finish and an abort are a
// truncated answer, a v4 error part fails the answer whatever follows it,
// and a v4 finish with reason unknown is a provider stream cut short.
func wantOutcome(row fixtures.AppRow) (state, detail string) {
	o := row.Outcome()
	switch {
	case strings.HasPrefix(o, "error"):
		return model.OutcomeError, ""
	case o == "completed" && strings.Contains(row.Notes, "content-filter"):
		return model.OutcomeBlocked, "content-filter"
	case o == "completed":
		return model.OutcomeCompleted, ""
	case o == "interrupted":
		return model.OutcomeTruncated, "interrupted"
	case o == "aborted":
		return model.OutcomeTruncated, "aborted"
	case o == "truncated":
		return model.OutcomeTruncated, ""
	case strings.HasPrefix(o, "finished with finishReason unknown"):
		return model.OutcomeTruncated, "unknown"
	}
	return "?" + o, ""
}

// TestAppManifest reads every AI SDK exchange of the shared app captures
// (UI message streams and v4 data streams) from its body, as `curl -i`
// output, from its recording and from a HAR file: each reads as its
// dialect alone, with the calls (id, name, arguments) and the text
// MANIFEST.tsv lists and the outcome its notes say the SDK decided.
func TestAppManifest(t *testing.T) {
	checkManifest(t, "aisdk-ui", "aisdk-ui", ".sse")
	checkManifest(t, "aisdk-data", "aisdk-data", ".txt")
}

func checkManifest(t *testing.T, format, dialect, ext string) {
	dir, rows := fixtures.AppManifest(t)
	n := 0
	for _, row := range rows {
		if row.Format != format {
			continue
		}
		n++
		stem := strings.TrimSuffix(row.File, ext)
		var want []manifestCall
		if err := json.Unmarshal([]byte(row.Calls), &want); err != nil {
			t.Fatalf("%s: manifest calls: %v", row.File, err)
		}
		var text string
		if err := json.Unmarshal([]byte(row.Text), &text); err != nil {
			t.Fatalf("%s: manifest text: %v", row.File, err)
		}
		state, detail := wantOutcome(row)
		for _, in := range appInputs {
			t.Run(stem+"/"+in.name, func(t *testing.T) {
				s := in.read(t, dir, stem, ext)
				rep := s.Report()
				if rep.Dialect != dialect || len(rep.Dialects) > 0 {
					t.Errorf("dialect %s %v; want %s alone", rep.Dialect, rep.Dialects, dialect)
				}
				if len(rep.Calls) != len(want) {
					t.Fatalf("%d calls; want %d: %+v", len(rep.Calls), len(want), rep.Calls)
				}
				for i, w := range want {
					g := rep.Calls[i]
					if g.ID == nil || *g.ID != w.ID || g.Name != w.Name || g.Arguments != w.Arguments {
						t.Errorf("call %d = %v %q %q; want %q %q %q", i, g.ID, g.Name, g.Arguments, w.ID, w.Name, w.Arguments)
					}
				}
				if rep.Text != text {
					t.Errorf("text %q; want %q", rep.Text, text)
				}
				if rep.Outcome.State != state || detail != "" && !strings.HasPrefix(rep.Outcome.Detail, detail) {
					t.Errorf("outcome %s (%s); want %s (%s…), as the notes say: %s", rep.Outcome.State, rep.Outcome.Detail, state, detail, row.Outcome())
				}
			})
		}
	}
	if n == 0 {
		t.Fatalf("MANIFEST.tsv has no %s row", format)
	}
}

// sameJSON reports whether a and b are equal JSON values.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// TestAppOracleUI holds the assembly to what the SDK's own client decoded
// (oracle/): each tool part of its final message is a call of ours with
// its state as our status (an invalid input is the client's output-error,
// our input-error), its input our arguments as a JSON value, its output
// our output, its errorText our error; and every execute() call received
// our arguments.
func TestAppOracleUI(t *testing.T) {
	dir, rows := fixtures.AppManifest(t)
	for _, row := range rows {
		if row.Format != "aisdk-ui" {
			continue
		}
		stem := strings.TrimSuffix(row.File, ".sse")
		t.Run(stem, func(t *testing.T) {
			var oracle struct {
				Execute []struct {
					ToolCallID string          `json:"toolCallId"`
					Input      json.RawMessage `json:"input"`
				} `json:"execute_calls"`
				Final struct {
					Parts []struct {
						Type       string          `json:"type"`
						ToolCallID string          `json:"toolCallId"`
						State      string          `json:"state"`
						Input      json.RawMessage `json:"input"`
						Output     json.RawMessage `json:"output"`
						ErrorText  string          `json:"errorText"`
					} `json:"parts"`
				} `json:"final_ui_message"`
			}
			if err := json.Unmarshal(readFile(t, dir, filepath.Join("oracle", stem+".json")), &oracle); err != nil {
				t.Fatal(err)
			}
			s := model.Assemble(readFile(t, dir, row.File), capture.FormatAuto, model.Options{})
			rep := s.Report()
			byID := map[string]model.CallReport{}
			for _, c := range rep.Calls {
				byID[*c.ID] = c
			}
			parts := 0
			for _, p := range oracle.Final.Parts {
				if !strings.HasPrefix(p.Type, "tool-") && p.Type != "dynamic-tool" {
					continue
				}
				parts++
				c, ok := byID[p.ToolCallID]
				if !ok {
					t.Errorf("the client's part %s has no call", p.ToolCallID)
					continue
				}
				status := c.Status
				if status == model.ToolInputError {
					status = model.ToolOutputError
				}
				if status == "incomplete" {
					status = "input-streaming"
				}
				if status != p.State {
					t.Errorf("%s: status %s; the client's state %s", p.ToolCallID, c.Status, p.State)
				}
				if p.State != "input-streaming" && len(p.Input) > 0 && !sameJSON([]byte(c.Arguments), p.Input) {
					t.Errorf("%s: arguments %s; the client's input %s", p.ToolCallID, c.Arguments, p.Input)
				}
				if len(p.Output) > 0 && (c.Output == nil || !sameJSON([]byte(*c.Output), p.Output)) {
					t.Errorf("%s: output %v; the client's %s", p.ToolCallID, c.Output, p.Output)
				}
				if c.Error != p.ErrorText {
					t.Errorf("%s: error %q; the client's %q", p.ToolCallID, c.Error, p.ErrorText)
				}
			}
			if parts != len(rep.Calls) {
				t.Errorf("%d calls; the client has %d tool parts", len(rep.Calls), parts)
			}
			for _, e := range oracle.Execute {
				if c, ok := byID[e.ToolCallID]; !ok || !sameJSON([]byte(c.Arguments), e.Input) {
					t.Errorf("execute() of %s received %s; our arguments %q", e.ToolCallID, e.Input, c.Arguments)
				}
			}
		})
	}
}

// TestAppOracleData holds the data stream's assembly to what ai 4's own
// client decoded: each tool invocation of its final message is a call of
// ours, its args our arguments as a JSON value (deltas that make "" are a
// call without arguments, {}), its result our output; and every
// execute() call received our arguments.
func TestAppOracleData(t *testing.T) {
	dir, rows := fixtures.AppManifest(t)
	for _, row := range rows {
		if row.Format != "aisdk-data" {
			continue
		}
		stem := strings.TrimSuffix(row.File, ".txt")
		t.Run(stem, func(t *testing.T) {
			var oracle struct {
				Execute []struct {
					ToolCallID string          `json:"toolCallId"`
					Args       json.RawMessage `json:"args"`
				} `json:"execute_calls"`
				Final struct {
					Invocations []struct {
						State      string          `json:"state"`
						ToolCallID string          `json:"toolCallId"`
						ToolName   string          `json:"toolName"`
						Args       json.RawMessage `json:"args"`
						Result     json.RawMessage `json:"result"`
					} `json:"toolInvocations"`
				} `json:"final_message"`
			}
			if err := json.Unmarshal(readFile(t, dir, filepath.Join("oracle", stem+".json")), &oracle); err != nil {
				t.Fatal(err)
			}
			s := model.Assemble(readFile(t, dir, row.File), capture.FormatAuto, model.Options{})
			byID := map[string]model.CallReport{}
			for _, c := range s.Report().Calls {
				byID[*c.ID] = c
			}
			args := func(c model.CallReport) []byte {
				if c.Arguments == "" {
					return []byte("{}")
				}
				return []byte(c.Arguments)
			}
			for _, inv := range oracle.Final.Invocations {
				c, ok := byID[inv.ToolCallID]
				switch {
				case !ok:
					t.Errorf("the client's invocation %s has no call", inv.ToolCallID)
				case c.Name != inv.ToolName:
					t.Errorf("%s: name %q; the client's %q", inv.ToolCallID, c.Name, inv.ToolName)
				case inv.State != "partial-call" && !sameJSON(args(c), inv.Args):
					t.Errorf("%s: arguments %q; the client's args %s", inv.ToolCallID, c.Arguments, inv.Args)
				case inv.State == "result" && (c.Output == nil || !sameJSON([]byte(*c.Output), inv.Result)):
					t.Errorf("%s: output %v; the client's result %s", inv.ToolCallID, c.Output, inv.Result)
				}
			}
			for _, e := range oracle.Execute {
				if c, ok := byID[e.ToolCallID]; !ok || !sameJSON(args(c), e.Args) {
					t.Errorf("execute() of %s received %s; our arguments %q", e.ToolCallID, e.Args, c.Arguments)
				}
			}
		})
	}
}
