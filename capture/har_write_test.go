package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
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
	f, err := CreateOutput(path, OutputOptions{})
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
	if len(a.Entries) != 3 || !bytes.HasSuffix(data, []byte("}\n]}}\n")) || bytes.HasSuffix(data, []byte("]}}\n]}}\n")) {
		t.Errorf("closed file: %d entries, ends %q", len(a.Entries), data[max(len(data)-12, 0):])
	}
	for i, e := range a.Entries {
		if want := fmt.Sprintf("data: {\"n\":%d}\n\n", i+1); string(e.Bytes()) != want {
			t.Errorf("entry %d body %q; want %q", i, e.Bytes(), want)
		}
	}
}

// memFile is a file in memory written in place by a HAR, which keeps
// every state a process killed at any moment could leave: after each
// append, patch and cut, and inside each append, after every byte.
type memFile struct {
	data   []byte
	states [][]byte
}

func (m *memFile) Append(p []byte) error {
	// The empty HAR is one small write(2), which a signal does not cut;
	// before it the file is empty, which no writer can help.
	for k := 0; k < len(p) && len(m.data) > 0; k++ {
		m.states = append(m.states, append(bytes.Clone(m.data), p[:k]...))
	}
	m.data = append(m.data, p...)
	m.states = append(m.states, bytes.Clone(m.data))
	return nil
}

func (m *memFile) Size() int64 { return int64(len(m.data)) }

func (m *memFile) Write(p []byte) (int, error) { return len(p), m.Append(p) }

func (m *memFile) patch(p []byte, off int64) error {
	copy(m.data[off:], p)
	m.states = append(m.states, bytes.Clone(m.data))
	return nil
}

func (m *memFile) cut(n int64) error {
	m.data = m.data[:n]
	m.states = append(m.states, bytes.Clone(m.data))
	return nil
}

// TestHARKilledAnywhere: a HAR written in place reads back at every
// moment a process can be killed, inside a write included (SIGKILL, a
// second signal during a 300 MB entry): never empty, the entries written
// before whole, a cut entry said and not read, an entry written whole but
// not yet linked in read too. Before, the file was cut mid-entry and no
// entry of it could be read.
func TestHARKilledAnywhere(t *testing.T) {
	t.Parallel()
	var f memFile
	h := NewHAR(&f, HAROptions{})
	if len(f.data) == 0 {
		t.Fatal("a new HAR wrote nothing: a process killed now leaves an empty file")
	}
	for n := 1; n <= 3; n++ {
		writeHAREntry(t, h, n, fmt.Sprintf("data: {\"n\":%d}\n\n", n))
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	last, whole := 0, 0
	for i, state := range f.states {
		a, err := ReadArchive(state, FormatAuto, ArchiveOptions{})
		if err != nil {
			t.Fatalf("state %d (%d bytes) does not read: %v\n%q", i, len(state), err, state)
		}
		if len(a.Entries) < last {
			t.Fatalf("state %d: %d entries, fewer than the %d before", i, len(a.Entries), last)
		}
		last = len(a.Entries)
		if json.Valid(state) {
			whole++
			if a.Cut != "" {
				t.Fatalf("state %d is a whole HAR, read as cut: %s", i, a.Cut)
			}
		} else if a.Cut == "" {
			t.Fatalf("state %d is not a whole HAR, read without saying so", i)
		}
		for k, e := range a.Entries {
			if want := fmt.Sprintf("data: {\"n\":%d}\n\n", k+1); string(e.Bytes()) != want {
				t.Fatalf("state %d: entry %d reads %q; want %q", i, k+1, e.Bytes(), want)
			}
		}
	}
	if last != 3 || whole < 4 {
		t.Errorf("the closed file holds %d entries, %d whole states; want 3 and 4 at least", last, whole)
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

// TestHARDiskFull: on a disk that fills at any size, each entry is
// written whole or not at all; the file is a whole HAR of the entries
// written after every one; an entry not written is named by its Close
// and by the HAR's, and once there is room again the next ones are
// written. Before, a failed write left the file cut mid-entry.
func TestHARDiskFull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for full := int64(1); full < 2200; full += 37 {
		path := filepath.Join(dir, fmt.Sprintf("full-%d.har", full))
		f, err := CreateOutput(path, OutputOptions{})
		if err != nil {
			t.Fatal(err)
		}
		f.failAt = full
		h := NewHAR(f, HAROptions{})
		if h.Err() != nil {
			// Not even the empty HAR fits: the file stays empty, and every
			// entry says why.
			werr := h.Entry(nil).Close(NoTime)
			if data, _ := os.ReadFile(path); len(data) != 0 || !errors.Is(werr, syscall.ENOSPC) || !errors.Is(h.Close(), syscall.ENOSPC) {
				t.Errorf("full at %d: the empty HAR did not fit, yet the file holds %q, an entry's error is %v", full, data, werr)
			}
			f.Close()
			continue
		}
		var written, lost []int
		for n := 1; n <= 4; n++ {
			if n == 4 {
				f.failAt = 0 // room again
			}
			x := &Exchange{Method: "POST", URL: fmt.Sprintf("https://api.test/v1/responses?n=%d", n), Status: 200}
			e := h.Entry(x)
			_ = e.Write([]byte(fmt.Sprintf("data: {\"n\":%d,\"pad\":%q}\n\n", n, strings.Repeat("x", 200*n))), NoTime)
			err := e.Close(NoTime)
			if err == nil {
				written = append(written, n)
			} else {
				lost = append(lost, n)
				if want := fmt.Sprintf("entry %d (POST https://api.test/v1/responses?n=%d) not written", n, n); !strings.Contains(err.Error(), want) ||
					!errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("full at %d: entry %d: error %v; want it to say %q (ENOSPC)", full, n, err, want)
				}
			}
			data, _ := os.ReadFile(path)
			if !json.Valid(data) {
				t.Fatalf("full at %d: after entry %d the file is not a whole HAR:\n%q", full, n, data)
			}
			a, err := ReadArchive(data, FormatAuto, ArchiveOptions{})
			if err != nil || len(a.Entries) != len(written) {
				t.Fatalf("full at %d: after entry %d the file reads %v, %v; want %d entries", full, n, a, err, len(written))
			}
		}
		cerr := h.Close()
		f.Close()
		if len(lost) > 0 {
			want := fmt.Sprintf("%d of 4 entries not written (entry %d (POST", len(lost), lost[0])
			if cerr == nil || !strings.Contains(cerr.Error(), want) {
				t.Errorf("full at %d: Close = %v; want it to say %q", full, cerr, want)
			}
		} else if cerr != nil {
			t.Errorf("full at %d: Close = %v", full, cerr)
		}
		if !slices.Contains(written, 4) {
			t.Errorf("full at %d: with room again, entry 4 was not written (written %v)", full, written)
		}
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
