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
