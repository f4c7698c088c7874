package inspector

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/theme"
)

// GotoPrompt is the go-to prompt (:N) of a page that shows timelines
// without being an inspector: the diff page, whose sides are timelines
// too. It edits as the inspector's prompts do.
type GotoPrompt struct{ p prompt }

// Open starts typing an event number on a help line w cells wide.
func (g *GotoPrompt) Open(st *theme.Styles, w int) tea.Cmd {
	var cmd tea.Cmd
	g.p, cmd = newPrompt(promptGoto, "", st, w)
	return cmd
}

// Active says the prompt is open: it takes every key.
func (g *GotoPrompt) Active() bool { return g.p.active() }

// SetWidth sizes the prompt for a help line w cells wide.
func (g *GotoPrompt) SetWidth(w int) {
	if g.p.active() {
		g.p.setWidth(w)
	}
}

// View draws the prompt line, w cells wide.
func (g *GotoPrompt) View(st *theme.Styles, w int) string { return g.p.view(st, w) }

// Update edits the prompt with a key or a paste. On enter it closes and
// returns the text typed, with done; on esc it closes with nothing.
func (g *GotoPrompt) Update(k *keys.Map, msg tea.Msg) (text string, done bool, cmd tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(km, k.Prompt.Cancel):
			g.p = prompt{}
			return "", false, nil
		case key.Matches(km, k.Prompt.Accept):
			text = g.p.value()
			g.p = prompt{}
			return text, true, nil
		}
	}
	return "", false, g.p.update(msg)
}

// ParseEvent reads the event number typed at a :N prompt for a stream of
// n events: the number, or what to say about the text ("" when nothing
// was typed).
func ParseEvent(text string, n int) (int, string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return -1, ""
	}
	ord, err := strconv.Atoi(text)
	switch {
	case err != nil || ord < 0:
		return -1, fmt.Sprintf("not an event number: %q", termtext.Safe(text))
	case n == 0:
		return -1, "no events yet"
	case ord >= n:
		return -1, fmt.Sprintf("no event %d: events are numbered 0 to %d", ord, n-1)
	}
	return ord, ""
}
