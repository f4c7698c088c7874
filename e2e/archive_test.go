package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// archiveFixture is a cassette of two exchanges (see
// capture/testdata/import/README.md for where it comes from).
var archiveFixture = fixtures.Import(fixtures.AnthropicTurns)

// TestTmuxDiffViewRefusesArchiveB: on a terminal, `streamtap A --diff B`
// refuses a B that is an archive of several sessions before the page
// opens, in one line, exit 2, as it refuses such an A.
func TestTmuxDiffViewRefusesArchiveB(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	dir := t.TempDir()
	errFile, codeFile := filepath.Join(dir, "stderr"), filepath.Join(dir, "code")
	tm := startTmux(t, 160, 20, shellQuote(bin)+" --sample responses-single-call --diff "+shellQuote(archiveFixture)+
		" 2>"+shellQuote(errFile)+"; echo $? >"+shellQuote(codeFile))
	deadline := time.Now().Add(10 * time.Second)
	for !tm.exited() && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if !tm.exited() {
		t.Logf("screen:\n%s", tm.screen())
		tm.send("q")
		tm.waitExit("the program to quit", 10*time.Second)
		t.Fatal("the diff page opened over an archive B")
	}
	got := readFileString(t, errFile)
	code := strings.TrimSpace(readFileString(t, codeFile))
	if !strings.Contains(got, "holds 2 sessions") || code != "2" {
		t.Errorf("stderr %q, exit %q; want a line saying B is an archive, exit 2", got, code)
	}
}

// readFileString is the content of path, or "" when it cannot be read.
func readFileString(t *testing.T, path string) string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestTmuxDiffViewOneSessionArchives: an archive of one session is that
// session's stream on the diff page too, as A and as B.
func TestTmuxDiffViewOneSessionArchives(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	har := filepath.Join(t.TempDir(), "one.har")
	if out, err := exec.Command(bin, "calls", "--sample", "responses-single-call", "--save-har", har).CombinedOutput(); err != nil {
		t.Fatalf("writing the HAR: %v\n%s", err, out)
	}
	for _, args := range []string{
		shellQuote(har) + " --diff sample:gateway-responses-single-call",
		"--sample gateway-responses-single-call --diff " + shellQuote(har),
	} {
		tm := startTmux(t, 160, 40, shellQuote(bin)+" "+args)
		tm.waitFor("the comparison of "+args, 15*time.Second, func(s string) bool { return strings.Contains(s, "2 in all: 1 only-in-") })
		tm.send("q")
		tm.waitExit("q to quit", 10*time.Second)
	}
}

// The sessions list of an archive shows the turn column as the proxy's
// does: "of #1", and "!1" for a call left unanswered.
func TestImportedTurnsInSessionsList(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	for _, tc := range []struct{ name, file, want string }{
		{"answered", fixtures.Import(fixtures.AnthropicTurns), "of #1"},
		{"unanswered", fixtures.UnansweredTurns(t), "of #1 !1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, err := filepath.Abs(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			tm := startTmux(t, 120, 30, shellQuote(bin)+" "+shellQuote(file))
			s := tm.waitFor("the sessions list", importLiveness, func(s string) bool {
				return strings.Contains(s, "2 sessions") && strings.Count(s, "completed") >= 2
			})
			var row string
			for line := range strings.Lines(s) {
				if strings.HasPrefix(strings.TrimSpace(line), "2 POST") {
					row = line
				}
			}
			if !strings.HasSuffix(strings.TrimSpace(row), tc.want) {
				t.Errorf("session 2's row does not end in %q: %q\n%s", tc.want, row, s)
			}
			tm.send("j")
			tm.waitFor("session 2's line", importLiveness, func(s string) bool { return strings.Contains(s, "#2 · answers #1") })
			tm.send("q")
			tm.waitExit("q to quit", importLiveness)
		})
	}
}

// TestTmuxSessionsDiffOneNumbering: m, j, m, d in the sessions list of an
// archive compares its two sessions as the list opens each: the same
// events under the same numbers (the HTTP head #0, message_start #1 on
// both sides, as in session 1's own inspector), and enter opens a side
// with its request pane. Modelled again from their bytes, the sides had an
// event session 1 has not (its head read as SSE) and no request pane.
func TestTmuxSessionsDiffOneNumbering(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	file, err := filepath.Abs(fixtures.Import(fixtures.AnthropicTurns))
	if err != nil {
		t.Fatal(err)
	}
	tm := startTmux(t, 160, 40, shellQuote(bin)+" "+shellQuote(file))
	tm.waitFor("the sessions list", importLiveness, func(s string) bool { return strings.Contains(s, "2 sessions") })
	tm.send("Enter")
	s := tm.waitFor("session 1 in the inspector", importLiveness, func(s string) bool { return strings.Contains(s, "1 timeline") })
	events := ""
	for _, f := range strings.Fields(s) {
		if strings.HasSuffix(f, "events") {
			break
		}
		events = f
	}
	if !strings.Contains(s, "message_start") {
		t.Fatalf("session 1 should show its events:\n%s", s)
	}
	tm.send("Escape")
	tm.waitFor("the list again", importLiveness, func(s string) bool { return strings.Contains(s, "2 sessions") })
	tm.send("g", "m", "j", "m", "d")
	s = tm.waitFor("the diff page", importLiveness, func(s string) bool { return strings.Contains(s, "A #1 POST") && strings.Contains(s, "B #2 POST") })
	if !strings.Contains(s, "· "+events+" events ·") {
		t.Errorf("side A should hold session 1's %s events:\n%s", events, s)
	}
	if rows := rowsWith(s, "message_start"); len(rows) == 0 || strings.Count(rows[0], " 1 message_start") != 2 {
		t.Errorf("message_start should be #1 on both sides, the head #0, as in session 1's inspector:\n%s", s)
	}
	tm.send("Enter")
	s = tm.waitFor("side A's inspector", importLiveness, func(s string) bool {
		return strings.Contains(s, "1 timeline") && strings.Contains(s, "esc back to the diff")
	})
	if !strings.Contains(s, "7 request") {
		t.Errorf("side A's inspector should have the request pane:\n%s", s)
	}
	tm.send("q")
	tm.waitExit("q to quit", importLiveness)
}
