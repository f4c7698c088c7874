package checks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// ruleCase is one stream for one rule: a trigger (hit) or a near miss that
// must not fire it.
type ruleCase struct {
	rule   string
	name   string
	stream string
	hit    bool
	events []int     // for a hit, when set: the events of the rule's first finding
	sev    *Severity // for a hit, when set: its severity under the strict profile
	// request, when set, is the body of the request the stream answers
	// (Checker.SetRequest).
	request string
}

func hit(rule, name, stream string, events ...int) ruleCase {
	return ruleCase{rule: rule, name: name, stream: stream, hit: true, events: events}
}

func miss(rule, name, stream string) ruleCase {
	return ruleCase{rule: rule, name: name, stream: stream}
}

func allCases() []ruleCase {
	var all []ruleCase
	for _, f := range []func() []ruleCase{framingCases, eventStreamCases, requestCases} {
		all = append(all, f()...)
	}
	return all
}

func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	prefixes := map[string]bool{"framing": true, "request": true} // the transport's, the request's, and each dialect's short name
	for _, d := range model.AllDialects() {
		prefixes[d.Info().Short] = true
	}
	for _, r := range Rules() {
		if seen[r.ID] {
			t.Errorf("rule %s listed twice", r.ID)
		}
		seen[r.ID] = true
		if !strings.HasPrefix(r.ID, r.Dialect+"/") {
			t.Errorf("rule %s has dialect %q", r.ID, r.Dialect)
		}
		if !prefixes[r.Dialect] {
			t.Errorf("rule %s: unknown dialect %q", r.ID, r.Dialect)
		}
		if r.Tolerant > r.Severity {
			t.Errorf("rule %s: tolerant %s above strict %s", r.ID, r.Tolerant, r.Severity)
		}
		if r.Summary == "" {
			t.Errorf("rule %s has no summary", r.ID)
		}
	}
}

// TestBasesClean checks the streams the cases mutate: each is a correct
// stream of its dialect and yields no finding at all.
func TestBasesClean(t *testing.T) {
	t.Parallel()
	for name, stream := range map[string]string{
		"responses": respSSE(respBase()),
		"chat":      dataSSE(chatBase()),
		"anthropic": anthSSE(anthBase()),
		"gemini":    dataSSE(gemBase()),
		"gemini-partial": dataSSE(gemPartial(
			`{"functionCall":{}}`, `"finishReason":"STOP"`)),
		"ollama": ndjson(append(ollBase()[:2:2], ollDone(`,"done_reason":"stop"`))),
	} {
		rep := CheckBytes([]byte(stream), capture.FormatAuto, Strict)
		if len(rep.Findings) > 0 || rep.Outcome.State != "completed" {
			t.Errorf("%s base: outcome %v, findings %v; want completed and none", name, rep.Outcome, rep.Findings)
		}
	}
}

// checkWithRequest checks a stream against the request body req.
func checkWithRequest(stream, req string, p Profile) Report {
	opts, c := Attach(model.Options{})
	r := model.ParseRequest([]byte(req), "/")
	c.SetRequest(&r)
	s := model.Assemble([]byte(stream), capture.FormatAuto, opts)
	return c.Report(s, p)
}

func findings(r Report, rule string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

func sevp(s Severity) *Severity { return &s }

// --- stream builders ----------------------------------------------------

// The stream builders live in model/internal/modeltest, shared with the
// dialects' tests (builders_test.go names them here).

// --- framing ------------------------------------------------------------

func framingCases() []ruleCase {
	base := dataSSE(chatBase())
	lines := strings.SplitAfter(base, "\n\n")
	return []ruleCase{
		hit(fNoData, "empty", ""),
		hit(fNoData, "comments only", ": keepalive\n\n: keepalive\n\n", 0),
		miss(fNoData, "one chunk", dataSSE(chatBase()[:1])),
		miss(fNoData, "HTTP error with an empty body", "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/event-stream\r\n\r\n"),

		hit(fUnterminated, "[DONE] with one newline", strings.TrimSuffix(base, "\n"), 5),
		hit(fUnterminated, "cut mid-JSON", base[:len(base)-len(lines[5])-len(lines[4])-20]),
		miss(fUnterminated, "CRLF blank line", strings.TrimSuffix(base, "\n\n")+"\r\n\r\n"),
		miss(fUnterminated, "extra blank lines", base+"\n\n"),
		func() ruleCase {
			c := hit(fUnterminated, "JSON line without its newline", strings.Join(chatBase()[:5], "\n"), 4)
			c.sev = sevp(Info)
			return c
		}(),
		func() ruleCase {
			c := hit(fUnterminated, "JSON line cut mid-JSON", strings.Join(chatBase()[:4], "\n")+"\n"+chatBase()[4][:20], 4)
			c.sev = sevp(Warning)
			return c
		}(),
		miss(fUnterminated, "a whole JSON body on one line", chatBase()[0]),

		hit(fLeadingSpace, "space before data", strings.Replace(base, "data: "+chatBase()[1], " data: "+chatBase()[1], 1), 1),
		miss(fLeadingSpace, "space after the colon", strings.Replace(base, "data: "+chatBase()[1], "data:  "+chatBase()[1], 1)),

		hit(fInvalidJSON, "not JSON", strings.Replace(base, chatBase()[1], `{"id":"chatcmpl-1",`, 1), 1),
		hit(fInvalidJSON, "comment re-wrapped as data", strings.Replace(base, "data: "+chatBase()[1], "data: : OPENROUTER PROCESSING", 1), 1),
		miss(fInvalidJSON, "JSON split over two data lines", strings.Replace(base, chatBase()[1],
			strings.Replace(chatBase()[1], `"choices":`, "\ndata: \"choices\":", 1), 1)),
		miss(fInvalidJSON, "real comment", strings.Replace(base, "data: "+chatBase()[1], ": OPENROUTER PROCESSING\n\ndata: "+chatBase()[1], 1)),

		hit(fNotObject, "a string", strings.Replace(base, chatBase()[1], `"keepalive"`, 1), 1),
		miss(fNotObject, "Gemini array body", dataSSE([]string{"[" + gemBase()[0] + "," + gemBase()[1] + "]"})),

		hit(fEmptyData, "data: heartbeat", strings.Replace(base, "data: "+chatBase()[1], "data:\n\ndata: "+chatBase()[1], 1), 1),
		hit(fEmptyData, "event without data", strings.Replace(respSSE(respBase()), "event: response.in_progress",
			"event: heartbeat\n\nevent: response.in_progress", 1), 1),
		miss(fEmptyData, "Anthropic ping without data", anthSSE(anthBase()[:1])+"event: ping\n\n"+anthSSE(anthBase()[1:])),

		hit(fNameMismatch, "OpenAI name differs", resp(func(e []revt) []revt { e[3].Name = "response.output_text.delta"; return e }), 3),
		miss(fNameMismatch, "no event lines", resp(func(e []revt) []revt {
			for i := range e {
				e[i].Name = "-"
			}
			return e
		})),

		hit(fErrorPayload, "chat error chunk", dataSSE(append(chatBase()[:2],
			`{"error":{"message":"upstream overloaded","code":502,"metadata":{}}}`)), 2),
		miss(fErrorPayload, "error: null in a chunk", strings.Replace(base, `"model":"gpt-4o",`, `"model":"gpt-4o","error":null,`, 1)),

		hit(fMixedEndings, "CRLF then LF", strings.Replace(lines[0], "\n", "\r\n", -1)+strings.Join(lines[1:], ""), 0, 1),
		miss(fMixedEndings, "all CRLF", strings.ReplaceAll(base, "\n", "\r\n")),

		hit(fInvalidUTF8, "Latin-1 byte", strings.Replace(base, `"arguments":""`, "\"arguments\":\"\xe9\"", 1), 0),
		miss(fInvalidUTF8, "UTF-8 é", strings.Replace(base, `"arguments":""`, `"arguments":"é"`, 1)),
	}
}

// TestEveryErrorOfAnEventReported: an event that carries several error
// payloads (here a Gemini array body whose chunks each carry an error)
// gets a finding for each, in stream order; only the last one was
// reported, the loop over the event's errors ending after its first pass.
func TestEveryErrorOfAnEventReported(t *testing.T) {
	t.Parallel()
	withError := func(text, err string) string {
		return strings.TrimSuffix(gemChunk(`{"text":"`+text+`"}`, ""), "}") + `,"error":` + err + `}`
	}
	body := "[" + withError("Checking.", `{"code":500,"message":"first"}`) + "," + withError(".", `{"code":503,"message":"second"}`) + "]"
	rep := CheckBytes([]byte(dataSSE([]string{body})), capture.FormatAuto, Strict)
	var got []string
	for _, f := range findings(rep, fErrorPayload) {
		if !slices.Equal(f.Events, []int{0}) {
			t.Errorf("%s cites events %v; want [0]", f.Message, f.Events)
		}
		got = append(got, f.Message)
	}
	want := []string{`event 0 is an error payload 500: "first"`, `event 0 is an error payload 503: "second"`}
	if !slices.Equal(got, want) {
		t.Errorf("%s findings = %q; want %q", fErrorPayload, got, want)
	}
}

// --- outputs ------------------------------------------------------------

func TestReportJSON(t *testing.T) {
	rep := CheckBytes([]byte(strings.TrimSuffix(dataSSE(chatBase()), "\n")), capture.FormatAuto, Strict)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("WriteJSON wrote %s: %v", buf.String(), err)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range got {
			if !yield(k) {
				return
			}
		}
	})
	if !slices.Equal(keys, []string{"findings", "outcome"}) {
		t.Fatalf("report keys = %v; want findings, outcome", keys)
	}
	if o := got["outcome"].(map[string]any); o["state"] != "completed" || o["detail"] != "tool_calls" || len(o) != 2 {
		t.Errorf("outcome = %v; want {state: completed, detail: tool_calls}", o)
	}
	fs := got["findings"].([]any)
	if len(fs) != 1 {
		t.Fatalf("findings = %v; want one", fs)
	}
	f := fs[0].(map[string]any)
	if f["rule"] != fUnterminated || f["severity"] != "warning" || len(f) != 4 {
		t.Errorf("finding = %v; want rule, severity, events, message", f)
	}
	if ev := f["events"].([]any); len(ev) != 1 || ev[0] != float64(5) {
		t.Errorf("events = %v; want [5]", ev)
	}

	// No findings: an empty array, not null.
	buf.Reset()
	_ = WriteJSON(&buf, CheckBytes([]byte(dataSSE(chatBase())), capture.FormatAuto, Strict))
	if !strings.Contains(buf.String(), `"findings":[]`) {
		t.Errorf("WriteJSON(clean) = %s; want \"findings\":[]", buf.String())
	}
}

func TestProfiles(t *testing.T) {
	// No sequence numbers at all: a warning by the contract, an old
	// official-API habit under the tolerant profile.
	stream := resp(func(e []revt) []revt {
		for i := range e {
			e[i].Seq = "-"
		}
		return e
	})
	strict := CheckBytes([]byte(stream), capture.FormatAuto, Strict)
	tolerant := CheckBytes([]byte(stream), capture.FormatAuto, Tolerant)
	if f := findings(strict, "responses/seq-missing"); len(f) != 1 || f[0].Severity != Warning {
		t.Errorf("strict %s = %v; want one warning", "responses/seq-missing", f)
	}
	if f := findings(tolerant, "responses/seq-missing"); len(f) != 1 || f[0].Severity != Info {
		t.Errorf("tolerant %s = %v; want one info", "responses/seq-missing", f)
	}
	if !strict.Fails(Warning) || tolerant.Fails(Warning) || !tolerant.Fails(Info) {
		t.Errorf("Fails: strict %v tolerant %v", strict.Findings, tolerant.Findings)
	}
}

func TestCaps(t *testing.T) {
	// A defect on every event stays a readable report.
	var payloads []string
	for range 300 {
		payloads = append(payloads, "{oops")
	}
	rep := CheckBytes([]byte(dataSSE(payloads)), capture.FormatAuto, Strict)
	got := findings(rep, fInvalidJSON)
	if len(got) != MaxPerRule+1 {
		t.Fatalf("%d invalid-json findings; want %d", len(got), MaxPerRule+1)
	}
	last := got[len(got)-1]
	if !strings.Contains(last.Message, "250 more") || len(last.Events) != MaxEvents {
		t.Errorf("overflow finding = %+v; want 250 more with %d events", last, MaxEvents)
	}
}

// TestCheckSession covers the ways to reach a report: an attached Checker,
// a session that can read its bytes back, and one that can do neither.
func TestCheckSession(t *testing.T) {
	stream := []byte(strings.TrimSuffix(dataSSE(chatBase()), "\n"))
	want := CheckBytes(stream, capture.FormatAuto, Strict)
	if len(want.Findings) != 1 {
		t.Fatalf("want one finding, got %v", want.Findings)
	}
	opts, _ := Attach(model.Options{KeepEvents: true})
	attached := model.Assemble(stream, capture.FormatAuto, opts)
	if got := Check(attached, Strict); !slices.EqualFunc(got.Findings, want.Findings, sameFinding) {
		t.Errorf("Check(attached) = %v; want %v", got.Findings, want.Findings)
	}
	raw := model.Assemble(stream, capture.FormatAuto, model.Options{Raw: bytes.NewReader(stream)})
	if got := Check(raw, Strict); !slices.EqualFunc(got.Findings, want.Findings, sameFinding) {
		t.Errorf("Check(raw) = %v; want %v", got.Findings, want.Findings)
	}
	bare := model.Assemble(stream, capture.FormatAuto, model.Options{})
	if got := Check(bare, Strict); got.Outcome.State != "completed" || len(got.Findings) != 0 {
		t.Errorf("Check(bare) = %v; want only the outcome", got)
	}
}

func sameFinding(a, b Finding) bool {
	return a.Rule == b.Rule && a.Severity == b.Severity && a.Message == b.Message && slices.Equal(a.Events, b.Events)
}

// TestReportLive asks for reports while the stream arrives: end-of-stream
// rules wait for End, and asking does not disturb the Checker.
func TestReportLive(t *testing.T) {
	opts, c := Attach(model.Options{})
	s := model.NewSession(opts)
	fr := capture.NewFramer(capture.FormatSSE)
	emit := func(f *capture.Frame) { s.Add(f) }
	fr.Feed([]byte(dataSSE(chatBase()[:3])), capture.NoTime, emit)
	if rep := c.Report(s, Strict); len(rep.Findings) != 0 || rep.Outcome.State != "streaming" {
		t.Errorf("mid-stream report = %v; want streaming, no findings", rep)
	}
	fr.Finish(capture.NoTime, emit)
	s.End(nil)
	rep := c.Report(s, Strict)
	for _, rule := range []string{"chat/done-missing", "chat/finish-reason-missing"} {
		if len(findings(rep, rule)) != 1 {
			t.Errorf("final report lacks %s: %v", rule, rep.Findings)
		}
	}
	if again := c.Report(s, Strict); !slices.EqualFunc(again.Findings, rep.Findings, sameFinding) {
		t.Errorf("second report = %v; want %v", again.Findings, rep.Findings)
	}
}

// TestSamples checks the project's curated samples: each broken- sample
// yields the defect its README line names, and the others yield no error
// or warning.
func TestSamples(t *testing.T) {
	dir := filepath.Join(projectRoot(t), "samples")
	want := map[string][]string{
		"broken-aisdk-ui-delta-before-start.sse": {"aisdk-ui/before-start"},
		"broken-aisdk-ui-no-finish.sse":          {"aisdk-ui/finish-missing", "aisdk-ui/done-missing"},
		"broken-chat-all-index-0.sse":            {"chat/tool-index-collision"},
		"broken-cut-before-terminal.sse":         {"responses/no-terminal", fUnterminated},
		"broken-done-args-differ.sse":            {"responses/args-done-mismatch"},
		"broken-item-id-changes.sse":             {"responses/item-id-changed"},
		"broken-sequence-gap.sse":                {"responses/seq-gap", "responses/text-done-mismatch"},
		"broken-mcp-id-type-changed.sse":         {"mcp/response-unknown-id", "mcp/no-response"},
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.sse"))
	if len(files) == 0 {
		t.Skipf("no samples in %s", dir)
	}
	for _, path := range files {
		name := filepath.Base(path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rep := CheckBytes(data, capture.FormatAuto, Strict)
		rules := want[name]
		for _, r := range rules {
			if len(findings(rep, r)) == 0 {
				t.Errorf("%s: no %s finding; got %v", name, r, rep.Findings)
			}
		}
		for _, f := range rep.Findings {
			if f.Severity >= Warning && !slices.Contains(rules, f.Rule) {
				t.Errorf("%s: unexpected %s %s: %s", name, f.Severity, f.Rule, f.Message)
			}
		}
	}
}

// projectRoot finds the directory holding go.mod.
func projectRoot(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

// TestRulesDocumented holds docs/rules.md to the rule table: a section per
// rule, and every rule the gateway checklist names exists.
func TestRulesDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(projectRoot(t), "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, r := range Rules() {
		if !strings.Contains(doc, "\n### "+r.ID+"\n") {
			t.Errorf("docs/rules.md has no section for %s", r.ID)
		}
	}
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "### ") {
			continue
		}
		if id := strings.TrimPrefix(line, "### "); ruleByID[id] == nil {
			t.Errorf("docs/rules.md documents unknown rule %s", id)
		}
	}
	start := strings.Index(doc, "## Validation checklist")
	end := strings.Index(doc[start:], "\n---")
	if start < 0 || end < 0 {
		t.Fatal("docs/rules.md lacks the validation checklist")
	}
	checklist := doc[start : start+end]
	for _, row := range strings.Split(checklist, "\n") {
		if strings.Contains(row, "carry `item_id`") && !strings.Contains(row, "`"+"responses/item-id-missing"+"`") {
			t.Errorf("the checklist item %q does not map to %s", row, "responses/item-id-missing")
		}
	}
	if !strings.Contains(checklist, "carry `item_id`") {
		t.Error("the checklist has no item for delta/done events carrying item_id")
	}
	for _, f := range strings.Split(doc[start:start+end], "`") {
		if strings.Count(f, "/") == 1 && (strings.HasPrefix(f, "responses/") || strings.HasPrefix(f, "chat/")) && ruleByID[f] == nil {
			t.Errorf("checklist names unknown rule %s", f)
		}
	}
}

// TestNotStreams checks inputs that are not SSE streams: whole JSON
// responses and JSON-lines recordings carry no event: lines, [DONE] or
// sequence numbers, and the rules about those must stay quiet.
func TestNotStreams(t *testing.T) {
	t.Parallel()
	var anthLines strings.Builder
	for _, e := range anthBase() {
		anthLines.WriteString(e[1] + "\n")
	}
	for name, body := range map[string]string{
		"chat body":            `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`,
		"responses body":       respObj("completed", "["+fc()+"]"),
		"anthropic body":       `{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`,
		"gemini array":         "[" + gemBase()[0] + "," + gemBase()[1] + "]",
		"anthropic json lines": anthLines.String(),
		"chat json lines":      strings.Join(chatBase()[:5], "\n") + "\n",
	} {
		rep := CheckBytes([]byte(body), capture.FormatAuto, Strict)
		if len(rep.Findings) > 0 {
			t.Errorf("%s: findings %v; want none", name, rep.Findings)
		}
	}
}
