package cli

import (
	"strings"
	"testing"
)

// TestSampleOperandWhereAFileGoes: every command that reads a FILE reads
// sample:NAME in its place as it reads --sample NAME (calls said "open
// sample:chat-single-call: no such file or directory"), and check reads
// samples among several inputs.
func TestSampleOperandWhereAFileGoes(t *testing.T) {
	t.Parallel()
	for _, cmd := range [][]string{{"calls"}, {"calls", "--json"}, {"events"}, {"timeline"}, {"check"}, {"check", "--json"}, {}} {
		byFlag := append(append([]string{}, cmd...), "--sample", "broken-item-id-changes")
		byOperand := append(append([]string{}, cmd...), "sample:broken-item-id-changes")
		wantCode, want, _ := runCLI(t, nil, byFlag...)
		code, out, errs := runCLI(t, nil, byOperand...)
		if code != wantCode || out != want || out == "" {
			t.Errorf("streamtap %q = %d, %q\n%s\nwant what streamtap %q prints: %d\n%s", byOperand, code, errs, clip(out), byFlag, wantCode, clip(want))
		}
	}
	code, out, errs := runCLI(t, nil, "check", "sample:chat-single-call", "sample:broken-cut-before-terminal")
	if code != 1 || !strings.Contains(out, "# sample chat-single-call: pass") || !strings.Contains(out, "# sample broken-cut-before-terminal: fail") ||
		!strings.Contains(out, "checked 2: 1 passed, 1 failed") {
		t.Errorf("check of two sample operands = %d, %q\n%s", code, errs, out)
	}
	if o, err := parseReplayArgs([]string{"sample:chat-single-call"}); err != nil || o.sample != "chat-single-call" || o.file != "" {
		t.Errorf("replay sample:chat-single-call parses as %+v, %v; want the sample", o, err)
	}
	if code, _, errs := runCLI(t, nil, "calls", "--sample", "chat-single-call", "sample:gemini-call"); code != 2 || !strings.Contains(errs, "give one input") {
		t.Errorf("--sample and a sample operand = %d, %q; want exit 2: one input", code, errs)
	}
}

// TestOperandErrorNamesTheSample: an operand that is no file but the name
// of a sample says which operand opens the sample, wherever a file goes.
func TestOperandErrorNamesTheSample(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"calls", "gateway-responses-single-call"},
		{"--sample", "responses-single-call", "--diff", "gateway-responses-single-call"},
		{"diff", "sample:responses-single-call", "gateway-responses-single-call"},
		{"replay", "gateway-responses-single-call"},
	} {
		code, _, errs := runCLI(t, nil, args...)
		if code != 2 || !strings.Contains(errs, "no such file") || !strings.Contains(errs, "did you mean sample:gateway-responses-single-call") {
			t.Errorf("streamtap %q = %d, %q; want exit 2 naming sample:gateway-responses-single-call", args, code, errs)
		}
	}
	if _, _, errs := runCLI(t, nil, "calls", "no-such-sample-or-file"); strings.Contains(errs, "did you mean") {
		t.Errorf("a file that is no sample either: %q; want the error alone", errs)
	}
}

// TestDiffWarnsOfIgnoreThatMatchesNothing: a name --ignore adds that is
// no kind of difference and no member of either stream is said on stderr,
// with the nearest member (diff --ignore usgae was accepted in silence);
// the verdict and exit status stay what they are.
func TestDiffWarnsOfIgnoreThatMatchesNothing(t *testing.T) {
	t.Parallel()
	a, b := "sample:responses-single-call", "sample:gateway-responses-single-call"
	code, _, errs := runCLI(t, nil, "diff", "--ignore", "usgae,chunking", a, b)
	if code != 1 || !strings.Contains(errs, "--ignore usgae matches nothing") || !strings.Contains(errs, "did you mean 'usage'?") || strings.Contains(errs, "chunking") {
		t.Errorf("diff --ignore usgae,chunking = %d, %q; want exit 1 and a warning naming usage, none for chunking", code, errs)
	}
	code, _, errs = runCLI(t, nil, "--diff", b, "--ignore", "usgae", "--sample", "responses-single-call")
	if code != 1 || !strings.Contains(errs, "--ignore usgae matches nothing") {
		t.Errorf("--diff B --ignore usgae = %d, %q; want the warning", code, errs)
	}
	for _, name := range []string{"output_index", "only-in-a", "sequence_number", "keepalive"} {
		if _, _, errs := runCLI(t, nil, "diff", "--ignore", name, a, b); strings.Contains(errs, "warning") {
			t.Errorf("diff --ignore %s: %q; want no warning (it matches)", name, errs)
		}
	}
	data, _ := openSample("gateway-responses-single-call")
	if _, _, errs := runCLI(t, data, "diff", "--ignore", "usgae", a, "-"); strings.Contains(errs, "warning") {
		t.Errorf("diff --ignore usgae A -: %q; want no warning (standard input cannot be read twice)", errs)
	}
}
