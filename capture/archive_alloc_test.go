package capture

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Reading an archive's session allocates about what its bytes and frames
// take, not a read buffer: its body is in memory already. Before, each
// session cleared a 256 KiB buffer it never used, and an archive of
// 25,000 small sessions kept the collector running without pause (6 GB
// allocated for a 50 MB file). Not parallel: it counts the process's
// allocations.
func TestArchiveSessionAllocatesNoReadBuffer(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"log":{"entries":[`)
	const n = 200
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"request":{"method":"POST","url":"https://api.openai.com/v1/responses","postData":{"mimeType":"application/json","text":"{\"model\":\"m\"}"}},`+
			`"response":{"status":200,"content":{"mimeType":"text/event-stream","text":"data: {\"type\":\"response.created\",\"sequence_number\":%d}\n\n"}}}`, i)
	}
	b.WriteString(`]}}`)
	a := readArchive(t, []byte(b.String()), ArchiveOptions{})
	if len(a.Entries) != n {
		t.Fatalf("%d entries; want %d", len(a.Entries), n)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	frames := 0
	for i := range a.Entries {
		err := a.Entries[i].Source("x").Read(context.Background(), ReadOptions{}, func(*Frame) error {
			frames++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if frames < 2*n {
		t.Fatalf("%d frames from %d sessions; want a head and an event each", frames, n)
	}
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 32<<10 {
		t.Errorf("reading a session of about 300 bytes allocated %d bytes; want no read buffer (under 32 KiB)", per)
	}
}
