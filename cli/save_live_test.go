package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// slowReader hands out its parts one read at a time, a pause between
// them, as a live stream arrives.
type slowReader struct {
	parts [][]byte
	pause time.Duration
}

func (r *slowReader) Read(p []byte) (int, error) {
	if len(r.parts) == 0 {
		return 0, io.EOF
	}
	time.Sleep(r.pause)
	n := copy(p, r.parts[0])
	r.parts[0] = r.parts[0][n:]
	if len(r.parts[0]) == 0 {
		r.parts = r.parts[1:]
	}
	return n, nil
}

// TestSaveLiveIsTimed: w on live input writes a timed recording of what
// was read, each event with its arrival time, named by its absolute path;
// on a file it writes the bytes, named the same way. Before, w wrote the
// bytes of live input without their times, under a relative name.
func TestSaveLiveIsTimed(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	parts := [][]byte{
		[]byte("data: {\"a\":1}\n\n"),
		[]byte("data: {\"a\":2}\n\n"),
		[]byte("data: {\"a\":3}\n\n"),
	}
	var whole []byte
	for _, p := range parts {
		whole = append(whole, p...)
	}
	firstTwo := int64(len(parts[0]) + len(parts[1]))
	src := capture.FromReader("stdin", capture.SourceStdin, &slowReader{parts: parts, pause: 5 * time.Millisecond}, true)
	times := new(readTimes)
	src.Record(times)
	store := new(capture.Store)
	if err := src.Read(context.Background(), capture.ReadOptions{Keep: store}, func(*capture.Frame) error { return nil }); err != nil {
		t.Fatal(err)
	}
	path, err := saver(store, src, times, options{})(store.Size())
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(path) || filepath.Dir(path) != dir && !strings.HasSuffix(filepath.Dir(path), filepath.Base(dir)) {
		t.Errorf("saved to %q; want an absolute path in %s", path, dir)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := capture.ParseRecording(data)
	if err != nil {
		t.Fatalf("live input should be saved as a timed recording: %v\n%s", err, data)
	}
	if string(rec.Bytes()) != string(whole) {
		t.Errorf("recorded body %q; want %q", rec.Bytes(), whole)
	}
	if len(rec.Body) != 3 {
		t.Fatalf("%d recorded events; want 3", len(rec.Body))
	}
	for i := 1; i < len(rec.Body); i++ {
		if rec.Body[i].At == capture.NoTime || rec.Body[i].At <= rec.Body[i-1].At {
			t.Errorf("event %d at %v after %v; want increasing arrival times", i, rec.Body[i].At, rec.Body[i-1].At)
		}
	}

	// Part of it: the first two events.
	path2, err := saver(store, src, times, options{})(firstTwo)
	if err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path2)
	if rec, err := capture.ParseRecording(data); err != nil || len(rec.Body) != 2 || path2 == path {
		t.Errorf("the first two events, in a file of their own (%s): %v, %+v", path2, err, rec)
	}

	// Input that is not live: its bytes, by absolute path.
	path3, err := saver(strings.NewReader(string(whole)), src, nil, options{})(int64(len(whole)))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path3); !filepath.IsAbs(path3) || string(got) != string(whole) {
		t.Errorf("a file's save %q holds %q", path3, got)
	}
}

// TestSaveLiveEventStream: a Bedrock stream read live is saved as a timed
// recording that gives its binary bytes back exactly, named .eventstream.
func TestSaveLiveEventStream(t *testing.T) {
	t.Chdir(t.TempDir())
	data, err := samples.Open("bedrock-converse-text-then-tool")
	if err != nil {
		t.Fatal(err)
	}
	half := len(data) / 2
	src := capture.FromReader("stdin", capture.SourceStdin, &slowReader{parts: [][]byte{bytes.Clone(data[:half]), bytes.Clone(data[half:])}, pause: time.Millisecond}, true)
	times := new(readTimes)
	src.Record(times)
	store := new(capture.Store)
	o := options{format: capture.FormatEventStream}
	if err := src.Read(context.Background(), capture.ReadOptions{Keep: store, Format: o.format}, func(*capture.Frame) error { return nil }); err != nil {
		t.Fatal(err)
	}
	path, err := saver(store, src, times, o)(store.Size())
	if err != nil {
		t.Fatal(err)
	}
	saved, _ := os.ReadFile(path)
	rec, err := capture.ParseRecording(saved)
	if err != nil || !bytes.Equal(rec.Bytes(), data) || !strings.HasSuffix(path, ".eventstream") {
		t.Fatalf("%s: %v; body equal %v", path, err, err == nil && bytes.Equal(rec.Bytes(), data))
	}
}

// TestSaveEventStreamByBytes: w names a Bedrock stream .eventstream by
// its bytes when no --format says what it is: piped to stdin (a timed
// recording, each message at its time) and read from a file named
// otherwise (its bytes). A stream of another kind keeps .sse. Before,
// both Bedrock saves were .sse.
func TestSaveEventStreamByBytes(t *testing.T) {
	t.Chdir(t.TempDir())
	data, err := samples.Open("bedrock-converse-text-then-tool")
	if err != nil {
		t.Fatal(err)
	}
	sse, err := samples.Open("chat-single-call")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		in   []byte
		ext  string
	}{{"bedrock", data, ".eventstream"}, {"chat", sse, ".sse"}} {
		half := len(c.in) / 2
		src := capture.FromReader("stdin", capture.SourceStdin, &slowReader{parts: [][]byte{bytes.Clone(c.in[:5]), bytes.Clone(c.in[5:half]), bytes.Clone(c.in[half:])}, pause: time.Millisecond}, true)
		times := new(readTimes)
		src.Record(times)
		store := new(capture.Store)
		if err := src.Read(context.Background(), capture.ReadOptions{Keep: store}, func(*capture.Frame) error { return nil }); err != nil {
			t.Fatal(err)
		}
		live, err := saver(store, src, times, options{})(store.Size())
		if err != nil {
			t.Fatal(err)
		}
		saved, _ := os.ReadFile(live)
		rec, err := capture.ParseRecording(saved)
		if err != nil || !bytes.Equal(rec.Bytes(), c.in) || filepath.Ext(live) != c.ext {
			t.Errorf("%s from stdin: saved %s (%v); want a %s recording of the bytes read", c.name, live, err, c.ext)
		}
		if c.name == "bedrock" {
			_, body, _ := bytes.Cut(saved, []byte("\n\n")) // after the header block
			if n := bytes.Count(body, []byte(": t=")); n != 16 || len(rec.Body) != 16 {
				t.Errorf("%d timing lines, %d timed messages; want one after each of the 16 messages", n, len(rec.Body))
			}
		}
		file, err := saver(bytes.NewReader(c.in), nil, nil, options{})(int64(len(c.in)))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(file); !bytes.Equal(got, c.in) || filepath.Ext(file) != c.ext {
			t.Errorf("%s from a file: saved %s; want its bytes in a %s", c.name, file, c.ext)
		}
	}
}
