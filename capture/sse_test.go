package capture

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// frameSummary is a comparable copy of a frame.
type frameSummary struct {
	Kind       FrameKind
	Start, End int64
	Flags      Flags
	Event, ID  string
	HasEvent   bool
	HasID      bool
	Data       string
	HasData    bool
	Retry      int64
	Unknown    string
	Comments   int
	Status     int
}

func summarize(f *Frame) frameSummary {
	var unk []string
	for _, u := range f.Unknown {
		unk = append(unk, string(u.Name)+"="+string(u.Value))
	}
	return frameSummary{
		Kind: f.Kind, Start: f.Start, End: f.End, Flags: f.Flags,
		Event: string(f.Event), ID: string(f.ID), HasEvent: f.HasEvent, HasID: f.HasID,
		Data: string(f.Data), HasData: f.HasData, Retry: f.Retry, Unknown: strings.Join(unk, ","),
		Comments: f.Comments, Status: f.Status,
	}
}

// frameAll frames input fed in pieces cut at the given offsets.
func frameAll(t testing.TB, format Format, input []byte, cuts ...int) []frameSummary {
	t.Helper()
	var out []frameSummary
	fr := NewFramer(format)
	emit := func(f *Frame) {
		if got := int64(len(f.Raw)); got != f.End-f.Start {
			t.Fatalf("frame %d-%d has %d raw bytes", f.Start, f.End, got)
		}
		if !bytes.Equal(f.Raw, input[f.Start:f.End]) {
			t.Fatalf("frame %d-%d raw bytes differ from the input", f.Start, f.End)
		}
		out = append(out, summarize(f))
	}
	prev := 0
	for _, c := range cuts {
		if c < prev || c > len(input) {
			continue
		}
		fr.Feed(input[prev:c], 0, emit)
		prev = c
	}
	fr.Feed(input[prev:], 0, emit)
	fr.Finish(0, emit)
	return out
}

// checkCoverage asserts that frames tile the input: every byte in exactly
// one frame.
func checkCoverage(t testing.TB, frames []frameSummary, n int) {
	t.Helper()
	var at int64
	for _, f := range frames {
		if f.Start != at {
			t.Fatalf("frame %v starts at %d; previous ended at %d", f.Kind, f.Start, at)
		}
		if f.End < f.Start {
			t.Fatalf("frame ends before it starts: %+v", f)
		}
		at = f.End
	}
	if at != int64(n) {
		t.Fatalf("frames cover %d of %d bytes", at, n)
	}
}

func TestSSEFraming(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []frameSummary
	}{
		{
			name: "lf",
			in:   "event: a\ndata: x\n\ndata: y\n\n",
			want: []frameSummary{
				{Kind: FrameEvent, Start: 0, End: 18, Flags: EndsLF, Event: "a", HasEvent: true, Data: "x", HasData: true, Retry: -1},
				{Kind: FrameEvent, Start: 18, End: 27, Flags: EndsLF, Data: "y", HasData: true, Retry: -1},
			},
		},
		{
			name: "crlf",
			in:   "data: x\r\n\r\n",
			want: []frameSummary{{Kind: FrameEvent, End: 11, Flags: EndsCRLF, Data: "x", HasData: true, Retry: -1}},
		},
		{
			name: "cr only",
			in:   "data: x\r\rdata: y\r\r",
			want: []frameSummary{
				{Kind: FrameEvent, End: 9, Flags: EndsCR, Data: "x", HasData: true, Retry: -1},
				{Kind: FrameEvent, Start: 9, End: 18, Flags: EndsCR, Data: "y", HasData: true, Retry: -1},
			},
		},
		{
			name: "mixed endings",
			in:   "data: x\r\ndata: y\n\r",
			want: []frameSummary{{Kind: FrameEvent, End: 18, Flags: EndsCRLF | EndsLF | EndsCR, Data: "x\ny", HasData: true, Retry: -1}},
		},
		{
			name: "multi data lines joined with LF",
			in:   "data: {\ndata:  \"a\": 1\ndata: }\n\n",
			want: []frameSummary{{Kind: FrameEvent, End: 31, Flags: EndsLF, Data: "{\n \"a\": 1\n}", HasData: true, Retry: -1}},
		},
		{
			name: "only one leading space stripped; no colon means empty value",
			in:   "data:  two\ndata\n\n",
			want: []frameSummary{{Kind: FrameEvent, End: 17, Flags: EndsLF, Data: " two\n", HasData: true, Retry: -1}},
		},
		{
			name: "comment alone is its own frame",
			in:   ": OPENROUTER PROCESSING\n\ndata: x\n\n",
			want: []frameSummary{
				{Kind: FrameComment, End: 25, Flags: EndsLF, Retry: -1, Comments: 1},
				{Kind: FrameEvent, Start: 25, End: 34, Flags: EndsLF, Data: "x", HasData: true, Retry: -1},
			},
		},
		{
			name: "comment directly before an event stands alone",
			in:   ": ping\ndata: x\n\n",
			want: []frameSummary{
				{Kind: FrameComment, End: 7, Flags: EndsLF, Retry: -1, Comments: 1},
				{Kind: FrameEvent, Start: 7, End: 16, Flags: EndsLF, Data: "x", HasData: true, Retry: -1},
			},
		},
		{
			name: "comment inside an event belongs to it",
			in:   "data: a\n: c\ndata: b\n\n",
			want: []frameSummary{{Kind: FrameEvent, End: 21, Flags: EndsLF | HasComment, Data: "a\nb", HasData: true, Retry: -1, Comments: 1}},
		},
		{
			name: "unterminated last event is kept and marked",
			in:   "data: a\n\ndata: b",
			want: []frameSummary{
				{Kind: FrameEvent, End: 9, Flags: EndsLF, Data: "a", HasData: true, Retry: -1},
				{Kind: FrameEvent, Start: 9, End: 16, Flags: Truncated, Data: "b", HasData: true, Retry: -1},
			},
		},
		{
			name: "event without final blank line is truncated",
			in:   "data: a\n",
			want: []frameSummary{{Kind: FrameEvent, End: 8, Flags: Truncated | EndsLF, Data: "a", HasData: true, Retry: -1}},
		},
		{
			name: "leading space before data is kept and marked",
			in:   " data: {}\n\n",
			want: []frameSummary{{Kind: FrameEvent, End: 11, Flags: EndsLF | UnknownField | LeadingSpaceField | NoData, Unknown: " data={}", Retry: -1}},
		},
		{
			name: "unknown field",
			in:   "foo: bar\ndata: x\n\n",
			want: []frameSummary{{Kind: FrameEvent, End: 18, Flags: EndsLF | UnknownField, Unknown: "foo=bar", Data: "x", HasData: true, Retry: -1}},
		},
		{
			name: "id with NUL ignored",
			in:   "id: a\x00b\ndata: x\n\n",
			want: []frameSummary{{Kind: FrameEvent, End: 17, Flags: EndsLF | IDHasNUL | NULByte, Data: "x", HasData: true, Retry: -1}},
		},
		{
			name: "id and retry",
			in:   "id: 7\nretry: 1500\ndata: x\n\n",
			want: []frameSummary{{Kind: FrameEvent, End: 27, Flags: EndsLF, ID: "7", HasID: true, Data: "x", HasData: true, Retry: 1500}},
		},
		{
			name: "retry with non digits ignored",
			in:   "retry: 15s\ndata: x\n\n",
			want: []frameSummary{{Kind: FrameEvent, End: 20, Flags: EndsLF | BadRetry, Data: "x", HasData: true, Retry: -1}},
		},
		{
			name: "bom stripped at start only",
			in:   "\xEF\xBB\xBFdata: x\n\n\xEF\xBB\xBFdata: y\n\n",
			want: []frameSummary{
				{Kind: FrameEvent, End: 12, Flags: EndsLF | BOM, Data: "x", HasData: true, Retry: -1},
				{Kind: FrameEvent, Start: 12, End: 24, Flags: EndsLF | UnknownField | NoData, Unknown: "\xEF\xBB\xBFdata=y", Retry: -1},
			},
		},
		{
			name: "stray blank lines belong to the next frame; trailing ones are a remainder",
			in:   "\n\ndata: x\n\n\n",
			want: []frameSummary{
				{Kind: FrameEvent, End: 11, Flags: EndsLF, Data: "x", HasData: true, Retry: -1},
				{Kind: FrameRemainder, Start: 11, End: 12, Flags: EndsLF, Retry: -1},
			},
		},
		{
			name: "invalid utf-8 kept",
			in:   "data: \xff\xfe\n\n",
			want: []frameSummary{{Kind: FrameEvent, End: 10, Flags: EndsLF | InvalidUTF8, Data: "\xff\xfe", HasData: true, Retry: -1}},
		},
		{
			name: "event only, no data",
			in:   "event: ping\n\n",
			want: []frameSummary{{Kind: FrameEvent, End: 13, Flags: EndsLF | NoData, Event: "ping", HasEvent: true, Retry: -1}},
		},
		{
			name: "empty input",
			in:   "",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := frameAll(t, FormatSSE, []byte(tt.in))
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("frames(%q) =\n%+v\nwant\n%+v", tt.in, got, tt.want)
			}
			checkCoverage(t, got, len(tt.in))
		})
	}
}

// TestSSESplitInvariance feeds inputs cut at every offset and expects the
// frames of the uncut input, including a CRLF split between CR and LF.
func TestSSESplitInvariance(t *testing.T) {
	inputs := []string{
		"data: x\r\n\r\ndata: y\r\n\r\n",
		"data: x\r\rdata: y\r\r",
		": c\r\n\r\nevent: e\ndata: 1\ndata: 2\n\n\n",
		"\xEF\xBB\xBFdata: x\n\n",
		"data: a\n: c\ndata: b\r\n\r\ntail",
	}
	for _, in := range inputs {
		want := frameAll(t, FormatSSE, []byte(in))
		for i := 0; i <= len(in); i++ {
			for j := i; j <= len(in); j++ {
				got := frameAll(t, FormatSSE, []byte(in), i, j)
				if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
					t.Fatalf("input %q cut at %d,%d:\n%+v\nwant\n%+v", in, i, j, got, want)
				}
			}
		}
	}
}

func TestSSEHugeLine(t *testing.T) {
	payload := bytes.Repeat([]byte("a"), 50<<20)
	in := append(append([]byte("data: "), payload...), "\n\n"...)
	var got int
	fr := NewFramer(FormatSSE)
	emit := func(f *Frame) { got = len(f.Data) }
	// Feed in small reads, as a pipe would deliver it.
	for i := 0; i < len(in); i += 64 << 10 {
		fr.Feed(in[i:min(i+64<<10, len(in))], 0, emit)
	}
	fr.Finish(0, emit)
	if got != len(payload) {
		t.Fatalf("data length = %d; want %d", got, len(payload))
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		in   string
		want Format
	}{
		{"data: {}\n\n", FormatSSE},
		{"event: x\n", FormatSSE},
		{": comment\n", FormatSSE},
		{"{\"a\":1}\n{\"a\":2}\n", FormatJSONL},
		{"{\n  \"a\": 1\n}\n", FormatJSON},
		{"{\"a\":1}", FormatJSONL},
		{"HTTP/1.1 200 OK\r\n\r\n", FormatHTTP},
		{"\xEF\xBB\xBF  data: x", FormatSSE},
		{"", FormatSSE},
		{"\x00\x01\x02binary", FormatSSE},
	}
	for _, tt := range tests {
		got, _ := detect([]byte(tt.in), true)
		if got != tt.want {
			t.Errorf("detect(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

func TestJSONLines(t *testing.T) {
	in := "{\"a\":1}\r\n\n{\"b\":2}\n  \n"
	got := frameAll(t, FormatJSONL, []byte(in))
	checkCoverage(t, got, len(in))
	if len(got) != 3 || got[0].Data != `{"a":1}` || got[1].Data != `{"b":2}` || got[2].Kind != FrameRemainder {
		t.Fatalf("frames = %+v", got)
	}
}

func TestHTTPFraming(t *testing.T) {
	in := "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{\n  \"error\": {\"message\": \"bad key\"}\n}\n"
	var heads []Frame
	var events []frameSummary
	fr := NewFramer(FormatAuto)
	emit := func(f *Frame) {
		if f.Kind == FrameHead {
			heads = append(heads, Frame{Status: f.Status, Proto: f.Proto, Start: f.Start, End: f.End})
		}
		events = append(events, summarize(f))
	}
	for i := 0; i < len(in); i += 7 {
		fr.Feed([]byte(in[i:min(i+7, len(in))]), 0, emit)
	}
	fr.Finish(0, emit)
	checkCoverage(t, events, len(in))
	if fr.Format() != FormatHTTP {
		t.Fatalf("format = %v; want http", fr.Format())
	}
	if len(heads) != 2 || heads[0].Status != 100 || heads[1].Status != 401 {
		t.Fatalf("heads = %+v", heads)
	}
	last := events[len(events)-1]
	if last.Kind != FrameEvent || !strings.Contains(last.Data, "bad key") {
		t.Fatalf("body frame = %+v", last)
	}
}

func TestHTTPSSEBody(t *testing.T) {
	in := "HTTP/2 200\ncontent-type: text/event-stream; charset=utf-8\n\ndata: {\"x\":1}\n\ndata: [DONE]\n\n"
	got := frameAll(t, FormatAuto, []byte(in))
	checkCoverage(t, got, len(in))
	if len(got) != 3 || got[0].Kind != FrameHead || got[0].Status != 200 || got[2].Data != "[DONE]" {
		t.Fatalf("frames = %+v", got)
	}
}

func TestStoreReadAt(t *testing.T) {
	var s Store
	data := bytes.Repeat([]byte("0123456789"), storeBlock/5)
	for i := 0; i < len(data); i += 4099 {
		s.Append(data[i:min(i+4099, len(data))])
	}
	buf := make([]byte, 100)
	off := int64(storeBlock - 50)
	if n, err := s.ReadAt(buf, off); n != 100 || err != nil || !bytes.Equal(buf, data[off:off+100]) {
		t.Fatalf("ReadAt across blocks = %d, %v", n, err)
	}
	if n, err := s.ReadAt(buf, int64(len(data)-10)); n != 10 || err == nil {
		t.Fatalf("ReadAt at end = %d, %v; want 10, EOF", n, err)
	}
	// Across every block boundary, the doubling ones and the fixed ones.
	for i, start := 0, int64(0); start < int64(len(data)); i++ {
		start += int64(blockSize(i))
		off := min(max(start-37, 0), int64(len(data)-1))
		n, _ := s.ReadAt(buf, off)
		if want := data[off:min(off+100, int64(len(data)))]; !bytes.Equal(buf[:n], want) {
			t.Fatalf("ReadAt(%d) across the end of block %d = %q; want %q", off, i, buf[:n], want)
		}
	}
	all := make([]byte, len(data))
	if n, err := s.ReadAt(all, 0); n != len(data) || err != nil || !bytes.Equal(all, data) {
		t.Fatalf("ReadAt of everything = %d, %v, equal %t", n, err, bytes.Equal(all, data))
	}
}

// A short stream's Store holds a few KiB, not a block of 1 MiB: the
// proxy's sessions list keeps one per session open.
func TestStoreStartsSmall(t *testing.T) {
	var s Store
	s.Append(bytes.Repeat([]byte("x"), 300))
	held := 0
	for _, b := range s.blocks {
		held += cap(b)
	}
	if held > 4<<10 {
		t.Errorf("a Store of 300 bytes holds %d bytes of blocks; want at most 4 KiB", held)
	}
}

func TestReadStampsTimedSources(t *testing.T) {
	src := FromReader("pipe", SourceStdin, strings.NewReader("data: a\n\n"), true)
	var at time.Duration = NoTime
	err := src.Read(t.Context(), ReadOptions{}, func(f *Frame) error { at = f.At; return nil })
	if err != nil || at == NoTime {
		t.Fatalf("Read = %v, at = %v; want a timed frame", err, at)
	}
	src = FromReader("file", SourceFile, strings.NewReader("data: a\n\n"), false)
	_ = src.Read(t.Context(), ReadOptions{}, func(f *Frame) error { at = f.At; return nil })
	if at != NoTime {
		t.Fatalf("untimed source stamped %v", at)
	}
}

func TestBOMAfterHTTPHead(t *testing.T) {
	in := "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n\xEF\xBB\xBFdata: x\n\n"
	got := frameAll(t, FormatAuto, []byte(in))
	checkCoverage(t, got, len(in))
	if len(got) != 2 || got[1].Data != "x" || got[1].Flags&BOM == 0 {
		t.Fatalf("frames = %+v; want the body's BOM stripped and flagged", got)
	}
}

// TestFramerKeepsBigBufferWhileNeeded feeds a stream that repeats a huge
// event, as a Responses call of many MB does (delta, .done, item.done),
// then goes on with small events. The grown buffer is kept between the
// huge events instead of being grown again from keptBuffer each time, and
// released once the small events have passed as many bytes as it holds.
func TestFramerKeepsBigBufferWhileNeeded(t *testing.T) {
	huge := "data: " + strings.Repeat("x", 3<<20) + "\n\n"
	small := "data: {\"n\":1}\n\n"
	f := newSSEFramer(0)
	frames, grows := 0, 0
	emit := func(*Frame) { frames++ }
	feed := func(s string) {
		for len(s) > 0 {
			n := min(readChunk, len(s))
			before := cap(f.buf)
			f.feed([]byte(s[:n]), NoTime, emit)
			if cap(f.buf) > before && cap(f.buf) > keptBuffer {
				grows++
			}
			s = s[n:]
		}
	}
	feed(huge)
	firstGrows, big := grows, cap(f.buf)
	if big < 3<<20 {
		t.Fatalf("buffer cap %d after a 3 MB event", big)
	}
	feed(strings.Repeat(small, 1000) + huge + huge)
	if grows != firstGrows {
		t.Fatalf("the buffer grew %d more times for the repeated huge events; want 0", grows-firstGrows)
	}
	feed(strings.Repeat(small, big/len(small)/2))
	if cap(f.buf) != big {
		t.Fatalf("buffer released after %d small bytes; want it kept for %d", big/2, big)
	}
	feed(strings.Repeat(small, big/len(small)))
	if cap(f.buf) > keptBuffer {
		t.Fatalf("buffer cap %d after %d small bytes; want it back to %d", cap(f.buf), big, keptBuffer)
	}
	if want := 1 + 1000 + 2 + big/len(small)/2 + big/len(small); frames != want {
		t.Fatalf("%d frames; want %d", frames, want)
	}
}
