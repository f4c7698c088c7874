package capture

import (
	"net/http"
	"testing"
)

// dataStreamBody is a v4 data stream with every layout a line can have:
// parts of each JSON kind, a blank line, a CRLF line, a line without ':',
// an unknown code, and a last line without its newline.
const dataStreamBody = "f:{\"messageId\":\"msg-1\"}\n" +
	"0:\"Hel\"\n" +
	"\n0:\"lo\"\r\n" +
	"2:[{\"a\":1}]\n" +
	"no separator here\n" +
	"z:1\n" +
	"9:{\"toolCallId\":\"call_1\",\"toolName\":\"t\",\"args\":{\"x\":\"a:b\"}}\n" +
	"d:{\"finishReason\":\"stop\"}"

// TestDataStreamFraming: each line is one coded frame, its code in Event
// and the JSON after the first ':' in Data (a ':' inside the value stays
// in it); a line without ':' keeps its content as Data and has no Event;
// blank lines and a last line without its newline are flagged as JSON
// lines are; the frames tile the input wherever the reads cut it, and the
// format is detected from the first bytes.
func TestDataStreamFraming(t *testing.T) {
	t.Parallel()
	type want struct {
		event    string
		hasEvent bool
		data     string
		flags    Flags
	}
	wants := []want{
		{"f", true, `{"messageId":"msg-1"}`, EndsLF},
		{"0", true, `"Hel"`, EndsLF},
		{"0", true, `"lo"`, EndsCRLF | BlankLines},
		{"2", true, `[{"a":1}]`, EndsLF},
		{"", false, "no separator here", EndsLF},
		{"z", true, "1", EndsLF},
		{"9", true, `{"toolCallId":"call_1","toolName":"t","args":{"x":"a:b"}}`, EndsLF},
		{"d", true, `{"finishReason":"stop"}`, NoNewline},
	}
	in := []byte(dataStreamBody)
	for _, format := range []Format{FormatAuto, FormatDataStream} {
		for _, cuts := range [][]int{nil, {1}, {1, 2, 3}, {len(in) / 2}, {len(in) - 1}} {
			got := frameAll(t, format, in, cuts...)
			checkCoverage(t, got, len(in))
			if len(got) != len(wants) {
				t.Fatalf("%v cut at %v: %d frames; want %d: %+v", format, cuts, len(got), len(wants), got)
			}
			for i, w := range wants {
				g := got[i]
				if g.Kind != FrameEvent || g.Event != w.event || g.HasEvent != w.hasEvent || g.Data != w.data || !g.HasData || g.Flags != w.flags|Coded {
					t.Errorf("%v cut at %v: frame %d = %+v; want event %q (%v) data %q flags %b", format, cuts, i, g, w.event, w.hasEvent, w.data, w.flags|Coded)
				}
			}
		}
	}
}

// TestDataStreamDetection: a first line CODE:JSON is a data stream,
// however the reads cut its first bytes; SSE fields, JSON and text that
// only look alike are not.
func TestDataStreamDetection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Format
	}{
		{"f:{\"messageId\":\"m\"}\n", FormatDataStream},
		{"0:\"hi\"\n", FormatDataStream},
		{"2:[1]\n", FormatDataStream},
		{"\n\n3:\"An error occurred.\"\n", FormatDataStream},
		{"\ufeff0:\"hi\"\n", FormatDataStream},
		{"e:1", FormatDataStream},
		{"data: {\"a\":1}\n\n", FormatSSE},
		{"d: x\n\n", FormatSSE}, // an SSE field named d, no JSON after it
		{"0:x\n", FormatSSE},    // no JSON value after the code
		{": comment\n\n", FormatSSE},
		{"ab:1\n", FormatSSE}, // a code is one character
		{"{\"a\":1}\n", FormatJSONL},
		{"0", FormatSSE},
		{"0:", FormatSSE},
	}
	for _, tt := range tests {
		if got := DetectFormat([]byte(tt.in)); got != tt.want {
			t.Errorf("DetectFormat(%q) = %v; want %v", tt.in, got, tt.want)
		}
		for cut := 1; cut < len(tt.in); cut++ {
			fr := NewFramer(FormatAuto)
			fr.Feed([]byte(tt.in[:cut]), 0, func(*Frame) {})
			fr.Feed([]byte(tt.in[cut:]), 0, func(*Frame) {})
			fr.Finish(0, func(*Frame) {})
			if got := fr.Format(); got != tt.want {
				t.Errorf("%q cut at %d: format %v; want %v", tt.in, cut, got, tt.want)
			}
		}
	}
}

// TestDataStreamByHeader: the head's x-vercel-ai-data-stream names the
// format, whatever the Content-Type (text/plain names none) and whatever
// the body's first bytes: a `curl -i` capture frames its body so, and
// HeadFormat says so for the proxy and recordings.
func TestDataStreamByHeader(t *testing.T) {
	t.Parallel()
	const body = "no separator first\n0:\"hi\"\n"
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nX-Vercel-AI-Data-Stream: v1\r\n\r\n"
	got := frameAll(t, FormatAuto, []byte(head+body))
	if len(got) != 3 || got[0].Kind != FrameHead || got[1].Flags&Coded == 0 || got[2].Event != "0" {
		t.Fatalf("frames = %+v; want the head, then two coded lines", got)
	}
	// Without the header, the same body is no data stream.
	plain := frameAll(t, FormatAuto, []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"+body))
	for _, f := range plain {
		if f.Flags&Coded != 0 {
			t.Fatalf("frames = %+v; want no coded line without the header", plain)
		}
	}
	for _, tt := range []struct {
		h    http.Header
		want Format
	}{
		{http.Header{"Content-Type": {"text/plain; charset=utf-8"}, DataStreamHeader: {"v1"}}, FormatDataStream},
		{http.Header{DataStreamHeader: {"v1"}}, FormatDataStream},
		{http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, FormatAuto},
		{http.Header{"Content-Type": {"text/event-stream"}}, FormatSSE},
		{http.Header{"Content-Type": {"application/x-ndjson"}}, FormatJSONL},
	} {
		if got := HeadFormat(tt.h); got != tt.want {
			t.Errorf("HeadFormat(%v) = %v; want %v", tt.h, got, tt.want)
		}
	}
}
