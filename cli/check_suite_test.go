package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/sariftest"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/suite"
)

// suiteDir lays out a suite of recordings the way a test suite keeps
// them: files (relative path → content) under a new directory.
func suiteDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func sample(t *testing.T, name string) string {
	t.Helper()
	b, err := samples.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func cassette(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../capture/testdata/import/gemini-iter-stream__pydantic-ai.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheckSuiteExitCodes: several inputs and directories get one
// verdict each and exit with the worst: 0 when all pass, 1 when one
// fails, 2 when one cannot be read (its line on stderr, the others still
// checked).
func TestCheckSuiteExitCodes(t *testing.T) {
	t.Parallel()
	clean, warn, bad := checkTemp(t, checkClean), checkTemp(t, checkWarning), checkTemp(t, checkError)
	missing := filepath.Join(t.TempDir(), "nope.sse")
	tree := suiteDir(t, map[string]string{"a/clean.sse": checkClean, "a/b/warn.jsonl": checkWarning, "notes.txt": "not a recording"})
	badTree := suiteDir(t, map[string]string{"clean.sse": checkClean, "deep/er/bad.sse": checkError})
	empty := t.TempDir()
	tests := []struct {
		name       string
		args       []string
		want       int
		unreadable int
		checked    int
	}{
		{"two that pass", []string{clean, warn}, 0, 0, 2},
		{"one fails", []string{clean, bad}, 1, 0, 2},
		{"fail-on warning", []string{"--fail-on", "warning", clean, warn}, 1, 0, 2},
		{"a directory", []string{tree}, 0, 0, 2},
		{"a directory that fails deep down", []string{badTree}, 1, 0, 2},
		{"a missing file among them", []string{clean, missing, bad}, 2, 1, 3},
		{"an empty directory", []string{empty}, 2, 1, 1},
		{"a cassette's sessions", []string{suiteDir(t, map[string]string{"c.yaml": cassette(t)})}, 0, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCheckArgs(t, nil, tt.args...)
			if code != tt.want {
				t.Fatalf("check %q = %d; want %d\nstdout: %s\nstderr: %s", tt.args, code, tt.want, stdout, stderr)
			}
			if n := strings.Count(stderr, "\n"); n != tt.unreadable || (n > 0 && !strings.HasPrefix(stderr, "streamtap check: ")) {
				t.Errorf("stderr %q; want %d lines naming check", stderr, tt.unreadable)
			}
			if !strings.Contains(stdout, "\nchecked "+strconv.Itoa(tt.checked)+": ") {
				t.Errorf("no summary of %d verdicts:\n%s", tt.checked, stdout)
			}
			if got := strings.Count(stdout, "\n# "); got+1 != tt.checked || !strings.HasPrefix(stdout, "# ") {
				t.Errorf("%d headers; want %d:\n%s", got+1, tt.checked, stdout)
			}
		})
	}
}

// TestCheckSuiteUsage: what a suite cannot take is bad usage, said before
// anything is read.
func TestCheckSuiteUsage(t *testing.T) {
	t.Parallel()
	clean, warn := checkTemp(t, checkClean), checkTemp(t, checkWarning)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--save", filepath.Join(dir, "x"), clean, warn},
		{"--save-timed", filepath.Join(dir, "y"), dir},
		{"--save-har", filepath.Join(dir, "z"), clean, warn},
		{"--session", "2", clean, warn},
		{"--json", "--output-format", "sarif", clean},
		{"--output-format", "xml", clean},
		{"--disable", "chat/no-such-rule", clean},
		{"--severity", "chat/identity-changed=loud", clean},
		{"--severity", "chat/identity-changed", clean},
		{"--sample", "chat-single-call", clean, warn},
	} {
		code, stdout, stderr := runCheckArgs(t, nil, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "run 'streamtap check --help'") {
			t.Errorf("check %q = %d, %q, %q; want bad usage", args, code, stdout, stderr)
		}
	}
}

// TestCheckSuiteFormats runs check over a directory of real recordings
// (samples, a cassette) in each CI format and reads each back the way its
// consumer does: SARIF against the published schema, with each result on
// the line of the event it cites; JUnit with encoding/xml; workflow
// commands with the runner's syntax; JSON one line a verdict. The exit
// status is the same in every format.
func TestCheckSuiteFormats(t *testing.T) {
	t.Parallel()
	dir := suiteDir(t, map[string]string{
		"rec/cut.sse":        sample(t, "broken-cut-before-terminal.sse"),
		"rec/gap.sse":        sample(t, "broken-sequence-gap.sse"),
		"rec/ok.sse":         sample(t, "chat-single-call.sse"),
		"rec/more/cass.yaml": cassette(t),
	})
	rec := filepath.Join(dir, "rec")
	for _, format := range suite.Formats {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCheckArgs(t, nil, "--output-format", format, rec)
			if code != 1 || stderr != "" {
				t.Fatalf("check --output-format %s = %d; want 1 (two fail)\nstderr: %s", format, code, stderr)
			}
			switch format {
			case "sarif":
				checkSARIFOutput(t, []byte(stdout))
			case "junit":
				var doc struct {
					Suites []struct {
						Tests    int `xml:"tests,attr"`
						Failures int `xml:"failures,attr"`
						Cases    []struct {
							Name    string `xml:"name,attr"`
							Failure *struct {
								Type string `xml:"type,attr"`
							} `xml:"failure"`
						} `xml:"testcase"`
					} `xml:"testsuite"`
				}
				if err := xml.Unmarshal([]byte(stdout), &doc); err != nil {
					t.Fatal(err)
				}
				s := doc.Suites[0]
				if s.Tests != 6 || s.Failures != 2 || len(s.Cases) != 6 {
					t.Errorf("junit: %d tests, %d failures, %d cases; want 6, 2, 6", s.Tests, s.Failures, len(s.Cases))
				}
				if c := s.Cases[0]; !strings.HasSuffix(c.Name, "cut.sse") || c.Failure == nil || c.Failure.Type != "responses/no-terminal" {
					t.Errorf("junit: first case %+v", c)
				}
			case "github":
				lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
				if last := lines[len(lines)-1]; last != "streamtap check: checked 6: 4 passed, 2 failed" {
					t.Errorf("github: last line %q", last)
				}
				want := "::error file=" + filepath.Join(rec, "cut.sse") + ",line=37,title=outcome truncated::"
				if !strings.Contains(stdout, want) {
					t.Errorf("github: no %q in\n%s", want, stdout)
				}
			case "json":
				sc := bufio.NewScanner(strings.NewReader(stdout))
				n := 0
				for sc.Scan() {
					var v struct {
						Input   string `json:"input"`
						Session int    `json:"session"`
						Pass    *bool  `json:"pass"`
					}
					if err := json.Unmarshal(sc.Bytes(), &v); err != nil || v.Input == "" || v.Pass == nil {
						t.Errorf("json line %q: %v", sc.Text(), err)
					}
					n++
				}
				if n != 6 {
					t.Errorf("%d JSON lines; want 6", n)
				}
			}
		})
	}
}

// checkSARIFOutput validates a SARIF log against the published schema and
// checks that each result located at an event names the line that event
// starts on in its file (the line that `streamtap events` gives as its
// offset).
func checkSARIFOutput(t *testing.T, out []byte) {
	t.Helper()
	sariftest.Validate(t, sariftest.Schema(t, "../suite/testdata/sarif-schema-2.1.0.json", suite.SARIFSchema), out)
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					Physical struct {
						Artifact struct{ URI string } `json:"artifactLocation"`
						Region   struct {
							StartLine  int    `json:"startLine"`
							ByteOffset *int64 `json:"byteOffset"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Properties struct {
					Input  string `json:"input"`
					Events []int  `json:"events"`
				} `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	located := 0
	for _, r := range log.Runs[0].Results {
		reg := r.Locations[0].Physical.Region
		if reg.ByteOffset == nil {
			continue
		}
		data, err := os.ReadFile(r.Properties.Input)
		if err != nil {
			t.Fatal(err)
		}
		if line := 1 + bytes.Count(data[:*reg.ByteOffset], []byte("\n")); line != reg.StartLine {
			t.Errorf("%s at byte %d: line %d; the file has it on line %d", r.RuleID, *reg.ByteOffset, reg.StartLine, line)
		}
		if off := eventOffset(t, r.Properties.Input, r.Properties.Events[0]); off != *reg.ByteOffset {
			t.Errorf("%s cites event %d at byte %d; events says %d", r.RuleID, r.Properties.Events[0], *reg.ByteOffset, off)
		}
		located++
	}
	if located < 3 {
		t.Errorf("%d results located at an event; want 3 or more", located)
	}
}

// eventOffset is the offset `streamtap events` gives event ord of path.
func eventOffset(t *testing.T, path string, ord int) int64 {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"events", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("events %s = %d: %s", path, code, errb.String())
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev struct {
			Ordinal int   `json:"ordinal"`
			Offset  int64 `json:"offset"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Ordinal == ord {
			return ev.Offset
		}
	}
	t.Fatalf("events %s has no event %d", path, ord)
	return -1
}

// TestCheckRulesConfig: --disable and --severity change what check
// reports and its verdict; a .streamtap.yaml is found from each input's
// directory up, the nearest one governing; --config names one for all;
// the command line wins over the file; a broken file is an unreadable
// input naming it.
func TestCheckRulesConfig(t *testing.T) {
	t.Parallel()
	gap := sample(t, "broken-sequence-gap.sse") // an error (text-done-mismatch) and an info (seq-gap)
	dir := suiteDir(t, map[string]string{
		"repo/.streamtap.yaml":        "disable: [responses/text-done-mismatch]\n",
		"repo/plain/gap.sse":          gap,
		"repo/strict/.streamtap.yml":  "severity: {responses/seq-gap: error}\n",
		"repo/strict/gap.sse":         gap,
		"repo/broken/.streamtap.yaml": "disable: [responses/nope]\n",
		"repo/broken/gap.sse":         gap,
		"other/explicit.yaml":         "severity: {responses/text-done-mismatch: warning}\n",
		"elsewhere/gap.sse":           gap,
	})
	p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	tests := []struct {
		name  string
		args  []string
		want  int
		finds string // the rules=severities of the findings, in order
	}{
		{"no config", []string{p("elsewhere/gap.sse")}, 1, "responses/text-done-mismatch=error responses/seq-gap=info"},
		{"--disable", []string{"--disable", "responses/text-done-mismatch", p("elsewhere/gap.sse")}, 0, "responses/seq-gap=info"},
		{"--disable a prefix", []string{"--disable", "responses/*", p("elsewhere/gap.sse")}, 0, ""},
		{"--severity", []string{"--severity", "responses/text-done-mismatch=warning,responses/seq-gap=off", p("elsewhere/gap.sse")}, 0, "responses/text-done-mismatch=warning"},
		{"the file above", []string{p("repo/plain/gap.sse")}, 0, "responses/seq-gap=info"},
		{"the nearest file", []string{p("repo/strict/gap.sse")}, 1, "responses/seq-gap=error responses/text-done-mismatch=error"},
		{"the command line wins", []string{"--severity", "responses/text-done-mismatch=info", p("repo/plain/gap.sse")}, 0, "responses/seq-gap=info responses/text-done-mismatch=info"},
		{"--config", []string{"--config", p("other/explicit.yaml"), p("repo/plain/gap.sse")}, 0, "responses/text-done-mismatch=warning responses/seq-gap=info"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCheckArgs(t, nil, append([]string{"--json"}, tt.args...)...)
			if code != tt.want {
				t.Fatalf("check %q = %d; want %d\n%s%s", tt.args, code, tt.want, stdout, stderr)
			}
			var rep struct {
				Findings []struct{ Rule, Severity string }
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range rep.Findings {
				got = append(got, f.Rule+"="+f.Severity)
			}
			if strings.Join(got, " ") != tt.finds {
				t.Errorf("findings %v; want %s", got, tt.finds)
			}
		})
	}
	// A directory with a broken config: one error, said once, before
	// anything is judged.
	code, stdout, stderr := runCheckArgs(t, nil, p("repo"))
	if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, p("repo/broken/.streamtap.yaml")) || !strings.Contains(stderr, "responses/nope") {
		t.Errorf("a broken config: exit %d, stdout %q, stderr %q; want 2 and one line naming it", code, stdout, stderr)
	}
	// Its inputs have different configs, each named.
	if err := os.Remove(p("repo/broken/.streamtap.yaml")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCheckArgs(t, nil, p("repo"))
	if code != 1 || stderr != "" {
		t.Errorf("check repo = %d, stderr %q; want 1", code, stderr)
	}
	for _, want := range []string{"/plain/gap.sse: pass\n", "/strict/gap.sse: fail\n", "/broken/gap.sse: pass\n",
		"\nconfig: " + p("repo/.streamtap.yaml") + "\n", "\nconfig: " + p("repo/strict/.streamtap.yml") + "\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
}

// TestCheckConfigPolicy: a config file sets check's policy as the flags
// do (fail-on, profile, allow-outcome), each input by its own file; a
// flag given wins; every output names the file that judged each input;
// an unknown key is one error, once, that names the keys, however many
// inputs the file governs.
func TestCheckConfigPolicy(t *testing.T) {
	t.Parallel()
	gap := sample(t, "broken-sequence-gap.sse")        // an error and an info
	cut := sample(t, "broken-cut-before-terminal.sse") // truncated
	files := map[string]string{
		"repo/.git/HEAD":             "",
		"repo/lax/.streamtap.yaml":   "disable: [responses/text-done-mismatch, responses/no-terminal]\nallow-outcome: truncated\nprofile: tolerant\n",
		"repo/lax/gap.sse":           gap,
		"repo/lax/cut.sse":           cut,
		"repo/lax/ident.sse":         strings.Replace(chatStream, `"model":"m"`, `"model":"m2"`, 1), // chat/identity-changed: warning; info when tolerant
		"repo/picky/.streamtap.yaml": "disable: [responses/text-done-mismatch]\nfail-on: info\n",
		"repo/picky/gap.sse":         gap,
		"repo/typo/.streamtap.yaml":  "fail_on: warning\n",
		"repo/other/.streamtap.yaml": "# nothing\n",
		"repo/other/gap.sse":         gap,
	}
	for i := range 63 {
		files[fmt.Sprintf("repo/typo/%02d.sse", i)] = gap
	}
	dir := suiteDir(t, files)
	p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"allow-outcome from the file", []string{p("repo/lax/cut.sse")}, 0},
		{"--allow-outcome wins", []string{"--allow-outcome", "empty", p("repo/lax/cut.sse")}, 1},
		{"fail-on from the file", []string{p("repo/picky/gap.sse")}, 1},
		{"--fail-on wins", []string{"--fail-on", "error", p("repo/picky/gap.sse")}, 0},
		{"each input its own file", []string{p("repo/lax/cut.sse"), p("repo/picky/gap.sse")}, 1},
		{"--config for all", []string{"--config", p("repo/lax/.streamtap.yaml"), p("repo/lax/cut.sse"), p("repo/picky/gap.sse")}, 0},
		{"profile from the file", []string{"--fail-on", "warning", p("repo/lax/ident.sse")}, 0},
		{"--profile wins", []string{"--fail-on", "warning", "--profile", "strict", p("repo/lax/ident.sse")}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCheckArgs(t, nil, tt.args...)
			if code != tt.want {
				t.Errorf("check %q = %d; want %d\n%s%s", tt.args, code, tt.want, stdout, stderr)
			}
		})
	}
	_, stdout, _ := runCheckArgs(t, nil, "--json", p("repo/lax/gap.sse"))
	var rep struct {
		Config string `json:"config"`
		Pass   bool   `json:"pass"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Config != p("repo/lax/.streamtap.yaml") || !rep.Pass {
		t.Errorf("check --json: %+v, %v; want the config named\n%s", rep, err, stdout)
	}
	// Every format names the config files.
	for _, format := range suite.Formats {
		_, stdout, _ := runCheckArgs(t, nil, "--output-format", format, p("repo/lax"), p("repo/picky"))
		for _, c := range []string{p("repo/lax/.streamtap.yaml"), p("repo/picky/.streamtap.yaml")} {
			if format == "sarif" {
				c = "file://" + c
			}
			if !strings.Contains(stdout, c) {
				t.Errorf("--output-format %s does not name %s:\n%s", format, c, stdout)
			}
		}
	}
	// A typo in a file that governs 63 inputs: one line, the keys named.
	code, stdout, stderr := runCheckArgs(t, nil, p("repo/typo"))
	want := "streamtap check: config: " + p("repo/typo/.streamtap.yaml") + `: line 1: unknown key "fail_on" (the keys are disable, severity, fail-on, profile, allow-outcome)` + "\n"
	if code != 2 || stdout != "" || stderr != want {
		t.Errorf("a typo: exit %d, stdout %q, stderr\n%q; want 2 and\n%q", code, stdout, stderr, want)
	}
}

// TestRulesEffective: `streamtap rules` shows the severity check gives,
// with the config and the flags applied.
func TestRulesEffective(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(suiteDir(t, map[string]string{"c.yaml": "disable: [chat/*]\nseverity: {responses/seq-gap: error}\n"}), "c.yaml")
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"rules", "--config", cfg, "--severity", "framing/no-data=warning"}, nil, &out, &errb); code != 0 {
		t.Fatalf("rules = %d: %s", code, errb.String())
	}
	lines := map[string]string{}
	for l := range strings.Lines(out.String()) {
		if f := strings.Fields(l); len(f) > 2 && strings.Contains(f[0], "/") {
			lines[f[0]] = f[1]
		}
	}
	for rule, want := range map[string]string{
		"responses/seq-gap": "error*", "framing/no-data": "warning*", "chat/identity-changed": "off*",
		"responses/seq-missing": "warning", "framing/unterminated-event": "warning",
	} {
		if lines[rule] != want {
			t.Errorf("rules shows %s as %q; want %q", rule, lines[rule], want)
		}
	}
	if !strings.Contains(out.String(), "with "+cfg+" and the command line") {
		t.Errorf("the footnote does not say where the changes come from:\n%s", out.String())
	}
	out.Reset()
	if code := run(t.Context(), []string{"rules", "--json", "--profile", "tolerant", "--config", cfg}, nil, &out, &errb); code != 0 {
		t.Fatalf("rules --json = %d", code)
	}
	var rules []struct{ ID, Severity, Tolerant, Effective string }
	if err := json.Unmarshal(out.Bytes(), &rules); err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		want := r.Tolerant
		switch {
		case strings.HasPrefix(r.ID, "chat/"):
			want = "off"
		case r.ID == "responses/seq-gap":
			want = "error"
		}
		if r.Effective != want {
			t.Errorf("%s: effective %q; want %q", r.ID, r.Effective, want)
		}
	}
}

// tracesOnlyCassette is the real Agents SDK cassette cut to its first
// exchange: a POST of trace spans, no LLM exchange in it.
func tracesOnlyCassette(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../model/checks/testdata/verdicts/agents-traces-ingest__openllmetry.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	first := strings.Index(s, "\n- request:") + 1
	second := strings.Index(s[first:], "\n- request:")
	if first == 0 || second < 0 || !strings.Contains(s[:first+second], "/v1/traces/ingest") {
		t.Fatal("the cassette no longer starts with its traces exchange")
	}
	return s[:first+second+1]
}

// TestCheckSuiteSkipsWhatHoldsNoStream: a directory's .json and .yaml
// files that hold no LLM stream (a request body, a tool's config, a
// cassette of telemetry) are skipped with a note, not failed; named on
// the command line they are judged, and a .sse without a stream still
// fails.
func TestCheckSuiteSkipsWhatHoldsNoStream(t *testing.T) {
	t.Parallel()
	tree := suiteDir(t, map[string]string{
		"clean.sse":            checkClean,
		"bodies/request.json":  `{"model":"gpt-4.1","input":"hi","stream":true}`,
		"tool.yaml":            "name: x\nretries: 2\n",
		"agent/traces.yaml":    tracesOnlyCassette(t),
		"agent/responses.json": checkClean,
	})
	code, stdout, stderr := runCheckArgs(t, nil, tree)
	if code != 0 {
		t.Fatalf("exit %d; want 0\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "\nchecked 2: 2 passed, 0 failed; 3 skipped (no stream in them)\n") {
		t.Errorf("summary:\n%s", stdout)
	}
	for _, f := range []string{"bodies/request.json: no stream in it", "tool.yaml: no stream in it", "traces.yaml: no LLM exchange in it"} {
		if !strings.Contains(stderr, f) {
			t.Errorf("stderr lacks %q:\n%s", f, stderr)
		}
	}
	if code, _, _ := runCheckArgs(t, nil, "--json", tree); code != 0 {
		t.Errorf("--json: exit %d; want 0", code)
	}
	named := filepath.Join(tree, "tool.yaml")
	if code, _, _ := runCheckArgs(t, nil, named, filepath.Join(tree, "clean.sse")); code == 0 {
		t.Errorf("check %s named on the command line passed; want it judged", named)
	}
	noStream := suiteDir(t, map[string]string{"clean.sse": checkClean, "empty.sse": "name: x\n"})
	if code, stdout, _ := runCheckArgs(t, nil, noStream); code != 1 || strings.Contains(stdout, "skipped") {
		t.Errorf("a .sse holding no stream: exit %d; want 1, judged:\n%s", code, stdout)
	}
}

// TestRulesExplains: `streamtap rules ID` prints the rule's section of
// docs/rules.md, which the binary carries, for every rule (it exited 2,
// "rules takes no arguments"); PREFIX/* names a dialect's rules; a
// mistyped id is an error that suggests the rule; --json adds the section
// as "doc".
func TestRulesExplains(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range checks.Rules() {
		code, stdout, stderr := runCLI(t, nil, "rules", r.ID)
		_, rest, _ := strings.Cut(string(data), "\n### "+r.ID+"\n")
		first, _, _ := strings.Cut(rest, "\n")
		if code != 0 || !strings.HasPrefix(stdout, r.ID+": ") || first == "" || !strings.Contains(stdout, "\n"+first+"\n") ||
			!strings.HasSuffix(stdout, "/docs/rules.md#"+strings.ReplaceAll(r.ID, "/", "")+"\n") {
			t.Errorf("rules %s = %d:\n%s%s\nwant its section of docs/rules.md (%q) and its address", r.ID, code, stdout, stderr, first)
		}
	}
	code, stdout, _ := runCLI(t, nil, "rules", "gemini/*", "framing/no-data")
	if n := strings.Count(stdout, "\nhttps://"); code != 0 || n < 3 || !strings.HasPrefix(stdout, "gemini/") || !strings.Contains(stdout, "framing/no-data: ") {
		t.Errorf("rules gemini/* framing/no-data = %d, %d sections:\n%s", code, n, stdout)
	}
	code, _, stderr := runCLI(t, nil, "rules", "responses/item-id-chnged")
	if code != 2 || !strings.Contains(stderr, "did you mean 'responses/item-id-changed'") {
		t.Errorf("a mistyped rule: %d, %q", code, stderr)
	}
	code, stdout, _ = runCLI(t, nil, "rules", "--json", "chat/args-empty")
	var rules []struct {
		ID, Doc string
		HelpURI string `json:"help_uri"`
	}
	if err := json.Unmarshal([]byte(stdout), &rules); err != nil || code != 0 || len(rules) != 1 ||
		!strings.HasPrefix(rules[0].Doc, "### chat/args-empty\n") || !strings.HasSuffix(rules[0].HelpURI, "#chatargs-empty") {
		t.Errorf("rules --json chat/args-empty = %d, %+v, %v", code, rules, err)
	}
}

// TestCheckEndsWithWhatFailed: check of many inputs ends with a line for
// each input that did not pass (as pytest's short summary does), before
// the count; --quiet prints only those inputs (one that passes alone:
// nothing), and is refused with a format that is a document of every
// input.
func TestCheckEndsWithWhatFailed(t *testing.T) {
	t.Parallel()
	dir := suiteDir(t, map[string]string{
		"a-cut.sse": sample(t, "broken-cut-before-terminal.sse"),
		"b-ok.sse":  checkClean,
		"c-gap.sse": sample(t, "broken-sequence-gap.sse"),
	})
	missing := filepath.Join(dir, "d-missing.sse")
	p := func(name string) string { return filepath.Join(dir, name) }
	code, stdout, _ := runCheckArgs(t, nil, dir, missing)
	wantEnd := "\n\nwhat did not pass:\n" +
		"  " + p("a-cut.sse") + ": responses/no-terminal; outcome truncated\n" +
		"  " + p("c-gap.sse") + ": responses/text-done-mismatch\n" +
		"  " + missing + ": unreadable (open: no such file or directory)\n" +
		"checked 4: 1 passed, 2 failed, 1 unreadable\n"
	if code != 2 || !strings.HasSuffix(stdout, wantEnd) || !strings.Contains(stdout, "# "+p("b-ok.sse")+": pass\n") {
		t.Errorf("check = %d:\n%s\nwant it to end with\n%s", code, stdout, wantEnd)
	}
	code, stdout, _ = runCheckArgs(t, nil, "--quiet", dir, missing)
	if code != 2 || strings.Contains(stdout, "b-ok.sse") || !strings.HasPrefix(stdout, "# "+p("a-cut.sse")+": fail\n") || !strings.HasSuffix(stdout, wantEnd) {
		t.Errorf("check --quiet = %d:\n%s", code, stdout)
	}
	code, stdout, _ = runCheckArgs(t, nil, "--quiet", "--json", dir)
	if code != 1 || strings.Count(stdout, "\n") != 2 || strings.Contains(stdout, "b-ok.sse") {
		t.Errorf("check --quiet --json = %d:\n%s", code, stdout)
	}
	if code, stdout, stderr := runCheckArgs(t, nil, "-q", p("b-ok.sse")); code != 0 || stdout != "" || stderr != "" {
		t.Errorf("check -q on a passing input = %d, %q, %q; want 0 and nothing", code, stdout, stderr)
	}
	if code, _, stderr := runCheckArgs(t, nil, "--quiet", "--output-format", "junit", dir); code != 2 || !strings.Contains(stderr, "--quiet") {
		t.Errorf("--quiet --output-format junit = %d, %q; want a usage error", code, stderr)
	}
}
