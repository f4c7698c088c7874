package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/sariftest"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// sarifSchema compiles the published SARIF 2.1.0 schema kept in testdata.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	return sariftest.Schema(t, "testdata/sarif-schema-2.1.0.json", SARIFSchema)
}

// validateSARIF fails the test when out is not a SARIF 2.1.0 log.
var validateSARIF = sariftest.Validate

// sampleRun is a run over real streams of every kind a run holds: a
// stream cut short (findings and a failing outcome), findings of two
// severities, a clean stream, an unreadable input, an archive's session,
// standard input, and a file whose name and message are hostile.
func sampleRun(t *testing.T) (Run, map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{}
	var run Run
	run.FailOn = checks.Error
	run.Version = "v0.0.0-test"
	for _, name := range []string{"broken-cut-before-terminal.sse", "broken-sequence-gap.sse", "chat-openrouter-keepalive.sse"} {
		path, data := sampleFile(t, dir, name)
		files[path] = data
		run.Verdicts = append(run.Verdicts, verdictOf(t, path, data, run.FailOn))
	}
	missing := filepath.Join(dir, "missing.sse")
	run.Verdicts = append(run.Verdicts, Verdict{Input: missing, File: missing, Err: &os.PathError{Op: "open", Path: missing, Err: os.ErrNotExist}, Last: -1})

	archive := filepath.Join(dir, "suite.har")
	v := verdictOf(t, archive, files[filepath.Join(dir, "broken-sequence-gap.sse")], run.FailOn)
	v.Session, v.Sessions, v.Places = 2, 3, nil
	v.Exchange = Exchange{"POST", "https://api.example/v1/responses", 200}
	run.Verdicts = append(run.Verdicts, v)

	v = verdictOf(t, "stdin", files[filepath.Join(dir, "broken-cut-before-terminal.sse")], run.FailOn)
	v.File = ""
	run.Verdicts = append(run.Verdicts, v)

	odd := filepath.Join(dir, "odd name, with: commas %20.sse")
	data := files[filepath.Join(dir, "broken-sequence-gap.sse")]
	if err := os.WriteFile(odd, data, 0o644); err != nil {
		t.Fatal(err)
	}
	v = verdictOf(t, odd, data, run.FailOn)
	v.Report.Findings[0].Message = hostile
	run.Verdicts = append(run.Verdicts, v)
	files[odd] = data
	return run, files
}

// TestSARIFValidates writes a run over real streams as SARIF and
// validates it against the published schema; each located result must
// point at the bytes and line of the event it cites, as a session that
// keeps its events places them.
func TestSARIFValidates(t *testing.T) {
	t.Parallel()
	sch := sarifSchema(t)
	run, files := sampleRun(t)
	var out bytes.Buffer
	if err := WriteSARIF(&out, run); err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, sch, out.Bytes())

	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string } `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				ExecutionSuccessful bool `json:"executionSuccessful"`
				Notifications       []struct {
					Message struct{ Text string } `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					Physical struct {
						Artifact struct{ URI string } `json:"artifactLocation"`
						Region   *struct {
							StartLine  int    `json:"startLine"`
							ByteOffset *int64 `json:"byteOffset"`
							ByteLength *int64 `json:"byteLength"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Properties struct {
					Input   string `json:"input"`
					Session int    `json:"session"`
					Events  []int  `json:"events"`
				} `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0]
	if inv := r.Invocations[0]; inv.ExecutionSuccessful || len(inv.Notifications) != 1 || !strings.Contains(inv.Notifications[0].Message.Text, "missing.sse") {
		t.Errorf("the unreadable input: invocation %+v; want one notification naming it, not successful", inv)
	}
	want := 0
	for _, v := range run.Verdicts {
		if v.Err == nil {
			want += len(v.Report.Findings)
			if v.OutcomeFails {
				want++
			}
		}
	}
	if len(r.Results) != want || want == 0 {
		t.Fatalf("%d results; want %d", len(r.Results), want)
	}
	located := 0
	for _, res := range r.Results {
		if r.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %s: ruleIndex %d is rule %s", res.RuleID, res.RuleIndex, r.Tool.Driver.Rules[res.RuleIndex].ID)
		}
		if strings.ContainsAny(res.Message.Text, "\x1b\u009b\u202e\r\n") {
			t.Errorf("result %s: the message holds raw control text: %q", res.RuleID, res.Message.Text)
		}
		if res.Properties.Input == "stdin" {
			if len(res.Locations) != 0 {
				t.Errorf("a result on stdin has locations %+v", res.Locations)
			}
			continue
		}
		if len(res.Locations) != 1 || res.Locations[0].Physical.Region == nil {
			t.Errorf("result %s on %s: locations %+v; want one with a region", res.RuleID, res.Properties.Input, res.Locations)
			continue
		}
		loc := res.Locations[0].Physical
		if res.Properties.Session > 0 || len(res.Properties.Events) == 0 {
			if loc.Region.StartLine != 1 || loc.Region.ByteOffset != nil {
				t.Errorf("result %s on %s: region %+v; want the first line, no bytes", res.RuleID, res.Properties.Input, *loc.Region)
			}
			continue
		}
		data := files[res.Properties.Input]
		if data == nil {
			t.Fatalf("result on an unknown input %q", res.Properties.Input)
		}
		if want := fileURI(res.Properties.Input); loc.Artifact.URI != want {
			t.Errorf("uri = %q; want %q", loc.Artifact.URI, want)
		}
		ev := eventAt(t, data, res.Properties.Events[0])
		if loc.Region.ByteOffset == nil || *loc.Region.ByteOffset != ev.Offset || *loc.Region.ByteLength < int64(ev.Len) {
			t.Errorf("result %s cites event %d at bytes %d+%d; the region says %v+%v", res.RuleID, res.Properties.Events[0], ev.Offset, ev.Len, loc.Region.ByteOffset, loc.Region.ByteLength)
		}
		if line := 1 + bytes.Count(data[:ev.Offset], []byte("\n")); loc.Region.StartLine != line {
			t.Errorf("result %s cites event %d on line %d; the region says %d", res.RuleID, res.Properties.Events[0], line, loc.Region.StartLine)
		}
		located++
	}
	if located < 3 {
		t.Errorf("only %d results located at an event", located)
	}
	if !strings.Contains(out.String(), `"uri": "`+fileURI(filepath.Join(filepath.Dir(run.Verdicts[0].File), "odd name, with: commas %20.sse"))+`"`) ||
		!strings.Contains(out.String(), "odd%20name,%20with:%20commas%20%2520.sse") {
		t.Errorf("the odd file name is not percent-encoded in its uri")
	}
}

// eventAt returns event ord of data as a session that keeps its events
// places it.
func eventAt(t *testing.T, data []byte, ord int) model.Event {
	t.Helper()
	s := model.Assemble(data, capture.FormatAuto, model.Options{KeepEvents: true})
	if ord >= s.Events.Len() {
		t.Fatalf("event %d of %d", ord, s.Events.Len())
	}
	return *s.Events.At(ord)
}

// TestSARIFEmptyRun: a run with nothing to report is still a valid log.
func TestSARIFEmptyRun(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := WriteSARIF(&out, Run{}); err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, sarifSchema(t), out.Bytes())
	if !strings.Contains(out.String(), `"results": []`) {
		t.Errorf("no results array:\n%s", out.String())
	}
}

// TestSARIFSchemaRefusesBadLogs holds the validation itself to account:
// logs that break the schema are refused, so the test above proves
// something.
func TestSARIFSchemaRefusesBadLogs(t *testing.T) {
	t.Parallel()
	sch := sarifSchema(t)
	run, _ := sampleRun(t)
	var out bytes.Buffer
	if err := WriteSARIF(&out, run); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ from, to string }{
		{`"version": "2.1.0"`, `"version": "2.0.0"`},
		{`"level": "note"`, `"level": "info"`},
		{`"startLine": 1`, `"startLine": 0`},
		{`"ruleId"`, `"rule_id"`},
	} {
		b := strings.Replace(out.String(), bad.from, bad.to, 1)
		if b == out.String() {
			t.Fatalf("%s is not in the log", bad.from)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		var ve *jsonschema.ValidationError
		if err := sch.Validate(inst); !errors.As(err, &ve) {
			t.Errorf("with %s → %s the log still validates (%v)", bad.from, bad.to, err)
		}
	}
}

// sarifWhole is the log of run as one encoding/json document built whole
// in memory: what the SARIFWriter's stream must equal byte for byte.
func sarifWhole(t *testing.T, run Run) []byte {
	t.Helper()
	driver, index := sarifDriverOf(run.Version)
	inv := sarifInvocation{ExecutionSuccessful: true}
	results := []sarifResult{}
	var artifacts []sarifArtifactX
	var configs []string
	for i := range run.Verdicts {
		v := &run.Verdicts[i]
		if v.Config != "" && !slices.Contains(configs, v.Config) {
			configs = append(configs, v.Config)
			artifacts = append(artifacts, sarifArtifactX{Location: sarifArtifact{fileURI(v.Config)}, Roles: []string{"userSpecifiedConfiguration"}})
		}
		if v.Err != nil {
			inv.ExecutionSuccessful = false
			n := sarifNotification{Level: "error", Message: sarifText{safe(errorText(v))}}
			if v.File != "" {
				n.Locations = []sarifLocation{{Physical: sarifPhysical{Artifact: sarifArtifact{fileURI(v.File)}}}}
			}
			inv.Notifications = append(inv.Notifications, n)
			continue
		}
		results = append(results, v.sarifResults(index)...)
	}
	doc := sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{{
		Tool: sarifTool{Driver: driver}, Results: results, Artifacts: artifacts, Invocations: []sarifInvocation{inv},
	}}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return jsonscan.AppendSafe(nil, b.Bytes())
}

// TestSARIFStreamedIsTheWholeLog: the log written a verdict at a time is,
// byte for byte, the one encoding/json writes for the whole run, for a
// run with results of every kind, config files and an unreadable input,
// for one with no result, and for an empty one; each validates.
func TestSARIFStreamedIsTheWholeLog(t *testing.T) {
	t.Parallel()
	full, _ := sampleRun(t)
	full.Verdicts[0].Config = "repo/.streamtap.yaml"
	full.Verdicts[2].Config = "/abs/other, dir/.streamtap.yml"
	clean := Run{Version: "v1", Verdicts: []Verdict{full.Verdicts[2]}}
	for name, run := range map[string]Run{"full": full, "no result": clean, "empty": {}} {
		var out bytes.Buffer
		if err := WriteSARIF(&out, run); err != nil {
			t.Fatal(err)
		}
		if want := sarifWhole(t, run); !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: the streamed log differs from the whole one:\n%s\nwant:\n%s", name, out.Bytes(), want)
		}
		validateSARIF(t, sarifSchema(t), out.Bytes())
	}
}

// TestSARIFRuleHelp: every rule in the driver carries its section of
// docs/rules.md as help (text and Markdown) and a helpUri to that section
// in the repository, at the release's tag: a user's repository has no
// docs/rules.md for the old help text to point at.
func TestSARIFRuleHelp(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := WriteSARIF(&out, Run{Version: "v1.2.3"}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
						Help    struct {
							Text, Markdown string
						} `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for i, r := range log.Runs[0].Tool.Driver.Rules {
		byID[r.ID] = i
	}
	for _, r := range checks.Rules() {
		i, ok := byID[r.ID]
		if !ok {
			t.Errorf("the driver lacks %s", r.ID)
			continue
		}
		got := log.Runs[0].Tool.Driver.Rules[i]
		if want := "https://github.com/streamtap/streamtap/blob/v1.2.3/docs/rules.md#" + strings.ReplaceAll(r.ID, "/", ""); got.HelpURI != want {
			t.Errorf("%s: helpUri %q; want %q", r.ID, got.HelpURI, want)
		}
		if !strings.HasPrefix(got.Help.Markdown, "### "+r.ID+"\n- **") || got.Help.Text == "" {
			t.Errorf("%s: help %+v; want its section of docs/rules.md", r.ID, got.Help)
		}
	}
	if o := log.Runs[0].Tool.Driver.Rules[byID[outcomeRule]]; !strings.HasSuffix(o.HelpURI, "#outcomes") || !strings.HasPrefix(o.Help.Markdown, "## Outcomes") {
		t.Errorf("outcome: %+v", o)
	}
}
