package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// gatedReader is an archive's file whose reads past the first after
// wait until gate is closed, so that a test can end ctx while the index
// is being read.
type gatedReader struct {
	r     io.ReaderAt
	reads atomic.Int64
	after int64         // reads that pass before the gate
	gate  chan struct{} // closed: every read passes
}

func (g *gatedReader) ReadAt(p []byte, off int64) (int, error) {
	if g.reads.Add(1) > g.after {
		<-g.gate
	}
	return g.r.ReadAt(p, off)
}

// manyEntries is a HAR file of n small SSE sessions.
func manyEntries(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"log":{"creator":{"name":"t"},"entries":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"request":{"method":"POST","url":"https://x.test/%d"},"response":{"status":200,"content":{"mimeType":"text/event-stream","text":"data: {\"n\":%d,\"pad\":\"%s\"}\n\n"}}}`, i, i, strings.Repeat("x", 200))
	}
	b.WriteString("]}}")
	return b.Bytes()
}

// TestOpenArchiveGivesWay: OpenArchive returns ctx's error as soon as ctx
// ends, in the middle of indexing, and the indexing left on its own
// goroutine stops at its next read; Entry and Source of an archive whose
// ctx ended fail the same way. Run it under -race: the index being built
// is never shared. Before, indexing a 100 MB HAR took seconds whatever
// the signal.
func TestOpenArchiveGivesWay(t *testing.T) {
	t.Parallel()
	data := manyEntries(2000)
	for i := range 50 {
		ctx, cancel := context.WithCancel(context.Background())
		g := &gatedReader{r: bytes.NewReader(data), after: int64(1 + i%7), gate: make(chan struct{})}
		done := make(chan error, 1)
		go func() {
			_, err := OpenArchive(ctx, g, int64(len(data)), FormatAuto, ArchiveOptions{Keep: func(*Entry) bool { return true }})
			done <- err
		}()
		time.Sleep(time.Duration(i%3) * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("run %d: OpenArchive = %v; want context.Canceled", i, err)
			}
		case <-time.After(10 * time.Second): // liveness bound, not a speed target
			t.Fatalf("run %d: OpenArchive still runs 10s after its ctx ended, its reads waiting", i)
		}
		before := g.reads.Load()
		close(g.gate) // the abandoned index reads again: each read fails now
		time.Sleep(time.Millisecond)
		if n := g.reads.Load(); n > before+2 {
			t.Fatalf("run %d: the abandoned index went on reading: %d reads after the cancel", i, n-before)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := OpenArchive(ctx, bytes.NewReader(data), int64(len(data)), FormatAuto, ArchiveOptions{})
	if err != nil || a.Len() != 2000 {
		t.Fatalf("OpenArchive = %v, %v; want 2000 entries", a, err)
	}
	if _, err := a.Entry(3); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := a.Entry(3); !errors.Is(err, context.Canceled) {
		t.Errorf("Entry after the cancel = %v; want context.Canceled", err)
	}
	if err := a.Source(4, "s").Read(context.Background(), ReadOptions{}, func(*Frame) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("Source after the cancel reads %v; want context.Canceled", err)
	}
}
