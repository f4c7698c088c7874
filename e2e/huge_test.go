package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hugeEventFile writes a Responses stream whose output_item.done carries
// a function call with about n bytes of arguments: one string that starts
// with BEGIN- and ends with -END.
func hugeEventFile(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "huge.sse")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var text strings.Builder
	text.WriteString("BEGIN-")
	for i := 0; text.Len() < n; i++ {
		fmt.Fprintf(&text, "w%07d ", i)
	}
	text.WriteString("-END")
	args, _ := json.Marshal(map[string]string{"content": text.String()})
	quoted, _ := json.Marshal(string(args))
	fmt.Fprint(w, "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\",\"output\":[]}}\n\n")
	fmt.Fprint(w, "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"sequence_number\":1,\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"status\":\"completed\",\"arguments\":")
	w.Write(quoted)
	fmt.Fprint(w, ",\"call_id\":\"call_1\",\"name\":\"write_file\"}}\n\n")
	fmt.Fprint(w, "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":2,\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"output\":[]}}\n\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTmuxHugeEvent opens a file with one 20 MB event in the built binary
// at 120×40 and drives the detail pane (pretty and raw) and the calls pane
// over it: each shows the start of the payload, G and k move through it,
// and q still quits. The timeouts are liveness bounds: the program used to
// freeze at 100% CPU on such an event. The same steps on a 1 kB event are
// the baseline of the key-to-screen times it logs.
func TestTmuxHugeEvent(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	for _, size := range []struct {
		name string
		n    int
	}{{"1kB", 1_000}, {"20MB", 20_000_000}} {
		t.Run(size.name, func(t *testing.T) { driveHugeEvent(t, bin, hugeEventFile(t, size.n), size.n > 100_000) })
	}
}

func driveHugeEvent(t *testing.T, bin, path string, scrolls bool) {
	tm := startTmux(t, 120, 40, shellQuote(bin)+" "+shellQuote(path))
	const wait = 15 * time.Second
	tm.waitFor("the stream to load", wait, func(s string) bool { return strings.Contains(s, "ended: completed") })
	tm.send("g", "j") // select the big event, the second
	tm.waitFor("the big event to be selected", wait, func(s string) bool { return strings.Contains(s, "timeline  #1 of 3") })

	steps := []struct {
		keys []string
		what string
		ok   func(s string) bool
	}{
		{[]string{"2"}, "the detail pane to show the start of the JSON", func(s string) bool {
			return strings.Contains(s, `"arguments": "{\"content\":\"BEGIN-w0000000`)
		}},
		{[]string{"G"}, "G to reach the end of the event", func(s string) bool {
			return strings.Contains(sideJoined(s), `-END\"}","call_id":"call_1","name":"write_file"}}`)
		}},
		{[]string{"g"}, "g to go back to the start", func(s string) bool { return strings.Contains(s, `"type": "response.output_item.done"`) }},
		{[]string{"r"}, "the raw view of the start", func(s string) bool {
			return strings.Contains(s, "detail (raw)") && strings.Contains(s, "event: response.output_item.done␊")
		}},
		{[]string{"r"}, "back to the pretty view", func(s string) bool {
			return !strings.Contains(s, "detail (raw)") && strings.Contains(s, `"status": "completed"`)
		}},
		{[]string{"3"}, "the calls pane to show the arguments' start", func(s string) bool { return strings.Contains(s, `"content": "BEGIN-w0000000`) }},
		{[]string{"G"}, "G to reach the arguments' end", func(s string) bool { return strings.Contains(sideJoined(s), `-END"}`) }},
	}
	for _, st := range steps {
		before := tm.screen()
		start := time.Now()
		tm.send(st.keys...)
		// A small event may already show its end: G changes nothing.
		tm.waitFor(st.what, wait, func(s string) bool { return (s != before || !scrolls) && st.ok(s) })
		// Logged, not asserted (the machines are noisy): the key-to-screen
		// time the closing notes quote, polling included.
		t.Logf("%-50s %v", st.what, time.Since(start).Round(time.Millisecond))
	}
	if scrolls {
		before := tm.screen()
		tm.send("k")
		tm.waitFor("k to scroll up", wait, func(s string) bool { return s != before })
	}
	tm.send("q")
	tm.waitExit("q to quit", wait)
}

// sideJoined is the side pane's text on a screen with its line breaks and
// spaces removed, so text that wraps still reads whole.
func sideJoined(screen string) string {
	var b strings.Builder
	for _, l := range strings.Split(screen, "\n") {
		if _, side, ok := strings.Cut(l, "│"); ok {
			b.WriteString(strings.Join(strings.Fields(side), ""))
		}
	}
	return b.String()
}
