package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// bigStream is an SSE body of about n bytes: many small Chat chunks.
func bigStream(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%06d%s\"}}]}\n\n", i, strings.Repeat("x", 200))
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// sizeLimited runs bin with args under ulimit -f blocks (512 bytes each
// in POSIX sh; dash is /bin/sh here), in dir.
func sizeLimited(t *testing.T, blocks int, bin string, args ...string) *exec.Cmd {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil || runtime.GOOS == "windows" {
		t.Skip("no /bin/sh to set ulimit -f")
	}
	return exec.Command("/bin/sh", append([]string{"-c", fmt.Sprintf(`ulimit -f %d; exec "$0" "$@"`, blocks), bin}, args...)...)
}

// TestProxyHARFileSizeLimit: a proxy whose --save-har reaches ulimit -f
// (a full disk fails the same way) keeps a whole HAR of the sessions that
// fitted, before and after the one that did not; the log line of that
// session and the proxy's last line name it; the client gets its stream
// whole all the same. Before, the file was cut inside the big entry and
// no entry of it could be read.
func TestProxyHARFileSizeLimit(t *testing.T) {
	t.Parallel()
	bin := streamtapBinary(t)
	small, _ := samples.Open("chat-single-call")
	big := bigStream(3 << 20)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Path == "/v1/big" {
			w.Write(big)
			return
		}
		w.Write(small)
	}))
	defer up.Close()
	har := filepath.Join(t.TempDir(), "s.har")
	addr := freeAddr(t)
	cmd := sizeLimited(t, 2048, bin, "proxy", "--no-tui", "--listen", addr, "--upstream", up.URL, "--save-har", har) // 1 MiB
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitListening(t, addr)
	for _, path := range []string{"/v1/small", "/v1/big", "/v1/small"} {
		resp, err := http.Post("http://"+addr+path, "application/json", strings.NewReader(`{"model":"m","stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := map[bool][]byte{true: big, false: small}[path == "/v1/big"]; !bytes.Equal(got, want) {
			t.Fatalf("%s: the client got %d bytes of %d", path, len(got), len(want))
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the proxy: %v\n%s", err, stderr.String())
	}
	data, _ := os.ReadFile(har)
	if !json.Valid(data) {
		t.Fatalf("the HAR is not whole (%d bytes):\n%s", len(data), stderr.String())
	}
	a, err := capture.ReadArchive(data, capture.FormatHAR, capture.ArchiveOptions{})
	if err != nil || len(a.Entries) != 2 {
		t.Fatalf("the HAR reads %v, %v; want the two small sessions", a, err)
	}
	log := stderr.String()
	for _, want := range []string{
		"streamtap: #2 har: entry 2 (POST http://127.0.0.1:", "/v1/big) not written, the file holds the 1 before it, whole: write " + har + ": file too large",
		"--save-har har: 1 of 3 entries not written (entry 2 (POST http://",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// TestSaveFileSizeLimit: --save, --save-timed and --save-har reaching
// ulimit -f fail the command with an error that names the file and says
// what it holds, and the file holds that: whole reads, whole events, a
// whole (empty) HAR. Before, each ended in a cut piece, and the HAR did
// not parse.
func TestSaveFileSizeLimit(t *testing.T) {
	t.Parallel()
	bin := streamtapBinary(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "big.sse")
	big := bigStream(3 << 20)
	if err := os.WriteFile(in, big, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--save", "--save-timed", "--save-har"} {
		out := filepath.Join(dir, "out"+flag)
		cmd := sizeLimited(t, 2048, bin, "calls", "-", flag, out) // 1 MiB
		cmd.Stdin = bytes.NewReader(big)
		msg, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%s past ulimit -f: exit 0\n%s", flag, msg)
		}
		data, _ := os.ReadFile(out)
		if !strings.Contains(string(msg), out) || !strings.Contains(string(msg), "file too large") {
			t.Errorf("%s: the error does not name the file and why:\n%s", flag, msg)
		}
		switch flag {
		case "--save":
			if !bytes.HasPrefix(big, data) || len(data) == 0 || !strings.Contains(string(msg), fmt.Sprintf("the file keeps the %d bytes written before, whole", len(data))) {
				t.Errorf("--save: the file holds %d bytes, not a prefix said in the error:\n%s", len(data), msg)
			}
		case "--save-timed":
			r, err := capture.ParseRecording(data)
			if err != nil || len(r.Body) == 0 {
				t.Fatalf("--save-timed: the recording does not read: %v", err)
			}
			last := r.Body[len(r.Body)-1].Data
			if !bytes.HasSuffix(last, []byte("\n\n")) {
				t.Errorf("--save-timed: the recording ends in a cut event: %q", last[max(len(last)-80, 0):])
			}
		case "--save-har":
			if !json.Valid(data) || !strings.Contains(string(msg), "entry 1 (stdin) not written, the file holds the 0 before it, whole") {
				t.Errorf("--save-har: the file is not a whole HAR (%d bytes) or the error does not name the entry:\n%s", len(data), msg)
			}
		}
	}
}

// TestProxyHARKilledInsideBigEntry kills the proxy (SIGKILL) while it
// writes a big session's HAR entry: `streamtap calls` reads the session
// before it from the file and says that the last entry was cut. Before,
// the file did not parse and every session was lost.
func TestProxyHARKilledInsideBigEntry(t *testing.T) {
	t.Parallel()
	bin := streamtapBinary(t)
	small, _ := samples.Open("chat-single-call")
	big := bigStream(48 << 20)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Path == "/v1/big" {
			w.Write(big)
			return
		}
		w.Write(small)
	}))
	defer up.Close()
	caught := 0
	for attempt := 0; attempt < 3 && caught == 0; attempt++ {
		har := filepath.Join(t.TempDir(), "s.har")
		addr := freeAddr(t)
		cmd := exec.Command(bin, "proxy", "--no-tui", "--listen", addr, "--upstream", up.URL, "--save-har", har)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitListening(t, addr)
		post := func(path string) {
			resp, err := http.Post("http://"+addr+path, "application/json", strings.NewReader(`{"model":"m"}`))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		post("/v1/small")
		st, _ := os.Stat(har)
		whole := st.Size()
		go post("/v1/big")
		// Kill as soon as the big entry's bytes start to land.
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
			if st, err := os.Stat(har); err == nil && st.Size() > whole {
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		cmd.Process.Kill()
		cmd.Wait()
		data, _ := os.ReadFile(har)
		out, err := exec.Command(bin, "calls", har).CombinedOutput()
		if err != nil {
			t.Fatalf("calls of the killed proxy's HAR (%d bytes): %v\n%s", len(data), err, out)
		}
		if json.Valid(data) {
			continue // the kill came after the entry's write: nothing was cut
		}
		caught++
		if !strings.Contains(string(out), "an entry cut while it was written") || !strings.Contains(string(out), "openai-chat") {
			t.Errorf("calls does not read the whole session and say the cut:\n%.2000s", out)
		}
	}
	if caught == 0 {
		t.Log("no kill fell inside the big entry's write in 3 attempts")
	}
}
