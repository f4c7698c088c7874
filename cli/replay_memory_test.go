package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
)

// `replay --listen` holds none of the recording it serves: it reads it
// from disk for each request. It used to parse it whole and keep it,
// 6.5 times its size (561 MB: 3.68 GB). Here 16 MiB served whole leaves
// the heap as it was, give or take 4 MiB. Not parallel: it measures the
// process's heap.
func TestReplayListenHoldsNoRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: it writes and serves a 16 MiB recording; the full suite runs it")
	}
	var b bytes.Buffer
	x := &capture.Exchange{Status: 200, Proto: "HTTP/1.1", HeadAt: 0,
		ResponseHeader: http.Header{"Content-Type": {sseType}}}
	rec := capture.NewRecorder(&b, x, capture.RecordOptions{Format: capture.FormatSSE})
	ev := []byte("data: {\"type\":\"response.output_text.delta\",\"delta\":\"" + strings.Repeat("x", 1000) + "\"}\n\n")
	for b.Len() < 16<<20 {
		if err := rec.Write(ev, time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(time.Millisecond); err != nil {
		t.Fatal(err)
	}
	size := b.Len()
	path := filepath.Join(t.TempDir(), "big.sse")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b = bytes.Buffer{}

	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	base, warnings, stop := listenReplay(t, path)
	defer stop()
	if base == "" {
		t.Fatalf("replay did not listen: %q", warnings)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base, nil)
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n < int64(size)/2 {
		t.Fatalf("served %d bytes of a %d-byte recording: %v", n, size, err)
	}
	after := heap()
	if grew := int64(after) - int64(before); grew > 4<<20 {
		t.Errorf("serving a recording of %d MiB left the heap %d MiB bigger; want it read from disk, not held (at most 4 MiB)", size>>20, grew>>20)
	}
}
