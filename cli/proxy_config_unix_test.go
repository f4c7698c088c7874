//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProxyPassedOverConfig: a .streamtap.yaml another user owns, in the
// directory the proxy starts in, is passed over (never read), and the
// proxy says so in its log before its first line, as check and rules say
// it on stderr (they with --config to read it, which the proxy has not);
// the sessions list keeps it in its status line. The proxy used to pass
// over it without a word.
func TestProxyPassedOverConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil { // the search stops here
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, ".streamtap.yaml")
	if err := os.WriteFile(cfg, []byte("disable: [chat/*]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const other = 4242
	if err := os.Chown(cfg, other, other); err != nil || os.Getuid() == other {
		t.Skipf("cannot give a file to another user here: %v", err)
	}
	t.Chdir(dir)

	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"proxy", "--no-tui", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0"}, nil, io.Discard, pw)
		pw.Close()
	}()
	var head strings.Builder
	br := bufio.NewReader(pr)
	for {
		line, err := br.ReadString('\n')
		head.WriteString(line)
		if strings.Contains(line, "proxy on http://") || err != nil {
			break
		}
	}
	cancel()
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d:\n%s", code, head.String())
	}
	want := "streamtap: passed over the config file " + cfg + ": owned by another user (uid 4242): the proxy grades its sessions without it\n"
	if !strings.HasPrefix(head.String(), want) {
		t.Errorf("the proxy's log starts:\n%s\nwant it to start with:\n%s", head.String(), want)
	}
	o := proxyOptions{passed: []passedFile{{cfg, "owned by another user (uid 4242)"}}}
	if w := tuiWarning(o); w != "passed over config "+cfg+": owned by another user (uid 4242)" {
		t.Errorf("the sessions list's warning = %q", w)
	}

	var stderr bytes.Buffer
	run(t.Context(), []string{"check", "sample:responses-single-call"}, nil, io.Discard, &stderr)
	if want := "streamtap: passed over the config file " + cfg + ": owned by another user (uid 4242): name it with --config to use it\n"; !strings.Contains(stderr.String(), want) {
		t.Errorf("check says:\n%s\nwant:\n%s", stderr.String(), want)
	}
}
