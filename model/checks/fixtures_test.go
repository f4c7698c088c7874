package checks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// fixtureFindings lists the findings expected on each stream of
// model/testdata (public test-suite recordings, see its README.md), rule
// and events, in report order. Findings name each defect once: a gateway
// that renames an item on every event gets one finding for that item.
//
// The files are read here as plain JSON lines (by content, as a stream
// would be, not by their .chunks.txt name): a last line without its
// newline is then the info finding of framing/unterminated-event.
var fixtureFindings = map[string][]string{
	"gemini-partial-args-nested__vercel-ai.chunks.txt":                   {"framing/unterminated-event [75]"},
	"anthropic-message-start-prepopulated-content__vercel-ai.chunks.txt": nil,
	"responses-copilot-id-rotation__vercel-ai.chunks.txt": {
		"responses/item-id-changed [2 3 4 5 6 7 68]",
		"responses/item-id-changed [8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27]",
		"responses/response-id-changed [0 1 68]", // a warning, after the errors
	},
}

func TestFixtures(t *testing.T) {
	dir := filepath.Join(projectRoot(t), "model", "testdata")
	files, _ := filepath.Glob(filepath.Join(dir, "*.chunks.txt"))
	if len(files) == 0 {
		t.Fatalf("no fixtures in %s", dir)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			want, ok := fixtureFindings[name]
			if !ok {
				t.Fatalf("fixtureFindings has no entry for %s", name)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rep := CheckBytes(data, capture.FormatAuto, Strict)
			var got []string
			for _, f := range rep.Findings {
				got = append(got, fmt.Sprintf("%s %v", f.Rule, f.Events))
			}
			if !slices.Equal(got, want) {
				t.Errorf("findings = %q; want %q", got, want)
				for _, f := range rep.Findings {
					t.Logf("%s %s: %s", f.Severity, f.Rule, f.Message)
				}
			}
		})
	}
}
