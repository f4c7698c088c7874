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

// selfCheckInputs are the samples, and without -short the shared captures
// (../shared/captures, ../shared/captures-next), when they are there.
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
	return out
}

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
		for _, d := range Defects() {
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
	for _, d := range Defects() {
		for _, v := range d.Variants {
			if !used[d.Name+"/"+v.Dialect.String()] {
				t.Errorf("%s (%s) applied to no sample or capture: give it a stream to prove it on", d.Name, v.Dialect)
			}
		}
	}
	t.Logf("%d defect applications checked over %d inputs", applied, len(inputs))
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
