package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/streamtap/streamtap/capture"
)

// The inspector's w key saves what was read so far. Input read live (stdin,
// `streamtap request`, a growing file) is saved as a timed recording, each
// read with its arrival time, so that `replay` and the inspector play it
// at its pace again; other input is saved as its bytes. Either way the
// notice names the file by its absolute path.

// readTimes is a capture.Tap that remembers where each read of a live
// source ended and when it arrived: 16 bytes a read, not a copy of them
// (the bytes are kept once, in the Store or the file).
type readTimes struct {
	mu   sync.Mutex
	ends []int64
	ats  []time.Duration
	size int64
}

func (r *readTimes) Write(p []byte, at time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.size += int64(len(p))
	r.ends, r.ats = append(r.ends, r.size), append(r.ats, at)
	return nil
}

func (r *readTimes) Close(time.Duration) error { return nil }

// upTo is the reads that made the first n bytes: their ends (the last one
// cut at n) and times.
func (r *readTimes) upTo(n int64) ([]int64, []time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := sort.Search(len(r.ends), func(i int) bool { return r.ends[i] >= n })
	if k == len(r.ends) {
		return append([]int64(nil), r.ends...), append([]time.Duration(nil), r.ats...)
	}
	ends := append(append([]int64(nil), r.ends[:k]...), n)
	return ends, append([]time.Duration(nil), r.ats[:k+1]...)
}

// saveExt is a saved file's extension, as the proxy names its recordings:
// what the body is, when the input's format is known (see savedFormat).
func saveExt(f capture.Format) string {
	switch f {
	case capture.FormatEventStream:
		return ".eventstream"
	case capture.FormatJSONL:
		return ".ndjson"
	case capture.FormatDataStream:
		return ".datastream"
	}
	return ".sse"
}

// savedFormat is the format w names what it saves after: the one given
// (--format, or streamtap request's Content-Type), else an AWS event
// stream when the first bytes start one, as the framer tells one (a
// Bedrock stream piped to stdin, or a file named otherwise); else
// unknown. The bytes tell nothing else for sure (one line of JSON is JSON
// lines too), so they name nothing else.
func savedFormat(raw io.ReaderAt, n int64, f capture.Format) capture.Format {
	if f != capture.FormatAuto {
		return f
	}
	prelude := make([]byte, min(n, capture.EventStreamPrelude))
	if k, _ := raw.ReadAt(prelude, 0); capture.StartsEventStream(prelude[:k]) {
		return capture.FormatEventStream
	}
	return capture.FormatAuto
}

// createNew creates a new file in the current directory named by the
// time (streamtap-20260102-150405.sse, then -2, -3 … within the same
// second), never over an existing file, and returns its absolute path.
func createNew(ext string) (*capture.Output, string, error) {
	base := "streamtap-" + time.Now().Format("20060102-150405")
	name := base + ext
	f, err := capture.CreateOutput(name, capture.OutputOptions{New: true})
	for i := 2; os.IsExist(err) && i <= 100; i++ {
		name = fmt.Sprintf("%s-%d%s", base, i, ext)
		f, err = capture.CreateOutput(name, capture.OutputOptions{New: true})
	}
	if err != nil {
		return nil, "", err
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		abs = name
	}
	return f, abs, nil
}

// saver is what w runs: the first n bytes of raw, as a timed recording
// when times holds the arrival of each read (live input), else as they
// are.
func saver(raw io.ReaderAt, src *capture.Source, times *readTimes, o options) func(n int64) (string, error) {
	return func(n int64) (string, error) {
		ext := saveExt(savedFormat(raw, n, o.format))
		if times == nil {
			f, path, err := createNew(ext)
			if err != nil {
				return "", err
			}
			if _, err := io.Copy(f, io.NewSectionReader(raw, 0, n)); err != nil {
				f.Close()
				return "", fmt.Errorf("write %s: %w", path, err)
			}
			return path, f.Close()
		}
		f, path, err := createNew(ext)
		if err != nil {
			return "", err
		}
		x := &capture.Exchange{Source: src.Name, HeadAt: capture.NoTime}
		if src.Exchange != nil {
			x = src.Exchange // streamtap request: the request and the response head
		}
		format := o.format // auto: the recorder tells SSE, a `curl -i` head…
		if format != capture.FormatAuto {
			format = capture.RecordFormat(format) // timed by event, message or line; else verbatim
		}
		rec := capture.NewRecorder(f, x, capture.RecordOptions{Format: format, KeepSecrets: o.keepSecrets})
		ends, ats := times.upTo(n)
		var start int64
		last := capture.NoTime
		buf := make([]byte, 0, 64<<10)
		for i, end := range ends {
			if cap(buf) < int(end-start) {
				buf = make([]byte, end-start)
			}
			p := buf[:end-start]
			if _, err := raw.ReadAt(p, start); err != nil && err != io.EOF {
				f.Close()
				return "", fmt.Errorf("write %s: %w", path, err)
			}
			if err := rec.Write(p, ats[i]); err != nil {
				f.Close()
				return "", fmt.Errorf("write %s: %w", path, err)
			}
			start, last = end, ats[i]
		}
		if err := rec.Close(last); err != nil {
			f.Close()
			return "", fmt.Errorf("write %s: %w", path, err)
		}
		return path, f.Close()
	}
}
