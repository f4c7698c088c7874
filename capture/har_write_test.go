package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// writeHAREntry writes one entry of an SSE body through h, as a Source's
// tap does.
func writeHAREntry(t *testing.T, h *HAR, n int, body string) {
	t.Helper()
	x := &Exchange{Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Method: "POST",
		URL: fmt.Sprintf("https://api.test/v1/responses?n=%d", n), Status: 200, HeadAt: time.Millisecond}
	e := h.Entry(x)
	if err := e.Write([]byte(body), 2*time.Millisecond); err != nil {
		t.Error(err)
	}
	if err := e.Close(3 * time.Millisecond); err != nil {
		t.Error(err)
	}
}

// Written to a file, the HAR is a whole document after every entry, so a
// proxy that is killed leaves one that reads; Close adds nothing twice.
func TestHARFileCompleteAfterEachEntry(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.har")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := NewHAR(f, HAROptions{})
	for n := 1; n <= 3; n++ {
		writeHAREntry(t, h, n, fmt.Sprintf("data: {\"n\":%d}\n\n", n))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if a := readHARBack(t, bytes.NewBuffer(data)); len(a.Entries) != n {
			t.Fatalf("after entry %d the file reads as %d entries", n, len(a.Entries))
		}
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	a := readHARBack(t, bytes.NewBuffer(data))
	if len(a.Entries) != 3 || !bytes.HasSuffix(data, []byte("}]}}\n")) || bytes.HasSuffix(data, []byte("]}}\n]}}\n")) {
		t.Errorf("closed file: %d entries, ends %q", len(a.Entries), data[max(len(data)-12, 0):])
	}
	for i, e := range a.Entries {
		if want := fmt.Sprintf("data: {\"n\":%d}\n\n", i+1); string(e.Bytes()) != want {
			t.Errorf("entry %d body %q; want %q", i, e.Bytes(), want)
		}
	}
}

// seekRecorder is a file in memory that keeps what it held after each
// write: the states a process killed between two writes could leave.
type seekRecorder struct {
	data   []byte
	pos    int
	states [][]byte
}

func (r *seekRecorder) Write(p []byte) (int, error) {
	if end := r.pos + len(p); end > len(r.data) {
		r.data = append(r.data, make([]byte, end-len(r.data))...)
	}
	r.pos += copy(r.data[r.pos:], p)
	r.states = append(r.states, bytes.Clone(r.data))
	return len(p), nil
}

func (r *seekRecorder) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		r.pos = int(off)
	case io.SeekCurrent:
		r.pos += int(off)
	case io.SeekEnd:
		r.pos = len(r.data) + int(off)
	}
	if r.pos < 0 {
		return 0, fmt.Errorf("seek to %d", r.pos)
	}
	return int64(r.pos), nil
}

// A HAR written to a file is a whole document at every moment a process
// can be killed: before its first entry (it was empty) and between any two
// writes (the comma and the closing brackets were separate writes, so a
// kill between them left a file that did not parse).
func TestHARFileNeverEmptyOrCut(t *testing.T) {
	t.Parallel()
	var f seekRecorder
	h := NewHAR(&f, HAROptions{})
	if len(f.states) == 0 {
		t.Fatal("a new HAR wrote nothing: a process killed now leaves an empty file")
	}
	for n := 1; n <= 3; n++ {
		writeHAREntry(t, h, n, fmt.Sprintf("data: {\"n\":%d}\n\n", n))
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	last := -1
	for i, state := range f.states {
		if !json.Valid(state) {
			t.Fatalf("after write %d the file is not JSON: %q", i+1, state)
		}
		a, err := ReadArchive(state, FormatAuto, ArchiveOptions{})
		if err != nil {
			t.Fatalf("after write %d: %v", i+1, err)
		}
		if len(a.Entries) < last {
			t.Fatalf("after write %d: %d entries, fewer than the %d before", i+1, len(a.Entries), last)
		}
		last = len(a.Entries)
	}
	if last != 3 {
		t.Errorf("the closed file holds %d entries; want 3", last)
	}
	var pipe bytes.Buffer // what a pipe gets: the same document, once
	p := NewHAR(&pipe, HAROptions{})
	for n := 1; n <= 3; n++ {
		writeHAREntry(t, p, n, fmt.Sprintf("data: {\"n\":%d}\n\n", n))
	}
	_ = p.Close()
	if !bytes.Equal(f.data, pipe.Bytes()) {
		t.Errorf("the file and the pipe differ:\nfile %q\npipe %q", f.data, pipe.Bytes())
	}
}

// Entries closed from many goroutines at once are each written whole.
func TestHARConcurrentEntries(t *testing.T) {
	t.Parallel()
	var w bytes.Buffer
	h := NewHAR(&w, HAROptions{})
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			writeHAREntry(t, h, i, fmt.Sprintf("data: {\"n\":%d,\"pad\":%q}\n\n", i, bytes.Repeat([]byte("x"), 4096*i)))
		})
	}
	wg.Wait()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	a := readHARBack(t, &w)
	if len(a.Entries) != n {
		t.Fatalf("%d entries; want %d", len(a.Entries), n)
	}
	seen := map[string]bool{}
	for _, e := range a.Entries {
		seen[e.URL] = true
		if e.Status != 200 || !bytes.HasPrefix(e.Bytes(), []byte(`data: {"n":`)) {
			t.Errorf("entry %s: status %d, body starts %q", e.URL, e.Status, e.Bytes()[:min(20, len(e.Bytes()))])
		}
	}
	if len(seen) != n {
		t.Errorf("%d distinct entries of %d", len(seen), n)
	}
}
