package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/samples"
)

// TestTmuxEndToEnd runs the built binary in a real terminal (tmux, 120×40)
// with a sample piped into it, moves the selection with keys, and checks
// that the calls pane shows the arguments as they stood at that event.
func TestTmuxEndToEnd(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	data, err := samples.Open("responses-single-call")
	if err != nil {
		t.Fatal(err)
	}
	sample := filepath.Join(t.TempDir(), "sample.sse")
	if err := os.WriteFile(sample, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tm := startTmux(t, 120, 40, "cat "+shellQuote(sample)+" | "+shellQuote(bin))
	const wait = 15 * time.Second
	tm.waitFor("the stream to end", wait, func(s string) bool { return strings.Contains(s, "ended: completed") })
	s := tm.screen()
	if !strings.Contains(s, `"location": "Paris, France"`) {
		t.Fatalf("at the last event the calls pane should show the full arguments:\n%s", s)
	}

	// g selects event 0; five j's select event 5, which added ` "Par`.
	tm.send("g", "j", "j", "j", "j", "j")
	s = tm.waitFor("event 5", wait, func(s string) bool { return strings.Contains(s, "as of event #5") })
	if !strings.Contains(s, `"location": "Par`) || strings.Contains(s, "Paris") {
		t.Fatalf("as of event 5 the arguments should end at \"Par:\n%s", s)
	}
	tm.send("j")
	s = tm.waitFor("event 6", wait, func(s string) bool { return strings.Contains(s, "as of event #6") })
	if !strings.Contains(s, `"location": "Paris, Fr`) || strings.Contains(s, "France") {
		t.Fatalf("as of event 6 the arguments should end at Paris, Fr:\n%s", s)
	}
	tm.send("q")
	tm.waitExit("q to quit", wait)
}
