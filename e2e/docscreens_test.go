package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/internal/fixtures"
)

var updateScreens = flag.Bool("update", false, "rewrite the screens of README.md and docs/*.md from the program")

// docScreen matches a screen a document shows: a marker that says how to
// make it (the terminal's size, streamtap's arguments, the keys typed,
// in tmux send-keys names, N*key for N presses) and the code block under
// it, the screen as tmux capture-pane prints it.
var docScreen = regexp.MustCompile("(?s)<!-- screen (\\d+)x(\\d+): streamtap ([^;]*); keys: ([^(]*?) \\(TestDocScreens[^)]*\\) -->\n```\n(.*?)```\n")

// TestDocScreens holds every screen README.md and docs/*.md show to what
// the program draws in a terminal of that size, so that a picture of the
// inspector cannot drift from it; with -update it draws them again
// (go test ./e2e -run TestDocScreens -update).
func TestDocScreens(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	docs, err := filepath.Glob(fixtures.Path("docs/*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{fixtures.Path("README.md")}, docs...)
	found := 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		matches := docScreen.FindAllStringSubmatchIndex(text, -1)
		found += len(matches)
		var out strings.Builder
		last := 0
		for _, m := range matches {
			sub := func(i int) string { return text[m[2*i]:m[2*i+1]] }
			w, _ := strconv.Atoi(sub(1))
			h, _ := strconv.Atoi(sub(2))
			args, keys, shown := sub(3), sub(4), sub(5)
			name := filepath.Base(doc) + ": streamtap " + args
			got := drawScreen(t, bin, w, h, args, keys, shown)
			if !*updateScreens && got != shown {
				t.Errorf("%s at %dx%d, keys %s, draws (go test ./e2e -run TestDocScreens -update remakes it):\n%s\nthe document shows:\n%s", name, w, h, keys, got, shown)
			}
			out.WriteString(text[last:m[10]])
			out.WriteString(got)
			last = m[11]
		}
		out.WriteString(text[last:])
		if *updateScreens && out.String() != text {
			if err := os.WriteFile(doc, []byte(out.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if found == 0 {
		t.Fatal("no document shows a screen: is the marker's pattern still right?")
	}
}

// drawScreen runs streamtap with args in a w×h tmux terminal, types keys
// once it has drawn, and returns the screen, its trailing spaces and
// blank lines cut. It waits until the screen is want (when checking) or
// has stopped changing; the timeout is a liveness bound, not a target.
func drawScreen(t *testing.T, bin string, w, h int, args, keys, want string) string {
	t.Helper()
	tm := startTmux(t, w, h, "cd "+shellQuote(fixtures.Root())+" && "+shellQuote(bin)+" "+args)
	const timeout = 20 * time.Second
	first, ok := tm.waitStable(timeout, func(string) bool { return true })
	if !ok {
		t.Fatalf("streamtap %s did not draw a steady screen within %v:\n%s", args, timeout, first)
	}
	if keys != "none" {
		for _, k := range strings.Fields(keys) {
			n, key := 1, k
			if before, after, ok := strings.Cut(k, "*"); ok {
				n, _ = strconv.Atoi(before)
				key = after
			}
			for range n {
				tm.send(key)
			}
		}
	}
	// Checking, a screen that never becomes want is reported by the
	// caller with its difference; updating, it must at least show the
	// keys' effect.
	s, ok := tm.waitStable(timeout, func(s string) bool {
		if !*updateScreens {
			return s == want
		}
		return keys == "none" || s != first
	})
	if !ok && *updateScreens {
		t.Fatalf("streamtap %s: the keys %s changed nothing within %v:\n%s", args, keys, timeout, s)
	}
	return s
}

// waitStable polls the screen (trailing spaces and blank lines cut) until
// ok holds and it has not changed for half a second, and returns it and
// true; after timeout, the last screen and false.
func (tt *tmuxTerm) waitStable(timeout time.Duration, ok func(string) bool) (string, bool) {
	tt.t.Helper()
	deadline := time.Now().Add(timeout)
	prev, since := "", time.Now()
	for {
		s := trimScreen(tt.screen())
		if s != prev {
			prev, since = s, time.Now()
		}
		if strings.TrimSpace(s) != "" && ok(s) && time.Since(since) >= 500*time.Millisecond {
			return s, true
		}
		if time.Now().After(deadline) {
			return s, false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// trimScreen cuts each line's trailing spaces and the screen's trailing
// blank lines, and ends it with one newline, as a document's block holds
// it.
func trimScreen(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
}
