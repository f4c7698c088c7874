package capture

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// zeroMiB and sseMiB are what the bombs of these tests repeat: a MiB of
// NUL bytes (the best ratio DEFLATE reaches), or a MiB of whole SSE
// events (many frames for a reader).
var (
	zeroMiB = make([]byte, 1<<20)
	sseMiB  = func() []byte {
		ev := "data: {\"type\":\"response.output_text.delta\",\"delta\":\"x\"}\n\n"
		return []byte(strings.Repeat(ev, (1<<20)/len(ev)))
	}()
)

// gzipBomb is gzip that inflates to unit repeated n times: one gzip
// member of unit, repeated (a reader of gzip reads concatenated members
// as one stream), so a bomb of a gigabyte costs nothing to make.
func gzipBomb(unit []byte, n int) []byte {
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	z.Write(unit)
	z.Close()
	return bytes.Repeat(b.Bytes(), n)
}

// harOf is a HAR file of one LLM exchange per body: a body that starts
// like gzip is stored as base64 content, as a browser stores one it could
// not decode; any other as text.
func harOf(bodies ...[]byte) []byte {
	var entries []string
	for _, body := range bodies {
		content := map[string]any{"mimeType": "text/event-stream", "text": string(body)}
		if len(body) > 1 && body[0] == 0x1f && body[1] == 0x8b {
			content = map[string]any{"mimeType": "text/event-stream", "encoding": "base64", "text": base64.StdEncoding.EncodeToString(body)}
		}
		e, _ := json.Marshal(map[string]any{
			"request":  map[string]any{"method": "POST", "url": "https://api.openai.com/v1/responses"},
			"response": map[string]any{"status": 200, "content": content},
		})
		entries = append(entries, string(e))
	}
	return []byte(`{"log":{"entries":[` + strings.Join(entries, ",") + `]}}`)
}

// cassetteOf is a vcrpy cassette of one exchange per body, each gzip
// body a !!binary scalar with Content-Encoding: gzip.
func cassetteOf(bodies ...[]byte) []byte {
	var b strings.Builder
	b.WriteString("interactions:\n")
	for _, body := range bodies {
		b.WriteString("- request: {method: POST, uri: 'https://api.openai.com/v1/responses'}\n  response:\n    status: {code: 200}\n")
		if len(body) > 1 && body[0] == 0x1f && body[1] == 0x8b {
			b.WriteString("    headers: {Content-Encoding: [gzip]}\n    body: {string: !!binary '" + base64.StdEncoding.EncodeToString(body) + "'}\n")
		} else {
			q, _ := json.Marshal(string(body))
			b.WriteString("    body: {string: " + string(q) + "}\n")
		}
	}
	return []byte(b.String())
}

// allocated returns how many bytes f allocates on the heap. Tests that
// call it do not run in parallel, so the count is f's alone.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// countEvents reads an entry's source to its end, counting its events.
func countEvents(e *Entry, name string) (events int, err error) {
	err = e.Source(name).Read(context.Background(), ReadOptions{}, func(f *Frame) error {
		if f.Kind == FrameEvent {
			events++
		}
		return nil
	})
	return events, err
}

// Reading an archive inflates none of its bodies: a file of eight bombs
// of 32 MiB each allocates about its own size, not the 256 MiB (times two,
// with the buffers io.ReadAll grows) its bodies inflate to.
func TestArchiveLoadInflatesNothing(t *testing.T) {
	bomb := gzipBomb(zeroMiB, 32)
	bombs := [][]byte{bomb, bomb, bomb, bomb, bomb, bomb, bomb, bomb}
	for _, tt := range []struct {
		name string
		data []byte
	}{{"har", harOf(bombs...)}, {"cassette", cassetteOf(bombs...)}} {
		var a *Archive
		var err error
		n := allocated(func() { a, err = ReadArchive(tt.data, FormatAuto, ArchiveOptions{}) })
		if err != nil || len(a.Entries) != 8 {
			t.Fatalf("%s: %v, %d entries", tt.name, err, len(a.Entries))
		}
		if limit := uint64(8 << 20); n > limit {
			t.Errorf("%s: reading a file of %d KB with 8 bombs of 32 MiB allocated %d MiB; want at most %d MiB", tt.name, len(tt.data)>>10, n>>20, limit>>20)
		}
	}
}

// A compressed session streams through the framer: reading 64 MiB of
// events allocates a few MiB (the framer's buffer, the inflater's
// window), not the body, nor twice the body.
func TestArchiveBodyStreams(t *testing.T) {
	a, err := ReadArchive(harOf(gzipBomb(sseMiB, 64)), FormatAuto, ArchiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var events int
	n := allocated(func() { events, err = countEvents(&a.Entries[0], "x #1") })
	if want := 64 * bytes.Count(sseMiB, []byte("\n\n")); err != nil || events != want {
		t.Fatalf("read %d events (%v); want %d", events, err, want)
	}
	if limit := uint64(4 << 20); n > limit {
		t.Errorf("reading a 64 MiB body allocated %d MiB; want at most %d MiB", n>>20, limit>>20)
	}
}

// A body that inflates past the bound for one body is refused whole,
// before any frame, with an error that names the session and the bound;
// measuring it allocates nothing of its size; the next session reads.
func TestArchiveBodyBound(t *testing.T) {
	t.Parallel()
	plain := []byte("data: {\"a\":1}\n\n")
	for _, data := range [][]byte{harOf(gzipBomb(zeroMiB, 4), plain), cassetteOf(gzipBomb(zeroMiB, 4), plain)} {
		a, err := ReadArchive(data, FormatAuto, ArchiveOptions{maxBody: 4<<20 - 1})
		if err != nil {
			t.Fatal(err)
		}
		frames := 0
		err = a.Entries[0].Source("x #1").Read(context.Background(), ReadOptions{}, func(*Frame) error { frames++; return nil })
		var ie *InflateError
		if !errors.As(err, &ie) || ie.Entry != "x #1" || ie.Bound != 4<<20-1 || ie.File || frames != 0 {
			t.Fatalf("bomb: %d frames, error %v; want none and an InflateError for x #1 at %d bytes", frames, err, 4<<20-1)
		}
		if msg := err.Error(); !strings.Contains(msg, "x #1: body not read: gzip inflates it past 4194303 bytes, the bound for one body") {
			t.Errorf("error %q", msg)
		}
		if n, err := countEvents(&a.Entries[1], "x #2"); n != 1 || err != nil {
			t.Errorf("the plain session after it: %d events, %v", n, err)
		}
		a, _ = ReadArchive(data, FormatAuto, ArchiveOptions{maxBody: 4 << 20})
		if body := a.Entries[0].Bytes(); len(body) != 4<<20 {
			t.Errorf("a body at the bound: %d bytes; want it read", len(body))
		}
	}
}

// The compressed bodies of one file share a bound: once what they inflate
// to reaches it, every further compressed body is refused at once, with
// an error that names the session and the file's bound; plain bodies
// still read, and a session read alone has the whole bound. A body read
// twice (as the commands do: to tell its dialect, then to report it) is
// charged once.
func TestArchiveFileBound(t *testing.T) {
	t.Parallel()
	two := gzipBomb(sseMiB, 2)
	plain := []byte("data: {\"a\":1}\n\n")
	data := cassetteOf(two, two, two, two, plain)
	opt := ArchiveOptions{maxBody: 3 << 20, maxFile: 5 << 20}
	a, err := ReadArchive(data, FormatAuto, opt)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range a.Entries {
		for range 2 {
			n, err := countEvents(&a.Entries[i], fmt.Sprintf("x #%d", i+1))
			var ie *InflateError
			switch {
			case errors.As(err, &ie) && ie.File && ie.Bound == 5<<20:
				got = append(got, "refused")
			case err != nil:
				got = append(got, err.Error())
			default:
				got = append(got, fmt.Sprint(n))
			}
		}
	}
	events := fmt.Sprint(2 * bytes.Count(sseMiB, []byte("\n\n")))
	want := []string{events, events, events, events, "refused", "refused", "refused", "refused", "1", "1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("sessions read twice each: %v; want %v", got, want)
	}
	_, err = countEvents(&a.Entries[3], "x #4")
	if msg := fmt.Sprint(err); !strings.Contains(msg, "x #4: body not read: gzip would take what this file's bodies inflate to past 5 MiB, the bound for one file") {
		t.Errorf("error %q", msg)
	}
	alone, _ := ReadArchive(data, FormatAuto, opt)
	if n, err := countEvents(&alone.Entries[3], "x #4"); fmt.Sprint(n) != events || err != nil {
		t.Errorf("session 4 read alone: %d events, %v; want %s", n, err, events)
	}
}

// Every encoding an archive may name reads back the body; a body whose
// header is broken reads as stored, with a note.
func TestArchiveEncodings(t *testing.T) {
	t.Parallel()
	const body = "data: {\"a\":1}\n\n"
	var z, d, r bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte(body))
	zw.Close()
	dw, _ := flate.NewWriter(&d, flate.DefaultCompression)
	dw.Write([]byte(body))
	dw.Close()
	gw := gzip.NewWriter(&r)
	gw.Write([]byte(body))
	gw.Close()
	broken := append([]byte{0x1f, 0x8b, 99}, r.Bytes()[3:]...) // an unknown method
	tests := []struct {
		name, enc    string
		stored       []byte
		want, note   string
		decoded      string
		wantDetached bool
	}{
		{"gzip", "gzip", r.Bytes(), body, "", "base64,gzip", true},
		{"x-gzip", "x-gzip", r.Bytes(), body, "", "base64,gzip", true},
		{"gzip by its magic", "", r.Bytes(), body, "", "base64,gzip", true},
		{"deflate (zlib)", "deflate", z.Bytes(), body, "", "base64,deflate", true},
		{"deflate (raw)", "deflate", d.Bytes(), body, "", "base64,deflate", true},
		{"broken gzip header", "gzip", broken, string(broken), "gzip: gzip: invalid header", "base64", false},
		{"br", "br", []byte(body), body, "content-encoding br is not decoded", "base64", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			headers := ""
			if tt.enc != "" {
				headers = "    headers: {Content-Encoding: [" + tt.enc + "]}\n"
			}
			in := "interactions:\n- request: {method: GET, uri: 'https://x.test'}\n  response:\n    status: {code: 200}\n" + headers +
				"    body: {string: !!binary '" + base64.StdEncoding.EncodeToString(tt.stored) + "'}\n"
			a := readArchive(t, []byte(in), ArchiveOptions{})
			e := &a.Entries[0]
			src := e.Source("x")
			var got bytes.Buffer
			err := src.Read(context.Background(), ReadOptions{}, func(f *Frame) error { got.Write(f.Raw); return nil })
			if err != nil || got.String() != string(e.Head())+tt.want || e.Note != tt.note || strings.Join(e.Decoded, ",") != tt.decoded {
				t.Errorf("read %q (%v), note %q, decoded %q; want %q, note %q, decoded %q", got.String(), err, e.Note, e.Decoded, tt.want, tt.note, tt.decoded)
			}
			if (src.ReaderAt() == nil) != tt.wantDetached {
				t.Errorf("ReaderAt %v; want one only for a body held in memory", src.ReaderAt())
			}
		})
	}
}

// A body held in memory reads back by offset through its chunks, the head
// and the body as one, without being copied into one slice.
func TestEntryReaderAt(t *testing.T) {
	t.Parallel()
	text := `": ping\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\nid: 7\ndata: [DONE]\n\n"`
	e := readArchive(t, []byte(chromeHAR(text, chromeMessages)), ArchiveOptions{}).Entries[0]
	if len(e.Body) != 3 {
		t.Fatalf("%d chunks; want the body cut in 3", len(e.Body))
	}
	all := append(e.Head(), e.Bytes()...)
	ra := e.Source("x").ReaderAt()
	for off := range len(all) + 2 {
		for _, n := range []int{0, 1, 7, len(all)} {
			buf := make([]byte, n)
			k, err := ra.ReadAt(buf, int64(off))
			want := all[min(off, len(all)):min(off+n, len(all))]
			if !bytes.Equal(buf[:k], want) || (k < n) != (err == io.EOF) {
				t.Fatalf("ReadAt(%d bytes at %d) = %q, %v; want %q", n, off, buf[:k], err, want)
			}
		}
	}
}

// A HAR entry whose body is still gzip and whose messages time its events
// is inflated when read, then timed as a plain one is.
func TestHARGzipTimedByMessages(t *testing.T) {
	t.Parallel()
	body := ": ping\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\nid: 7\ndata: [DONE]\n\n"
	text, _ := json.Marshal(base64.StdEncoding.EncodeToString(gzipped(t, body)))
	in := strings.Replace(chromeHAR(string(text), chromeMessages), `"mimeType": "text/event-stream"`, `"mimeType": "text/event-stream", "encoding": "base64"`, 1)
	e := readArchive(t, []byte(in), ArchiveOptions{}).Entries[0]
	if e.Body != nil || strings.Join(e.Decoded, ",") != "base64,gzip" {
		t.Fatalf("body %q, decoded %q; want it kept compressed until read", e.Body, e.Decoded)
	}
	var times []string
	err := e.Source("x").Read(context.Background(), ReadOptions{}, func(f *Frame) error {
		if f.Kind == FrameEvent {
			times = append(times, f.At.Round(time.Millisecond).String())
		}
		return nil
	})
	if err != nil || strings.Join(times, " ") != "400ms 900ms" || string(e.Bytes()) != body {
		t.Errorf("events at %v (%v), body %q; want them at 400ms 900ms", times, err, e.Bytes())
	}
}
