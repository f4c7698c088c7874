package inject

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model/checks"
)

// input is a stream the self-check breaks.
type input struct {
	name string
	data []byte
}

// selfCheckInputs are the samples, two streams made here, and without
// -short the shared captures (../shared/captures, ../shared/captures-next,
// and ../shared/captures-app with its MCP recordings, which hold the
// requests), when they are there. Inputs that hold no event (an MCP
// notification's 202) are left out.
func selfCheckInputs(t *testing.T) []input {
	t.Helper()
	var out []input
	read := func(glob string) {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(data); errors.Is(err, ErrEmpty) {
				continue
			}
			out = append(out, input{name: filepath.Base(p), data: data})
		}
	}
	for _, ext := range []string{"sse", "eventstream"} {
		read(fixtures.Path("samples/*." + ext))
	}
	// Anthropic's thinking sample as Bedrock's InvokeModel sends it: no
	// recorded InvokeModel stream has a thinking block.
	thinking, err := os.ReadFile(fixtures.Path("samples/anthropic-thinking-then-tool.sse"))
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, input{name: "anthropic-thinking-then-tool as InvokeModel chunks", data: invokeOf(thinking)})
	out = append(out, input{name: "an MCP tools/call whose stream asks the client (elicitation/create)", data: []byte(mcpElicitation)})
	if testing.Short() {
		return out
	}
	shared := filepath.Join(fixtures.Root(), "..", "shared")
	for _, dir := range []string{"captures", "captures-next"} {
		if _, err := os.Stat(filepath.Join(shared, dir)); err != nil {
			t.Logf("skipping ../shared/%s: %v", dir, err)
			continue
		}
		for _, ext := range []string{"sse", "eventstream", "ndjson"} {
			read(filepath.Join(shared, dir, "*."+ext))
		}
	}
	app := filepath.Join(shared, "captures-app")
	if _, err := os.Stat(app); err != nil {
		t.Logf("skipping ../shared/captures-app: %v", err)
		return out
	}
	// The AI SDK's recordings hold the bodies beside them; MCP's hold
	// the requests too, which its defects need.
	for _, glob := range []string{"*.sse", "*.txt", "*.json", "recordings/mcp__*.rec.*"} {
		read(filepath.Join(app, glob))
	}
	return out
}

// mcpElicitation is a recording of an MCP tools/call whose stream asks
// the client to confirm (elicitation/create) before its result, as
// mcp__resumable__16-tools-call-confirm_delete of the shared captures
// does: no sample has a request of the server's.
const mcpElicitation = `: streamtap-recording v1
: request POST http://127.0.0.1:38007/mcp
: request-header Content-Type: application/json
: request-header Mcp-Protocol-Version: 2025-11-25
: request-header Mcp-Session-Id: 05a2f529-7933-42ea-a994-bf7139186a49
: request-body {"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"drafts/old-notes.md"}},"jsonrpc":"2.0","id":13}
: response HTTP/1.1 200 OK
: response-header Content-Type: text/event-stream
: response-header Mcp-Session-Id: 05a2f529-7933-42ea-a994-bf7139186a49
: response-t 0.003264

id: 71ed2514_1
retry: 250
data: 
: t=0.003536

event: message
id: 71ed2514_2
data: {"method":"elicitation/create","params":{"message":"Delete drafts/old-notes.md?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]},"mode":"form"},"jsonrpc":"2.0","id":0}
: t=0.003536

event: message
id: 71ed2514_3
data: {"result":{"content":[{"type":"text","text":"deleted drafts/old-notes.md"}]},"jsonrpc":"2.0","id":13}
: t=0.015735

`

// invokeOf wraps each event of an Anthropic SSE stream in an InvokeModel
// chunk, as Bedrock streams Claude.
func invokeOf(sse []byte) []byte {
	var out []byte
	fr := capture.NewFramer(capture.FormatSSE)
	emit := func(f *capture.Frame) {
		if f.Kind != capture.FrameEvent || !f.HasData {
			return
		}
		payload := `{"bytes":"` + base64.StdEncoding.EncodeToString(f.Data) + `"}`
		out = capture.AppendEventStream(out, []capture.Field{
			{Name: []byte(":event-type"), Value: []byte("chunk")},
			{Name: []byte(":content-type"), Value: []byte("application/json")},
			{Name: []byte(":message-type"), Value: []byte("event")},
		}, []byte(payload))
	}
	fr.Feed(sse, capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
	return out
}

// frames cuts data into its frames' bytes, as check counts them.
func frames(data []byte) [][]byte {
	var out [][]byte
	fr := capture.NewFramer(capture.FormatAuto)
	emit := func(f *capture.Frame) { out = append(out, bytes.Clone(f.Raw)) }
	fr.Feed(data, capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
	return out
}

// errorRules are the rules a report grades error.
func errorRules(r checks.Report) map[string]bool {
	out := map[string]bool{}
	for _, f := range r.Findings {
		if f.Severity == checks.Error {
			out[f.Rule] = true
		}
	}
	return out
}

func ruleKeys(r checks.Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Rule+"("+f.Severity.String()+")")
	}
	return out
}

// TestSelfCheck holds every defect to the rule it names: for every sample
// (and, without -short, every shared capture) a defect applies to, check
// of the output raises the defect's rule and no error the input did not
// have, and every event the report does not name is byte-identical to the
// input's. A legal defect (no rule) raises no new finding at all. Each
// defect must apply to at least one input, and each of its dialects to
// one.
func TestSelfCheck(t *testing.T) {
	inputs := selfCheckInputs(t)
	seeds := []uint64{0}
	if !testing.Short() {
		seeds = []uint64{0, 1, 7}
	}
	used := map[string]bool{} // defect/dialect pairs that applied somewhere
	applied := 0
	for _, in := range inputs {
		before := checks.CheckBytes(in.data, capture.FormatAuto, checks.Strict)
		dialect := Dialect(in.data)
		for _, d := range Defects() {
			if _, ok := d.Variant(dialect); !ok {
				continue // Apply would refuse it, after parsing the stream once more
			}
			for _, seed := range seeds {
				out, rep, err := Apply(in.data, []Defect{d}, Options{Seed: seed})
				var na *NotApplicableError
				if errors.As(err, &na) {
					continue
				}
				if err != nil {
					t.Errorf("%s on %s: %v", d.Name, in.name, err)
					continue
				}
				applied++
				a := rep.Defects[0]
				used[d.Name+"/"+a.Dialect] = true
				after := checks.CheckBytes(out, capture.FormatAuto, checks.Strict)
				where := fmt.Sprintf("%s on %s (seed %d, %s)", d.Name, in.name, seed, a.Note)
				checkRule(t, where, a.Rule, a.Also, before, after)
				checkUntouched(t, where, in.data, out, a)
			}
		}
	}
	variants, rules := 0, map[string]bool{}
	for _, d := range Defects() {
		for _, v := range d.Variants {
			variants++
			if v.Rule != "" {
				rules[v.Rule] = true
			}
			if !used[d.Name+"/"+v.Dialect.String()] {
				t.Errorf("%s (%s) applied to no sample or capture: give it a stream to prove it on", d.Name, v.Dialect)
			}
		}
	}
	t.Logf("%d defects, %d variants, %d distinct rules: %d defect applications checked over %d inputs",
		len(Defects()), variants, len(rules), applied, len(inputs))
}

// checkRule says whether after raises rule and no new error.
func checkRule(t *testing.T, where, rule string, also []string, before, after checks.Report) {
	t.Helper()
	if rule == "" {
		old := map[string]bool{}
		for _, f := range before.Findings {
			old[f.Rule] = true
		}
		for _, f := range after.Findings {
			if !old[f.Rule] {
				t.Errorf("%s: a legal defect raised %s: %s", where, f.Rule, f.Message)
			}
		}
		return
	}
	if !slices.ContainsFunc(after.Findings, func(f checks.Finding) bool { return f.Rule == rule }) {
		t.Errorf("%s: check does not raise %s; it raises %v", where, rule, ruleKeys(after))
	}
	old := errorRules(before)
	for _, f := range after.Findings {
		if f.Severity == checks.Error && f.Rule != rule && !old[f.Rule] && !slices.Contains(also, f.Rule) {
			t.Errorf("%s: a new error %s: %s", where, f.Rule, f.Message)
		}
	}
}

// checkUntouched says whether every event of out the report does not
// name as changed or added is the input's event, byte for byte: the input
// without the events it names as removed and the output without the ones
// it names as added pair up in order, and every pair the report does not
// name as changed holds the same bytes.
func checkUntouched(t *testing.T, where string, in, out []byte, a Applied) {
	t.Helper()
	var kept [][]byte
	for i, b := range frames(in) {
		if !slices.Contains(a.Removed, i) {
			kept = append(kept, b)
		}
	}
	outFrames := frames(out)
	var left []int // ordinals of out that are not added
	for i := range outFrames {
		if !slices.Contains(a.Inserted, i) {
			left = append(left, i)
		}
	}
	if len(kept) != len(left) {
		t.Errorf("%s: %d events kept from the input, %d in the output (changed %v, inserted %v, removed %v)",
			where, len(kept), len(left), a.Changed, a.Inserted, a.Removed)
		return
	}
	for k, i := range left {
		if !slices.Contains(a.Changed, i) && !bytes.Equal(kept[k], outFrames[i]) {
			t.Errorf("%s: event %d differs from the input's, and the report does not say so:\n in: %q\nout: %q",
				where, i, trim(kept[k]), trim(outFrames[i]))
			return
		}
	}
	for _, i := range append(slices.Clone(a.Changed), a.Inserted...) {
		if i < 0 || i >= len(outFrames) {
			t.Errorf("%s: the report names event %d of %d", where, i, len(outFrames))
		}
	}
}

func trim(b []byte) string {
	s := string(b)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
