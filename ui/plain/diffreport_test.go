package plain

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
)

// diffOf compares two streams held in memory with the default options.
func diffOf(t *testing.T, a, b []byte) *streamdiff.Result {
	t.Helper()
	o := streamdiff.DefaultOptions()
	return streamdiff.Compare(streamdiff.Build("A", a, capture.FormatAuto, o.Ignore), streamdiff.Build("B", b, capture.FormatAuto, o.Ignore), o)
}

// TestWriteDiff: the plain diff report of pairs with known differences —
// an edited argument delta, a dropped delta, the same request in two
// dialects, identical streams — and one in colour.
func TestWriteDiff(t *testing.T) {
	single := sampleBytes(t, "responses-single-call")
	blocks := strings.Split(string(single), "\n\n")
	dropped := []byte(strings.Join(append(blocks[:4:4], blocks[5:]...), "\n\n"))
	edited := []byte(strings.Replace(string(single), `"delta":" \"Par"`, `"delta":" \"Lyo"`, 1))
	par := sampleBytes(t, "responses-parallel-calls")
	text := []byte(strings.Replace(string(par), `"delta":" Paris"`, `"delta":" Lyon"`, 1))
	tests := []struct {
		name  string
		a, b  []byte
		color bool
	}{
		{"delta-edited", single, edited, false},
		{"delta-dropped", single, dropped, false},
		{"text-edited", par, text, false},
		{"cross-dialect", sampleBytes(t, "chat-single-call"), single, false},
		{"equal", single, single, false},
		{"delta-dropped-color", single, dropped, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteDiff(&b, diffOf(t, tt.a, tt.b), DiffStyle{Color: tt.color}); err != nil {
				t.Fatal(err)
			}
			if !tt.color && strings.Contains(b.String(), "\x1b") {
				t.Errorf("colour without DiffStyle.Color:\n%q", b.String())
			}
			golden.RequireEqual(t, []byte(b.String()))
		})
	}
}

// TestWriteDiffTiming: the timing table shows when both streams carry
// arrival times, each metric for each side.
func TestWriteDiffTiming(t *testing.T) {
	single := sampleBytes(t, "responses-single-call")
	o := streamdiff.DefaultOptions()
	timed := func(name string, step time.Duration) *streamdiff.Side {
		opts, rec := streamdiff.Attach(model.Options{Raw: bytes.NewReader(single)}, o.Ignore)
		s := model.NewSession(opts)
		fr := capture.NewFramer(capture.FormatSSE)
		at := time.Duration(0)
		for _, blk := range strings.SplitAfter(string(single), "\n\n") {
			at += step
			fr.Feed([]byte(blk), at, func(f *capture.Frame) { s.Add(f) })
		}
		fr.Finish(at, func(f *capture.Frame) { s.Add(f) })
		s.End(nil)
		return streamdiff.NewSide(name, s, rec)
	}
	r := streamdiff.Compare(timed("A", 10*time.Millisecond), timed("B", 50*time.Millisecond), o)
	var b strings.Builder
	if err := WriteDiff(&b, r, DiffStyle{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"timing (from the start of each capture):",
		"  first event           0.010s     0.050s\n",
		"  first args delta      0.040s     0.200s\n",
		"  last event            0.140s     0.700s\n",
		"equivalent: no differences beyond the ignored ones",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestWriteDiffManySteps: the steps of a long conversation are listed
// only where something is said of them (a difference), the rest counted.
func TestWriteDiffManySteps(t *testing.T) {
	var ollama, responses strings.Builder
	for i := range 60 {
		text := "ok"
		if i == 41 {
			text = "changed"
		}
		ollama.WriteString(`{"model":"m","message":{"role":"assistant","content":"ok"},"done":false}` + "\n" + `{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n")
		fmt.Fprintf(&responses, "data: {\"type\":\"response.created\",\"response\":{\"id\":\"r%d\",\"status\":\"in_progress\"}}\n\n"+
			"data: {\"type\":\"response.output_text.delta\",\"item_id\":\"m%d\",\"output_index\":0,\"content_index\":0,\"delta\":%q}\n\n"+
			"data: {\"type\":\"response.completed\",\"response\":{\"id\":\"r%d\",\"status\":\"completed\"}}\n\n", i, i, text, i)
	}
	var b strings.Builder
	if err := WriteDiff(&b, diffOf(t, []byte(ollama.String()), []byte(responses.String())), DiffStyle{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "  step 42 ") || strings.Contains(out, "  step 41 ") || !strings.Contains(out, "and 59 more steps paired without a difference") ||
		!strings.Contains(out, "step 42 text differs from byte 0") {
		t.Errorf("report of 60 steps, the 42nd's text changed:\n%s", out)
	}
}
