package capture

import (
	"bytes"
	"fmt"
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
