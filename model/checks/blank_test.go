package checks

import (
	"bytes"
	"testing"
)

// blank takes a short cut for data that starts with a printable ASCII
// byte: it must judge every input as bytes.TrimSpace does, Unicode white
// space included.
func TestBlankIsTrimSpace(t *testing.T) {
	for _, d := range []string{"", " ", "\t\r\n", "\u00a0", "\u0085", "\u2028 ", " \u3000", "{}", " {}", "x", "\x7f", "\x00",
		"\xff", "\u00a0x", "~", "!", "\x1f"} {
		if got, want := blank([]byte(d)), len(bytes.TrimSpace([]byte(d))) == 0; got != want {
			t.Errorf("blank(%q) = %v; bytes.TrimSpace says %v", d, got, want)
		}
	}
}
