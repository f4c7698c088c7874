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
