package capture

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadIsIncremental writes events into a pipe one at a time and
// expects each frame before the next write: a live stream shows events as
// they come, not at EOF.
func TestReadIsIncremental(t *testing.T) {
	pr, pw := io.Pipe()
	src := FromReader("pipe", SourceStdin, pr, true)
	got := make(chan string)
	done := make(chan error, 1)
	go func() {
		done <- src.Read(t.Context(), ReadOptions{}, func(f *Frame) error {
			got <- string(f.Data)
			return nil
		})
	}()
	for _, ev := range []string{"one", "two", "three"} {
		// The blank line ends with a CR split from its LF: the frame must
		// still come once the LF arrives.
		if _, err := io.WriteString(pw, "data: "+ev+"\r\n\r"); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(pw, "\n"); err != nil {
			t.Fatal(err)
		}
		if f := <-got; f != ev {
			t.Fatalf("frame %q; want %q before more input", f, ev)
		}
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatalf("Read = %v", err)
	}
}

type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		r.n++
		return copy(p, "data: a\n\ndata: b"), nil
	}
	return 0, errors.New("connection reset")
}

// TestReadErrorKeepsFrames: a failing reader still yields what arrived,
// including the partial last event, and an error naming the offset.
func TestReadErrorKeepsFrames(t *testing.T) {
	src := FromReader("net", SourceStdin, &failingReader{}, true)
	var frames []string
	err := src.Read(t.Context(), ReadOptions{}, func(f *Frame) error {
		frames = append(frames, string(f.Data))
		return nil
	})
	var re *ReadError
	if !errors.As(err, &re) || re.Offset != 16 || !strings.Contains(err.Error(), "at byte 16") {
		t.Fatalf("Read = %v; want a ReadError at byte 16", err)
	}
	if strings.Join(frames, ",") != "a,b" {
		t.Fatalf("frames = %q; want a,b", frames)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, os.Stdin); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("Open(dir) = %v", err)
	}
	p := filepath.Join(dir, "x.sse")
	if err := os.WriteFile(p, []byte("data: 1\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(p, os.Stdin)
	if err != nil || src.Timed || src.ReaderAt() == nil {
		t.Fatalf("Open(file) = %+v, %v; want an untimed source with random access", src, err)
	}
	src.Close()
}
