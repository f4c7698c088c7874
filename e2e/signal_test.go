package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// exitWithin is how soon after SIGINT, SIGTERM or SIGHUP any command must
// have ended, its files finished.
const exitWithin = 2 * time.Second

// shutdownSigs are the signals that stop a command; each case takes the
// next, so that every command meets each of them somewhere.
var shutdownSigs = []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}

func sigFor(i int) syscall.Signal {
	return shutdownSigs[i%len(shutdownSigs)]
}

// deliverable is sig, or SIGTERM for a SIGHUP that this process ignores:
// under nohup the child inherits the ignored SIGHUP and streamtap keeps
// ignoring it, as asked, so it cannot be what stops it.
func deliverable(sig syscall.Signal) syscall.Signal {
	if sig == syscall.SIGHUP && signal.Ignored(syscall.SIGHUP) {
		return syscall.SIGTERM
	}
	return sig
}

// running is a streamtap process a test stops with a signal.
type running struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr bytes.Buffer
	exited chan error
	err    error
}

// start runs the built binary with args; stdin, when not nil, is its
// standard input (a pipe's read end is handed over as the shell hands
// one: Go reads it with blocking calls).
func start(t *testing.T, stdin *os.File, args ...string) *running {
	t.Helper()
	r := &running{t: t, cmd: exec.Command(streamtapBinary(t), args...), exited: make(chan error, 1)}
	r.cmd.Stdin, r.cmd.Stdout, r.cmd.Stderr = stdin, io.Discard, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.exited <- r.cmd.Wait() }()
	t.Cleanup(func() { _ = r.cmd.Process.Kill() })
	return r
}

// stop sends sig once ready holds (polled; fails after 20s), and fails
// the test unless the process then ends by itself within exitWithin.
func (r *running) stop(sig syscall.Signal, ready func() bool) {
	r.t.Helper()
	sig = deliverable(sig)
	for deadline := time.Now().Add(20 * time.Second); !ready(); time.Sleep(2 * time.Millisecond) {
		select {
		case err := <-r.exited:
			r.t.Fatalf("%v ended before the signal: %v\n%s", r.cmd.Args[1:], err, r.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%v: not ready after 20s\n%s", r.cmd.Args[1:], r.stderr.String())
		}
	}
	// A process signalled before it asked for the signal dies of it, which
	// says nothing of how streamtap ends: on a loaded machine exec and the
	// runtime's start can outlast any fixed sleep.
	for deadline := time.Now().Add(20 * time.Second); !catches(r.cmd.Process.Pid, sig); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			r.t.Fatalf("%v: does not catch %v after 20s\n%s", r.cmd.Args[1:], sig, r.stderr.String())
		}
	}
	sent := time.Now()
	if err := r.cmd.Process.Signal(sig); err != nil {
		r.t.Fatalf("%v: %v\n%s", r.cmd.Args[1:], err, r.stderr.String())
	}
	select {
	case r.err = <-r.exited:
	case <-time.After(30 * time.Second):
		r.t.Fatalf("%v still running 30s after %v\n%s", r.cmd.Args[1:], sig, r.stderr.String())
	}
	took := time.Since(sent)
	var ee *exec.ExitError
	switch {
	case took > exitWithin:
		r.t.Errorf("%v ended %v after %v; want within %v\n%s", r.cmd.Args[1:], took.Round(time.Millisecond), sig, exitWithin, r.stderr.String())
	case errors.As(r.err, &ee) && !ee.Exited():
		r.t.Errorf("%v was killed by %v instead of ending by itself: %v\n%s", r.cmd.Args[1:], sig, r.err, r.stderr.String())
	case strings.Contains(r.stderr.String(), "still running"):
		r.t.Errorf("%v was ended by its watch, not by itself\n%s", r.cmd.Args[1:], r.stderr.String())
	}
}

// saved are the files a reading command writes and what they must hold.
type saved struct {
	dir string
}

func (s saved) path(name string) string { return filepath.Join(s.dir, name) }

// flags are --save, --save-timed and --save-har into s.
func (s saved) flags() []string {
	return []string{"--save", s.path("raw"), "--save-timed", s.path("timed"), "--save-har", s.path("har")}
}

// holds reports whether --save holds want already.
func (s saved) holds(want []byte) func() bool {
	return func() bool {
		b, _ := os.ReadFile(s.path("raw"))
		return len(b) >= len(want)
	}
}

// check fails t unless each file that exists is whole: --save is exactly
// want, the recording and the HAR read and hold want as their body.
func (s saved) check(t *testing.T, want []byte) {
	t.Helper()
	if b, err := os.ReadFile(s.path("raw")); err == nil && !bytes.Equal(b, want) {
		t.Errorf("--save holds %d bytes; want the %d read", len(b), len(want))
	}
	if b, err := os.ReadFile(s.path("timed")); err == nil {
		if rec, err := capture.ParseRecording(b); err != nil {
			t.Errorf("--save-timed does not read (%d bytes): %v", len(b), err)
		} else if !bytes.Equal(rec.Bytes(), want) {
			t.Errorf("--save-timed holds %d bytes of body; want the %d read", len(rec.Bytes()), len(want))
		}
	}
	if b, err := os.ReadFile(s.path("har")); err == nil {
		a, err := capture.ReadArchive(b, capture.FormatHAR, capture.ArchiveOptions{})
		switch {
		case err != nil:
			t.Errorf("--save-har does not read (%d bytes): %v", len(b), err)
		case len(a.Entries) != 1:
			t.Errorf("--save-har holds %d entries; want 1", len(a.Entries))
		case !bytes.Equal(a.Entries[0].Bytes(), want):
			t.Errorf("--save-har's entry holds %d bytes; want the %d read", len(a.Entries[0].Bytes()), len(want))
		}
	}
}

// firstEvent is the first event of a sample, whole, and the sample.
func firstEvent(t *testing.T, name string) (first, all []byte) {
	t.Helper()
	all, err := samples.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return all[:bytes.Index(all, []byte("\n\n"))+2], all
}

// TestSignalSilentPipe: every command that reads stdin stops on a
// shutdown signal while the pipe stays open and silent, as `sleep 60 |
// streamtap check -` or `curl -N … | streamtap calls -` with a stalled
// upstream, and finishes its files with what it read. It used to wait
// for the read to return, which on a silent pipe is never.
func TestSignalSilentPipe(t *testing.T) {
	t.Parallel()
	first, _ := firstEvent(t, "responses-single-call")
	cases := []struct {
		name  string
		args  []string
		saves bool // takes --save, --save-timed and --save-har
	}{
		{"calls", []string{"calls", "-"}, true},
		{"check", []string{"check", "-"}, true},
		{"events", []string{"events", "-"}, true},
		{"timeline", []string{"timeline", "-"}, true},
		{"inspector, not on a terminal", []string{"-"}, true},
		{"diff", []string{"diff", "-", "sample:responses-single-call"}, false},
		{"check, suite output", []string{"check", "--output-format", "junit", "-"}, false},
		{"request -d @-", []string{"request", "-d", "@-", "http://127.0.0.1:9/never"}, false},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pw.Close() // open and silent until the test ends
			s := saved{t.TempDir()}
			args := c.args
			if c.saves {
				args = append(append([]string{}, args...), s.flags()...)
			}
			r := start(t, pr, args...)
			pr.Close()
			if _, err := pw.Write(first); err != nil {
				t.Fatal(err)
			}
			ready := func() bool { return true }
			if c.saves {
				ready = s.holds(first)
			} else {
				time.Sleep(300 * time.Millisecond) // it reads the pipe by now
			}
			r.stop(sigFor(i), ready)
			if c.saves {
				s.check(t, first)
			}
		})
	}
}

// stalledServer answers every request with a stream's head and first
// event, then sends nothing until the test ends.
func stalledServer(t *testing.T, first []byte) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(first)
		http.NewResponseController(w).Flush()
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

// TestSignalStalledSocket: `request` reading a server that sent its head
// and an event and then nothing, the proxy in front of such an upstream
// with a client waiting, and replay serving or playing a stream in the
// middle of a long pause each end within exitWithin of the signal, their
// files whole. A second signal ends the proxy at once.
func TestSignalStalledSocket(t *testing.T) {
	t.Parallel()
	first, _ := firstEvent(t, "responses-single-call")
	t.Run("request", func(t *testing.T) {
		t.Parallel()
		up := stalledServer(t, first)
		s := saved{t.TempDir()}
		r := start(t, nil, "request", up.URL+"/v1/responses", "--save", s.path("raw"))
		r.stop(syscall.SIGTERM, s.holds(first))
		s.check(t, first)
	})
	t.Run("request --save-timed", func(t *testing.T) {
		t.Parallel()
		up := stalledServer(t, first)
		s := saved{t.TempDir()}
		r := start(t, nil, "request", up.URL+"/v1/responses", "--json", "--save", s.path("raw"), "--save-timed", s.path("timed"))
		r.stop(syscall.SIGINT, s.holds(first))
		s.check(t, first)
	})
	for i, twice := range []bool{false, true} {
		t.Run(fmt.Sprintf("proxy, second signal %v", twice), func(t *testing.T) {
			t.Parallel()
			up := stalledServer(t, first)
			s := saved{t.TempDir()}
			addr := freeAddr(t)
			r := start(t, nil, "proxy", "--no-tui", "--listen", addr, "--upstream", up.URL, "--save-har", s.path("har"))
			waitListening(t, addr)
			resp, err := http.Post("http://"+addr+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got := make([]byte, len(first))
			if _, err := io.ReadFull(resp.Body, got); err != nil {
				t.Fatal(err)
			}
			if !twice {
				r.stop(sigFor(i), func() bool { return true })
				s.check(t, first)
				return
			}
			if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			sent := time.Now()
			if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case <-r.exited:
				if took := time.Since(sent); took > 500*time.Millisecond {
					t.Errorf("the proxy ended %v after a second SIGTERM; want at once", took)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the proxy still runs 10s after a second SIGTERM\n%s", r.stderr.String())
			}
		})
	}
	// replay --listen of one recording, and of a session (a directory of
	// two) whose first exchange is that recording.
	session := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "session")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(pausedRecording(t, first), filepath.Join(dir, "1-paused.sse")); err != nil {
			t.Fatal(err)
		}
		call, _ := samples.Open("mcp-tools-call-progress")
		if err := os.WriteFile(filepath.Join(dir, "2-call.sse"), call, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, c := range []struct {
		name  string
		input func(*testing.T) string
		sig   syscall.Signal
	}{
		{"replay --listen", func(t *testing.T) string { return pausedRecording(t, first) }, syscall.SIGHUP},
		{"replay --listen of a session", session, syscall.SIGTERM},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := c.input(t)
			addr := freeAddr(t)
			r := start(t, nil, "replay", "--listen", addr, "--speed", "0.01", in)
			waitListening(t, addr)
			resp, err := http.Get("http://" + addr + "/v1/responses")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got := make([]byte, len(first))
			if _, err := io.ReadFull(resp.Body, got); err != nil {
				t.Fatal(err)
			}
			r.stop(c.sig, func() bool { return true }) // the client waits in the pause
		})
	}
	t.Run("replay", func(t *testing.T) {
		t.Parallel()
		rec := pausedRecording(t, first)
		r := start(t, nil, "replay", "--speed", "0.01", rec)
		time.Sleep(300 * time.Millisecond) // into the pause
		r.stop(syscall.SIGTERM, func() bool { return true })
	})
}

// pausedRecording writes a timed recording of first, then (a second
// later) the rest of its sample: played at --speed 0.01, a pause of
// about 100s after the first event.
func pausedRecording(t *testing.T, first []byte) string {
	t.Helper()
	_, all := firstEvent(t, "responses-single-call")
	rec := filepath.Join(t.TempDir(), "paused.sse")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(streamtapBinary(t), "calls", "-", "--save-timed", rec)
	cmd.Stdin = pr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	_, _ = pw.Write(first)
	time.Sleep(time.Second)
	_, _ = pw.Write(all[len(first):])
	pw.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("recording the paused stream: %v", err)
	}
	return rec
}

// TestSignalBusyFile: a command busy reading a big file (about 100 MB of
// Responses events, written here) stops within exitWithin of the signal,
// and --save and --save-timed hold exactly the bytes read up to then; so
// does check over a directory of many inputs.
func TestSignalBusyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "big.sse")
	data := bigCapture(t, 100<<20)
	if err := os.WriteFile(big, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"calls", big},
		{"check", big},
		{"events", big},
		{"timeline", big},
		{"diff", big, big},
	}
	for i, args := range cases {
		t.Run(args[0], func(t *testing.T) {
			s := saved{t.TempDir()}
			if args[0] != "diff" {
				args = append(args, "--save", s.path("raw"), "--save-timed", s.path("timed"))
			}
			r := start(t, nil, args...)
			ready := func() bool { return true }
			if args[0] != "diff" {
				ready = func() bool { st, err := os.Stat(s.path("raw")); return err == nil && st.Size() > 8<<20 }
			} else {
				time.Sleep(100 * time.Millisecond)
			}
			r.stop(sigFor(i), ready)
			if args[0] == "diff" {
				return
			}
			raw, err := os.ReadFile(s.path("raw"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, raw) {
				t.Errorf("--save holds %d bytes that are not the file's start", len(raw))
			}
			s.check(t, raw)
		})
	}
	t.Run("check DIR", func(t *testing.T) {
		t.Parallel()
		many := filepath.Join(dir, "many")
		if err := os.Mkdir(many, 0o755); err != nil {
			t.Fatal(err)
		}
		_, one := firstEvent(t, "responses-single-call")
		for i := range 500 {
			if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("r%03d.sse", i)), one, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 20 { // 2 GB to check, in links to one file
			if err := os.Link(big, filepath.Join(many, fmt.Sprintf("s%02d.sse", i))); err != nil {
				t.Fatal(err)
			}
		}
		r := start(t, nil, "check", many)
		time.Sleep(300 * time.Millisecond)
		r.stop(syscall.SIGTERM, func() bool { return true })
	})
}

// bigCapture is about size bytes of a Responses stream: the sample's
// events, again and again, each response numbered.
func bigCapture(t *testing.T, size int) []byte {
	t.Helper()
	_, one := firstEvent(t, "responses-single-call")
	var b bytes.Buffer
	b.Grow(size + len(one))
	for i := 0; b.Len() < size; i++ {
		b.Write(bytes.ReplaceAll(one, []byte(`"resp_`), fmt.Appendf(nil, `"resp_%d_`, i)))
	}
	return b.Bytes()
}

// TestSignalInspectorTUI: the inspector on a terminal, reading a pipe
// that stays open and silent, ends within exitWithin of SIGTERM with its
// --save-har file whole.
func TestSignalInspectorTUI(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	first, _ := firstEvent(t, "responses-single-call")
	dir := t.TempDir()
	s := saved{dir}
	event, pid := filepath.Join(dir, "event.sse"), filepath.Join(dir, "pid")
	if err := os.WriteFile(event, first, 0o644); err != nil {
		t.Fatal(err)
	}
	// cat sends the event, sleep keeps the pipe open and silent; sh
	// writes its pid and becomes streamtap.
	tm := startTmux(t, 120, 30, fmt.Sprintf("{ cat %s; sleep 60; } | sh -c 'echo $$ > %s; exec %s --save-har %s'; echo streamtap-exit=$?",
		shellQuote(event), shellQuote(pid), shellQuote(bin), shellQuote(s.path("har"))))
	tm.waitFor("the event read", 20*time.Second, func(screen string) bool { return strings.Contains(screen, "1 event") })
	b, err := os.ReadFile(pid)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := fmt.Sscan(string(b), &n); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	if err := syscall.Kill(n, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for !ended(n) { // the shell waits for sleep too before it says anything
		if time.Since(sent) > 30*time.Second {
			t.Fatalf("the inspector still runs 30s after SIGTERM\n%s", tm.screen())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if took := time.Since(sent); took > exitWithin {
		t.Errorf("the inspector ended %v after SIGTERM; want within %v\n%s", took.Round(time.Millisecond), exitWithin, tm.screen())
	}
	s.check(t, first)
}

// ended reports whether process pid has ended: it is gone, or a zombie
// its parent has not reaped yet.
func ended(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(after, "Z")
}

// TestSignalWedgeIsVisible: a command that cannot move says so. Its
// output blocked (stdout a pipe nobody reads), `events` with
// STREAMTAP_DEBUG=1 reports on stderr that the reading waits for the
// modelling; a SIGTERM cannot unblock the write, and the process ends by
// its watch 1.7s after the signal, saying why, with every
// goroutine's stack. A FIFO given as input with no writer (open(2) waits)
// ends the same way. Without the watch both slept until killed.
func TestSignalWedgeIsVisible(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "big.sse")
	if err := os.WriteFile(big, bigCapture(t, 8<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		name  string
		args  []string
		stall string // the report to wait for before the signal
	}{
		{"output blocked", []string{"events", big}, "streamtap: ingest: producer waits for "},
		{"FIFO without a writer", []string{"calls", fifo}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(streamtapBinary(t), c.args...)
			cmd.Env = append(os.Environ(), "STREAMTAP_DEBUG=1", "GOMAXPROCS=2")
			out, err := cmd.StdoutPipe() // never read: the pipe fills
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			var stderr syncBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			for deadline := time.Now().Add(20 * time.Second); !strings.Contains(stderr.String(), c.stall); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("no report %q after 20s:\n%s", c.stall, stderr.String())
				}
			}
			if c.stall == "" {
				time.Sleep(300 * time.Millisecond) // in open(2) by now
			}
			sent := time.Now()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err = <-exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30s after SIGTERM\n%s", stderr.String())
			}
			took := time.Since(sent)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
				t.Errorf("exit: %v; want status %d", err, 128+int(syscall.SIGTERM))
			}
			if took > exitWithin {
				t.Errorf("ended %v after SIGTERM; want within %v", took.Round(time.Millisecond), exitWithin)
			}
			log := stderr.String()
			for _, want := range []string{"s after SIGTERM: exiting without finishing", "streamtap: every goroutine:\ngoroutine "} {
				if !strings.Contains(log, want) {
					t.Errorf("stderr lacks %q:\n%.3000s", want, log)
				}
			}
		})
	}
}

// syncBuffer is a bytes.Buffer a process writes while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCheckBesideAFIFOConfig: the hang of a check that slept for 22
// minutes, reproduced: a named pipe called .streamtap.yaml in a directory
// above the input. check opened it and waited in open(2) for a writer
// (0% CPU, its capture open, the first SIGTERM ignored); it now says the
// config is not a regular file and ends with status 2.
func TestCheckBesideAFIFOConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ".streamtap.yaml"), 0o644); err != nil {
		t.Skip(err)
	}
	sub := filepath.Join(dir, "captures")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	_, all := firstEvent(t, "responses-single-call")
	in := filepath.Join(sub, "big.sse")
	if err := os.WriteFile(in, all, 0o644); err != nil {
		t.Fatal(err)
	}
	r := start(t, nil, "check", in)
	select {
	case r.err = <-r.exited:
	case <-time.After(10 * time.Second): // liveness bound, not a speed target
		t.Fatalf("check still runs after 10s beside a FIFO .streamtap.yaml\n%s", r.stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(r.err, &ee) || ee.ExitCode() != 2 || !strings.Contains(r.stderr.String(), "not a regular file (a named pipe)") {
		t.Errorf("check ended with %v:\n%s\nwant status 2 and the config refused as a named pipe", r.err, r.stderr.String())
	}
}

// catches reports whether process pid has a handler for sig, as its
// /proc status's SigCgt mask says; true where there is no /proc to ask.
func catches(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return true
	}
	for line := range strings.Lines(string(b)) {
		if hex, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err != nil || mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return true
}
