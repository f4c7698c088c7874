package diffview

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/inspector"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/theme"
)

// searchPrompt is the page's / prompt, on the help line. It edits as the
// inspector's prompts do (a textinput: cursor keys, ctrl+a/e/u/k/w, pasted
// text) and keeps nothing that could act on the terminal.
type searchPrompt struct {
	on bool
	in textinput.Model
}

const (
	searchLabel = "/"
	searchHint  = "types, ids, summaries, event text, on both sides · enter search · esc cancel"
	// searchMinInput is the narrowest the input gets before the hint gives
	// way.
	searchMinInput = 24
)

// open starts typing, from value (the search on now), on a help line w
// cells wide.
func (p *searchPrompt) open(st *theme.Styles, value string, w int) tea.Cmd {
	p.on, p.in = true, inspector.NewPromptInput(searchLabel, value, st)
	p.setWidth(w)
	return p.in.Focus()
}

// update edits the prompt with a key or a paste. On enter it closes and
// returns the text typed, with done; on esc it closes with nothing.
func (p *searchPrompt) update(k *keys.Map, msg tea.Msg) (text string, done bool, cmd tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(km, k.Prompt.Cancel):
			*p = searchPrompt{}
			return "", false, nil
		case key.Matches(km, k.Prompt.Accept):
			text = p.in.Value()
			*p = searchPrompt{}
			return text, true, nil
		}
	}
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg:
		p.in, cmd = p.in.Update(msg)
		inspector.CleanInput(&p.in)
	}
	return "", false, cmd
}

// setWidth sizes the input for a help line w cells wide: the hint goes
// beside it when both fit.
func (p *searchPrompt) setWidth(w int) {
	if !p.on {
		return
	}
	room := w - ansi.StringWidth(searchLabel) - 1 // a cell for the cursor past the end
	if hint := ansi.StringWidth(searchHint) + 2; room-hint >= searchMinInput {
		room -= hint
	}
	p.in.SetWidth(max(room, 1))
}

// view draws the prompt line, w cells wide.
func (p *searchPrompt) view(st *theme.Styles, w int) string {
	line := p.in.View()
	if room := w - ansi.StringWidth(line); room >= ansi.StringWidth(searchHint)+2 {
		line += "  " + st.Help.Desc.Render(searchHint)
	}
	return cell.Fit(line, w)
}
