package model

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// pipelined models data through a Pipeline, fed in small reads.
func pipelined(data []byte, opts Options) *Session {
	s := NewSession(opts)
	p := NewPipeline(s)
	fr := capture.NewFramer(capture.FormatAuto)
	for i := 0; i < len(data); i += 4096 {
		fr.Feed(data[i:min(i+4096, len(data))], capture.NoTime, p.Add)
	}
	fr.Finish(capture.NoTime, p.Add)
	p.Close()
	s.End(nil)
	return s
}

// TestPipelineMatchesAdd: the pipelined session equals the plain one, event
// for event and in its report, on every real capture and on inputs with
// invalid JSON, huge frames and an HTTP head.
func TestPipelineMatchesAdd(t *testing.T) {
	inputs := map[string][]byte{
		"bad json":   []byte("data: {\"a\":\n\ndata: [1]\n\ndata: [DONE]\n\n: c\n\n"),
		"http error": []byte("HTTP/1.1 500 Oops\r\n\r\n{\"error\":{\"message\":\"boom\"}}"),
		"huge frame": append(append([]byte(`data: {"type":"response.output_text.delta","item_id":"m","delta":"`),
			bytes.Repeat([]byte("x"), 3<<20)...), "\"}\n\ndata: {\"type\":\"keepalive\"}\n\n"...),
	}
	if dir, err := filepath.Abs("../../shared/captures"); err == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*.sse"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				inputs[filepath.Base(f)] = b
			}
		}
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			want := Assemble(data, capture.FormatAuto, Options{KeepEvents: true})
			got := pipelined(data, Options{KeepEvents: true})
			if len(got.Events) != len(want.Events) {
				t.Fatalf("%d events; want %d", len(got.Events), len(want.Events))
			}
			for i := range want.Events {
				g, w := got.Events[i], want.Events[i]
				if g.Kind != w.Kind || g.Flags != w.Flags || got.TypeName(g.Type) != want.TypeName(w.Type) || g.Item != w.Item || g.Offset != w.Offset {
					t.Fatalf("event %d = %+v; want %+v", i, g, w)
				}
			}
			gr, _ := json.Marshal(got.Report())
			wr, _ := json.Marshal(want.Report())
			if !bytes.Equal(gr, wr) {
				t.Fatalf("report =\n%s\nwant\n%s", gr, wr)
			}
		})
	}
}
