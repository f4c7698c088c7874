package cli

// Tests of the headless commands as a CI job and hostile input use them:
// what a HAR keeps of failed exchanges, archives as operands of diff,
// --session values.

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// Streams that no dialect recognises (an empty body, one byte, an HTML
// page, an error body, a 502 head) read back from the HAR --save-har
// wrote as the same calls and, without a head, the same events: the HAR
// keeps them, so reading it must too. (A head read back is timed 0 where
// the stream had no time: HAR's send and wait phases cannot be absent.)
func TestSaveHARRoundTripOfUnrecognisedStreams(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"one byte", "x"},
		{"html page", "<html><body>502 Bad Gateway</body></html>\n"},
		{"error body", `{"error":{"message":"bad key","type":"invalid_request_error"}}`},
		{"curl -i 502", "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\n\r\n<html>bad</html>\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := writeTemp(t, "in.sse", tt.in)
			har := writeTemp(t, "out.har", "")
			cmds := [][]string{{"calls", "--json"}, {"events"}}
			if strings.HasPrefix(tt.in, "HTTP/") {
				cmds = cmds[:1]
			}
			for _, cmd := range cmds {
				_, want, errs := runCLI(t, nil, append(cmd, "--save-har", har, "--force", in)...)
				if errs != "" {
					t.Fatalf("%v --save-har: %s", cmd, errs)
				}
				code, got, errs := runCLI(t, nil, append(cmd, har)...)
				if code != 0 || got != want {
					t.Errorf("%v of %q through a HAR: exit %d %s\n%s\nwant\n%s", cmd, tt.in, code, errs, got, want)
				}
			}
		})
	}
}

// harOfFailedExchanges is a HAR as the proxy writes it for an LLM request
// answered 401, an upstream that was unreachable (status 0, _error), a
// completed stream, and a page of no LLM API.
const harOfFailedExchanges = `{"log":{"version":"1.2","entries":[
 {"request":{"method":"POST","url":"https://api.openai.com/v1/chat/completions",
   "postData":{"mimeType":"application/json","text":"{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[]}"}},
  "response":{"status":200,"headers":[{"name":"Content-Type","value":"text/event-stream"}],
   "content":{"mimeType":"text/event-stream","text":"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"}}},
 {"request":{"method":"POST","url":"https://api.openai.com/v1/chat/completions",
   "postData":{"mimeType":"application/json","text":"{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[]}"}},
  "response":{"status":401,"headers":[{"name":"Content-Type","value":"text/html"}],
   "content":{"mimeType":"text/html","text":"<html>401 Authorization Required</html>"}}},
 {"request":{"method":"POST","url":"https://api.openai.com/v1/chat/completions",
   "postData":{"mimeType":"application/json","text":"{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[]}"}},
  "response":{"status":0,"content":{"size":0,"mimeType":""},"_error":"dial tcp: connection refused"}},
 {"request":{"method":"GET","url":"https://example.com/index.html"},
  "response":{"status":200,"content":{"mimeType":"text/html","text":"<html></html>"}}}
]}}`

// A HAR's failed LLM exchanges are sessions: check fails on them instead
// of passing a file whose only readable stream is the one that worked.
// The page that is no LLM exchange is still skipped.
func TestHARFailedLLMExchangesAreSessions(t *testing.T) {
	t.Parallel()
	har := writeTemp(t, "proxy.har", harOfFailedExchanges)
	code, out, errs := runCLI(t, nil, "check", "--json", har)
	if code != 1 {
		t.Errorf("check --json: exit %d; want 1 (sessions 2 and 3 failed) %s", code, errs)
	}
	var got []string
	for line := range strings.Lines(out) {
		var r struct {
			Session  int
			Exchange struct{ Status int }
			Outcome  struct{ State string }
			Pass     bool
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, strings.Join([]string{itoa(r.Session), itoa(r.Exchange.Status), r.Outcome.State}, " "))
	}
	// The unreachable upstream sent nothing: an empty stream, which fails.
	want := []string{"1 200 completed", "2 401 error", "3 0 empty"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sessions = %q; want %q", got, want)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// diff reads its operands as the other commands read their input: a HAR
// of one session is that session's stream, a .chunks.txt file a vercel/ai
// fixture, and an archive of several sessions as the last operand is bad
// usage, not one JSON document compared event by event.
func TestDiffOperandsAreReadLikeInputs(t *testing.T) {
	t.Parallel()
	stream := writeTemp(t, "chat.sse", chatStream)
	har := writeTemp(t, "chat.har", "")
	if code, _, errs := runCLI(t, nil, "calls", "--save-har", har, stream); code != 0 {
		t.Fatalf("calls --save-har: exit %d %s", code, errs)
	}
	chunks := writeTemp(t, "chat.chunks.txt",
		`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}`+"\n"+
			`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n")
	chunksAsSSE := writeTemp(t, "chunks.sse",
		`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}`+"\n\n"+
			`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	two := writeTemp(t, "two.har", harOfFailedExchanges)
	tests := []struct {
		name     string
		a, b     string
		code     int
		stderrIs string
	}{
		{"a HAR of the stream", har, stream, 0, ""},
		{"the stream and its HAR", stream, har, 0, ""},
		{"a chunks file", chunks, chunksAsSSE, 0, ""},
		{"an archive of several sessions", stream, two, 2, "B: " + two + " holds 3 sessions"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, nil, "diff", "--json", tt.a, tt.b)
		if code != tt.code || !strings.Contains(errs, tt.stderrIs) {
			t.Errorf("%s: diff: exit %d, stderr %q; want %d and %q\n%s", tt.name, code, errs, tt.code, tt.stderrIs, out)
		}
	}
}

// --session counts from 1: 0 is bad usage, not "every session".
func TestSessionZeroIsBadUsage(t *testing.T) {
	t.Parallel()
	har := writeTemp(t, "three.har", harOfFailedExchanges)
	for _, args := range [][]string{
		{"calls", "--session", "0", har},
		{"check", "--json", "--session=0", har},
		{"--session", "0", "timeline", har},
	} {
		code, out, errs := runCLI(t, nil, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "--session 0: sessions count from 1") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and sessions count from 1", args, code, out, errs)
		}
	}
}

// An output flag that cannot be created (a directory) is a one-line error
// with exit 2 for every reading command, never a panic.
func TestUnwritableOutputIsAnError(t *testing.T) {
	t.Parallel()
	in := writeTemp(t, "chat.sse", chatStream)
	dir := t.TempDir()
	for _, cmd := range [][]string{{"calls"}, {"calls", "--json"}, {"events"}, {"check"}, {"check", "--json"}, {"timeline"}} {
		for _, flag := range []string{"--save", "--save-timed", "--save-har"} {
			args := append(append([]string{}, cmd...), flag, dir, in)
			code, out, errs := runCLI(t, nil, args...)
			if code != 2 || out != "" || !strings.Contains(errs, "is a directory") || strings.Contains(errs, "panic") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and is a directory", args, code, out, errs)
			}
		}
	}
}

// check writes --save-timed as the other reading commands do, and fails
// when it cannot (it took the flag and ignored it).
func TestCheckSavesTimed(t *testing.T) {
	t.Parallel()
	in := writeTemp(t, "chat.sse", chatStream)
	rec := filepath.Join(t.TempDir(), "chat.rec")
	if code, _, errs := runCLI(t, nil, "check", "--save-timed", rec, in); code != 0 {
		t.Fatalf("check --save-timed: exit %d %s", code, errs)
	}
	data, err := os.ReadFile(rec)
	if err != nil || !strings.HasPrefix(string(data), capture.RecordingMagic) {
		t.Errorf("check --save-timed wrote %q, %v; want a timed recording", data, err)
	}
	if code, _, errs := runCLI(t, nil, "check", "--save-timed", "/dev/full", in); code != 2 || !strings.Contains(errs, "no space left") {
		t.Errorf("check --save-timed /dev/full: exit %d, stderr %q; want 2 and the write error", code, errs)
	}
}

// An output flag naming the input (or --request, or another output) is
// bad usage: creating it emptied the input before it was read.
func TestOutputOverInputIsRefused(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"calls", "events", "check", "timeline"} {
		for _, flag := range []string{"--save", "--save-timed", "--save-har"} {
			in := writeTemp(t, "chat.sse", chatStream)
			code, _, errs := runCLI(t, nil, cmd, flag, in, in)
			data, _ := os.ReadFile(in)
			if code != 2 || string(data) != chatStream || !strings.Contains(errs, "would be overwritten") {
				t.Errorf("%s %s FILE FILE: exit %d, stderr %q, input now %d bytes; want 2, the input kept", cmd, flag, code, errs, len(data))
			}
		}
	}
	in := writeTemp(t, "chat.sse", chatStream)
	out := filepath.Join(t.TempDir(), "out")
	if code, _, errs := runCLI(t, nil, "calls", "--save", out, "--save-har", out, in); code != 2 || !strings.Contains(errs, "--save-har "+out+" is also --save") {
		t.Errorf("--save and --save-har to one file: exit %d, stderr %q; want 2", code, errs)
	}
	if code, _, errs := runCLI(t, nil, "calls", "--save", "/dev/null", "--save-har", "/dev/null", in); code != 0 {
		t.Errorf("two outputs to /dev/null: exit %d, stderr %q; want 0", code, errs)
	}
}

// The timeline's last line names the input as diff does, escaped: a file
// name can hold escape sequences as well as a stream can.
func TestTimelineEscapesTheInputName(t *testing.T) {
	t.Parallel()
	in := writeTemp(t, "evil\x1b]0;pwn\x07\x1b[31m.sse", chatStream)
	code, out, errs := runCLI(t, nil, "timeline", in)
	if code != 0 || strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `evil\x1b]0;pwn\x07\x1b[31m.sse: `) {
		t.Errorf("timeline: exit %d %s\n%q", code, errs, out)
	}
}

// A session that got no response says why in its header line: the
// proxy's (or Chrome's) _error.
func TestSessionHeaderSaysWhyNoResponse(t *testing.T) {
	t.Parallel()
	har := writeTemp(t, "proxy.har", harOfFailedExchanges)
	_, out, _ := runCLI(t, nil, "check", har)
	want := "# session 3/3: POST https://api.openai.com/v1/chat/completions · no response: dial tcp: connection refused\n"
	if !strings.Contains(out, want) {
		t.Errorf("check:\n%s\nwant a line %q", out, want)
	}
}

// fullWriter fails every write, as /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestHelpToAFullOutputFails: help that could not be written exits 2 and
// says why on stderr, as every command's output does (help > /dev/full
// printed nothing and exited 0).
func TestHelpToAFullOutputFails(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help"}, {"help", "calls"}, {"calls", "--help"}, {"--help"}} {
		var stderr strings.Builder
		if code := run(t.Context(), args, os.Stdin, fullWriter{}, &stderr); code != 2 || !strings.Contains(stderr.String(), "no space left") {
			t.Errorf("%v to a full output: exit %d, stderr %q; want 2 and the write error", args, code, stderr.String())
		}
	}
}
