package sessions

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/theme"
)

// Triage: `/` keeps the sessions whose path, status, model, dialect,
// outcome or a finding's rule contains every word typed, and `s` orders
// the list by findings, worst first. Both make a view of the list
// (Page.shown); the cursor indexes that view, and stays on its session
// when the view changes.

// listView is how the list is narrowed and ordered.
type listView struct {
	query      string // the applied filter; "" shows every session
	byFindings bool   // worst findings first, then by id
	typing     bool   // the filter prompt is open
	before     string // the query the open prompt replaces, restored by esc
	in         textinput.Model
}

// active says the list shows a view, not every session in id order.
func (v *listView) active() bool { return v.query != "" || v.byFindings }

// list is what the list shows: the view when one is active.
func (sp *Page) list() []*proxied {
	if sp.view.active() {
		return sp.shown
	}
	return sp.px
}

// reshape rebuilds the view after the sessions, their findings, the
// filter or the order changed, keeping the cursor on sel (the newest
// when following). It costs O(sessions), and runs only while a view is
// active.
func (sp *Page) reshape(sel *proxied) {
	if !sp.view.active() {
		sp.shown = nil
		sp.sl.cursor = max(slices.Index(sp.px, sel), 0)
		if sp.sl.follow {
			sp.sl.cursor = len(sp.px) - 1
		}
		sp.sl.clampTo(len(sp.px))
		return
	}
	words := strings.Fields(strings.ToLower(sp.view.query))
	sp.shown = sp.shown[:0]
	for _, ps := range sp.px {
		if ps.matches(words, sp.Opts.KeepSecrets) {
			sp.shown = append(sp.shown, ps)
		}
	}
	if sp.view.byFindings {
		slices.SortStableFunc(sp.shown, func(a, b *proxied) int {
			for s := theme.SevError; s > theme.SevNone; s-- {
				if d := b.findings[s] - a.findings[s]; d != 0 {
					return d
				}
			}
			return a.info.ID - b.info.ID
		})
	}
	sp.sl.cursor = max(slices.Index(sp.shown, sel), 0)
	if sp.sl.follow && !sp.view.byFindings {
		sp.sl.cursor = len(sp.shown) - 1
	}
	sp.sl.clampTo(len(sp.shown))
}

// matches says whether every word is in one of the row's fields: path,
// status, model, dialect (short or full name), outcome, or the rule id of
// one of its findings.
func (p *proxied) matches(words []string, keepSecrets bool) bool {
	if len(words) == 0 {
		return true
	}
	path := p.info.Path
	if !keepSecrets {
		path = capture.RedactURL(path)
	}
	fields := []string{path, strconv.Itoa(p.info.Status), p.info.Model, p.info.Outcome}
	if p.dialect != 0 {
		fields = append(fields, p.dialect.Info().Short, p.dialect.String())
	}
	if p.info.Request != nil && p.info.Request.RPC != "" {
		fields = append(fields, p.info.Request.RPC) // what an MCP request calls: "tools/call add"
	}
	fields = append(fields, p.rules...)
	for _, w := range words {
		if !slices.ContainsFunc(fields, func(f string) bool { return strings.Contains(strings.ToLower(f), w) }) {
			return false
		}
	}
	return true
}

// openFilter opens the filter prompt holding the applied filter.
func (sp *Page) openFilter() tea.Cmd {
	in := textinput.New()
	in.Prompt = "/"
	in.SetStyles(sp.Styles.Prompt)
	in.KeyMap.Paste.SetEnabled(false)
	in.KeyMap.AcceptSuggestion.SetEnabled(false)
	in.KeyMap.NextSuggestion.SetEnabled(false)
	in.KeyMap.PrevSuggestion.SetEnabled(false)
	in.SetValue(sp.view.query)
	in.CursorEnd()
	in.SetWidth(max(sp.w-len(filterHint)-4, 8))
	sp.view.in, sp.view.typing, sp.view.before = in, true, sp.view.query
	return sp.view.in.Focus()
}

const filterHint = "path, status, model, dialect, outcome or rule · enter apply · esc cancel"

// filterKey edits the filter: the list narrows as it is typed, enter
// keeps it, esc puts back the one before.
func (sp *Page) filterKey(msg tea.Msg) tea.Cmd {
	sel := sp.selectedSession()
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, sp.Keys.Prompt.Accept):
			sp.view.typing = false
			return nil
		case key.Matches(k, sp.Keys.Prompt.Cancel):
			sp.view.typing = false
			sp.view.query = sp.view.before
			sp.reshape(sel)
			return nil
		}
	}
	var cmd tea.Cmd
	sp.view.in, cmd = sp.view.in.Update(msg)
	if v := sp.view.in.Value(); termtext.Safe(v) != v {
		sp.view.in.SetValue(strings.Map(func(r rune) rune {
			if termtext.Escaped(r) {
				return -1
			}
			return r
		}, v))
	}
	sp.view.query = sp.view.in.Value()
	sp.reshape(sel)
	return cmd
}

// filterLine is the help line while the filter is typed.
func (sp *Page) filterLine() string {
	line := sp.view.in.View()
	if sp.w-ansi.StringWidth(line) >= len(filterHint)+2 {
		line += "  " + sp.Styles.Help.Desc.Render(filterHint)
	}
	return cell.Fit(line, sp.w)
}

// viewNote names the view in the list's title: the filter and the order.
func (v *listView) note() string {
	var parts []string
	if v.query != "" {
		parts = append(parts, "/"+termtext.Safe(v.query))
	}
	if v.byFindings {
		parts = append(parts, "by findings")
	}
	return strings.Join(parts, " · ")
}
