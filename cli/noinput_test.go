package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestNoInputDevNull: with stdin /dev/null (no pipe, no terminal: an
// unset variable in a CI script) and no FILE, the bare command and
// timeline say there is no input, exit 2, instead of printing the demo's
// timeline with exit 0; --sample and a FILE still read.
func TestNoInputDevNull(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"timeline"}, {"timeline", "--explain"}, {"calls"}, {"check"}} {
		null, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := run(t.Context(), args, null, &out, &errb)
		null.Close()
		if code != statusError || out.Len() != 0 || !strings.Contains(errb.String(), "no input") {
			t.Errorf("%v </dev/null: exit %d, stdout %d bytes, stderr %q; want exit 2, no output, the line that says there is no input", args, code, out.Len(), errb.String())
		}
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"--sample", "chat-single-call"}, null, &out, &errb); code != 0 || out.Len() == 0 {
		t.Errorf("--sample </dev/null: exit %d, stdout %d bytes, stderr %q", code, out.Len(), errb.String())
	}
}

// TestNotAnLLMStream: text that is no LLM stream is said to be one by its
// outcome, not a truncated one: `printf 'hello\n' | streamtap check`
// said "outcome: truncated (no response recognised)". It fails the check
// (exit 1), in text and JSON, and --allow-outcome not-a-stream judges it
// as any input, its findings shown.
func TestNotAnLLMStream(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI(t, []byte("hello\n"), "check", "-")
	if code != statusFailed || !strings.Contains(out, "outcome: not-a-stream (no event of a known dialect)") || strings.Contains(out, "truncated") {
		t.Errorf("check of 'hello': exit %d\n%s%s; want exit 1 and the outcome not-a-stream", code, out, errs)
	}
	code, out, _ = runCLI(t, []byte("hello\n"), "check", "--json", "-")
	if code != statusFailed || !strings.Contains(out, `"state":"not-a-stream"`) || !strings.Contains(out, `"not_a_stream":true`) {
		t.Errorf("check --json of 'hello': exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, []byte("hello\n"), "check", "--allow-outcome", "not-a-stream", "-")
	if !strings.Contains(out, "framing/") || strings.Contains(out, "not shown") {
		t.Errorf("--allow-outcome not-a-stream should judge the input, its findings shown: exit %d\n%s", code, out)
	}
	if _, out, _ = runCLI(t, []byte("hello\n"), "calls", "-"); !strings.Contains(out, "not-a-stream") {
		t.Errorf("calls of 'hello' should say not-a-stream:\n%s", out)
	}
}
