package inspector

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/samples"
)

// TestEveryEventEveryPane selects every event of every sample (and of the
// real captures beside the project, when present) and draws every pane,
// pretty and raw, checking that nothing panics or overflows.
func TestEveryEventEveryPane(t *testing.T) {
	t.Parallel()
	streams := map[string][]byte{}
	for _, s := range samples.List() {
		streams[s.Name] = sampleBytes(t, s.Name)
	}
	if files := fixtures.SharedGlob("captures/*.sse"); len(files) > 0 && !testing.Short() {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			streams["capture "+filepath.Base(f)] = b
		}
	}
	for name, data := range streams {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sizes := [][2]int{{60, 15}, {150, 45}}
			if testing.Short() {
				sizes = sizes[:1] // the narrow one, where overflow shows first
			}
			for _, size := range sizes {
				m := newProgram(newSession(data), Options{Source: name})
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				for ord := range m.insp.s.Len() {
					m.insp.tl.SelectOrd(ord)
					for _, keys := range [][]string{{"3"}, {"2"}, {"r"}, {"r", "4"}, {"5"}} {
						press(m, keys...)
						out := viewOf(m)
						lines := strings.Split(out, "\n")
						if len(lines) != size[1] {
							t.Fatalf("event %d %v: %d lines; want %d", ord, keys, len(lines), size[1])
						}
						checkFits(t, out, size[0], size[1])
					}
				}
			}
		})
	}
}
