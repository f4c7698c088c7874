package plain

import (
	"bytes"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

func TestWriteCheckReportEscapes(t *testing.T) {
	rep := checks.Report{
		Outcome: model.Outcome{State: "error", Detail: "bad\x1b[31m red"},
		Findings: []checks.Finding{{Rule: "framing/invalid-json", Severity: checks.Error, Events: []int{3, 4},
			Message: "data \x1b]0;pwned\x07 and a\nnewline \u2028 and \u009b and \u202edesrever"}},
	}
	var buf bytes.Buffer
	if err := WriteCheckReport(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"\x1b", "\x07", "\u2028", "\u009b", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("WriteCheckReport output contains %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{`\x1b[31m`, `\x1b]0;pwned\x07`, `a\nnewline`, "error   framing/invalid-json [3,4]: ", "1 error, 0 warnings, 0 infos"} {
		if !strings.Contains(out, want) {
			t.Errorf("WriteCheckReport output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("WriteCheckReport wrote %d lines; want 3:\n%s", n, out)
	}
}

// TestWriteCheckReportColours: in colour, each finding's severity is
// painted (error red, warning yellow, info cyan) with the columns kept,
// and a message's own escape stays escaped; without, not a byte differs
// from WriteCheckReport.
func TestWriteCheckReportColours(t *testing.T) {
	rep := checks.Report{Outcome: model.Outcome{State: "truncated"}, Findings: []checks.Finding{
		{Rule: "a/x", Severity: checks.Error, Message: "m\x1b[32m"},
		{Rule: "a/y", Severity: checks.Warning, Message: "w"},
		{Rule: "a/z", Severity: checks.Info, Message: "i"},
	}}
	var plainOut, colour bytes.Buffer
	if err := WriteCheckReport(&plainOut, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteCheckReportStyled(&colour, rep, CheckStyle{Color: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\x1b[31merror\x1b[0m   a/x: m\\x1b[32m\n", "\x1b[33mwarning\x1b[0m a/y: w\n", "\x1b[36minfo\x1b[0m    a/z: i\n"} {
		if !strings.Contains(colour.String(), want) {
			t.Errorf("coloured report lacks %q:\n%q", want, colour.String())
		}
	}
	var none bytes.Buffer
	if err := WriteCheckReportStyled(&none, rep, CheckStyle{}); err != nil || none.String() != plainOut.String() {
		t.Errorf("without colour: %q; want %q", none.String(), plainOut.String())
	}
}
