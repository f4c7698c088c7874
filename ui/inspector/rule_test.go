package inspector

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// ruleModel is the inspector on a sample whose item changes its id, with
// the real checks, its findings pane focused.
func ruleModel(t testing.TB, w, h int) *Model {
	t.Helper()
	m := newProgram(newSession(sampleBytes(t, "broken-item-id-changes")), Options{Source: "sample broken-item-id-changes", Checks: StrictChecks})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	press(m, "5")
	return m
}

// TestRuleTextGolden draws a finding's rule text (o in the findings
// pane) at 80×24, where it scrolls, zoomed too, and at 160×45; the
// 160×45 view keeps its styling.
func TestRuleTextGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		w, h int
		keys []string
	}{
		{"80x24", 80, 24, []string{"o"}},
		{"80x24-scrolled", 80, 24, []string{"o", "j", "j", "j"}},
		{"80x24-zoomed", 80, 24, []string{"o", "z"}},
		{"160x45", 160, 45, []string{"o"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := ruleModel(t, c.w, c.h)
			press(m, c.keys...)
			out := viewOf(m)
			checkFits(t, out, c.w, c.h)
			if c.w != 160 {
				out = ansi.Strip(out)
			}
			golden.RequireEqual(t, out)
		})
	}
}

// TestRuleText: o opens the selected finding's rule, its section of
// docs/rules.md under its severity and summary; the navigation keys
// scroll it (never past its end); o again, or esc, goes back to the list
// as it was; a rule the document lacks says so. The help lists o only
// where it works: in the findings pane, with a finding.
func TestRuleText(t *testing.T) {
	t.Parallel()
	m := ruleModel(t, 100, 30)
	if !m.Keys.Inspect.Rule.Enabled() {
		t.Fatal("o is off in the findings pane with a finding")
	}
	list := plainView(m)
	press(m, "o")
	view := plainView(m)
	for _, want := range []string{"rule responses/item-id-changed ─", "error", "an item's id differs", "- **Wire:**", "**Fix:**", "o or esc: back to the findings"} {
		if !strings.Contains(view, want) {
			t.Errorf("the rule text lacks %q:\n%s", want, view)
		}
	}
	press(m, "G")
	end := plainView(m)
	press(m, "j", "j")
	if plainView(m) != end {
		t.Error("j past the end scrolled on")
	}
	press(m, "g")
	if plainView(m) != view {
		t.Error("g did not go back to the top")
	}
	press(m, "o")
	if plainView(m) != list {
		t.Errorf("o again did not go back to the list:\n%s", plainView(m))
	}
	press(m, "o", "esc")
	if plainView(m) != list {
		t.Errorf("esc did not go back to the list:\n%s", plainView(m))
	}
	press(m, "1")
	if m.Keys.Inspect.Rule.Enabled() {
		t.Error("o is on with the timeline focused")
	}

	unknown := func(s *model.Session) []checks.Finding {
		return []checks.Finding{{Severity: checks.Warning, Rule: "demo/no-such-rule", Message: "m", Events: []int{1}}}
	}
	u := newProgram(newSession(sampleBytes(t, goldenSample)), Options{Source: "x", Checks: unknown})
	u.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	press(u, "5", "o")
	if v := plainView(u); !strings.Contains(v, "rule demo/no-such-rule") || !strings.Contains(v, "docs/rules.md has no section on this rule") {
		t.Errorf("an unknown rule:\n%s", v)
	}
}

// TestRuleTextWidths draws the rule text at widths from 20 to 160: no
// line overflows, and the text is all there at any width.
func TestRuleTextWidths(t *testing.T) {
	t.Parallel()
	for _, h := range []int{12, 24} {
		for _, w := range widths(20, 160, 7) {
			m := ruleModel(t, w, h)
			press(m, "o", "z")
			for range 40 {
				out := viewOf(m)
				lines := strings.Split(out, "\n")
				for i, l := range lines {
					if lw := ansi.StringWidth(l); lw > w {
						t.Fatalf("%dx%d: line %d is %d cells: %q", w, h, i, lw, ansi.Strip(l))
					}
				}
				if len(lines) > h {
					t.Fatalf("%dx%d: %d lines", w, h, len(lines))
				}
				press(m, "pgdown")
			}
		}
	}
}
