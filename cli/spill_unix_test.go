//go:build unix

package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// spillOwnerEnv names the temporary directory TestSpillOwnerChild makes
// its spill directory in.
const spillOwnerEnv = "STREAMTAP_TEST_SPILL_OWNER_TMP"

// TestSpillOwnerChild is the other proxy of TestOrphanedSpillsRemoved: it
// makes its spill directory as a proxy does, renames it to name a pid
// that means nothing here (as a proxy in another PID namespace's does),
// prints its path, and holds its lock until stdin closes.
func TestSpillOwnerChild(t *testing.T) {
	tmp := os.Getenv(spillOwnerEnv)
	if tmp == "" {
		t.Skip("run by TestOrphanedSpillsRemoved")
	}
	os.Setenv("TMPDIR", tmp)
	dir, lock, err := makeSpillDir()
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	elsewhere := filepath.Join(tmp, spillPrefix+os.Getenv("STREAMTAP_TEST_DEAD_PID")+"-elsewhere")
	if err := os.Rename(dir, elsewhere); err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	os.WriteFile(filepath.Join(elsewhere, "sessions-1.spill"), []byte("a session's bytes"), 0o600)
	fmt.Println(elsewhere)
	io.Copy(io.Discard, os.Stdin)
	lock.Close()
	os.Exit(0)
}

// TestOrphanedSpillsRemoved: a proxy starting removes the spill directory
// a killed proxy left behind (its lock free), and leaves alone the one of
// a proxy still running even when its name holds a pid that is gone here
// (a proxy in another PID namespace: it used to be deleted under it), an
// older directory without a lock, another user's, and a file. Once that
// other proxy is killed (SIGKILL: nothing of it runs at exit), its
// directory goes too.
func TestOrphanedSpillsRemoved(t *testing.T) {
	tmp := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no true(1) to get a finished process's pid:", err)
	}
	deadPid := strconv.Itoa(gone.Process.Pid)

	child := exec.Command(os.Args[0], "-test.run=^TestSpillOwnerChild$")
	child.Env = append(os.Environ(), spillOwnerEnv+"="+tmp, "STREAMTAP_TEST_DEAD_PID="+deadPid)
	stdin, _ := child.StdinPipe()
	stdout, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	running := strings.TrimSpace(line)
	if !strings.HasPrefix(running, tmp) {
		t.Fatalf("the other proxy said %q", line)
	}
	defer stdin.Close()

	// A proxy killed: its directory and a lock nobody holds.
	killed := filepath.Join(tmp, spillPrefix+deadPid+"-111")
	old := filepath.Join(tmp, spillPrefix+deadPid+"-333") // no lock: an older streamtap's
	others := filepath.Join(tmp, spillPrefix+deadPid+"-555")
	file := filepath.Join(tmp, spillPrefix+"1-444")
	for _, d := range []string{killed, old, others} {
		if err := os.MkdirAll(filepath.Join(d, "s1"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{killed, others} {
		os.WriteFile(filepath.Join(d, spillLock), nil, 0o600)
	}
	keep := []string{running, old, file}
	if os.Getuid() == 0 {
		os.Chown(others, 12345, 12345) // another user's
		keep = append(keep, others)
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	t.Setenv("TMPDIR", tmp)
	dir, lock, err := makeSpillDir() // this proxy starts
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	keep = append(keep, dir)
	waitGone(t, killed)
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s should stay: %v", filepath.Base(p), err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(running, "sessions-1.spill")); err != nil || string(data) != "a session's bytes" {
		t.Errorf("the running proxy's sessions were touched: %q, %v", data, err)
	}

	// The other proxy is killed: the next proxy to start removes its
	// directory, and leaves this one's (locked) alone.
	child.Process.Kill()
	child.Wait()
	dir2, lock2, err := makeSpillDir()
	if err != nil {
		t.Fatal(err)
	}
	defer lock2.Close()
	waitGone(t, running)
	for _, p := range []string{dir, dir2} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a running proxy's %s should stay: %v", filepath.Base(p), err)
		}
	}
}

// waitGone waits for the detached removal of dir (removeDetached).
func waitGone(t *testing.T, dir string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is still there", filepath.Base(dir))
		}
	}
}
