package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// runInspectorArgs runs the bare inspector command with args; stdout is
// not a terminal.
func runInspectorArgs(t *testing.T, stdin *os.File, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(t.Context(), args, stdin, &out, &errb)
	return code, out.String(), errb.String()
}

// TestDiffFlagNotOnATerminal: `streamtap A --diff B` whose stdout is not a
// terminal prints what `streamtap diff A B` prints, with its exit code,
// --strict and --ignore included; A may be a file, a sample or stdin.
func TestDiffFlagNotOnATerminal(t *testing.T) {
	t.Parallel()
	edited := diffTemp(t, "responses-single-call", `"delta":" \"Par"`, `"delta":" \"Lyo"`)
	f, err := os.Open(edited)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tests := []struct {
		name  string
		stdin *os.File
		args  []string
		same  []string // the diff command that prints the same
		code  int
	}{
		{"a sample against a sample", nil, []string{"--sample", "responses-single-call", "--diff", "sample:gateway-responses-single-call"},
			[]string{"sample:responses-single-call", "sample:gateway-responses-single-call"}, 1},
		{"a file, flags after it", nil, []string{edited, "--diff", "sample:responses-single-call"},
			[]string{edited, "sample:responses-single-call"}, 1},
		{"kinds ignored", nil, []string{"--sample", "responses-single-call", "--diff", "sample:gateway-responses-single-call", "--ignore", "chunking,only-in-a"},
			[]string{"--ignore", "chunking,only-in-a", "sample:responses-single-call", "sample:gateway-responses-single-call"}, 0},
		{"strict", nil, []string{"--strict", "--sample", "responses-single-call", "--diff", "sample:gateway-responses-single-call"},
			[]string{"--strict", "sample:responses-single-call", "sample:gateway-responses-single-call"}, 1},
		{"A on stdin", f, []string{"--diff", "sample:responses-single-call"},
			[]string{"-", "sample:responses-single-call"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.stdin != nil {
				if _, err := tt.stdin.Seek(0, 0); err != nil {
					t.Fatal(err)
				}
			}
			code, out, errOut := runInspectorArgs(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Fatalf("streamtap %v = %d; want %d\n%s%s", tt.args, code, tt.code, out, errOut)
			}
			if tt.stdin != nil {
				if _, err := tt.stdin.Seek(0, 0); err != nil {
					t.Fatal(err)
				}
			}
			_, want, _ := runDiffArgs(t, tt.stdin, tt.same...)
			if out != want {
				t.Errorf("streamtap %v printed:\n%s\nstreamtap diff %v prints:\n%s", tt.args, out, tt.same, want)
			}
		})
	}
}

// TestDiffFlagUsage: what --diff cannot do is said in one line, exit 2.
func TestDiffFlagUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"B on stdin", []string{"--sample", "responses-single-call", "--diff", "-"}, "--diff -: B must be a FILE or sample:NAME"},
		{"no A", []string{"--diff", "sample:responses-single-call"}, "--diff sample:responses-single-call compares a stream A with it: give A as a FILE, --sample NAME, or pipe it in"},
		{"a session", []string{"x.har", "--session", "1", "--diff", "b.sse"}, "--diff compares two streams"},
		{"B missing", []string{"--sample", "responses-single-call", "--diff", "/nonexistent/b.sse"}, "B: open /nonexistent/b.sse: no such file or directory"},
		{"--diff without B", []string{"--sample", "responses-single-call", "--diff"}, "--diff needs an argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runInspectorArgs(t, nil, tt.args...)
			if code != 2 || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("streamtap %v = %d, stderr %q; want 2 and %q\n%s", tt.args, code, errOut, tt.stderr, out)
			}
		})
	}
}
