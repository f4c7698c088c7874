package cli

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// archiveFixture is a cassette of two exchanges (see
// capture/testdata/import/README.md for where it comes from).
var archiveFixture = fixtures.Import(fixtures.AnthropicTurns)

// TestDiffRefusesArchive: the last operand of `streamtap diff` is one
// stream (the app's, or B); an archive of several sessions there (a
// cassette, a HAR file) is refused in one line naming the file, exit 2,
// instead of being framed as SSE into events of no data. (An archive of
// several before it is a provider's steps: TestDiffLegs.)
func TestDiffRefusesArchive(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"sample:responses-single-call", archiveFixture},
		{"sample:responses-single-call", "sample:chat-single-call", archiveFixture},
	} {
		code, out, errOut := runDiffArgs(t, nil, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, archiveFixture+" holds 2 sessions") {
			t.Errorf("diff %v = %d, stdout %q, stderr %q; want 2 and a line saying %s is an archive", args, code, out, errOut, archiveFixture)
		}
	}
}
