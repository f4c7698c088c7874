package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCreateOutputRefusesOverwrite: a file that holds something is
// never overwritten without Force; an empty one, a device and a new path
// are written; New refuses anything that exists.
func TestCreateOutputRefusesOverwrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	full := filepath.Join(dir, "full.sse")
	if err := os.WriteFile(full, []byte("data: keep me\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := CreateOutput(full, OutputOptions{})
	var ex *ExistsError
	if !errors.As(err, &ex) || ex.Path != full || ex.Size != 15 {
		t.Fatalf("CreateOutput over a file = %v; want an ExistsError naming it", err)
	}
	if data, _ := os.ReadFile(full); string(data) != "data: keep me\n\n" {
		t.Fatalf("the refused file changed: %q", data)
	}
	o, err := CreateOutput(full, OutputOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	o.Write([]byte("new"))
	o.Close()
	if data, _ := os.ReadFile(full); string(data) != "new" {
		t.Errorf("forced over the file: it holds %q; want %q", data, "new")
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	for _, p := range []string{empty, filepath.Join(dir, "new"), os.DevNull} {
		o, err := CreateOutput(p, OutputOptions{})
		if err != nil {
			t.Errorf("CreateOutput(%s) = %v", p, err)
			continue
		}
		o.Close()
	}
	if _, err := CreateOutput(empty, OutputOptions{New: true}); !errors.Is(err, os.ErrExist) {
		t.Errorf("CreateOutput(New) over an empty file = %v; want ErrExist", err)
	}
}

// TestOutputDiskFull: whichever byte the disk fills at, the file holds
// the writes before the one that failed, whole; the error says so and
// stays. Before, the failed write's first bytes stayed in the file.
func TestOutputDiskFull(t *testing.T) {
	t.Parallel()
	writes := []string{"data: 1\n\n", "data: 22\n\n", "data: 333\n\n", "data: 4444\n\n"}
	total := len(strings.Join(writes, ""))
	for full := int64(1); full <= int64(total); full++ {
		path := filepath.Join(t.TempDir(), "out")
		o, err := CreateOutput(path, OutputOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o.failAt = full
		var want string // the whole writes that fit
		for _, w := range writes {
			if len(want)+len(w) > int(full) {
				break
			}
			want += w
		}
		var kept string
		var werr error
		for _, w := range writes {
			if _, werr = o.Write([]byte(w)); werr != nil {
				break
			}
			kept += w
		}
		_, again := o.Write([]byte("more"))
		cerr := o.Close()
		data, _ := os.ReadFile(path)
		if string(data) != want || kept != want || (werr == nil) != (full >= int64(total)) {
			t.Fatalf("full at %d: the file holds %q, error %v; want the whole writes %q", full, data, werr, want)
		}
		if werr == nil {
			continue
		}
		var oe *OutputError
		if !errors.As(werr, &oe) || oe.Kept != int64(len(kept)) || !errors.Is(werr, syscall.ENOSPC) ||
			!strings.Contains(werr.Error(), fmt.Sprintf("the file keeps the %d bytes written before, whole", len(kept))) {
			t.Fatalf("full at %d: error %v; want one saying it keeps %d bytes", full, werr, len(kept))
		}
		if again != werr || cerr != werr {
			t.Fatalf("full at %d: the error is not sticky: %v, %v", full, again, cerr)
		}
	}
}

// TestRecorderDiskFull: a recording that fills the disk keeps whole
// events only, each with its time, and reads back as a recording.
func TestRecorderDiskFull(t *testing.T) {
	t.Parallel()
	var body strings.Builder
	for i := range 20 {
		fmt.Fprintf(&body, "data: {\"n\":%d}\n\n", i)
	}
	for full := int64(100); full < 900; full += 23 {
		path := filepath.Join(t.TempDir(), "rec.sse")
		o, err := CreateOutput(path, OutputOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o.failAt = full
		rec := NewRecorder(o, sseExchange(), RecordOptions{Format: FormatSSE})
		var werr error
		for i, ev := range strings.SplitAfter(body.String(), "\n\n") {
			if werr = rec.Write([]byte(ev), time.Duration(i)*time.Millisecond); werr != nil {
				break
			}
		}
		o.Close()
		data, _ := os.ReadFile(path)
		if werr == nil {
			continue
		}
		r, err := ParseRecording(data)
		if err != nil && len(data) > 0 {
			t.Fatalf("full at %d: the recording does not read: %v\n%q", full, err, data)
		}
		var got strings.Builder
		if err == nil {
			for _, c := range r.Body {
				got.Write(c.Data)
			}
		}
		if b := stripTimes(got.String()); err == nil && (!strings.HasSuffix(b, "\n\n") && b != "" || !strings.HasPrefix(body.String(), b)) {
			t.Fatalf("full at %d: the recording ends in a cut event: %q", full, b)
		}
	}
}

// stripTimes drops a recording body's timing lines.
func stripTimes(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, timingPrefix) {
			b.WriteString(l)
		}
	}
	return b.String()
}

// harChildEnv names the file TestHARWriterChild writes, in the process
// the tests below start.
const harChildEnv = "STREAMTAP_TEST_HAR_CHILD"

// TestHARWriterChild is the process the tests below kill or limit: it
// writes HAR entries into $STREAMTAP_TEST_HAR_CHILD, small and big in
// turn, for ever or $STREAMTAP_TEST_HAR_ENTRIES of them, and reports on
// stderr each entry not written.
func TestHARWriterChild(t *testing.T) {
	path := os.Getenv(harChildEnv)
	if path == "" {
		t.Skip("run by the tests that kill or limit a HAR writer")
	}
	count, _ := strconv.Atoi(os.Getenv("STREAMTAP_TEST_HAR_ENTRIES"))
	big, _ := strconv.Atoi(os.Getenv("STREAMTAP_TEST_HAR_BIG"))
	o, err := CreateOutput(path, OutputOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	h := NewHAR(o, HAROptions{})
	for n := 1; count == 0 || n <= count; n++ {
		size := 512
		if n%2 == 0 {
			size = big
		}
		e := h.Entry(&Exchange{Method: "POST", URL: fmt.Sprintf("https://api.test/v1/responses?n=%d", n), Status: 200})
		_ = e.Write([]byte(fmt.Sprintf("data: {\"n\":%d,\"pad\":%q}\n\n", n, strings.Repeat("x", size))), NoTime)
		if err := e.Close(NoTime); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	if err := h.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	o.Close()
	os.Exit(0)
}

// harChild starts this test binary as TestHARWriterChild writing path.
func harChild(t *testing.T, path string, entries, big int, shell string) *exec.Cmd {
	t.Helper()
	args := []string{"-test.run=^TestHARWriterChild$"}
	name := os.Args[0]
	if shell != "" {
		args = append([]string{"-c", shell + `; exec "$0" "$@"`, name}, args...)
		name = "/bin/sh"
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), harChildEnv+"="+path, "STREAMTAP_TEST_HAR_ENTRIES="+strconv.Itoa(entries), "STREAMTAP_TEST_HAR_BIG="+strconv.Itoa(big))
	return cmd
}

// TestHARWriterKilled kills a process writing a HAR of big entries
// (SIGKILL) at random moments, inside an entry's write or between two,
// and reads the file back: every entry written before reads, and a cut
// one is said. Before, a kill inside an entry left a file that did not
// parse: every entry lost.
func TestHARWriterKilled(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL")
	}
	t.Parallel()
	rounds, big := 6, 8<<20
	if testing.Short() {
		rounds, big = 2, 2<<20
	}
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	cuts := 0
	for round := range rounds {
		path := filepath.Join(t.TempDir(), "killed.har")
		cmd := harChild(t, path, 0, big, "")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Into the first big entry, then a moment that falls anywhere.
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
			if st, err := os.Stat(path); err == nil && st.Size() > int64(big) || time.Now().After(deadline) {
				break
			}
		}
		time.Sleep(time.Duration(rng.IntN(40_000)) * time.Microsecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a, err := ReadArchive(data, FormatAuto, ArchiveOptions{})
		if err != nil {
			t.Fatalf("round %d: the HAR of a killed writer (%d bytes) does not read: %v\n%s", round, len(data), err, stderr.Bytes())
		}
		if len(a.Entries) < 1 {
			t.Fatalf("round %d: no entry read; want the first, written before the kill at least", round)
		}
		for i, e := range a.Entries {
			if !bytes.HasPrefix(e.Bytes(), []byte(fmt.Sprintf("data: {\"n\":%d,", i+1))) {
				t.Fatalf("round %d: entry %d reads %.40q", round, i+1, e.Bytes())
			}
		}
		if a.Cut != "" {
			cuts++
		}
		if json.Valid(data) == (a.Cut != "") {
			t.Fatalf("round %d: a whole HAR is %v, a cut said is %q", round, json.Valid(data), a.Cut)
		}
	}
	t.Logf("%d of %d kills fell inside an entry", cuts, rounds)
}

// TestHARWriterFileSizeLimit runs a HAR writer under ulimit -f: the
// entries that do not fit are not written, each is named on stderr, the
// ones after a small entry that fits again are, and the file is a whole
// HAR of what was written.
func TestHARWriterFileSizeLimit(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil || runtime.GOOS == "windows" {
		t.Skip("no /bin/sh to set ulimit -f")
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "limited.har")
	// 1024 blocks: 512 KiB (POSIX sh's blocks) or 1 MiB (bash's).
	cmd := harChild(t, path, 7, 400<<10, "ulimit -f 1024")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the limited writer failed: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(path)
	if !json.Valid(data) {
		t.Fatalf("the HAR written under ulimit -f is not whole (%d bytes):\n%s", len(data), out)
	}
	a, err := ReadArchive(data, FormatAuto, ArchiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "not written") || !strings.Contains(string(out), "file too large") || len(a.Entries) < 2 {
		t.Fatalf("%d entries; stderr does not name the entries not written:\n%s", len(a.Entries), out)
	}
	for _, e := range a.Entries {
		n := bytes.TrimPrefix(e.Bytes(), []byte(`data: {"n":`))
		if bytes.Contains(out, []byte(fmt.Sprintf("entry %s (", n[:bytes.IndexByte(n, ',')]))) {
			t.Errorf("entry %s is in the file and said not written:\n%s", n[:bytes.IndexByte(n, ',')], out)
		}
	}
	if !strings.Contains(string(out), "entries not written (entry 2 (POST") {
		t.Errorf("the HAR's Close does not list the entries not written:\n%s", out)
	}
}
