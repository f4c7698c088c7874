package capture

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/samples"
)

// timedFrame is what a reader of a recording must get back.
type timedFrame struct {
	Kind     FrameKind
	Event    string
	Data     string
	HasData  bool
	Comments int
	Flags    Flags
	At       time.Duration
}

// feedTimed feeds input in pieces of n bytes, the i-th at (i+1)*3ms, and
// returns the frames a plain framer makes of it.
func feedTimed(format Format, input []byte, n int, each func(p []byte, at time.Duration)) []timedFrame {
	fr := NewFramer(format)
	var out []timedFrame
	emit := func(f *Frame) {
		out = append(out, timedFrame{f.Kind, string(f.Event), string(f.Data), f.HasData, f.Comments, f.Flags &^ TooLarge, f.At})
	}
	var at time.Duration
	for i := 0; i < len(input); i += n {
		p := input[i:min(i+n, len(input))]
		at = time.Duration(i/n+1) * 3 * time.Millisecond
		if each != nil {
			each(p, at)
		}
		fr.Feed(p, at, emit)
	}
	fr.Finish(at, emit)
	return out
}

// record makes a recording of input fed in pieces of n bytes.
func record(t *testing.T, x *Exchange, opt RecordOptions, input []byte, n int) ([]byte, []timedFrame) {
	t.Helper()
	var buf bytes.Buffer
	rec := NewRecorder(&buf, x, opt)
	var last time.Duration
	want := feedTimed(opt.Format, input, n, func(p []byte, at time.Duration) {
		if err := rec.Write(p, at); err != nil {
			t.Fatal(err)
		}
		last = at
	})
	if err := rec.Close(last); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), want
}

// readBack reads a recording through a Source, as `streamtap FILE` does,
// and checks every byte belongs to exactly one frame.
func readBack(t *testing.T, data []byte, format Format) []timedFrame {
	t.Helper()
	src := FromReader("rec", SourceFile, bytes.NewReader(data), false)
	var out []timedFrame
	var next int64
	err := src.Read(t.Context(), ReadOptions{Format: format}, func(f *Frame) error {
		if f.Start != next || !bytes.Equal(f.Raw, data[f.Start:f.End]) {
			t.Fatalf("frame at %d..%d; want it to start at %d with its own bytes", f.Start, f.End, next)
		}
		next = f.End
		out = append(out, timedFrame{f.Kind, string(f.Event), string(f.Data), f.HasData, f.Comments, f.Flags &^ TooLarge, f.At})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if next != int64(len(data)) {
		t.Fatalf("frames cover %d of %d bytes", next, len(data))
	}
	return out
}

func sseExchange() *Exchange {
	return &Exchange{
		Started: time.Date(2026, 11, 21, 20, 0, 0, 0, time.UTC), Method: "POST",
		URL:           "http://127.0.0.1:1/v1/responses",
		RequestHeader: http.Header{"Content-Type": {"application/json"}},
		RequestBody:   []byte(`{"model":"m","stream":true}`),
		Proto:         "HTTP/1.1", Status: 200,
		ResponseHeader: http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}},
		HeadAt:         time.Millisecond,
	}
}

func TestRecordingRoundTrip(t *testing.T) {
	t.Parallel()
	inputs := map[string][]byte{
		"crlf":       []byte("event: a\r\ndata: 1\r\n\r\n: ping\r\n\r\ndata: 2\r\n\r\n"),
		"cr":         []byte("data: 1\r\rdata: 2\r\r"),
		"truncated":  []byte("data: 1\n\ndata: {\"cut"),
		"trailing":   []byte("data: 1\n\n\n\n"),
		"comment":    []byte(": hello\ndata: 1\n\n"),
		"own timing": []byte("data: 1\n: t=9\n\n: t=5\n\n"),
	}
	for _, s := range samples.List() {
		b, err := samples.Open(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		inputs[s.Name] = b
	}
	for name, in := range inputs {
		for _, n := range []int{1, 7, 64, 1 << 20} {
			rec, want := record(t, sseExchange(), RecordOptions{Format: FormatSSE}, in, n)
			got := readBack(t, rec, FormatAuto)
			if len(got) == 0 || got[0].Kind != FrameHead {
				t.Fatalf("%s/%d: first frame %+v; want the head", name, n, got)
			}
			got = got[1:]
			if len(got) != len(want) {
				t.Fatalf("%s/%d: %d frames; want %d\n%s", name, n, len(got), len(want), rec)
			}
			for i := range want {
				g, w := got[i], want[i]
				d := g.At - w.At
				if w.Kind == FrameRemainder || w.Flags&Truncated != 0 {
					// Trailing blank lines and an event cut mid-line carry no
					// timing line: they take the last time recorded.
					d = 0
				}
				g.At, w.At = 0, 0
				if g != w || d < -time.Millisecond || d > time.Millisecond {
					t.Fatalf("%s/%d frame %d = %+v (at %+v off); want %+v", name, n, i, g, d, w)
				}
			}
			parsed, err := ParseRecording(rec)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(parsed.Bytes(), in) {
				t.Fatalf("%s/%d: ParseRecording body = %q; want %q", name, n, parsed.Bytes(), in)
			}
			if parsed.Status != 200 || parsed.Method != "POST" || string(parsed.RequestBody) != `{"model":"m","stream":true}` {
				t.Fatalf("%s: exchange = %+v", name, parsed.Exchange)
			}
		}
	}
}

// TestRecordingPlainSSE: an SSE reader that knows nothing of recordings
// still gets the same data events.
func TestRecordingPlainSSE(t *testing.T) {
	t.Parallel()
	for _, s := range samples.List() {
		in, _ := samples.Open(s.Name)
		rec, want := record(t, sseExchange(), RecordOptions{Format: FormatSSE}, in, 5)
		got := readBack(t, rec, FormatSSE)
		var wantData, gotData []string
		for _, f := range want {
			if f.Kind == FrameEvent {
				wantData = append(wantData, f.Event+"|"+f.Data)
			}
		}
		for _, f := range got {
			if f.Kind == FrameEvent {
				gotData = append(gotData, f.Event+"|"+f.Data)
			}
		}
		if strings.Join(gotData, "\n") != strings.Join(wantData, "\n") {
			t.Fatalf("%s: plain SSE events\n%s\nwant\n%s", s.Name, strings.Join(gotData, "\n"), strings.Join(wantData, "\n"))
		}
	}
}

func TestRecordingSecrets(t *testing.T) {
	t.Parallel()
	x := sseExchange()
	x.URL += "?key=sk-url-secret&alt=sse"
	x.RequestHeader.Set("Authorization", "Bearer sk-auth-secret")
	x.RequestHeader.Set("X-Api-Key", "sk-xapi-secret")
	x.RequestHeader.Set("Api-Key", "sk-azure-secret")
	x.RequestHeader.Set("Cookie", "session=sk-cookie-secret")
	x.ResponseHeader.Set("Set-Cookie", "id=sk-setcookie-secret")
	// A URL in a header is a URL: its ?key= is redacted too.
	x.RequestHeader.Set("Referer", "https://app.test/page?key=sk-referer-secret")
	x.ResponseHeader.Set("Location", "https://other.test/v1?alt=sse&key=sk-location-secret")
	x.ResponseHeader.Set("X-Goog-Api-Key", "sk-goog-secret")
	secrets := []string{"sk-url-secret", "sk-auth-secret", "sk-xapi-secret", "sk-azure-secret", "sk-cookie-secret", "sk-setcookie-secret",
		"sk-referer-secret", "sk-location-secret", "sk-goog-secret"}
	in := []byte("data: 1\n\n")
	rec, _ := record(t, x, RecordOptions{Format: FormatSSE}, in, 100)
	for _, s := range secrets {
		if bytes.Contains(rec, []byte(s)) {
			t.Errorf("recording holds %q:\n%s", s, rec)
		}
	}
	if !bytes.Contains(rec, []byte("Authorization: "+Redacted)) || !bytes.Contains(rec, []byte("alt=sse")) ||
		!bytes.Contains(rec, []byte("Location: https://other.test/v1?alt=sse&key=%5Bredacted%5D")) {
		t.Errorf("recording lacks the redacted header or the other parameters:\n%s", rec)
	}
	kept, _ := record(t, x, RecordOptions{Format: FormatSSE, KeepSecrets: true}, in, 100)
	for _, s := range secrets {
		if !bytes.Contains(kept, []byte(s)) {
			t.Errorf("--keep-secrets recording lacks %q", s)
		}
	}
}

// TestRecordingCurlHead: recording `curl -i` output from stdin moves the
// head into the header block, so the file stays an SSE stream.
func TestRecordingCurlHead(t *testing.T) {
	t.Parallel()
	in := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\ndata: 2\n\n")
	rec, _ := record(t, &Exchange{Source: "stdin", HeadAt: NoTime}, RecordOptions{Format: FormatAuto}, in, 3)
	p, err := ParseRecording(rec)
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != 200 || p.ResponseHeader.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("exchange = %+v\n%s", p.Exchange, rec)
	}
	if got := string(p.Bytes()); got != "data: 1\n\ndata: 2\n\n" {
		t.Fatalf("body = %q", got)
	}
	if bytes.Contains(rec, []byte("\nHTTP/")) {
		t.Fatalf("head left in the body:\n%s", rec)
	}
}

// TestRecordingJSONBody: a non-streaming body is kept verbatim.
func TestRecordingJSONBody(t *testing.T) {
	t.Parallel()
	x := sseExchange()
	x.ResponseHeader.Set("Content-Type", "application/json")
	in := []byte(`{"id":"resp_1","output":[]}`)
	rec, _ := record(t, x, RecordOptions{Format: FormatJSON}, in, 4)
	got := readBack(t, rec, FormatAuto)
	if len(got) != 2 || got[1].Kind != FrameEvent || got[1].Data != string(in) || got[1].At != time.Millisecond {
		t.Fatalf("frames = %+v", got)
	}
}

func TestNotRecording(t *testing.T) {
	t.Parallel()
	if _, err := ParseRecording([]byte("data: 1\n\n")); err != ErrNotRecording {
		t.Fatalf("ParseRecording(plain SSE) = %v; want ErrNotRecording", err)
	}
}

// FuzzRecording checks the recording reader on mutated recordings: it
// never panics, its frames tile the input and do not depend on where the
// input was split into reads.
func FuzzRecording(f *testing.F) {
	for _, s := range samples.List() {
		in, _ := samples.Open(s.Name)
		var buf bytes.Buffer
		rec := NewRecorder(&buf, sseExchange(), RecordOptions{Format: FormatSSE})
		_ = rec.Write(in, time.Millisecond)
		_ = rec.Close(2 * time.Millisecond)
		f.Add(buf.Bytes(), uint32(buf.Len()/3), uint32(buf.Len()/2))
	}
	for _, tt := range bodyInputs(f) { // timed event stream and JSON lines bodies
		x := sseExchange()
		x.ResponseHeader.Set("Content-Type", tt.ctype)
		for _, format := range []Format{ContentFormat(tt.ctype), FormatAuto} {
			var buf bytes.Buffer
			rec := NewRecorder(&buf, x, RecordOptions{Format: format})
			_ = rec.Write(tt.in[:len(tt.in)/2], time.Millisecond)
			_ = rec.Write(tt.in[len(tt.in)/2:], 3*time.Millisecond)
			_ = rec.Close(4 * time.Millisecond)
			f.Add(buf.Bytes(), uint32(buf.Len()/3), uint32(buf.Len()/2))
			x = nil
		}
	}
	f.Add([]byte(RecordingMagic+"\n: response HTTP/1.1 200 OK\n\n{\"a\":1}\n"), uint32(3), uint32(40))
	f.Add([]byte(RecordingMagic), uint32(3), uint32(10))
	f.Add([]byte(RecordingMagic+"\n: request-body {\"a\n: request-body-size x\n: request-body-size -9\n\ndata: 1\n\n"), uint32(20), uint32(60))
	f.Fuzz(func(t *testing.T, in []byte, a, b uint32) {
		i, j := int(a%uint32(len(in)+1)), int(b%uint32(len(in)+1))
		if i > j {
			i, j = j, i
		}
		_, _ = ParseRecording(in)
		for _, format := range []Format{FormatRecording, FormatAuto} {
			whole := frameAll(t, format, in)
			checkCoverage(t, whole, len(in))
			cut := frameAll(t, format, in, i, j)
			if got, want := fmt.Sprintf("%+v", cut), fmt.Sprintf("%+v", whole); got != want {
				t.Fatalf("%v frames of %q cut at %d,%d =\n%s\nwant\n%s", format, in, i, j, got, want)
			}
		}
	})
}

// A status that is not three digits (100–999) is no status: a hostile
// recording or `curl -i` head must not hand an HTTP server a code that
// makes it panic (replay --listen serves the recorded status).
func TestInvalidStatusIsNone(t *testing.T) {
	t.Parallel()
	for _, status := range []string{"99999999999999999999", "1000", "99", "-200", "2OO"} {
		rec, err := ParseRecording([]byte(RecordingMagic + "\n: response HTTP/1.1 " + status + " OK\n\ndata: x\n\n"))
		if err != nil || rec.Status != 0 {
			t.Errorf("recording with response %s: status %d, %v; want 0", status, rec.Status, err)
		}
		var got []int
		fr := NewFramer(FormatHTTP)
		emit := func(f *Frame) {
			if f.Kind == FrameHead {
				got = append(got, f.Status)
			}
		}
		fr.Feed([]byte("HTTP/1.1 "+status+" OK\r\nContent-Type: text/event-stream\r\n\r\ndata: x\n\n"), 0, emit)
		fr.Finish(0, emit)
		if len(got) > 0 && got[0] != 0 {
			t.Errorf("curl -i head with status %s: status %d; want 0", status, got[0])
		}
	}
	if rec, _ := ParseRecording([]byte(RecordingMagic + "\n: response HTTP/1.1 429 Too Many Requests\n\ndata: x\n\n")); rec.Status != 429 {
		t.Errorf("status 429 read as %d", rec.Status)
	}
}

// TestRecordingBadTimes: a timing value that is not a time (not a number,
// NaN, infinite, negative, past MaxRecordedTime) is read one way: the
// frame takes the time of the frame before it, and the recording counts
// it. `: t=1e9` (31 years) and `: t=1e300`, NaN and -1 used to be a wait
// of decades and an at-once send.
func TestRecordingBadTimes(t *testing.T) {
	t.Parallel()
	values := []string{"0.5", "1e9", "1e300", "NaN", "-1", "+Inf", "x", "86400.000001", "1.25", "-", "86400"}
	in := RecordingMagic + "\n: response HTTP/1.1 200 OK\n: response-header Content-Type: text/event-stream\n: response-t NaN\n\n"
	for i, v := range values {
		in += fmt.Sprintf("data: %d\n: t=%s\n\n", i, v)
	}
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	want := []time.Duration{ms(0.5), ms(0.5), ms(0.5), ms(0.5), ms(0.5), ms(0.5), ms(0.5), ms(0.5), ms(1.25), NoTime, MaxRecordedTime}
	rec, err := ParseRecording([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if rec.HeadAt != NoTime || rec.BadTimes != 8 {
		t.Errorf("head at %v, %d bad times; want none and 8", rec.HeadAt, rec.BadTimes)
	}
	if len(rec.Body) != len(values) {
		t.Fatalf("%d chunks; want %d", len(rec.Body), len(values))
	}
	for i, c := range rec.Body {
		if c.At != want[i] || string(c.Data) != fmt.Sprintf("data: %d\n\n", i) {
			t.Errorf("chunk %d (t=%s) = %q at %v; want it at %v", i, values[i], c.Data, c.At, want[i])
		}
	}
	// `streamtap FILE` reads the same times.
	var got []time.Duration
	for _, f := range readBack(t, []byte(in), FormatAuto) {
		if f.Kind == FrameEvent {
			got = append(got, f.At)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("read back at %v; want %v", got, want)
	}
}

// TestRecordingRequestBodySize: a recording whose request body is only
// the start of the body (the proxy keeps a bounded prefix) says the
// body's size, and reads it back; a whole body adds no line.
func TestRecordingRequestBodySize(t *testing.T) {
	t.Parallel()
	for _, size := range []int64{0, 104_857_600, -1} {
		x := sseExchange()
		x.RequestBodySize = size
		var buf bytes.Buffer
		rec := NewRecorder(&buf, x, RecordOptions{Format: FormatSSE})
		_ = rec.Write([]byte("data: 1\n\n"), time.Millisecond)
		if err := rec.Close(time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if has := bytes.Contains(buf.Bytes(), []byte(": request-body-size ")); has != (size != 0) {
			t.Errorf("size %d: the header has a request-body-size line: %v\n%s", size, has, buf.Bytes())
		}
		got, err := ParseRecording(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if got.RequestBodySize != size || !bytes.Equal(got.RequestBody, x.RequestBody) {
			t.Errorf("size %d: read back as %d with body %q", size, got.RequestBodySize, got.RequestBody)
		}
	}
}
