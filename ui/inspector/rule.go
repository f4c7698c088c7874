package inspector

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/docs"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// ruleView is the text of a finding's rule the findings pane shows in
// place of the list (o, again or esc to close): its section of
// docs/rules.md, embedded in the binary, as `streamtap rules ID` prints
// it, so the reason and the fix are a key away from the finding.
type ruleView struct {
	id    string   // the rule shown; "" when the list shows
	lines []string // laid out for width w
	w     int
	top   int // the first line shown
}

// open shows rule id's text.
func (r *ruleView) open(id string) { *r = ruleView{id: id, w: -1} }

// close goes back to the list.
func (r *ruleView) close() { *r = ruleView{} }

// shown says whether a rule's text is shown.
func (r *ruleView) shown() bool { return r.id != "" }

// scroll moves the text by delta lines in a view w×h.
func (r *ruleView) scroll(st *theme.Styles, delta, w, h int) {
	r.layout(st, w)
	r.top = cell.Clamp(r.top+delta, 0, max(len(r.lines)-max(h-1, 1), 0))
}

// layout lays the rule's text out for width w (once per width): a rule
// naming it, its severity and summary as `streamtap rules` lists them,
// then its section, word-wrapped, list items under their bullet.
func (r *ruleView) layout(st *theme.Styles, w int) {
	if r.w == w {
		return
	}
	r.w = w
	id := termtext.Safe(r.id)
	head := st.Muted.Render("rule ") + st.Accent.Render(id)
	if rest := w - ansi.StringWidth("rule "+id); rest >= 2 {
		head += st.Muted.Render(" " + strings.Repeat("─", rest-1))
	}
	r.lines = []string{cell.Fit(head, w)}
	wrap := func(text, first, indent string, style func(...string) string) {
		for i, l := range plain.WrapWords(termtext.Safe(text), max(w-ansi.StringWidth(first), 1)) {
			lead := indent
			if i == 0 {
				lead = first
			}
			r.lines = append(r.lines, lead+style(l))
		}
	}
	if rule, ok := ruleOf(r.id); ok {
		sev := rule.Severity.String()
		if rule.Tolerant != rule.Severity {
			sev += " (tolerant: " + rule.Tolerant.String() + ")"
		}
		wrap(sev, "", "", st.Calls.Header.Render)
		wrap(rule.Summary, "", "", st.Base.Render)
		r.lines = append(r.lines, "")
	}
	sec, ok := docs.RuleSection(r.id)
	if !ok {
		wrap("docs/rules.md has no section on this rule in this build", "", "", st.Muted.Render)
		return
	}
	_, body, _ := strings.Cut(sec, "\n") // the heading is the rule line above
	fenced := false
	for line := range strings.Lines(strings.TrimSpace(body)) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
		case fenced:
			r.lines = append(r.lines, cell.Fit(st.Muted.Render(termtext.Safe(line)), w))
		case strings.TrimSpace(line) == "":
			if n := len(r.lines); n > 0 && r.lines[n-1] != "" {
				r.lines = append(r.lines, "")
			}
		case strings.HasPrefix(line, "#"):
			wrap(strings.TrimLeft(line, "# "), "", "", st.Calls.Header.Render)
		case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "):
			wrap(line[2:], "- ", "  ", st.Base.Render)
		default:
			wrap(line, "", "", st.Base.Render)
		}
	}
	r.lines = append([]string{r.lines[0], ""}, r.lines[1:]...)
}

// ruleOf finds rule id among the registered rules.
func ruleOf(id string) (checks.Rule, bool) {
	for _, r := range checks.Rules() {
		if r.ID == id {
			return r, true
		}
	}
	return checks.Rule{}, false
}

// view draws the text in w×h: its lines from top, and on the last line
// how to scroll and close it.
func (r *ruleView) view(st *theme.Styles, w, h int) string {
	r.layout(st, w)
	body := max(h-1, 1)
	r.top = cell.Clamp(r.top, 0, max(len(r.lines)-body, 0))
	shown := r.lines[r.top:min(r.top+body, len(r.lines))]
	foot := "o or esc: back to the findings"
	if len(r.lines) > body {
		foot = fmt.Sprintf("lines %d-%d of %d · j/k scroll · %s", r.top+1, r.top+len(shown), len(r.lines), foot)
	}
	out := append(append([]string(nil), shown...), st.Muted.Render(foot))
	if h == 1 {
		out = shown
	}
	return strings.Join(cell.Block(out, w, h), "\n")
}
