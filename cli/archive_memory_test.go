package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// An archive of many small sessions is read a session at a time from its
// file: what loadArchive keeps is where each session is, a few bytes
// each, not the file, its parse and its entries (2.9 to 3.5 times the
// file). Here 13 MB of HAR and of cassette each leave the heap within
// 4 MiB of where it was, and so does the HAR piped in (--format har -),
// which is read from a temporary copy, not held in memory. Not parallel:
// it measures the process's heap.
func TestArchiveHeldAsAnIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: it writes and indexes two archives of 13 MB; the full suite runs it")
	}
	const n = 8000
	body := "data: {\"type\":\"response.output_text.delta\",\"delta\":\"" + strings.Repeat("x", 1500) + "\"}\n\n"
	var har, cas strings.Builder
	har.WriteString(`{"log":{"creator":{"name":"x"},"entries":[`)
	cas.WriteString("interactions:\n")
	for i := range n {
		if i > 0 {
			har.WriteString(",")
		}
		fmt.Fprintf(&har, `{"request":{"method":"POST","url":"https://api.openai.com/v1/responses","postData":{"mimeType":"application/json","text":"{\"model\":\"gpt-%d\"}"}},`+
			`"response":{"status":200,"content":{"mimeType":"text/event-stream","text":%q}}}`, i, body)
		fmt.Fprintf(&cas, "- request:\n    method: POST\n    uri: https://api.openai.com/v1/responses\n    body: '{\"model\":\"gpt-%d\"}'\n"+
			"  response:\n    status: {code: 200}\n    headers: {Content-Type: [text/event-stream]}\n    body: {string: %q}\n", i, body)
	}
	har.WriteString("]}}")
	dir := t.TempDir()
	heap := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	for _, c := range []struct{ name, text string }{{"sessions.har", har.String()}, {"cassette.yaml", cas.String()}, {"stdin", ""}} {
		name, path, o := c.name, filepath.Join(dir, c.name), options{input: filepath.Join(dir, c.name)}
		var stdin *os.File
		if name == "stdin" {
			f, err := os.Open(filepath.Join(dir, "sessions.har"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			stdin, o = f, options{input: "-", format: capture.FormatHAR}
		} else if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		size := len(c.text)
		if stdin != nil {
			st, err := stdin.Stat()
			if err != nil {
				t.Fatal(err)
			}
			size = int(st.Size())
		}
		har, cas = strings.Builder{}, strings.Builder{}
		before := heap()
		ar, err := loadArchive(context.Background(), o, stdin)
		if err != nil {
			t.Fatal(err)
		}
		grew := heap() - before
		if got := sessionCount(ar); got != n {
			t.Fatalf("%s: %d sessions; want %d", name, got, n)
		}
		if grew > 4<<20 {
			t.Errorf("%s (%d MB, %d sessions): the archive read holds %d MiB; want an index of where its sessions are (at most 4 MiB)", name, size>>20, n, grew>>20)
		}
		runtime.KeepAlive(ar)
	}
}

// sessionCount is how many sessions an archive read holds.
func sessionCount(ar *archiveInput) int { return ar.len() }
