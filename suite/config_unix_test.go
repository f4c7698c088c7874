//go:build unix

package suite

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// inTime runs f and fails the test when it has not returned within 5 s:
// what hangs is reported, not waited for.
func inTime(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s still blocked after 5 s", what)
	}
}

// TestConfigNotARegularFile: a named pipe (or a directory) named like the
// config file, found or named by --config, is an error that says what it
// is, at once: opening a pipe to read blocks until a writer comes, which
// hung check, rules and the proxy for good.
func TestConfigNotARegularFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	fifoDir := filepath.Join(root, "fifo")
	dirDir := filepath.Join(root, "dir")
	for _, d := range []string{fifoDir, filepath.Join(dirDir, ".streamtap.yaml")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(fifoDir, ".streamtap.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, tt := range []struct {
		what string
		load func() error
		says string
	}{
		{"a pipe found", func() error { _, err := new(Configs).For(fifoDir); return err }, "not a regular file (a named pipe)"},
		{"a pipe named", func() error { _, err := LoadConfig(fifo); return err }, "not a regular file (a named pipe)"},
		{"a directory named", func() error { _, err := LoadConfig(filepath.Join(dirDir, ".streamtap.yaml")); return err }, "not a regular file (a directory)"},
	} {
		var err error
		inTime(t, tt.what, func() { err = tt.load() })
		if err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v; want an error that says %q", tt.what, err, tt.says)
		}
	}
	// /dev/null named is no config at all, as --config /dev/null says.
	if cfg, err := LoadConfig(os.DevNull); err != nil || cfg.Path != "" || !cfg.Rules.IsZero() {
		t.Errorf("LoadConfig(%s) = %+v, %v; want none", os.DevNull, cfg, err)
	}
	// A directory named like the config file is not one: the search goes
	// on above it (as it always has).
	if cfg, err := new(Configs).For(dirDir); err != nil || cfg.Path == filepath.Join(dirDir, ".streamtap.yaml") {
		t.Errorf("a directory named .streamtap.yaml: %+v, %v", cfg, err)
	}
}

// TestConfigsSearchStops: the search goes no higher than a repository's
// root (a .git directory, or a worktree's .git file) or the user's home,
// so that a file above them (one left in /tmp) judges nothing.
func TestConfigsSearchStops(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	above := filepath.Join(root, ".streamtap.yaml")
	if err := os.WriteFile(above, []byte("fail-on: info\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mk("repo/.git")
	mk("worktree")
	if err := os.WriteFile(filepath.Join(root, "worktree", ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Configs{home: mk("home"), homeOK: true}
	for _, dir := range []string{mk("repo/suite/a"), mk("worktree/b"), mk("home/c")} {
		if cfg, err := c.For(dir); err != nil || cfg.Path != "" {
			t.Errorf("For(%s) = %q, %v; want none: the search stops below %s", dir, cfg.Path, err, above)
		}
	}
	if cfg, err := c.For(mk("elsewhere/d")); err != nil || cfg.Path != above {
		t.Errorf("For(elsewhere) = %q, %v; want %s", cfg.Path, err, above)
	}
}

// TestConfigsPassOverAnotherUsersFile: a config file another user owns is
// never read: the search passes over it, says so once, and goes on up.
func TestConfigsPassOverAnotherUsersFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mine := filepath.Join(root, ".streamtap.yaml")
	dir := filepath.Join(root, "shared")
	theirs := filepath.Join(dir, ".streamtap.yaml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("fail-on: warning\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(theirs, []byte("disable: [chat/*]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const other = 4242
	if err := os.Chown(theirs, other, other); err != nil || os.Getuid() == other {
		t.Skipf("cannot give a file to another user here: %v", err)
	}
	var told []string
	c := Configs{PassedOver: func(path, why string) { told = append(told, path+": "+why) }, homeOK: true}
	for range 2 {
		cfg, err := c.For(dir)
		if err != nil || cfg.Path != mine {
			t.Errorf("For(%s) = %q, %v; want %s, passing over %s", dir, cfg.Path, err, mine, theirs)
		}
	}
	if len(told) != 1 || !strings.Contains(told[0], theirs) || !strings.Contains(told[0], "uid 4242") {
		t.Errorf("told %q; want once that %s is another user's", told, theirs)
	}
	// Named on the command line, it is read: the user chose it.
	if cfg, err := LoadConfig(theirs); err != nil || cfg.Rules.IsZero() {
		t.Errorf("LoadConfig(another user's file) = %+v, %v", cfg, err)
	}
}
