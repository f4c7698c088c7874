package suite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model/checks"
)

// plainText stands for the command's text writer of a report.
func plainText(w io.Writer, r checks.Report) error {
	_, err := fmt.Fprintf(w, "outcome: %s\n%d findings\n", r.Outcome.State, len(r.Findings))
	return err
}

func outputOf(t *testing.T, format string, run Run) (string, Summary) {
	t.Helper()
	var b bytes.Buffer
	o, err := NewOutput(format, &b, run.FailOn, "test", plainText)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range run.Verdicts {
		if err := o.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := o.Close()
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), sum
}

// TestOutputJSONLines: many inputs print one JSON line per verdict, each
// the single-input object with "input" (and an archive's "session" and
// "exchange") added: remove them and what is left is what `check --json`
// prints for that stream alone.
func TestOutputJSONLines(t *testing.T) {
	t.Parallel()
	run, _ := sampleRun(t)
	out, sum := outputOf(t, "json", run)
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		v := &run.Verdicts[i]
		var got map[string]any
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i, err, sc.Bytes())
		}
		if got["input"] != v.Input || got["pass"] != v.Pass {
			t.Errorf("line %d: input %v pass %v; want %q %v", i, got["input"], got["pass"], v.Input, v.Pass)
		}
		if !strings.HasPrefix(sc.Text(), `{"input":`) {
			t.Errorf("line %d does not start with input: %s", i, sc.Text())
		}
		if v.Err != nil {
			if !strings.Contains(fmt.Sprint(got["error"]), "missing.sse") || len(got) != 3 {
				t.Errorf("unreadable: %v", got)
			}
			continue
		}
		if v.Session > 0 {
			x, _ := got["exchange"].(map[string]any)
			if got["session"] != float64(v.Session) || x["method"] != "POST" || x["status"] != float64(200) {
				t.Errorf("archive session: %v", got)
			}
		}
		delete(got, "input")
		delete(got, "session")
		delete(got, "exchange")
		var single bytes.Buffer
		rep, _ := v.Report.MarshalJSON()
		single.Write(bytes.TrimSuffix(rep, []byte("}")))
		fmt.Fprintf(&single, ",\"pass\":%t}", v.Pass)
		var want map[string]any
		if err := json.Unmarshal(single.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		if !maps.EqualFunc(got, want, func(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
			t.Errorf("line %d without the added members:\n%v\nwant the single-input object\n%v", i, got, want)
		}
	}
	if i != len(run.Verdicts) || sum.Checked != i {
		t.Errorf("%d lines, %d checked; want %d", i, sum.Checked, len(run.Verdicts))
	}
	if strings.ContainsAny(out, "\x1b\u009b\u202e") {
		t.Error("raw control text in the JSON")
	}
}

// TestOutputText: each verdict under a header naming the input and its
// verdict, the report as one input prints it, and a summary.
func TestOutputText(t *testing.T) {
	t.Parallel()
	run, _ := sampleRun(t)
	out, sum := outputOf(t, "text", run)
	want := Summary{Checked: len(run.Verdicts), Unreadable: 1}
	for i := range run.Verdicts {
		if v := &run.Verdicts[i]; v.Err == nil {
			if v.Pass {
				want.Passed++
			} else {
				want.Failed++
			}
		}
	}
	if sum != want {
		t.Errorf("summary %+v; want %+v", sum, want)
	}
	for _, s := range []string{
		"# " + run.Verdicts[0].Input + ": fail\noutcome: truncated\n2 findings\noutcome truncated fails the check (allow it with --allow-outcome truncated)\n",
		"\n\n# " + run.Verdicts[2].Input + ": pass\noutcome: completed\n0 findings\n",
		": unreadable\nopen ",
		" #2 (POST https://api.example/v1/responses 200): fail\n",
		// the end lists what did not pass, in a line each, then the summary
		"\n\nwhat did not pass:\n  " + run.Verdicts[0].Input + ": responses/no-terminal; outcome truncated\n",
		"\n  " + run.Verdicts[3].Input + ": unreadable (open: file does not exist)\n",
		"\n  " + run.Verdicts[4].Label() + ": responses/text-done-mismatch\n",
		"\n  stdin: responses/no-terminal; outcome truncated\n",
		": responses/text-done-mismatch\nchecked 7: 1 passed, 5 failed, 1 unreadable\n",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("the text lacks %q:\n%s", s, out)
		}
	}
	if !strings.HasPrefix(out, "# ") || !strings.HasSuffix(out, "unreadable\n") {
		t.Errorf("the text starts or ends oddly:\n%s", out)
	}
	if strings.Contains(out, run.Verdicts[2].Input+": ") && strings.Count(out, run.Verdicts[2].Input) != 1 {
		t.Errorf("the passing input is listed at the end:\n%s", out)
	}
}

// TestOutputQuiet: --quiet writes only what does not pass (in GitHub's
// commands, only the findings that fail), the list and the summary still
// at the end; the words for what fails and passes are painted when the
// command asks.
func TestOutputQuiet(t *testing.T) {
	t.Parallel()
	run, _ := sampleRun(t)
	var b strings.Builder
	o, err := NewOutput("text", &b, run.FailOn, "v", func(w io.Writer, r checks.Report) error {
		_, err := fmt.Fprintf(w, "%d findings\n", len(r.Findings))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	o.Quiet = true
	o.Fail = func(s string) string { return "<F>" + s + "</F>" }
	o.Pass = func(s string) string { return "<P>" + s + "</P>" }
	for _, v := range run.Verdicts {
		if err := o.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := o.Close(); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, run.Verdicts[2].Input) || !strings.HasPrefix(out, "# "+run.Verdicts[0].Input+": <F>fail</F>\n") ||
		!strings.Contains(out, "\n<F>what did not pass:</F>\n") || !strings.HasSuffix(out, "checked 7: <P>1 passed</P>, <F>5 failed</F>, <F>1 unreadable</F>\n") ||
		!strings.Contains(out, "<F>outcome truncated</F> fails the check") {
		t.Errorf("quiet text:\n%s", out)
	}
	var gh strings.Builder
	o, _ = NewOutput("github", &gh, run.FailOn, "v", nil)
	o.Quiet = true
	for _, v := range run.Verdicts {
		if err := o.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if out := "\n" + gh.String(); strings.Contains(out, "\n::notice") || strings.Contains(out, "\n::warning") || !strings.Contains(out, "\n::error") {
		t.Errorf("quiet github writes what does not fail:\n%s", gh.String())
	}
}

// TestOutputDocuments: JUnit and SARIF are whole documents written at
// the end; GitHub's commands end with a summary line that is no command.
func TestOutputDocuments(t *testing.T) {
	t.Parallel()
	run, _ := sampleRun(t)
	out, _ := outputOf(t, "sarif", run)
	validateSARIF(t, sarifSchema(t), []byte(out))
	out, _ = outputOf(t, "junit", run)
	checkJUnitShape(t, []byte(out))
	out, _ = outputOf(t, "github", run)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	last := lines[len(lines)-1]
	if last != "streamtap check: checked 7: 1 passed, 5 failed, 1 unreadable" {
		t.Errorf("last line %q", last)
	}
	for _, l := range lines[:len(lines)-1] {
		if _, ok := parseGHCommand(l); !ok {
			t.Errorf("%q is not a command", l)
		}
	}
	if _, err := NewOutput("xml", io.Discard, checks.Error, "", plainText); err == nil || !strings.Contains(err.Error(), "junit") {
		t.Errorf("an unknown format: %v", err)
	}
}
