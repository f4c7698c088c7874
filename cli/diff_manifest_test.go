package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model"
)

// legDiff is a difference of `diff --json` as this test reads it.
type legDiff struct {
	Kind    string          `json:"kind"`
	Path    string          `json:"path"`
	A       json.RawMessage `json:"a"`
	B       json.RawMessage `json:"b"`
	Step    int             `json:"step"`
	Message string          `json:"message"`
	Changes []struct {
		Path string          `json:"path"`
		A    json.RawMessage `json:"a"`
	} `json:"arguments_changes"`
}

// legExpect is a difference that a capture's notes name: how many of a
// kind and path, and what each must say.
type legExpect struct {
	why        string // the words of the notes that name it
	kind, path string
	n          int                // how many; 0 for one or more
	holds      func(legDiff) bool // what each must say, or nil
}

// legExpectations reads what the notes of an app capture say broke
// between the provider's leg and the app's (FORMATS.md §3): each rule is
// a kind of change the AI SDK makes, as the notes word it. A capture whose
// notes name none must diff equivalent.
func legExpectations(format, notes string) []legExpect {
	var out []legExpect
	has := func(s ...string) bool {
		for _, x := range s {
			if !strings.Contains(notes, x) {
				return false
			}
		}
		return true
	}
	outcome, _, _ := strings.Cut(notes, ";")
	if has("is renamed") {
		out = append(out, legExpect{why: "a server tool renamed", kind: "call", path: "name"})
	}
	if has("injected") {
		out = append(out, legExpect{why: "a member injected into the input", kind: "call", path: "arguments", holds: func(d legDiff) bool {
			return len(d.Changes) > 0 && !slices.ContainsFunc(d.Changes, func(c struct {
				Path string          `json:"path"`
				A    json.RawMessage `json:"a"`
			}) bool {
				return c.A != nil
			})
		}})
	}
	if has("mcp_tool_use") {
		out = append(out, legExpect{why: "an MCP tool use's arguments lost", kind: "call", path: "arguments", n: 1, holds: func(d legDiff) bool {
			return string(d.B) == `"{}"`
		}})
	}
	if has("choices", "one text") {
		out = append(out, legExpect{why: "n>1 choices merged into one text", kind: "text", path: "text", n: 1, holds: func(d legDiff) bool {
			return strings.Contains(d.Message, "merged")
		}})
	}
	if has("no finish_reason") {
		out = append(out, legExpect{why: "a provider stream without a finish reason told as interrupted", kind: "outcome", path: "state", n: 1})
	}
	if has("masks the text") || has("(default getErrorMessage)") {
		out = append(out, legExpect{why: "the provider's error text masked", kind: "outcome", path: "error", n: 1})
	}
	if format == "aisdk-data" {
		n := 0
		if strings.HasPrefix(outcome, "outcome: error part then completed") {
			n++ // an error of the route's (a tool's), none of the provider's
		}
		if has("never dispatched") && !strings.Contains(outcome, "unknown") {
			n++ // v4 takes the reason of a stream cut before its terminal event
		}
		if n > 0 {
			out = append(out, legExpect{why: "an error part of the route's, or a cut step taken as finished", kind: "outcome", path: "state", n: n})
		}
	}
	return out
}

// TestDiffAppCaptures: `diff` of each app capture of ../shared/captures-app
// (the AI SDK's UI message and data streams) against the provider's
// recordings of its steps reports exactly the differences its notes in
// MANIFEST.tsv name, and none on the others.
func TestDiffAppCaptures(t *testing.T) {
	t.Parallel()
	dir := fixtures.Shared(t, "captures-app")
	for _, d := range []string{"aisdk-ui", "aisdk-data"} {
		if _, ok := model.Lookup(d); !ok {
			t.Skipf("the %s dialect is not in this build", d)
		}
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(manifest)), "\n")
	tested := 0
	for _, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(f) < 7 {
			t.Fatalf("MANIFEST.tsv line %q has %d fields; want 7", line, len(f))
		}
		file, format, notes := f[0], f[1], f[6]
		base := strings.TrimSuffix(file, filepath.Ext(file))
		steps, _ := filepath.Glob(filepath.Join(dir, "provider-leg", base+".provider-step*.rec.sse"))
		if len(steps) == 0 {
			continue // an MCP exchange: no provider leg
		}
		slices.Sort(steps)
		tested++
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			want := legExpectations(format, notes)
			code, out, errOut := runDiffArgs(t, nil, append(append([]string{"--json"}, steps...), filepath.Join(dir, file))...)
			var res struct {
				Steps       []json.RawMessage `json:"steps"`
				Differences []legDiff         `json:"differences"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("diff = %d, stderr %q: %v\n%s", code, errOut, err, out)
			}
			if len(res.Steps) != len(steps) {
				t.Errorf("%d steps lined up; want %d, one per provider recording", len(res.Steps), len(steps))
			}
			left := slices.Clone(res.Differences)
			for _, w := range want {
				var got []legDiff
				left = slices.DeleteFunc(left, func(d legDiff) bool {
					if d.Kind == w.kind && d.Path == w.path {
						got = append(got, d)
						return true
					}
					return false
				})
				switch {
				case len(got) == 0 || (w.n > 0 && len(got) != w.n):
					t.Errorf("the notes name %s: %d %s differences on %s; want %d", w.why, len(got), w.kind, w.path, max(w.n, 1))
				case w.holds != nil:
					for _, d := range got {
						if !w.holds(d) {
							t.Errorf("the notes name %s; the difference says otherwise: %s", w.why, d.Message)
						}
					}
				}
			}
			for _, d := range left {
				t.Errorf("a difference the notes do not name: %s %s: %s", d.Kind, d.Path, d.Message)
			}
			if wantCode := min(len(res.Differences), 1); code != wantCode {
				t.Errorf("exit %d; want %d", code, wantCode)
			}
			// The proxy's recording of the app's leg against the whole
			// provider-leg folder: its own steps are found by when they
			// started (or, for a body recorded without times, by what they
			// share with it), and the report is the same.
			if _, rec, ok := strings.Cut(notes, "app-leg recording: "); ok {
				rec, _, _ = strings.Cut(rec, ";")
				_, byFolder, errOut := runDiffArgs(t, nil, "--json", filepath.Join(dir, "provider-leg"), filepath.Join(dir, rec))
				var folder struct {
					ASessions []struct {
						Name string `json:"name"`
					} `json:"a_sessions"`
					A struct {
						Name string `json:"name"`
					} `json:"a"`
					Differences []legDiff `json:"differences"`
				}
				if err := json.Unmarshal([]byte(byFolder), &folder); err != nil {
					t.Fatalf("diff provider-leg %s: stderr %q: %v", rec, errOut, err)
				}
				names := []string{folder.A.Name}
				if folder.ASessions != nil {
					names = nil
					for _, a := range folder.ASessions {
						names = append(names, a.Name)
					}
				}
				if !slices.Equal(names, steps) {
					t.Errorf("diff provider-leg %s took %v; want %v", rec, names, steps)
				}
				kinds := func(ds []legDiff) (out []string) {
					for _, d := range ds {
						out = append(out, d.Kind+" "+d.Path)
					}
					return out
				}
				if got, want := kinds(folder.Differences), kinds(res.Differences); !slices.Equal(got, want) {
					t.Errorf("diff provider-leg %s: %v; want %v as with its steps named", rec, got, want)
				}
			}
			if t.Failed() {
				t.Logf("notes: %s", notes)
			}
		})
	}
	if tested == 0 {
		t.Error("no capture with provider-leg recordings in MANIFEST.tsv")
	}
}
