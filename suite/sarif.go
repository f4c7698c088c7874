package suite

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/docs"
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
	// sarifRun's members are in the order the log is written: the
	// results as they come, then what only the end knows (the config
	// files used, whether every input was read).
	sarifRun struct {
		Tool        sarifTool         `json:"tool"`
		Results     []sarifResult     `json:"results"`
		Artifacts   []sarifArtifactX  `json:"artifacts,omitempty"`
		Invocations []sarifInvocation `json:"invocations"`
	}
	// sarifArtifactX is an artifact of the run that no result is about:
	// a config file that judged inputs.
	sarifArtifactX struct {
		Location sarifArtifact `json:"location"`
		Roles    []string      `json:"roles"`
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
		HelpURI              string          `json:"helpUri,omitempty"`
		Help                 sarifHelp       `json:"help"`
		DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
		Properties           map[string]any  `json:"properties,omitempty"`
	}
	sarifRuleConfig struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	// sarifHelp is a rule's help: its section of docs/rules.md, as text
	// and as the Markdown code scanning renders.
	sarifHelp struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
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
		RuleIndex        *int            `json:"ruleIndex,omitempty"`
		Level            string          `json:"level"`
		Message          sarifText       `json:"message"`
		Locations        []sarifLocation `json:"locations,omitempty"`
		RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
		Properties       *resultProps    `json:"properties,omitempty"`
	}
	resultProps struct {
		Input    string `json:"input"`
		Config   string `json:"config,omitempty"`
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

// WriteSARIF writes the run as one SARIF 2.1.0 log (SARIFWriter).
func WriteSARIF(w io.Writer, run Run) error {
	sw := NewSARIFWriter(w, run.Version)
	for i := range run.Verdicts {
		if err := sw.Add(&run.Verdicts[i]); err != nil {
			return err
		}
	}
	return sw.Close()
}

// SARIFWriter writes a run as one SARIF 2.1.0 log as its verdicts come:
// the driver and its rules first, each verdict's results as it is added,
// and at Close what only the end knows. It holds no result once written,
// so a run over a hundred thousand failing recordings holds one
// verdict's; the log is the one encoding/json would write for the whole
// run with the same indentation (sarifWhole in the tests holds it to
// that).
//
// The driver lists every rule (its summary, its default severity) and
// one more, "outcome"; each finding is a result whose level is its
// severity (info is "note"), located at the first event it cites: the
// file, the line the event starts on, its byte offset and length; the
// other events it cites are related locations. An outcome that fails the
// check is an "outcome" result at the event that decided it (the last
// event of a stream cut short). An input that holds no LLM stream is a
// "not-a-stream" result at its first line. An unreadable input is a tool execution
// notification, and the invocation then did not succeed. A finding that
// cites no event, and every finding of an archive's session (whose
// events are inside the archive's bodies), points at the file's first
// line. The config files that judged inputs are artifacts of the run
// (role userSpecifiedConfiguration), and each result names its own. Text
// is made safe for a terminal, as every JSON output is
// (jsonscan.AppendSafe). It is not safe for concurrent use.
type SARIFWriter struct {
	w       io.Writer
	version string
	index   map[string]int
	begun   bool // the log's head is written
	results int  // results written
	inv     sarifInvocation
	configs []string
	err     error
	buf     bytes.Buffer
}

// NewSARIFWriter returns a writer of a log to w; version names streamtap.
func NewSARIFWriter(w io.Writer, version string) *SARIFWriter {
	return &SARIFWriter{w: w, version: version, inv: sarifInvocation{ExecutionSuccessful: true}}
}

// The indentation of the log's parts: results are elements of
// runs[0].results, four levels in.
const (
	sarifIndent      = "  "
	sarifResultDepth = "        "
)

// sarifDriverOf is the tool's driver: every rule of the table, then
// "outcome" and "not-a-stream"; index maps a rule id to its place. Each
// rule's help is its section of docs/rules.md (embedded: the binary's own
// version of the page) and its helpUri that section in the repository, at
// the release's tag when version is one.
func sarifDriverOf(version string) (sarifDriver, map[string]int) {
	rules := checks.Rules()
	index := make(map[string]int, len(rules)+2)
	driver := sarifDriver{Name: "streamtap", Version: version}
	for i, r := range rules {
		index[r.ID] = i
		sr := sarifRule{
			ID: r.ID, ShortDescription: sarifText{r.Summary},
			HelpURI:              docs.RuleURL(r.ID, version),
			Help:                 ruleHelp(r.ID, r.Summary),
			DefaultConfiguration: sarifRuleConfig{sarifLevel(r.Severity)},
		}
		if r.Tolerant != r.Severity {
			sr.Properties = map[string]any{"tolerant": r.Tolerant.String()}
		}
		driver.Rules = append(driver.Rules, sr)
	}
	outcomes, _ := docs.OutcomesSection()
	index[outcomeRule] = len(driver.Rules)
	driver.Rules = append(driver.Rules, sarifRule{
		ID:                   outcomeRule,
		ShortDescription:     sarifText{"the stream's outcome fails the check (error, failed, blocked, truncated or empty), unless --allow-outcome lets it pass"},
		HelpURI:              docs.OutcomesURL(version),
		Help:                 sarifHelp{Text: "How the stream ended, in one vocabulary for every dialect; 'streamtap rules' and docs/rules.md, section Outcomes, say which outcome each ending is.", Markdown: outcomes},
		DefaultConfiguration: sarifRuleConfig{"error"},
	})
	index[notAStreamRule] = len(driver.Rules)
	driver.Rules = append(driver.Rules, sarifRule{
		ID:                   notAStreamRule,
		ShortDescription:     sarifText{"the input holds data but no LLM stream: no event in it is one of a known dialect; its findings, which would quote its bytes, are not shown"},
		Help:                 sarifHelp{Text: "streamtap events lists the input's events."},
		DefaultConfiguration: sarifRuleConfig{"error"},
	})
	return driver, index
}

// ruleHelp is rule id's help: its section of docs/rules.md, Markdown and
// text alike (the section reads as text); its summary when the page has
// none.
func ruleHelp(id, summary string) sarifHelp {
	sec, ok := docs.RuleSection(id)
	if !ok {
		return sarifHelp{Text: summary + " ('streamtap rules " + id + "' explains it)"}
	}
	return sarifHelp{Text: sec, Markdown: sec}
}

// begin writes the log's head, up to the results' opening bracket.
func (sw *SARIFWriter) begin() {
	if sw.begun {
		return
	}
	sw.begun = true
	driver, index := sarifDriverOf(sw.version)
	sw.index = index
	// The head is the whole log's encoding cut at its results: encoded
	// with an empty run, it ends in "results": [] and what follows.
	head := sw.encode(sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}}}}, "")
	cut := bytes.LastIndex(head, []byte(`"results": [`))
	sw.write(head[:cut+len(`"results": [`)])
}

// Add writes the results of a verdict (or keeps the notification of an
// unreadable input for Close).
func (sw *SARIFWriter) Add(v *Verdict) error {
	sw.begin()
	if v.Config != "" && !slices.Contains(sw.configs, v.Config) {
		sw.configs = append(sw.configs, v.Config)
	}
	if v.Err != nil {
		sw.inv.ExecutionSuccessful = false
		n := sarifNotification{Level: "error", Message: sarifText{safe(errorText(v))}}
		if v.File != "" {
			n.Locations = []sarifLocation{{Physical: sarifPhysical{Artifact: sarifArtifact{fileURI(v.File)}}}}
		}
		sw.inv.Notifications = append(sw.inv.Notifications, n)
		return sw.err
	}
	for _, res := range v.sarifResults(sw.index) {
		if sw.results > 0 {
			sw.write([]byte(","))
		}
		sw.write([]byte("\n" + sarifResultDepth))
		sw.write(sw.encode(res, sarifResultDepth))
		sw.results++
	}
	return sw.err
}

// Close writes the end of the log: the results' closing bracket, the
// config files, the invocation.
func (sw *SARIFWriter) Close() error {
	sw.begin()
	if sw.results > 0 {
		sw.write([]byte("\n      "))
	}
	sw.write([]byte("]"))
	run := sarifRun{Invocations: []sarifInvocation{sw.inv}}
	for _, c := range sw.configs {
		run.Artifacts = append(run.Artifacts, sarifArtifactX{Location: sarifArtifact{fileURI(c)}, Roles: []string{"userSpecifiedConfiguration"}})
	}
	// The tail is a run's encoding from its results' closing bracket on.
	tail := sw.encode(sarifLog{Runs: []sarifRun{run}}, "")
	at := bytes.Index(tail, []byte(`"results": null`))
	sw.write(tail[at+len(`"results": null`):])
	return sw.err
}

// encode is v as encoding/json writes it with the log's indentation, each
// line after the first prefixed, and made safe to print.
func (sw *SARIFWriter) encode(v any, prefix string) []byte {
	sw.buf.Reset()
	enc := json.NewEncoder(&sw.buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, sarifIndent)
	if err := enc.Encode(v); err != nil && sw.err == nil {
		sw.err = err
	}
	b := sw.buf.Bytes()
	if prefix != "" {
		b = bytes.TrimSuffix(b, []byte("\n"))
	}
	return jsonscan.AppendSafe(nil, b)
}

func (sw *SARIFWriter) write(b []byte) {
	if sw.err == nil {
		_, sw.err = sw.w.Write(b)
	}
}

// sarifResults are the results of a verdict read: one a finding, one for
// an outcome that fails the check.
func (v *Verdict) sarifResults(index map[string]int) []sarifResult {
	var results []sarifResult
	props := resultProps{Input: safe(v.Input), Config: safe(v.Config), Session: v.Session, Exchange: safe(v.Exchange.String())}
	for _, f := range v.Report.Findings {
		var idx *int
		if i, ok := index[f.Rule]; ok { // a rule outside the table has its id alone
			idx = &i
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
		idx := index[outcomeRule]
		res := sarifResult{RuleID: outcomeRule, RuleIndex: &idx, Level: "error",
			Message: sarifText{safe(sessionPrefix(v) + v.outcomeMessage())}, Properties: &p}
		if e := v.outcomeEvent(); e >= 0 {
			p.Events = []int{e}
		}
		res.Locations = v.locations(v.outcomeEvent(), "")
		results = append(results, res)
	}
	if v.NotAStream {
		p := props
		idx := index[notAStreamRule]
		results = append(results, sarifResult{RuleID: notAStreamRule, RuleIndex: &idx, Level: "error",
			Message: sarifText{safe(sessionPrefix(v) + v.NotAStreamMessage())}, Properties: &p, Locations: v.locations(-1, "")})
	}
	return results
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
