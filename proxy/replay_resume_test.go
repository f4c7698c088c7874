package proxy

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
)

// chunks is a chunkReader of pieces, the i-th at i seconds.
type chunks struct {
	pieces [][]byte
	i      int
}

func (c *chunks) Next() (capture.Chunk, error) {
	if c.i == len(c.pieces) {
		return capture.Chunk{}, io.EOF
	}
	c.i++
	return capture.Chunk{At: time.Duration(c.i-1) * time.Second, Data: c.pieces[c.i-1]}, nil
}

// restAfter is what afterEvent sends of pieces after the event id, and
// the time of its first chunk.
func restAfter(pieces [][]byte, id string) (string, bool) {
	a := &afterEvent{r: &chunks{pieces: pieces}, cut: eventCut{id: []byte(id)}}
	var out bytes.Buffer
	first := true
	zero := true
	for {
		c, err := a.Next()
		if err != nil {
			return out.String(), zero
		}
		if first {
			zero, first = c.At == 0, false
		}
		out.Write(c.Data)
	}
}

// TestAfterEvent: the rest of a stream after the event with an id,
// whatever its line ends and wherever the stream is cut into chunks;
// an id that is a prefix of another, in a data line, or only in a comment
// is not the event's.
func TestAfterEvent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, stream, id, want string
	}{
		{"LF", "id: a_0\nretry: 1000\ndata: \n\nevent: message\nid: a_1\ndata: {}\n\nid: a_2\ndata: 2\n\n", "a_1", "id: a_2\ndata: 2\n\n"},
		{"the priming event", "id: a_0\ndata: \n\nid: a_1\ndata: 1\n\n", "a_0", "id: a_1\ndata: 1\n\n"},
		{"CRLF", "id: a_0\r\ndata: 0\r\n\r\nid: a_1\r\ndata: 1\r\n\r\n", "a_0", "id: a_1\r\ndata: 1\r\n\r\n"},
		{"CR", "id: a_0\rdata: 0\r\rid: a_1\rdata: 1\r\r", "a_0", "id: a_1\rdata: 1\r\r"},
		{"no space", "id:a_0\ndata: 0\n\ndata: 1\n\n", "a_0", "data: 1\n\n"},
		{"the last event", "id: a_0\ndata: 0\n\nid: a_1\ndata: 1\n\n", "a_1", ""},
		{"a longer id", "id: a_10\ndata: 10\n\nid: a_1\ndata: 1\n\nid: a_2\ndata: 2\n\n", "a_1", "id: a_2\ndata: 2\n\n"},
		{"the last id field", "id: a_1\nid: a_9\ndata: 9\n\nid: a_1\ndata: 1\n\nid: a_2\ndata: 2\n\n", "a_1", "id: a_2\ndata: 2\n\n"},
		{"in data and comments", "data: id: a_1\n: id: a_1\n\nid: a_2\ndata: 2\n\n", "a_1", ""},
		{"two spaces", "id:  a_1\ndata: 1\n\nid: a_2\ndata: 2\n\n", "a_1", ""},
		{"unterminated", "id: a_1\ndata: 1\n", "a_1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := []byte(tc.stream)
			if got, _ := restAfter([][]byte{s}, tc.id); got != tc.want {
				t.Errorf("whole: %q; want %q", got, tc.want)
			}
			for i := range s {
				if got, _ := restAfter([][]byte{s[:i], s[i:]}, tc.id); got != tc.want {
					t.Errorf("cut at %d: %q; want %q", i, got, tc.want)
				}
			}
			var bytewise [][]byte
			for i := range s {
				bytewise = append(bytewise, s[i:i+1])
			}
			if got, _ := restAfter(bytewise, tc.id); got != tc.want {
				t.Errorf("a byte a chunk: %q; want %q", got, tc.want)
			}
		})
	}
	if _, zero := restAfter([][]byte{[]byte("id: a\ndata: 1\n\n"), []byte("id: b\ndata: 2\n\n")}, "a"); zero {
		t.Errorf("the rest's times are not counted from the resumed event: the chunk 1 s after it is due at once")
	}
	if _, zero := restAfter([][]byte{[]byte("id: a\ndata: 1\n\nid: b\ndata: 2\n\n")}, "a"); !zero {
		t.Errorf("the rest of the resumed event's chunk is not due at once")
	}
}

// FuzzAfterEvent: any stream, any id, cut anywhere, never panics, and
// the rest is the same wherever the stream is cut.
func FuzzAfterEvent(f *testing.F) {
	f.Add([]byte("id: a_0\r\ndata: 0\r\n\r\nid: a_1\ndata: 1\n\n"), "a_0", 9)
	f.Add([]byte("id: a\r\r\nid: b\n\n"), "a", 4)
	f.Fuzz(func(t *testing.T, s []byte, id string, at int) {
		whole, _ := restAfter([][]byte{s}, id)
		if len(s) == 0 {
			return
		}
		at = (at%len(s) + len(s)) % len(s)
		if cut, _ := restAfter([][]byte{s[:at], s[at:]}, id); cut != whole {
			t.Errorf("cut at %d: %q; whole: %q", at, cut, whole)
		}
	})
}

// TestSessionResume: a GET with Last-Event-ID gets the events after it
// of the recorded stream that holds it, with the recorded head and the
// ids of the request that stream was served to; a recorded GET with the
// same Last-Event-ID is served as recorded instead; an unknown id is
// answered 400 as the MCP SDK's server answers it; a GET without one
// is matched as before, never by a recorded resumption; nor is a POST,
// Last-Event-ID or not.
func TestSessionResume(t *testing.T) {
	t.Parallel()
	recording := func(method string, reqHeader http.Header, body string, status int, events string) *Recorded {
		var b bytes.Buffer
		x := &capture.Exchange{Method: method, URL: "http://h/mcp", RequestHeader: reqHeader, RequestBody: []byte(body), Status: status, Proto: "HTTP/1.1",
			ResponseHeader: http.Header{"Content-Type": {"text/event-stream"}, "Mcp-Session-Id": {"s-1"}}, HeadAt: capture.NoTime}
		r := capture.NewRecorder(&b, x, capture.RecordOptions{Format: capture.FormatSSE, KeepSecrets: true})
		_ = r.Write([]byte(events), capture.NoTime)
		_ = r.Close(capture.NoTime)
		rc, err := ReplayData(method, b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return rc
	}
	progress := func(id, n int) string {
		return fmt.Sprintf("event: message\nid: c_%d\ndata: {\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%d,\"progress\":%d},\"jsonrpc\":\"2.0\"}\n\n", n, id, n)
	}
	result := func(id int) string {
		return fmt.Sprintf("event: message\nid: c_3\ndata: {\"result\":{\"ok\":true},\"jsonrpc\":\"2.0\",\"id\":%d}\n\n", id)
	}
	call := `{"method":"tools/call","params":{"name":"t","_meta":{"progressToken":%d}},"jsonrpc":"2.0","id":%d}`
	recs := []*Recorded{
		recording("GET", nil, "", 405, ""),
		recording("POST", nil, fmt.Sprintf(call, 7, 7), 200, "id: c_0\nretry: 1000\ndata: \n\n"+progress(7, 1)+progress(7, 2)+result(7)),
		recording("GET", http.Header{"Last-Event-Id": {"x_1"}}, "", 200, "id: x_2\ndata: recorded\n\n"),
	}
	var logs bytes.Buffer
	o := ReplayOptions{Log: NewLog(&logs)}
	s := NewSession(recs, []string{"get", "call", "resumed"}, false)
	srv := httptest.NewServer(s.Handler(s.Play(recs, o), o))
	defer srv.Close()
	do := func(method, lastEvent, body string) (int, string, http.Header) {
		req, err := http.NewRequest(method, srv.URL+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if lastEvent != "" {
			req.Header.Set("Last-Event-ID", lastEvent)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	if code, body, _ := do("GET", "c_1", ""); code != 200 || body != progress(7, 2)+result(7) {
		t.Errorf("a resumption before its stream was served: %d %q; want the recorded events after c_1", code, body)
	}
	if code, body, _ := do("POST", "c_1", fmt.Sprintf(call, 41, 41)); code != 200 || !strings.Contains(body, result(41)) {
		t.Errorf("tools/call (with a Last-Event-ID, which only a GET resumes with): %d %q", code, body)
	}
	code, body, h := do("GET", "c_1", "")
	if want := progress(41, 2) + result(41); code != 200 || body != want || h.Get("Mcp-Session-Id") != "s-1" || h.Get("Content-Type") != "text/event-stream" {
		t.Errorf("resumed after c_1: %d %q %v; want 200 %q with the recorded head", code, body, h, want)
	}
	if code, body, _ := do("GET", "c_3", ""); code != 200 || body != "" {
		t.Errorf("resumed after the last event: %d %q; want 200 and nothing", code, body)
	}
	if code, body, _ := do("GET", "x_1", ""); code != 200 || body != "id: x_2\ndata: recorded\n\n" {
		t.Errorf("a recorded resumption: %d %q", code, body)
	}
	code, body, h = do("GET", "nope", "")
	if want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"streamtap replay: no recorded stream has an event with this id (Last-Event-ID)"},"id":null}`; code != 400 || body != want || h.Get("Content-Type") != "application/json" {
		t.Errorf("an unknown id: %d %q; want 400 %s", code, body, want)
	}
	if code, _, _ := do("GET", "", ""); code != 405 {
		t.Errorf("a GET that resumes nothing: %d; want the recorded 405", code)
	}
	if code, _, _ := do("GET", "", ""); code != 404 {
		t.Errorf("a second GET that resumes nothing: %d; want 404, not the recorded resumption", code)
	}
	out := logs.String()
	for _, want := range []string{
		"streamtap: request #1 GET /mcp resumes after \"c_1\" → exchange 2 of 3, call, the events after it\n",
		"streamtap: request #5 GET /mcp → exchange 3 of 3, resumed\n",
		"streamtap: request #6 GET /mcp resumes after \"nope\" → no recorded stream has it: 400\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
}
