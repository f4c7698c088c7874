//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestOrphanedSpillsRemoved: a proxy killed with SIGKILL leaves its
// directory of spilled sessions (streams' bytes) behind; the next proxy
// removes it, and leaves alone the directory of a proxy still running, an
// older directory that names no pid, and a file.
func TestOrphanedSpillsRemoved(t *testing.T) {
	tmp := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no true(1) to get a finished process's pid:", err)
	}
	dead := filepath.Join(tmp, spillPrefix+strconv.Itoa(gone.Process.Pid)+"-111")
	alive := filepath.Join(tmp, spillPrefix+strconv.Itoa(os.Getppid())+"-222")
	old := filepath.Join(tmp, "streamtap-sessions-333")
	file := filepath.Join(tmp, spillPrefix+"1-444")
	for _, d := range []string{dead, alive, old} {
		if err := os.MkdirAll(filepath.Join(d, "s1"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	removeOrphanedSpills(tmp)
	// The removal runs detached (removeDetached): wait for it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(dead); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the directory of a proxy that is gone is still there")
		}
	}
	for _, p := range []string{alive, old, file} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s should stay: %v", filepath.Base(p), err)
		}
	}
}
