package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The tests here run `streamtap -` with stdin left on the terminal (no
// pipe): tmux gives the program a real TTY as stdin, as a user's shell
// does. Each key must end the program within the liveness bound.

const stdinLiveness = 10 * time.Second

// TestTerminalStdinInspectorQuits: the inspector says it waits for a
// stream on stdin and how to pipe one, and q, ctrl+c and ctrl+d quit.
func TestTerminalStdinInspectorQuits(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	for _, key := range []string{"q", "C-c", "C-d"} {
		t.Run(key, func(t *testing.T) {
			tm := startTmux(t, 100, 24, shellQuote(bin)+" -; echo streamtap-exit=$?")
			tm.waitFor("the waiting text", stdinLiveness, func(s string) bool {
				return strings.Contains(s, "waiting for a stream on stdin") && strings.Contains(s, "| streamtap")
			})
			tm.send(key)
			s := tm.waitFor(key+" to quit", stdinLiveness, func(s string) bool { return strings.Contains(s, "streamtap-exit=") })
			if !strings.Contains(s, "streamtap-exit=0") {
				t.Errorf("after %s the exit status is not 0:\n%s", key, s)
			}
		})
	}
}

// TestTerminalStdinHeadless: a headless command reading a terminal says
// how to end the input; ctrl+d ends it and the command reports what was
// typed, ctrl+c interrupts it.
func TestTerminalStdinHeadless(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	const hint = "reading a stream from the terminal; end it with ctrl+d"
	for _, cmd := range []string{"calls", "check"} {
		t.Run(cmd+" ctrl+d", func(t *testing.T) {
			tm := startTmux(t, 160, 24, shellQuote(bin)+" "+cmd+" -; echo streamtap-exit=$?")
			tm.waitFor("the hint", stdinLiveness, func(s string) bool { return strings.Contains(s, hint) })
			tm.send("-l", `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"typed"}]},"finishReason":"STOP","index":0}]}`)
			tm.send("Enter", "Enter", "C-d")
			s := tm.waitFor("ctrl+d to end the input", stdinLiveness, func(s string) bool { return strings.Contains(s, "streamtap-exit=") })
			if !strings.Contains(s, "completed") || !strings.Contains(s, "streamtap-exit=0") {
				t.Errorf("%s - after ctrl+d: want the completed stream and exit 0:\n%s", cmd, s)
			}
		})
		t.Run(cmd+" ctrl+c", func(t *testing.T) {
			tm := startTmux(t, 160, 24, shellQuote(bin)+" "+cmd+" -; echo streamtap-exit=$?")
			tm.waitFor("the hint", stdinLiveness, func(s string) bool { return strings.Contains(s, hint) })
			tm.send("C-c")
			s := tm.waitFor("ctrl+c to interrupt", stdinLiveness, func(s string) bool { return strings.Contains(s, "streamtap-exit=") })
			if !strings.Contains(s, "streamtap-exit=130") {
				t.Errorf("%s - after ctrl+c: want exit 130 (interrupted):\n%s", cmd, s)
			}
		})
	}
}

// TestTerminalStdinRequestBody: `request -d @-` on a terminal reads the
// body as typed, ends it on ctrl+d and sends it; ctrl+c interrupts it.
func TestTerminalStdinRequestBody(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- string(body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP","index":0}]}`+"\n\n")
	}))
	t.Cleanup(srv.Close)
	const hint = "reading the request body from the terminal; end it with ctrl+d"
	cmd := shellQuote(bin) + " request " + shellQuote(srv.URL) + " -d @- --json; echo streamtap-exit=$?"

	tm := startTmux(t, 160, 24, cmd)
	tm.waitFor("the hint", stdinLiveness, func(s string) bool { return strings.Contains(s, hint) })
	tm.send("-l", `{"stream":true}`)
	tm.send("Enter", "C-d")
	s := tm.waitFor("ctrl+d to send the body", stdinLiveness, func(s string) bool { return strings.Contains(s, "streamtap-exit=") })
	if !strings.Contains(s, "streamtap-exit=0") {
		t.Errorf("request -d @- after ctrl+d: want exit 0:\n%s", s)
	}
	select {
	case body := <-got:
		if body != "{\"stream\":true}\n" {
			t.Errorf("the server got the body %q; want what was typed", body)
		}
	default:
		t.Error("the server got no request")
	}

	tm = startTmux(t, 160, 24, cmd)
	tm.waitFor("the hint", stdinLiveness, func(s string) bool { return strings.Contains(s, hint) })
	tm.send("C-c")
	s = tm.waitFor("ctrl+c to interrupt", stdinLiveness, func(s string) bool { return strings.Contains(s, "streamtap-exit=") })
	if !strings.Contains(s, "streamtap-exit=130") {
		t.Errorf("request -d @- after ctrl+c: want exit 130:\n%s", s)
	}
}

// TestDevNullStdinSaysNoInput: on a terminal, `streamtap < /dev/null` (an
// unset variable in a script) says there is no input and exits 2, where
// it opened the demo with exit 0; plain `streamtap` with the terminal as
// stdin still opens the demo (TestTmuxDemoLessonAndExplainFlag).
func TestDevNullStdinSaysNoInput(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	dir := t.TempDir()
	errFile, codeFile := filepath.Join(dir, "stderr"), filepath.Join(dir, "code")
	// The command ends at once, before tmux may have drawn the pane: what
	// it says and its status go to files.
	tm := startTmux(t, 160, 24, shellQuote(bin)+" </dev/null 2>"+shellQuote(errFile)+"; echo $? >"+shellQuote(codeFile))
	tm.waitExit("the exit", stdinLiveness)
	stderr, _ := os.ReadFile(errFile)
	code, _ := os.ReadFile(codeFile)
	if strings.TrimSpace(string(code)) != "2" || !strings.Contains(string(stderr), "no input") {
		t.Errorf("streamtap </dev/null should say there is no input, exit 2: exit %q, stderr %q\n%s", code, stderr, tm.screen())
	}
}
