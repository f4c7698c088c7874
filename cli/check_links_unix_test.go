//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/streamtap/streamtap/suite"
)

// TestCheckDirLinksAndSpecialFiles: check DIR does not follow a link out
// of DIR (it says so, and the summary counts it), counts a link to
// nothing and a named pipe as unreadable (they were passed over, the run
// passing with a recording missing), and with --follow-links reads the
// file a link leads to without quoting a byte of it when it holds no
// LLM stream (a credentials file's key id reached the output), in every
// format.
func TestCheckDirLinksAndSpecialFiles(t *testing.T) {
	t.Parallel()
	const key = "AKIAIOSFODNN7EXAMPLE"
	secret := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(secret, []byte("[default]\naws_access_key_id = "+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := suiteDir(t, map[string]string{"ok.sse": checkClean})
	for target, name := range map[string]string{secret: "creds.sse", filepath.Join(dir, "gone.sse"): "dangling.sse"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.sse"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	code, stdout, stderr := runCheckArgs(t, nil, dir)
	if code != 2 || !strings.Contains(stdout, "\nchecked 3: 1 passed, 0 failed, 2 unreadable; 1 skipped (1 link not followed)\n") {
		t.Errorf("check DIR = %d; want 2, a link out skipped, a link to nothing and a pipe unreadable:\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"creds.sse: a link to a file outside", "dangling.sse: a link to nothing", "pipe.sse: a named pipe"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, format := range suite.Formats {
		code, stdout, stderr := runCheckArgs(t, nil, "--follow-links", "--output-format", format, dir)
		if code != 2 || strings.Contains(stdout+stderr, "AKIA") || strings.Contains(stdout+stderr, "aws_access") {
			t.Errorf("--follow-links --output-format %s = %d; want 2 and no byte of the credentials:\n%s%s", format, code, stdout, stderr)
		}
		if !strings.Contains(stdout, "not an LLM stream") && !strings.Contains(stdout, "not_a_stream") {
			t.Errorf("--follow-links --output-format %s does not say the file holds no stream:\n%s", format, stdout)
		}
	}
	// Named on the command line, the file is read, and not quoted either.
	code, stdout, stderr = runCheckArgs(t, nil, secret)
	if code != 1 || strings.Contains(stdout+stderr, "AKIA") || !strings.Contains(stdout, "not an LLM stream") {
		t.Errorf("check %s = %d; want 1, no byte of it quoted:\n%s%s", secret, code, stdout, stderr)
	}
}
