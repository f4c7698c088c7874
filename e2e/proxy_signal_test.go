package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// TestProxySignalsKeepHAR runs the built proxy with --save-har, kills it
// with each signal while a client is in the middle of a stream, and reads
// the HAR afterwards. SIGINT, SIGTERM and SIGHUP stop it the same way:
// the stream in flight finishes within the grace period, so it is in the
// HAR and in the log beside the one before it. SIGKILL cannot be handled:
// the file is the last complete document, a HAR that reads (it was 0
// bytes when nothing had finished yet, and SIGTERM and SIGHUP ended the
// process at once).
func TestProxySignalsKeepHAR(t *testing.T) {
	t.Parallel()
	bin := streamtapBinary(t)
	body, err := samples.Open("responses-single-call")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		sig    os.Signal
		before bool // a whole session goes through before the one cut
		want   int  // entries in the HAR afterwards
	}{
		{"SIGINT", os.Interrupt, true, 2},
		{"SIGTERM", syscall.SIGTERM, true, 2},
		{"SIGHUP", syscall.SIGHUP, true, 2},
		{"SIGKILL", os.Kill, true, 1},
		{"SIGKILL_first", os.Kill, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.sig == syscall.SIGHUP && signal.Ignored(syscall.SIGHUP) {
				t.Skip("SIGHUP is ignored here (nohup): the proxy keeps ignoring it")
			}
			release := make(chan struct{})
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				if r.URL.Path != "/v1/cut" {
					_, _ = w.Write(body)
					return
				}
				_, _ = w.Write(body[:len(body)/2])
				http.NewResponseController(w).Flush()
				select { // the rest once the proxy got the signal
				case <-release:
				case <-r.Context().Done():
					return
				}
				_, _ = w.Write(body[len(body)/2:])
			}))
			defer up.Close()
			defer close(release)
			dir := t.TempDir()
			har := filepath.Join(dir, "s.har")
			addr := freeAddr(t)
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "proxy", "--no-tui", "--listen", addr, "--upstream", up.URL, "--save-har", har)
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer cmd.Process.Kill()
			waitListening(t, addr)

			if c.before {
				resp, err := http.Post("http://"+addr+"/v1/whole", "application/json", strings.NewReader(`{"model":"m"}`))
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !bytes.Equal(got, body) {
					t.Fatalf("the first stream came back as %d bytes of %d", len(got), len(body))
				}
			}
			resp, err := http.Post("http://"+addr+"/v1/cut", "application/json", strings.NewReader(`{"model":"m"}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			half := make([]byte, len(body)/2)
			if _, err := io.ReadFull(resp.Body, half); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			if c.sig != os.Kill {
				release <- struct{}{} // the stream goes on while the proxy drains
				rest, err := io.ReadAll(resp.Body)
				if err != nil || !bytes.Equal(append(half, rest...), body) {
					t.Errorf("the client got %d bytes of %d (%v): the stream in flight was cut", len(half)+len(rest), len(body), err)
				}
			}
			select {
			case err := <-exited:
				var ee *exec.ExitError
				if c.sig != os.Kill && err != nil {
					t.Errorf("exit: %v; want 0 after %s\n%s", err, c.name, stderr.String())
				} else if c.sig == os.Kill && !errors.As(err, &ee) {
					t.Errorf("exit: %v; want killed", err)
				}
			case <-time.After(15 * time.Second):
				t.Fatalf("the proxy did not exit after %s\n%s", c.name, stderr.String())
			}

			data, err := os.ReadFile(har)
			if err != nil {
				t.Fatal(err)
			}
			a, err := capture.ReadArchive(data, capture.FormatHAR, capture.ArchiveOptions{})
			if err != nil {
				t.Fatalf("the HAR does not read after %s (%d bytes): %v\n%.300s", c.name, len(data), err, data)
			}
			if len(a.Entries) != c.want {
				t.Fatalf("%d entries after %s; want %d", len(a.Entries), c.name, c.want)
			}
			for i, e := range a.Entries {
				if !bytes.Equal(e.Bytes(), body) {
					t.Errorf("entry %d (%s) holds %d bytes of %d", i, e.URL, len(e.Bytes()), len(body))
				}
			}
			if c.sig != os.Kill {
				log := stderr.String()
				for id, path := range []string{"/v1/whole", "/v1/cut"} {
					prefix := fmt.Sprintf("streamtap: #%d POST %s 200 ", id+1, path)
					if !slices.ContainsFunc(strings.Split(log, "\n"), func(l string) bool {
						return strings.HasPrefix(l, prefix) && strings.Contains(l, "outcome=completed")
					}) {
						t.Errorf("the log has no line %q… outcome=completed:\n%s", prefix, log)
					}
				}
			}
		})
	}
}

// freeAddr is a loopback address free at the time of asking.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitListening waits until something accepts connections on addr.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReadingSignalsKeepHAR: a command reading a stream that has not
// ended (a pipe still open) stops on SIGTERM or SIGHUP as on ^C and
// finishes its --save-har file with what it read. SIGTERM used to end it
// at once and leave the file empty. (The writer keeps the stream alive
// with keepalive comments, as servers do; TestSignalSilentPipe holds the
// same for a pipe that sends nothing at all.)
func TestReadingSignalsKeepHAR(t *testing.T) {
	t.Parallel()
	bin := streamtapBinary(t)
	body, err := samples.Open("responses-single-call")
	if err != nil {
		t.Fatal(err)
	}
	first := bytes.Index(body, []byte("\n\n")) + 2 // the first event, whole
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			if sig == syscall.SIGHUP && signal.Ignored(syscall.SIGHUP) {
				t.Skip("SIGHUP is ignored here (nohup)")
			}
			har := filepath.Join(t.TempDir(), "s.har")
			cmd := exec.Command(bin, "events", "--save-har", har)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			if _, err := stdin.Write(body[:first]); err != nil {
				t.Fatal(err)
			}
			line := make([]byte, 1)
			if _, err := stdout.Read(line); err != nil { // the event was read
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			go io.Copy(io.Discard, stdout)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			keepalive := time.NewTicker(10 * time.Millisecond)
			defer keepalive.Stop()
		wait:
			for deadline := time.After(10 * time.Second); ; {
				select {
				case <-exited:
					break wait
				case <-keepalive.C:
					_, _ = stdin.Write([]byte(": keepalive\n\n"))
				case <-deadline:
					t.Fatalf("events did not stop on %v", sig)
				}
			}
			data, err := os.ReadFile(har)
			if err != nil {
				t.Fatal(err)
			}
			a, err := capture.ReadArchive(data, capture.FormatHAR, capture.ArchiveOptions{})
			if err != nil {
				t.Fatalf("the HAR does not read after %v (%d bytes): %v", sig, len(data), err)
			}
			if len(a.Entries) != 1 {
				t.Fatalf("%d entries; want one", len(a.Entries))
			}
			got := a.Entries[0].Bytes()
			if rest := bytes.ReplaceAll(bytes.TrimPrefix(got, body[:first]), []byte(": keepalive\n\n"), nil); len(got) < first || len(rest) > 0 {
				t.Fatalf("the entry holds %q; want the event and the keepalives read", got)
			}
		})
	}
}
