package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/samples"
)

// TestTmuxEndToEnd runs the built binary in a real terminal (tmux, 120×40)
// with a sample piped into it, moves the selection with keys, and checks
// that the calls pane shows the arguments as they stood at that event.
func TestTmuxEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped under -short")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "streamtap")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	data, err := samples.Open("responses-single-call")
	if err != nil {
		t.Fatal(err)
	}
	sample := filepath.Join(dir, "sample.sse")
	if err := os.WriteFile(sample, data, 0o644); err != nil {
		t.Fatal(err)
	}
	session := "streamtap-e2e-" + strconv.Itoa(os.Getpid())
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// A private server socket keeps the test away from the user's tmux.
	sock := filepath.Join(dir, "tmux.sock")
	tm := func(args ...string) string { return run(append([]string{"-S", sock}, args...)...) }
	tm("new-session", "-d", "-s", session, "-x", "120", "-y", "40",
		"cat "+shellQuote(sample)+" | "+shellQuote(bin)+"; sleep 30")
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", sock, "kill-server").Run() })

	screen := func() string { return tm("capture-pane", "-p", "-t", session) }
	waitFor := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			s := screen()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("the stream to end", func(s string) bool { return strings.Contains(s, "ended: completed") })
	s := screen()
	if !strings.Contains(s, `"location": "Paris, France"`) {
		t.Fatalf("at the last event the calls pane should show the full arguments:\n%s", s)
	}

	// g selects event 0; five j's select event 5, which added ` "Par`.
	tm("send-keys", "-t", session, "g", "j", "j", "j", "j", "j")
	s = waitFor("event 5", func(s string) bool { return strings.Contains(s, "as of event #5") })
	if !strings.Contains(s, `"location": "Par`) || strings.Contains(s, "Paris") {
		t.Fatalf("as of event 5 the arguments should end at \"Par:\n%s", s)
	}
	tm("send-keys", "-t", session, "j")
	s = waitFor("event 6", func(s string) bool { return strings.Contains(s, "as of event #6") })
	if !strings.Contains(s, `"location": "Paris, Fr`) || strings.Contains(s, "France") {
		t.Fatalf("as of event 6 the arguments should end at Paris, Fr:\n%s", s)
	}
	tm("send-keys", "-t", session, "q")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
