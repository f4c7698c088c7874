package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// framesOf frames in as format and returns each frame's kind, data and
// flags.
func framesOf(t *testing.T, format Format, in string) []Frame {
	t.Helper()
	var out []Frame
	fr := NewFramer(format)
	keep := func(f *Frame) {
		g := f.Detach()
		g.Raw = append([]byte(nil), f.Raw...)
		out = append(out, g)
	}
	fr.Feed([]byte(in), NoTime, keep)
	fr.Finish(NoTime, keep)
	return out
}

// A Chat chunks file ends with the [DONE] vercel/ai's harness appends, as
// an Implied frame that covers no bytes; Responses and Anthropic chunks,
// which end with their own terminal event, get none.
func TestChunksImpliedDone(t *testing.T) {
	t.Parallel()
	chat, err := os.ReadFile(filepath.Join("testdata", "import", "chat-azure-model-router__vercel-ai.chunks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   string
		done bool
	}{
		{"chat fixture", string(chat), true},
		{"chat with trailing newline and blank lines", "{\"object\":\"chat.completion.chunk\"}\n\n\n", true},
		{"gemini", "{\"candidates\":[{\"finishReason\":\"STOP\"}]}\n", true},
		{"responses", "{\"type\":\"response.completed\",\"response\":{}}\n", false},
		{"anthropic, type not first", "{\"index\":0,\"type\":\"message_stop\"}", false},
		{"already done", "{\"object\":\"chat.completion.chunk\"}\n[DONE]\n", false},
		{"empty", "", false},
		{"blank", "\n\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := framesOf(t, FormatChunks, tt.in)
			jsonl := framesOf(t, FormatJSONL, tt.in)
			n := len(jsonl)
			if tt.done {
				n++
			}
			if len(fs) != n {
				t.Fatalf("%d frames; want %d (JSON lines' %d, plus [DONE]: %v)", len(fs), n, len(jsonl), tt.done)
			}
			if !tt.done {
				return
			}
			last := fs[len(fs)-1]
			if string(last.Data) != "[DONE]" || last.Flags&Implied == 0 || last.Start != int64(len(tt.in)) || last.End != last.Start || len(last.Raw) != 0 {
				t.Errorf("last frame = %+v; want an implied [DONE] at the end covering no bytes", last)
			}
		})
	}
	if got, _ := ParseFormat("chunks"); got != FormatChunks {
		t.Errorf("ParseFormat(chunks) = %v", got)
	}
	if !strings.Contains(FormatChunks.String(), "chunks") || !FormatHAR.IsArchive() || !FormatCassette.IsArchive() || FormatChunks.IsArchive() {
		t.Error("format names or IsArchive wrong")
	}
}
