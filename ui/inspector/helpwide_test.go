package inspector

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// TestHelpUsesWidth: the full help lays its groups out in as many columns
// as the width holds, each as short as that allows, instead of stacking
// them into one column as tall as the screen (at 160×45 it did: one
// column of every group, and App beside it). Drawn at 80×24 and 160×45.
func TestHelpUsesWidth(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := goldenModel(t, size[0], size[1])
			press(m, "?")
			out := ansi.Strip(viewOf(m))
			checkFits(t, out, size[0], size[1])
			lines := strings.Split(out, "\n")
			heads := 0
			for _, l := range lines {
				if strings.HasPrefix(l, "Navigate") {
					heads = len(strings.Fields(l))
				}
			}
			if want := 3; heads < want {
				t.Errorf("the row the help's first group heads has %d group names; want at least %d side by side:\n%s", heads, want, out)
			}
			used := 0
			for i, l := range lines {
				if strings.TrimSpace(l) != "" && i < len(lines)-2 {
					used = i + 1
				}
			}
			if size[1] == 45 && used > 20 {
				t.Errorf("the help takes %d of 45 lines: its columns should be shorter, side by side:\n%s", used, out)
			}
			golden.RequireEqual(t, out)
		})
	}
}
