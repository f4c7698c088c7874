package capture

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
	"time"

	"github.com/streamtap/streamtap/samples"
)

// A RecordingReader gives the chunks ParseRecording gives, however its
// input arrives (here a byte at a time), with the same format and count
// of bad times, and holds one read's chunks at a time.
func TestRecordingReaderMatchesParse(t *testing.T) {
	t.Parallel()
	for _, s := range samples.List() {
		in, _ := samples.Open(s.Name)
		var buf bytes.Buffer
		rec := NewRecorder(&buf, sseExchange(), RecordOptions{Format: FormatAuto})
		_ = rec.Write(in[:len(in)/2], time.Millisecond)
		_ = rec.Write(in[len(in)/2:], 2*time.Millisecond)
		_ = rec.Close(3 * time.Millisecond)
		data := append(buf.Bytes(), ": t=NaN\n\n"...) // a bad time at the end
		want, err := ParseRecording(data)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		rr, err := NewRecordingReader(iotest.OneByteReader(bytes.NewReader(data)))
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		var got []Chunk
		for {
			c, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: Next: %v", s.Name, err)
			}
			got = append(got, Chunk{At: c.At, Data: bytes.Clone(c.Data)})
		}
		if len(got) != len(want.Body) {
			t.Fatalf("%s: %d chunks; ParseRecording gives %d", s.Name, len(got), len(want.Body))
		}
		for i := range got {
			if got[i].At != want.Body[i].At || !bytes.Equal(got[i].Data, want.Body[i].Data) {
				t.Fatalf("%s: chunk %d = %v %q; want %v %q", s.Name, i, got[i].At, got[i].Data, want.Body[i].At, want.Body[i].Data)
			}
		}
		if rr.Format() != want.Format || rr.BadTimes() != want.BadTimes {
			t.Errorf("%s: format %v, %d bad times; want %v, %d", s.Name, rr.Format(), rr.BadTimes(), want.Format, want.BadTimes)
		}
	}
	if _, err := NewRecordingReader(bytes.NewReader([]byte("data: x\n\n"))); err != ErrNotRecording {
		t.Errorf("a stream: %v; want ErrNotRecording", err)
	}
}
