package suite

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// SARIFSchema is the published schema the SARIF output follows (OASIS
// SARIF 2.1.0, errata 01), named by the log's "$schema".
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// outcomeRule is the rule id of a result that says a stream's outcome
// fails the check: not a protocol rule (the outcome is reported beside
// the findings), but code scanning files every result under a rule.
const outcomeRule = "outcome"

// The parts of SARIF 2.1.0 that a check writes
// (https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html).
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool        sarifTool         `json:"tool"`
		Invocations []sarifInvocation `json:"invocations"`
		Results     []sarifResult     `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name    string      `json:"name"`
		Version string      `json:"version,omitempty"`
		Rules   []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string          `json:"id"`
		ShortDescription     sarifText       `json:"shortDescription"`
		Help                 sarifText       `json:"help"`
		DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
		Properties           map[string]any  `json:"properties,omitempty"`
	}
	sarifRuleConfig struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifInvocation struct {
		ExecutionSuccessful bool                `json:"executionSuccessful"`
		Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations,omitempty"`
	}
	sarifResult struct {
		RuleID           string          `json:"ruleId"`
		RuleIndex        int             `json:"ruleIndex"`
		Level            string          `json:"level"`
		Message          sarifText       `json:"message"`
		Locations        []sarifLocation `json:"locations,omitempty"`
		RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
		Properties       *resultProps    `json:"properties,omitempty"`
	}
	resultProps struct {
		Input    string `json:"input"`
		Session  int    `json:"session,omitempty"`
		Exchange string `json:"exchange,omitempty"`
		Events   []int  `json:"events,omitempty"`
	}
	sarifLocation struct {
		ID       *int          `json:"id,omitempty"`
		Physical sarifPhysical `json:"physicalLocation"`
		Message  *sarifText    `json:"message,omitempty"`
	}
	sarifPhysical struct {
		Artifact sarifArtifact `json:"artifactLocation"`
		Region   *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine  int    `json:"startLine"`
		ByteOffset *int64 `json:"byteOffset,omitempty"`
		ByteLength *int64 `json:"byteLength,omitempty"`
	}
)

// WriteSARIF writes the run as one SARIF 2.1.0 log: the driver lists
// every rule (its summary, its default severity) and one more, "outcome";
// each finding is a result whose level is its severity (info is "note"),
// located at the first event it cites: the file, the line the event
// starts on, its byte offset and length; the other events it cites are
// related locations. An outcome that fails the check is an "outcome"
// result at the event that decided it (the last event of a stream cut
// short). An unreadable input is a tool execution notification, and the
// invocation then did not succeed. A finding that cites no event, and
// every finding of an archive's session (whose events are inside the
// archive's bodies), points at the file's first line. Text is made safe
// for a terminal, as every JSON output is (jsonscan.AppendSafe).
func WriteSARIF(w io.Writer, run Run) error {
	rules := checks.Rules()
	index := make(map[string]int, len(rules)+1)
	driver := sarifDriver{Name: "streamtap", Version: run.Version}
	for i, r := range rules {
		index[r.ID] = i
		sr := sarifRule{
			ID: r.ID, ShortDescription: sarifText{r.Summary},
			Help:                 sarifText{"docs/rules.md, section " + r.ID + "; 'streamtap rules' lists every rule"},
			DefaultConfiguration: sarifRuleConfig{sarifLevel(r.Severity)},
		}
		if r.Tolerant != r.Severity {
			sr.Properties = map[string]any{"tolerant": r.Tolerant.String()}
		}
		driver.Rules = append(driver.Rules, sr)
	}
	index[outcomeRule] = len(driver.Rules)
	driver.Rules = append(driver.Rules, sarifRule{
		ID:                   outcomeRule,
		ShortDescription:     sarifText{"the stream's outcome fails the check (error, failed, blocked, truncated or empty), unless --allow-outcome lets it pass"},
		Help:                 sarifText{"README, section check: outcomes are reported beside the findings"},
		DefaultConfiguration: sarifRuleConfig{"error"},
	})

	inv := sarifInvocation{ExecutionSuccessful: true}
	results := []sarifResult{}
	for i := range run.Verdicts {
		v := &run.Verdicts[i]
		props := resultProps{Input: safe(v.Input), Session: v.Session, Exchange: safe(v.Exchange.String())}
		if v.Err != nil {
			inv.ExecutionSuccessful = false
			n := sarifNotification{Level: "error", Message: sarifText{safe(errorText(v))}}
			if v.File != "" {
				n.Locations = []sarifLocation{{Physical: sarifPhysical{Artifact: sarifArtifact{fileURI(v.File)}}}}
			}
			inv.Notifications = append(inv.Notifications, n)
			continue
		}
		for _, f := range v.Report.Findings {
			idx, ok := index[f.Rule]
			if !ok { // a rule outside the table: file it under its own id
				idx = len(driver.Rules)
				index[f.Rule] = idx
				driver.Rules = append(driver.Rules, sarifRule{ID: f.Rule, ShortDescription: sarifText{f.Rule},
					Help: sarifText{"docs/rules.md"}, DefaultConfiguration: sarifRuleConfig{sarifLevel(f.Severity)}})
			}
			p := props
			p.Events = f.Events
			res := sarifResult{RuleID: f.Rule, RuleIndex: idx, Level: sarifLevel(f.Severity),
				Message: sarifText{safe(sessionPrefix(v) + f.Message)}, Properties: &p}
			first := -1
			if len(f.Events) > 0 {
				first = f.Events[0]
			}
			res.Locations = v.locations(first, "")
			for j, e := range f.Events[min(1, len(f.Events)):] {
				if loc := v.locations(e, "event "+strconv.Itoa(e)); loc != nil {
					id := j + 1
					loc[0].ID = &id
					res.RelatedLocations = append(res.RelatedLocations, loc[0])
				}
			}
			results = append(results, res)
		}
		if v.OutcomeFails {
			p := props
			res := sarifResult{RuleID: outcomeRule, RuleIndex: index[outcomeRule], Level: "error",
				Message: sarifText{safe(sessionPrefix(v) + v.outcomeMessage())}, Properties: &p}
			if e := v.outcomeEvent(); e >= 0 {
				p.Events = []int{e}
			}
			res.Locations = v.locations(v.outcomeEvent(), "")
			results = append(results, res)
		}
	}
	doc := sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{{
		Tool: sarifTool{Driver: driver}, Invocations: []sarifInvocation{inv}, Results: results,
	}}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := w.Write(jsonscan.AppendSafe(nil, b.Bytes()))
	return err
}

// locations is where event ord of v is, as a one-element list: its file,
// line and bytes when known, the file's first line when not (an archive's
// session, a finding that cites no event); nil when v has no file.
func (v *Verdict) locations(ord int, message string) []sarifLocation {
	if v.File == "" {
		return nil
	}
	loc := sarifLocation{Physical: sarifPhysical{Artifact: sarifArtifact{fileURI(v.File)}, Region: &sarifRegion{StartLine: 1}}}
	if p, ok := v.Places[ord]; ok && ord >= 0 {
		off, n := p.Offset, p.Len
		loc.Physical.Region = &sarifRegion{StartLine: p.Line, ByteOffset: &off, ByteLength: &n}
	} else if message != "" {
		return nil // a related location says no more than the primary
	}
	if message != "" {
		loc.Message = &sarifText{message}
	}
	return []sarifLocation{loc}
}

// errorText says why v's input could not be read, naming it.
func errorText(v *Verdict) string {
	msg := v.Err.Error()
	if !strings.Contains(msg, v.Input) {
		msg = v.Label() + ": " + msg
	}
	return msg
}

// sessionPrefix names an archive's session at the start of a message,
// "#2 (POST https://… 200): ", so that results on one archive tell their
// sessions apart.
func sessionPrefix(v *Verdict) string {
	if v.Session == 0 {
		return ""
	}
	s := "#" + strconv.Itoa(v.Session)
	if x := v.Exchange.String(); x != "" {
		s += " (" + x + ")"
	}
	return s + ": "
}

// sarifLevel is a severity's SARIF level.
func sarifLevel(s checks.Severity) string {
	switch s {
	case checks.Error:
		return "error"
	case checks.Warning:
		return "warning"
	}
	return "note"
}

// fileURI is a path as a SARIF artifact URI: a relative path stays
// relative (code scanning resolves it against the repository), with the
// characters a URI cannot hold percent-encoded; an absolute path is a
// file: URI.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/x on Windows
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}
