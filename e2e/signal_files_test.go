package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
)

// TestSignalBigSaveHAR: a command writing a big --save-har entry (the
// stream being read is its whole capture, hundreds of MB) ends within
// exitWithin of the signal by itself, and the HAR is whole: its entry
// holds the start of what was read, the whole of it when the time
// allowed, else cut at an event and said so, in the entry's comment and
// on stderr. It used to encode the whole entry after the signal (seconds
// for 150 MB, up to the watch's 10 s).
func TestSignalBigSaveHAR(t *testing.T) {
	t.Parallel()
	// The stream stays open: its entry, all 150 MB of it, is written
	// once the signal ends the read.
	data := bigCapture(t, 150<<20)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	s := saved{t.TempDir()}
	r := start(t, pr, "timeline", "-", "--save", s.path("raw"), "--save-har", s.path("har"))
	pr.Close()
	go func() { _, _ = pw.Write(data) }()
	r.stop(syscall.SIGINT, s.holds(data))
	checkHARPrefix(t, r, s)
}

// checkHARPrefix fails t unless the HAR s holds reads whole, with one
// entry whose body starts what --save holds (all of it, unless the
// entry was cut, which stderr and the entry's comment then say).
func checkHARPrefix(t *testing.T, r *running, s saved) {
	t.Helper()
	raw, err := os.ReadFile(s.path("raw"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.path("har"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := capture.ReadArchive(b, capture.FormatHAR, capture.ArchiveOptions{})
	switch {
	case err != nil:
		t.Fatalf("--save-har does not read (%d bytes): %v", len(b), err)
	case a.Cut != "":
		t.Errorf("--save-har was left cut: %s", a.Cut)
	case len(a.Entries) != 1:
		t.Fatalf("--save-har holds %d entries; want 1", len(a.Entries))
	}
	body := a.Entries[0].Bytes()
	if !bytes.HasPrefix(raw, body) {
		t.Fatalf("the entry's body (%d bytes) is not the start of the %d read", len(body), len(raw))
	}
	cut := strings.Contains(r.stderr.String(), "cut when SIG")
	if len(body) < len(raw) != cut || cut != bytes.Contains(b, []byte(`"comment":"cut when SIG`)) {
		t.Errorf("the entry keeps %d of %d bytes read; stderr and the comment must say so when (only when) it is cut:\n%s", len(body), len(raw), r.stderr.String())
	}
	t.Logf("the entry keeps %d of %d bytes read", len(body), len(raw))
}

// TestSignalArchiveLoading: an archive being indexed (a HAR file of
// 60 MB of small sessions, or one of a single 150 MB session) or its
// session being read stops within exitWithin of the signal with status
// 130, and its --save-har file, once made, reads. Indexing took seconds
// and never looked at the signal.
func TestSignalArchiveLoading(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	many, one := filepath.Join(dir, "many.har"), filepath.Join(dir, "one.har")
	writeHAR(t, many, 8000, 1)
	writeHAR(t, one, 1, 150<<20)
	for i, c := range []struct {
		name string
		args []string
		wait time.Duration
	}{
		{"many sessions, indexed", []string{"calls", many}, 300 * time.Millisecond},
		{"many sessions, indexed by check", []string{"check", many}, 300 * time.Millisecond},
		{"one big session", []string{"calls", one}, 300 * time.Millisecond},
		{"one big session, read", []string{"events", one}, 1500 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := saved{t.TempDir()}
			r := start(t, nil, append(c.args, "--save-har", s.path("har"))...)
			time.Sleep(c.wait)
			r.stop(sigFor(i), func() bool { return true })
			var ee *exec.ExitError
			if !errors.As(r.err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("exit: %v; want status 130 (interrupted)\n%s", r.err, r.stderr.String())
			}
			if b, err := os.ReadFile(s.path("har")); err == nil {
				if _, err := capture.ReadArchive(b, capture.FormatHAR, capture.ArchiveOptions{}); err != nil {
					t.Errorf("--save-har does not read (%d bytes): %v", len(b), err)
				}
			}
		})
	}
}

// TestSignalArchiveOnSilentPipe: an archive read from standard input
// (--format har), whose pipe stays open and silent, stops at the signal
// with status 130. Its read waited for the pipe to end, until the watch.
func TestSignalArchiveOnSilentPipe(t *testing.T) {
	t.Parallel()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	r := start(t, pr, "calls", "--format", "har", "-")
	pr.Close()
	if _, err := pw.Write([]byte(`{"log":{"entries":[`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	r.stop(syscall.SIGTERM, func() bool { return true })
	var ee *exec.ExitError
	if !errors.As(r.err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit: %v; want status 130 (interrupted)\n%s", r.err, r.stderr.String())
	}
}

// writeHAR writes a HAR file of n sessions of a Responses stream, each
// of about size bytes.
func writeHAR(t *testing.T, path string, n, size int) {
	t.Helper()
	text, err := json.Marshal(string(bigCapture(t, size)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(`{"log":{"version":"1.2","creator":{"name":"test","version":""},"entries":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"startedDateTime":"2026-01-01T00:00:00Z","request":{"method":"POST","url":"https://api.openai.com/v1/responses?n=%d",`+
			`"postData":{"mimeType":"application/json","text":"{\"model\":\"gpt-5\",\"stream\":true}"}},`+
			`"response":{"status":200,"content":{"mimeType":"text/event-stream","text":%s}}}`, i, text)
	}
	b.WriteString("]}}\n")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
