package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slowFile is a file in memory written in place at a pace of perMiB a
// megabyte, as a loaded disk takes a big entry.
type slowFile struct {
	data   []byte
	perMiB time.Duration
	took   *time.Duration // the time the appends took
}

func (f *slowFile) Append(p []byte) error {
	start := time.Now()
	time.Sleep(time.Duration(float64(f.perMiB) * float64(len(p)) / (1 << 20)))
	f.data = append(f.data, p...)
	if f.took != nil {
		*f.took += time.Since(start)
	}
	return nil
}
func (f *slowFile) Size() int64                     { return int64(len(f.data)) }
func (f *slowFile) Write(p []byte) (int, error)     { return len(p), f.Append(p) }
func (f *slowFile) patch(p []byte, off int64) error { copy(f.data[off:], p); return nil }
func (f *slowFile) cut(n int64) error               { f.data = f.data[:n]; return nil }

// events is an SSE body of n events of about size bytes each, timed by
// their number when timed.
func events(n, size int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "event: e\nid: %d\ndata: {\"n\":%d,\"pad\":%q}\n\n", i, i, strings.Repeat("\"x\\é", size/5))
	}
	return b.Bytes()
}

// writeTimed writes body as one entry, a piece per event each timed a
// millisecond later, hurried to end hurry after it closes (0: not).
func writeTimed(t *testing.T, h *HAR, body []byte, hurry time.Duration) error {
	t.Helper()
	x := &Exchange{Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Method: "POST", URL: "https://api.test/v1/responses",
		Status: 200, HeadAt: time.Millisecond}
	e := h.Entry(x)
	for i, ev := range bytes.SplitAfter(body, []byte("\n\n")) {
		if err := e.Write(ev, time.Duration(i+2)*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if hurry != 0 {
		h.Hurry(time.Now().Add(hurry), "TEST came")
	}
	return e.Close(NoTime)
}

// TestHARHurry: past the deadline Hurry sets, a big entry is cut where
// the time runs out, at the end of an event: the file reads whole, the
// entry's body is the start of the stream with the messages of the
// events it holds (so they keep their times), and its comment and Cuts
// say what was kept. Before the deadline, or without one, it is whole;
// a small entry is never cut.
func TestHARHurry(t *testing.T) {
	t.Parallel()
	body := events(2000, 2500) // about 5 MB of body, 8 of text, 2000 messages
	for _, c := range []struct {
		name   string
		perMiB time.Duration
		by     time.Duration // after now; 0: no Hurry
		body   []byte
		cut    bool
		some   bool // a cut keeps part of the body
	}{
		{"not hurried", 2 * time.Millisecond, 0, body, false, false},
		{"hurried, in time", 0, time.Hour, body, false, false},
		{"deadline passed", 0, -time.Second, body, true, false},
		{"slow disk", 20 * time.Millisecond, 150 * time.Millisecond, body, true, true},
		{"small entry, deadline passed", 0, -time.Second, events(3, 100), false, false},
		{"binary, deadline passed", 0, -time.Second, append(bytes.Repeat([]byte{0xff, 0, 1}, 1<<20), body...), true, false},
		{"binary, slow disk", 20 * time.Millisecond, 150 * time.Millisecond, append(bytes.Repeat([]byte{0xff, 0, 1}, 1<<20), body...), true, true},
		{"text then binary, slow disk", 20 * time.Millisecond, 150 * time.Millisecond, append(body[:len(body):len(body)], 0xff), true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := &slowFile{perMiB: c.perMiB}
			h := NewHAR(f, HAROptions{})
			var took time.Duration
			f.took = &took
			if err := writeTimed(t, h, c.body, c.by); err != nil {
				t.Fatal(err)
			}
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(f.data) {
				t.Fatalf("the HAR is not JSON")
			}
			a, err := ReadArchive(f.data, FormatAuto, ArchiveOptions{})
			if err != nil || len(a.Entries) != 1 || a.Cut != "" {
				t.Fatalf("the HAR reads %v, %v", a, err)
			}
			e := a.Entries[0]
			got := e.Bytes()
			cuts := h.Cuts()
			switch {
			case !bytes.HasPrefix(c.body, got):
				t.Fatalf("the entry's body (%d bytes) is not the start of the stream (%d)", len(got), len(c.body))
			case c.cut != (len(got) < len(c.body)) || c.cut != (len(cuts) == 1) || c.cut != bytes.Contains(f.data, []byte(`"comment":"cut when TEST came: the body's first `)):
				t.Fatalf("cut: body %d of %d bytes, Cuts %q; want cut %v", len(got), len(c.body), cuts, c.cut)
			case c.cut && !strings.Contains(cuts[0], fmt.Sprintf("the body's first %d of %d bytes are kept", len(got), len(c.body))):
				t.Errorf("Cuts %q; want it to say %d of %d bytes", cuts, len(got), len(c.body))
			case c.cut && c.some != (len(got) > 0):
				t.Errorf("the cut kept %d bytes; want some: %v", len(got), c.some)
			case c.cut && c.by > 0 && took > c.by+harGrace+100*time.Millisecond:
				t.Errorf("the entry took %v, past its deadline of %v", took, c.by)
			}
			if len(got) > 0 && got[0] == 'e' {
				// A text body keeps one message per event it holds, so
				// each event keeps its time.
				for k, ch := range e.Body {
					if ch.At == NoTime {
						t.Fatalf("chunk %d of %d has no time: the messages do not match the events kept (%q)", k, len(e.Body), cuts)
					}
				}
			}
			t.Logf("kept %d of %d bytes in %v: %q", len(got), len(c.body), took.Round(time.Millisecond), cuts)
		})
	}
}

// TestHARBigEntryDiskFull: an entry written in pieces (over harPieces)
// that fails part way is cut off whole again: the file reads as the
// entries before it, and the next entry is written when there is room.
func TestHARBigEntryDiskFull(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "full.har")
	f, err := CreateOutput(path, OutputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := NewHAR(f, HAROptions{})
	writeHAREntry(t, h, 1, "data: {\"n\":1}\n\n")
	f.failAt = f.Size() + 6<<20
	err = writeTimed(t, h, events(2000, 2500), 0)
	if err == nil || !strings.Contains(err.Error(), "entry 2 (POST https://api.test/v1/responses) not written") {
		t.Fatalf("a big entry past a full disk: %v", err)
	}
	data, _ := os.ReadFile(path)
	if a, err := ReadArchive(data, FormatAuto, ArchiveOptions{}); err != nil || len(a.Entries) != 1 || a.Cut != "" || !json.Valid(data) {
		t.Fatalf("after the failed entry the file reads %v, %v (%d bytes)", a, err, len(data))
	}
	f.failAt = 0
	e := h.Entry(nil)
	if err := e.Write([]byte("data: 3\n\n"), NoTime); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(NoTime); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err == nil || !strings.Contains(err.Error(), "1 of 3 entries not written (entry 2 (POST") {
		t.Errorf("Close = %v; want the entry not written named", err)
	}
	data, _ = os.ReadFile(path)
	if a, err := ReadArchive(data, FormatAuto, ArchiveOptions{}); err != nil || len(a.Entries) != 2 {
		t.Fatalf("with room again the file reads %v, %v", a, err)
	}
}

// TestHARHurryStream: a HAR written to a stream (a pipe) is cut the same
// way past the deadline, and is one whole document at Close.
func TestHARHurryStream(t *testing.T) {
	t.Parallel()
	var w bytes.Buffer
	h := NewHAR(&w, HAROptions{})
	writeHAREntry(t, h, 1, "data: {\"n\":1}\n\n")
	body := events(2000, 2500)
	if err := writeTimed(t, h, body, -time.Second); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	a := readHARBack(t, &w)
	if len(a.Entries) != 2 || len(a.Entries[1].Bytes()) != 0 || len(h.Cuts()) != 1 || !strings.Contains(w.String(), `"comment":"cut when TEST came: the body's first 0 of `) {
		t.Errorf("entries %d, the second's body %d bytes, cuts %q", len(a.Entries), len(a.Entries[1].Bytes()), h.Cuts())
	}
}
