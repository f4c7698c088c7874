package plain

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/streamtap/streamtap/model"
)

// TestWriteCalls: the plain calls report of samples whose sources
// disagree: a call's arguments (broken-done-args-differ), a message's text
// (broken-sequence-gap: the deltas lost five fragments that the .done
// events and snapshots still have); and an application's stream, whose
// calls carry their step and what became of them (aisdk-ui-two-steps: an
// output after a preliminary one; broken-aisdk-ui-no-finish: a call cut
// short).
func TestWriteCalls(t *testing.T) {
	for _, name := range []string{"broken-done-args-differ", "broken-sequence-gap", "responses-parallel-calls", "responses-reasoning-then-call", "aisdk-ui-two-steps", "broken-aisdk-ui-no-finish"} {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteCalls(&b, newSession(sampleBytes(t, name)).Report()); err != nil {
				t.Fatal(err)
			}
			golden.RequireEqual(t, []byte(b.String()))
		})
	}
}

// TestWriteCallsTextSources: every disagreeing statement of a message's
// text is shown under its source name, the item named, the text made safe.
func TestWriteCallsTextSources(t *testing.T) {
	var b strings.Builder
	if err := WriteCalls(&b, newSession(sampleBytes(t, "broken-sequence-gap")).Report()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	const done = "Sure, checking the forecast for Paris — one moment."
	for _, want := range []string{
		"\ntext: Sure Paris — one moment.\n",
		"    text sources disagree (item msg_68e7889d797e5ae38ce445eaeeabe989302e3519e15a64d7, index 0):\n",
		"      deltas          Sure Paris — one moment.\n",
		"      text_done       " + done + "\n",
		"      part_done       " + done + "\n",
		"      item_done       " + done + "\n",
		"      terminal        " + done + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("WriteCalls lacks %q:\n%s", want, out)
		}
	}

	hostile := strings.Replace(string(sampleBytes(t, "broken-sequence-gap")), `"text":"Sure, checking`, `"text":"\u001b[2JSure, checking`, 1)
	b.Reset()
	if err := WriteCalls(&b, newSession([]byte(hostile)).Report()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b") || !strings.Contains(b.String(), "text sources disagree") {
		t.Errorf("a source's control characters reach the output, or the sources are missing:\n%q", b.String())
	}
}

// TestWriteCallsReasoning: the reasoning is shown apart from the text, one
// line per choice when several reason, made safe; reasoning that carried
// no text says so.
func TestWriteCallsReasoning(t *testing.T) {
	for _, tc := range []struct {
		name      string
		reasoning any
		want      string
	}{
		{"one", "Think \x1b[31m.", "\nreasoning: Think \\x1b[31m.\n"},
		{"per choice", []string{"A", ""}, "\nreasoning[0]: A\n\nreasoning[1]: (no text: redacted or encrypted)\n"},
	} {
		var b strings.Builder
		if err := WriteCalls(&b, model.CallsReport{Dialect: "x", Reasoning: tc.reasoning, Text: "T", Outcome: model.OutcomeReport{State: "completed"}}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want+"\ntext: T\n") {
			t.Errorf("%s: WriteCalls = %q; want %q before the text", tc.name, b.String(), tc.want)
		}
	}
}
