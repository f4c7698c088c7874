package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// archiveFixture is a cassette of two exchanges (see
// capture/testdata/import/README.md for where it comes from).
var archiveFixture = filepath.Join("capture", "testdata", "import", "anthropic-text-editor-stream__pydantic-ai.yaml")

// TestDiffRefusesArchive: `streamtap diff` compares two streams; an
// operand that is an archive of several sessions (a cassette, a HAR file)
// is refused in one line naming the file, exit 2, whichever side it is,
// instead of being framed as SSE into events of no data.
func TestDiffRefusesArchive(t *testing.T) {
	for _, args := range [][]string{
		{"sample:responses-single-call", archiveFixture},
		{archiveFixture, "sample:responses-single-call"},
	} {
		code, out, errOut := runDiffArgs(t, nil, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, archiveFixture+" holds 2 sessions") {
			t.Errorf("diff %v = %d, stdout %q, stderr %q; want 2 and a line saying %s is an archive", args, code, out, errOut, archiveFixture)
		}
	}
}

// TestTmuxDiffViewRefusesArchiveB: on a terminal, `streamtap A --diff B`
// refuses a B that is an archive of several sessions before the page
// opens, in one line, exit 2, as it refuses such an A.
func TestTmuxDiffViewRefusesArchiveB(t *testing.T) {
	t.Parallel() // a tmux server of its own; waiting, mostly
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
	t.Parallel() // a tmux server of its own; waiting, mostly
	bin := builtBinary(t)
	har := filepath.Join(t.TempDir(), "one.har")
	if code := run(t.Context(), []string{"calls", "--sample", "responses-single-call", "--save-har", har}, os.Stdin, io.Discard, io.Discard); code != 0 {
		t.Fatalf("writing the HAR: exit %d", code)
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
