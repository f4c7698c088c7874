package mcp_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// The shared captures of the app leg (../shared/captures-app): MCP
// exchanges made by @modelcontextprotocol/sdk 1.32.2 in three server
// modes, each with its response head (.http), the proxy's recording of the
// exchange (recordings/, which holds the request: an MCP call is its
// request's body), and the SDK client's own view (oracle/). MANIFEST.tsv
// gives the expected calls (from the recordings), the text and, in its
// notes, the outcome.

// appDir finds ../shared/captures-app, or skips.
func appDir(t *testing.T) string {
	t.Helper()
	return filepath.Dir(fixtures.Shared(t, "captures-app/MANIFEST.tsv"))
}

type appRow struct {
	File, Format, Calls, Text, Notes string
}

// mcpRows reads the MANIFEST's MCP rows.
func mcpRows(t *testing.T, dir string) []appRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []appRow
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		rec := strings.Split(line, "\t")
		if i == 0 || !strings.HasPrefix(rec[0], "mcp__") {
			continue
		}
		if len(rec) < 7 {
			t.Fatalf("manifest line %d has %d fields", i+1, len(rec))
		}
		rows = append(rows, appRow{File: rec[0], Format: rec[1], Calls: rec[4], Text: rec[5], Notes: rec[6]})
	}
	if len(rows) == 0 {
		t.Fatal("the manifest has no mcp row")
	}
	return rows
}

// exchange is one recorded exchange of a mode, read as the proxy and an
// imported archive read it: linked to the exchange it continues.
type exchange struct {
	name string // the recording's name without .rec.*
	data []byte // the recording
	x    capture.Exchange
	link model.ExchangeLink
	s    *model.Session
	c    *checks.Checker
}

// readMode reads every recording of one server mode in order, each linked
// by model.Turns to the exchange it continues, as the proxy links its
// exchanges and an archive its sessions.
func readMode(t *testing.T, dir, mode string) []*exchange {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "recordings", "mcp__"+mode+"__*.rec.*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recordings of mode %s: %v", mode, err)
	}
	slices.Sort(paths)
	var turns model.Turns
	var out []*exchange
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := capture.ParseRecording(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		e := &exchange{name: strings.Split(filepath.Base(p), ".rec.")[0], data: data, x: rec.Exchange}
		e.link = turns.LinkExchange(&e.x)
		opts, c := checks.Attach(model.Options{KeepEvents: true, Raw: bytes.NewReader(data), Exchange: &e.x, Earlier: e.link.Earlier})
		e.s, e.c = model.Assemble(data, capture.FormatAuto, opts), c
		turns.Add(i+1, e.s)
		out = append(out, e)
	}
	return out
}

// modeOf is a capture's server mode: stateful, resumable, stateless-json.
func modeOf(file string) string { return strings.Split(file, "__")[1] }

// byName finds a mode's exchange.
func byName(t *testing.T, all []*exchange, name string) *exchange {
	t.Helper()
	for _, e := range all {
		if e.name == name {
			return e
		}
	}
	t.Fatalf("no recording of %s", name)
	return nil
}

var rpcError = regexp.MustCompile(`JSON-RPC error (-?\d+) "([^"]*)"`)

// wantOutcome reads the outcome a row's notes say the SDK decided, in the
// outcome vocabulary: a result is completed, a tool error (isError)
// failed, a JSON-RPC error error, a body with no response truncated, a
// GET stream that ended completed. detail is what the outcome's detail
// must start with ("" for any).
func wantOutcome(t *testing.T, row appRow) (state, detail string) {
	t.Helper()
	n := row.Notes
	switch {
	case strings.Contains(n, "outcome: result"):
		return model.OutcomeCompleted, ""
	case strings.Contains(n, "outcome: tool error (result.isError true)"):
		var text string
		if err := json.Unmarshal([]byte(row.Text), &text); err != nil {
			t.Fatal(err)
		}
		return model.OutcomeFailed, "isError: " + text[:min(len(text), 40)]
	case strings.Contains(n, "outcome: JSON-RPC error"):
		m := rpcError.FindStringSubmatch(n)
		if m == nil {
			t.Fatalf("notes name a JSON-RPC error without its code: %s", n)
		}
		return model.OutcomeError, m[1] + ": " + m[2]
	case strings.Contains(n, "outcome: no response in this body"):
		return model.OutcomeTruncated, ""
	case strings.Contains(n, "; GET;") && strings.Contains(n, "stream end"):
		return model.OutcomeCompleted, ""
	}
	t.Fatalf("the notes say no outcome this test knows: %s", n)
	return "", ""
}

func sameOutcome(t *testing.T, what string, got model.Outcome, state, detail string) {
	t.Helper()
	if got.State != state || !strings.HasPrefix(got.Detail, detail) {
		t.Errorf("%s: outcome %s (%s); want %s (%s…)", what, got.State, got.Detail, state, detail)
	}
}

type wantCall struct {
	ID        *string `json:"id"`
	Name      string  `json:"name"`
	Arguments string  `json:"arguments"`
}

// TestManifest reads every MCP capture of the shared app leg as its
// recording (which holds the request, so the calls), linked to the
// exchanges before it as the proxy links them: calls, text and outcome are
// the MANIFEST's. Its body alone and its `curl -i` capture (head and body)
// read with the dialect, with the same text and outcome; with its request
// given (as --request does) the same calls too.
func TestManifest(t *testing.T) {
	dir := appDir(t)
	modes := map[string][]*exchange{}
	for _, row := range mcpRows(t, dir) {
		t.Run(row.File, func(t *testing.T) {
			mode := modeOf(row.File)
			if modes[mode] == nil {
				modes[mode] = readMode(t, dir, mode)
			}
			name := strings.TrimSuffix(strings.TrimSuffix(row.File, ".sse"), ".json")
			e := byName(t, modes[mode], name)
			rep := e.s.Report()
			dialecttest.SameReportJSON(t, e.s, rep)
			dialecttest.CheckTiling(t, e.s, e.data)
			dialecttest.CheckOutputs(t, e.s)
			dialecttest.CheckArgsAsOf(t, e.s, len(e.data))
			if rep.Dialect != "mcp" {
				t.Errorf("dialect = %s; want mcp", rep.Dialect)
			}
			var want []wantCall
			if err := json.Unmarshal([]byte(row.Calls), &want); err != nil {
				t.Fatalf("manifest calls: %v", err)
			}
			sameCalls(t, "recording", rep, want)
			var wantText string
			if err := json.Unmarshal([]byte(row.Text), &wantText); err != nil {
				t.Fatalf("manifest text: %v", err)
			}
			if rep.Text != wantText {
				t.Errorf("recording: text = %q; want %q", rep.Text, wantText)
			}
			state, detail := wantOutcome(t, row)
			sameOutcome(t, "recording", e.s.Outcome(), state, detail)

			body, err := os.ReadFile(filepath.Join(dir, row.File))
			if err != nil {
				t.Fatal(err)
			}
			head, err := os.ReadFile(filepath.Join(dir, name+".http"))
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range []struct {
				what string
				data []byte
				x    *capture.Exchange
			}{
				{"body", body, nil},
				{"curl -i", append(bytes.Clone(head), body...), nil},
				{"body with its request", body, &e.x},
			} {
				s := model.Assemble(in.data, capture.FormatAuto, model.Options{Exchange: in.x})
				r := s.Report()
				if r.Dialect != "mcp" {
					t.Errorf("%s: dialect = %s; want mcp", in.what, r.Dialect)
				}
				if r.Text != wantText {
					t.Errorf("%s: text = %q; want %q", in.what, r.Text, wantText)
				}
				sameOutcome(t, in.what, s.Outcome(), state, detail)
				if in.x != nil && e.link.Prev == 0 {
					sameCalls(t, in.what, r, want)
				}
			}
		})
	}
}

func sameCalls(t *testing.T, what string, rep model.CallsReport, want []wantCall) {
	t.Helper()
	if len(rep.Calls) != len(want) {
		t.Fatalf("%s: %d calls; want %d: %+v", what, len(rep.Calls), len(want), rep.Calls)
	}
	for i, w := range want {
		g := rep.Calls[i]
		if g.ID == nil || w.ID == nil || *g.ID != *w.ID || g.Name != w.Name || g.Arguments != w.Arguments {
			t.Errorf("%s: call %d = %v %q %q; want %v %q %q", what, i, deref(g.ID), g.Name, g.Arguments, deref(w.ID), w.Name, w.Arguments)
		}
	}
}

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestManifestFindings holds each shared capture's findings to its notes:
// a tool error is mcp/tool-error, a JSON-RPC error answering a call
// mcp/jsonrpc-error, a body with no response mcp/no-response (info when
// its events carry ids, which the client resumes from), a message that is
// no JSON-RPC mcp/jsonrpc-invalid, an event a resumed stream had
// delivered already mcp/resume-replayed; nothing else of the dialect, and
// nothing at warning or above besides.
func TestManifestFindings(t *testing.T) {
	dir := appDir(t)
	modes := map[string][]*exchange{}
	for _, row := range mcpRows(t, dir) {
		t.Run(row.File, func(t *testing.T) {
			mode := modeOf(row.File)
			if modes[mode] == nil {
				modes[mode] = readMode(t, dir, mode)
			}
			name := strings.TrimSuffix(strings.TrimSuffix(row.File, ".sse"), ".json")
			e := byName(t, modes[mode], name)
			want := map[string]checks.Severity{}
			n := row.Notes
			switch {
			case strings.Contains(n, "outcome: tool error"):
				want["mcp/tool-error"] = checks.Info
			case strings.Contains(n, "outcome: JSON-RPC error") && strings.Contains(n, "tools/call"):
				want["mcp/jsonrpc-error"] = checks.Info
			case strings.Contains(n, "outcome: no response in this body"):
				want["mcp/no-response"] = checks.Error
				if bytes.Contains(e.data, []byte("\nid: ")) {
					want["mcp/no-response"] = checks.Info
				}
			}
			if strings.Contains(n, "not a JSON-RPC message") {
				want["mcp/jsonrpc-invalid"] = checks.Error
			}
			if e.link.Verb == "resumes" && replays(t, modes[mode][e.link.Prev-1], e) {
				want["mcp/resume-replayed"] = checks.Warning
			}
			got := map[string]checks.Severity{}
			for _, f := range e.c.Report(e.s, checks.Strict).Findings {
				if strings.HasPrefix(f.Rule, "mcp/") || f.Severity >= checks.Warning {
					got[f.Rule] = max(got[f.Rule], f.Severity)
				}
			}
			if !maps.Equal(got, want) {
				t.Errorf("findings %v; the notes say %v", got, want)
			}
		})
	}
}

// replays reports whether the resumed stream b carries an event whose id
// the stream it resumes, a, carried already.
func replays(t *testing.T, a, b *exchange) bool {
	t.Helper()
	ids := func(data []byte) map[string]bool {
		out := map[string]bool{}
		for line := range strings.Lines(string(data)) {
			if id, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "id: "); ok {
				out[id] = true
			}
		}
		return out
	}
	seen := ids(a.data)
	for id := range ids(b.data) {
		if seen[id] {
			return true
		}
	}
	return false
}
