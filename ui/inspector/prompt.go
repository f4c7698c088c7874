package inspector

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/theme"
)

// promptMode says what the bottom line is typing.
type promptMode uint8

const (
	promptNone promptMode = iota
	promptSearch
	promptFilter
	promptGoto
)

// prompt is the one-line input of a search (/), a filter (\) or a go-to
// (:). It is a textinput, so it edits like a shell line (cursor keys,
// ctrl+a/e/u/k/w) and takes pasted text (tea.PasteMsg).
type prompt struct {
	mode promptMode
	in   textinput.Model
}

// newPrompt opens a prompt holding value, the cursor at its end.
func newPrompt(mode promptMode, value string, st *theme.Styles, w int) (prompt, tea.Cmd) {
	p := prompt{mode: mode}
	p.in = NewPromptInput(p.label(), value, st)
	p.setWidth(w)
	return p, p.in.Focus()
}

// NewPromptInput is the input of a prompt labelled label, holding value
// (cleaned) with the cursor at its end: the inspector's prompts and the
// diff page's search edit alike.
func NewPromptInput(label, value string, st *theme.Styles) textinput.Model {
	in := textinput.New()
	in.Prompt = label
	in.SetStyles(st.Prompt)
	// ctrl+v would run a clipboard program; the terminal's own paste
	// arrives as a PasteMsg. Suggestions are not used: tab and the arrows
	// keep their meaning.
	in.KeyMap.Paste.SetEnabled(false)
	in.KeyMap.AcceptSuggestion.SetEnabled(false)
	in.KeyMap.NextSuggestion.SetEnabled(false)
	in.KeyMap.PrevSuggestion.SetEnabled(false)
	in.SetValue(value)
	CleanInput(&in)
	in.CursorEnd()
	return in
}

func (p *prompt) active() bool { return p.mode != promptNone }

// value is the text typed so far.
func (p *prompt) value() string { return p.in.Value() }

// update passes a key or a paste to the input.
func (p *prompt) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	p.in, cmd = p.in.Update(msg)
	CleanInput(&p.in)
	return cmd
}

// CleanInput drops what could act on the terminal from an input's text,
// keeping the cursor where it was among what stays. The input already
// drops control characters; bidi overrides and line separators are not
// control characters but would reorder or break the line.
func CleanInput(in *textinput.Model) {
	v := in.Value()
	if termtext.Safe(v) == v {
		return
	}
	pos := in.Position()
	var b strings.Builder
	kept := 0
	for i, r := range []rune(v) {
		if termtext.Escaped(r) {
			continue
		}
		b.WriteRune(r)
		if i < pos {
			kept++
		}
	}
	in.SetValue(b.String())
	in.SetCursor(kept)
}

func (p *prompt) label() string {
	switch p.mode {
	case promptFilter:
		return `\ `
	case promptGoto:
		return ":"
	}
	return "/"
}

func (p *prompt) hint() string {
	switch p.mode {
	case promptFilter:
		return "kind:args-delta item:fc_1 dialect:anthropic type:… or words · enter apply · esc cancel"
	case promptGoto:
		return "event number · enter go · esc cancel"
	}
	return "types, ids, text, argument content · enter search · esc cancel"
}

// minInput is the narrowest the input gets before the hint gives way.
const minInput = 24

// setWidth sizes the input for a help line w cells wide: the hint goes
// beside it when both fit.
func (p *prompt) setWidth(w int) {
	label := ansi.StringWidth(p.label())
	room := w - label - 1 // one cell for the cursor past the end
	if hint := ansi.StringWidth(p.hint()) + 2; room-hint >= minInput {
		room -= hint
	}
	p.in.SetWidth(max(room, 1))
}

// view renders the prompt line, w cells wide.
func (p *prompt) view(st *theme.Styles, w int) string {
	line := p.in.View()
	if room := w - ansi.StringWidth(line); room >= ansi.StringWidth(p.hint())+2 {
		line += "  " + st.Help.Desc.Render(p.hint())
	}
	return cell.Fit(line, w)
}
