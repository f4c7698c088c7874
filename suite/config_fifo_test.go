//go:build unix

package suite

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestConfigFIFORefused: a named pipe called .streamtap.yaml in a parent
// directory (or given to --config) is refused at once with an error that
// says what it is. Opening it waited for a writer in open(2), which no
// cancellation reaches: a check under /tmp slept for 22 minutes while one
// sat in /tmp, its capture open, at 0% CPU, and ignored the first SIGTERM.
func TestConfigFIFORefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, ConfigNames[0])
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sub := filepath.Join(dir, "captures")
	for _, load := range []struct {
		name string
		f    func() error
	}{
		{"found from a subdirectory", func() error { _, err := new(Configs).For(sub); return err }},
		{"--config", func() error { _, err := LoadConfig(fifo); return err }},
	} {
		done := make(chan error, 1)
		go func() { done <- load.f() }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
				t.Errorf("%s: %v; want the FIFO refused as not a regular file", load.name, err)
			}
		case <-time.After(10 * time.Second): // liveness bound, not a speed target
			t.Fatalf("%s: still opening the FIFO after 10s", load.name)
		}
	}
}
