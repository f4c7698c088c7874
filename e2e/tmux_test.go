// Package e2e drives the built binary: in a real terminal (tmux on a
// private socket, so the tests never touch the user's own tmux server),
// or as a process sent signals. The binary is built once per test run;
// -short skips every test here, which keeps the fast loop fast.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamtap/streamtap/internal/fixtures"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildOut  []byte
	tmuxSeq   atomic.Int64
)

// TestMain removes the binary builtBinary built, so that test runs leave
// nothing in the temporary directory.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// builtBinary builds streamtap once per test run and returns its path,
// or skips the test when the end-to-end prerequisites are missing.
func builtBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	return streamtapBinary(t)
}

// streamtapBinary builds streamtap once per test run and returns its
// path, or skips the test under -short or without the go tool.
func streamtapBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test skipped under -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "streamtap-e2e-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "streamtap")
		build := exec.Command(goBin, "build", "-o", builtBin, ".")
		build.Dir = fixtures.Root() // the module's root: the command streamtap
		buildOut, buildErr = build.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("build: %v\n%s", buildErr, buildOut)
	}
	return builtBin
}

// tmuxTerm is one tmux session running a shell command in a w×h terminal.
type tmuxTerm struct {
	t       *testing.T
	sock    string
	session string
}

// startTmux runs shellCmd (a /bin/sh command line) in a new detached tmux
// session of w×h cells. The pane stays after the command exits, so a test
// can tell that it exited (exited) and read its last screen.
func startTmux(t *testing.T, w, h int, shellCmd string) *tmuxTerm {
	t.Helper()
	dir := t.TempDir()
	tt := &tmuxTerm{
		t:       t,
		sock:    filepath.Join(dir, "tmux.sock"),
		session: "streamtap-e2e-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(tmuxSeq.Add(1), 10),
	}
	tt.run("new-session", "-d", "-s", tt.session, "-x", strconv.Itoa(w), "-y", strconv.Itoa(h))
	tt.run("set-option", "-t", tt.session, "remain-on-exit", "on")
	tt.run("respawn-pane", "-k", "-t", tt.session, shellCmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tt.sock, "kill-server").Run() })
	return tt
}

func (tt *tmuxTerm) run(args ...string) string {
	tt.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tt.sock}, args...)...).CombinedOutput()
	if err != nil {
		tt.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is the visible pane as text.
func (tt *tmuxTerm) screen() string { return tt.run("capture-pane", "-p", "-t", tt.session) }

// send types keys, in tmux's send-keys names ("q", "C-c", "Enter").
func (tt *tmuxTerm) send(keys ...string) {
	tt.t.Helper()
	tt.run(append([]string{"send-keys", "-t", tt.session}, keys...)...)
}

// exited reports whether the command in the pane has ended.
func (tt *tmuxTerm) exited() bool {
	return strings.TrimSpace(tt.run("display-message", "-p", "-t", tt.session, "#{pane_dead}")) == "1"
}

// waitFor polls the screen until ok holds, and fails the test with the
// last screen after timeout. The timeout is a liveness bound for a hung
// program, not a speed target.
func (tt *tmuxTerm) waitFor(what string, timeout time.Duration, ok func(screen string) bool) string {
	tt.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := tt.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("timed out after %v waiting for %s; screen:\n%s", timeout, what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitExit waits until the command in the pane has ended.
func (tt *tmuxTerm) waitExit(what string, timeout time.Duration) {
	tt.t.Helper()
	deadline := time.Now().Add(timeout)
	for !tt.exited() {
		if time.Now().After(deadline) {
			tt.t.Fatalf("timed out after %v waiting for %s; screen:\n%s", timeout, what, tt.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
